//! "Did you mean ...?" for unknown attribute keys.

/// The candidate closest to `unknown`, if one is close enough to be a likely typo.
///
/// Case, `_` and `-` are ignored first (`readOnly` and `read-only` both find
/// `read_only`); otherwise the edit distance must be at most a third of the
/// word's length.
pub fn closest<'a>(
    unknown: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let folded = fold(unknown);
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let distance = if fold(candidate) == folded {
            0
        } else {
            levenshtein(&folded, &fold(candidate))
        };
        if best.is_none_or(|(best_distance, _)| distance < best_distance) {
            best = Some((distance, candidate));
        }
    }
    let (distance, candidate) = best?;
    let limit = (folded.chars().count().max(3)) / 3;
    (distance <= limit).then_some(candidate)
}

/// ` (did you mean `x`?)`, or nothing.
pub fn did_you_mean<'a>(unknown: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(unknown, candidates) {
        Some(candidate) => format!("; did you mean `{candidate}`?"),
        None => String::new(),
    }
}

fn fold(word: &str) -> String {
    word.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const HINTS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

    #[test]
    fn typos_and_other_casings_find_the_key() {
        assert_eq!(closest("readonly", HINTS), Some("read_only"));
        assert_eq!(closest("readOnly", HINTS), Some("read_only"));
        assert_eq!(closest("destrutive", HINTS), Some("destructive"));
        assert_eq!(closest("idempotnet", HINTS), Some("idempotent"));
        assert_eq!(closest("open-world", HINTS), Some("open_world"));
    }

    #[test]
    fn unrelated_words_find_nothing() {
        assert_eq!(closest("colour", HINTS), None);
        assert_eq!(closest("x", HINTS), None);
        assert_eq!(did_you_mean("banana", HINTS), "");
    }

    #[test]
    fn distance_counts_edits() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
    }
}
