//! The patterns of each field: the regexes of its `matches` and
//! `matches_template` tests, which must compile together as one set.

use proc_macro2::Span;

use super::template::template_regex;
use super::{Checked, FieldPatterns};
use super::{Predicate, Test};
use crate::ctxt::Errors;

/// The regex of a `matches`, `path_matches` or `matches_template` test.
pub fn pattern_regex(test: &Test) -> Option<Result<String, String>> {
    match test {
        Test::Matches(lit) | Test::PathMatches(lit) => Some(Ok(lit.value())),
        Test::MatchesTemplate(lit) => Some(template_regex(&lit.value())),
        _ => None,
    }
}

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

/// Each field's patterns together must compile as one set, as at run time.
pub fn check_pattern_sets(checked: &Checked, errors: &Errors) {
    for set in &checked.patterns {
        if let Err(problem) = regex::RegexSet::new(&set.regexes) {
            let span = checked
                .rules
                .iter()
                .flat_map(|rule| rule.rule.predicate.fields())
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

impl Checked {
    /// The set and position of a `matches`/`matches_template` test of `field`.
    pub fn pattern(&self, field: &str, test: &Test) -> Option<(usize, usize)> {
        let regex = pattern_regex(test)?.ok()?;
        let haystack = test.haystack()?;
        let set = self
            .patterns
            .iter()
            .position(|set| set.field == field && set.haystack == haystack)?;
        let position = self.patterns[set]
            .regexes
            .iter()
            .position(|r| *r == regex)?;
        Some((set, position))
    }
}
