//! The patterns of one field, compiled once into one `regex::RegexSet`.

use std::sync::OnceLock;

use regex::{RegexSet, SetMatches};

use super::Tri;
use super::path::{PathKind, normalize_path};

/// Every pattern the rules of a tool test one field against (`matches` and
/// `matches_template`), compiled on first use into one [`RegexSet`], so one
/// pass over the value answers all of them and the cost of a call does not
/// grow with the number of patterns.
///
/// Generated code holds one in a `static`; the macro has already compiled each
/// pattern, and the whole set, with the same `regex` crate.
///
/// ```
/// use annot_runtime::rules::PatternSet;
///
/// static PATHS: PatternSet = PatternSet::new(&["^/etc(/|$)", "^/root(/|$)", r"\.key$"]);
/// let found = PATHS.matches("/etc/ssl/server.key");
/// assert!(found.matched(0) && !found.matched(1) && found.matched(2));
/// assert!(!PATHS.matches("notes.txt").matched(0));
/// ```
pub struct PatternSet {
    patterns: &'static [&'static str],
    compiled: OnceLock<RegexSet>,
}

impl PatternSet {
    /// A set of these patterns, compiled on first use.
    pub const fn new(patterns: &'static [&'static str]) -> Self {
        PatternSet {
            patterns,
            compiled: OnceLock::new(),
        }
    }

    /// The patterns, in the order [`Matches::matched`] numbers them.
    pub fn patterns(&self) -> &'static [&'static str] {
        self.patterns
    }

    fn compiled(&self) -> &RegexSet {
        self.compiled.get_or_init(|| {
            // The macro built this very set at compile time with the same crate
            // and limits, so it cannot fail here.
            RegexSet::new(self.patterns).unwrap_or_else(|error| {
                panic!("a rule's patterns were checked by the macro: {error}")
            })
        })
    }

    /// Which patterns match `haystack` (an unanchored search, as
    /// [`regex::Regex::is_match`]).
    pub fn matches(&self, haystack: &str) -> Matches {
        let set = self.compiled();
        if set.len() == 1 {
            // One pattern needs no set of results: no allocation.
            Matches::One(set.is_match(haystack))
        } else {
            Matches::Many(set.matches(haystack))
        }
    }

    /// Which patterns match the normal form of `value` read as a path of
    /// `kind`; `None` when that form is undecided (see
    /// [`normalize_path`](super::normalize_path)).
    ///
    /// ```
    /// use annot_runtime::rules::{PathKind, PatternSet};
    ///
    /// static SYSTEM: PatternSet = PatternSet::new(&["^/etc(/|$)"]);
    /// assert!(SYSTEM.matches_path("/home/../etc/shadow", PathKind::File).unwrap().matched(0));
    /// assert!(SYSTEM.matches_path("/etc/../..", PathKind::File).is_none());
    /// ```
    pub fn matches_path(&self, value: &str, kind: PathKind) -> Option<Matches> {
        normalize_path(value, kind).map(|normal| self.matches(&normal))
    }
}

/// Whether pattern `index` matched, with an undecided path (`None`) undecided.
pub fn pattern_tri(found: &Option<Matches>, index: usize) -> Tri {
    match found {
        Some(found) => Tri::from_bool(found.matched(index)),
        None => Tri::Maybe,
    }
}

impl core::fmt::Debug for PatternSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PatternSet")
            .field("patterns", &self.patterns)
            .finish_non_exhaustive()
    }
}

/// The patterns of a [`PatternSet`] that matched one value.
#[derive(Clone, Debug)]
pub enum Matches {
    /// A set of one pattern: whether it matched.
    One(bool),
    /// A set of several.
    Many(SetMatches),
}

impl Matches {
    /// Whether pattern `index` matched; `false` for an index past the end.
    pub fn matched(&self, index: usize) -> bool {
        match self {
            Matches::One(matched) => index == 0 && *matched,
            Matches::Many(matches) => index < matches.len() && matches.matched(index),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_answers_every_pattern() {
        static SET: PatternSet = PatternSet::new(&["^a", "b$", "(?i)^\\s*select\\b"]);
        let found = SET.matches("  SELECT b");
        assert!(!found.matched(0) && found.matched(1) && found.matched(2));
        assert!(!found.matched(3));
        assert_eq!(SET.patterns().len(), 3);
    }

    #[test]
    fn a_single_pattern_is_a_plain_match() {
        static ONE: PatternSet = PatternSet::new(&["^/etc"]);
        assert!(matches!(ONE.matches("/etc/passwd"), Matches::One(true)));
        assert!(!ONE.matches("/home").matched(0));
        assert!(!ONE.matches("/etc").matched(1));
    }
}
