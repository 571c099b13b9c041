//! The patterns of each field: the regexes of its `matches`, `path_matches`
//! and `matches_template` tests, which must compile together as one set (one
//! set per field and haystack, searched in one pass at run time).

use proc_macro2::Span;

use crate::errors::Errors;
use crate::syntax::{Haystack, Predicate, Test};
use crate::template::template_regex;

/// The patterns every rule tests one field against, read one way (raw, as
/// a file path, as a URL path): one `RegexSet`.
#[derive(Clone, Debug)]
pub struct FieldPatterns {
    pub field: String,
    pub haystack: Haystack,
    pub regexes: Vec<String>,
}

/// The regex of a `matches`, `path_matches` or `matches_template` test.
pub fn pattern_regex(test: &Test) -> Option<Result<String, String>> {
    match test {
        Test::Matches(lit) | Test::PathMatches(lit) => Some(Ok(lit.value())),
        Test::MatchesTemplate(lit) => Some(template_regex(&lit.value())),
        _ => None,
    }
}

/// Adds the patterns of `predicate` to the sets of their fields, each once.
pub fn collect_patterns(predicate: &Predicate, sets: &mut Vec<FieldPatterns>) {
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            for part in parts {
                collect_patterns(part, sets);
            }
        }
        Predicate::Not(inner) => collect_patterns(inner, sets),
        Predicate::Some(_) => {}
        Predicate::Test(field, test) => {
            let (Some(Ok(regex)), Some(haystack)) = (pattern_regex(test), test.haystack()) else {
                return;
            };
            if regex::Regex::new(&regex).is_err() {
                return; // reported by check_test
            }
            let found = sets
                .iter_mut()
                .position(|set| set.field == field.name && set.haystack == haystack);
            let set = match found {
                Some(index) => &mut sets[index],
                None => {
                    sets.push(FieldPatterns {
                        field: field.name.clone(),
                        haystack,
                        regexes: Vec::new(),
                    });
                    sets.last_mut().expect("just pushed")
                }
            };
            if !set.regexes.contains(&regex) {
                set.regexes.push(regex);
            }
        }
    }
}

/// Each field's patterns together must compile as one set, as at run time;
/// a set that does not is reported on the first field of `predicates` it
/// belongs to.
pub fn check_pattern_sets<'a>(
    sets: &[FieldPatterns],
    predicates: impl Iterator<Item = &'a Predicate> + Clone,
    errors: &Errors,
) {
    for set in sets {
        if let Err(problem) = regex::RegexSet::new(&set.regexes) {
            let span = predicates
                .clone()
                .flat_map(Predicate::fields)
                .find(|field| field.name == set.field)
                .map_or_else(Span::call_site, |field| field.span);
            errors.at(
                span,
                format!(
                    "the patterns of `{}` do not compile together: {problem}",
                    set.field
                ),
            );
        }
    }
}

/// The set and position of a pattern test of `field`.
pub fn find_pattern(sets: &[FieldPatterns], field: &str, test: &Test) -> Option<(usize, usize)> {
    let regex = pattern_regex(test)?.ok()?;
    let haystack = test.haystack()?;
    let set = sets
        .iter()
        .position(|set| set.field == field && set.haystack == haystack)?;
    let position = sets[set].regexes.iter().position(|r| *r == regex)?;
    Some((set, position))
}
