//! The patterns of each field, as the rule language collects them
//! (`annot_rules::patterns`), looked up by the code generation.

use super::{Checked, Test};
use crate::ctxt::Errors;
pub use annot_rules::patterns::collect_patterns;

/// Each field's patterns together must compile as one set, as at run time.
pub fn check_pattern_sets(checked: &Checked, errors: &Errors) {
    let predicates = checked.rules.iter().map(|rule| &rule.rule.predicate);
    annot_rules::patterns::check_pattern_sets(&checked.patterns, predicates, errors);
}

impl Checked {
    /// The set and position of a `matches`/`matches_template` test of `field`.
    pub fn pattern(&self, field: &str, test: &Test) -> Option<(usize, usize)> {
        annot_rules::patterns::find_pattern(&self.patterns, field, test)
    }
}
