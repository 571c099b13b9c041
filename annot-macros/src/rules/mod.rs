//! Rules on argument values: `when(<predicate>) => (<hints>)` in
//! `#[mcp_tool(...)]` and `#[annotate(...)]`, the macro's front end of the
//! rule language, in each phase.
//!
//! The language itself (the predicate's syntax tree, its parser, its checks
//! against typed fields, the pattern sets) is the `annot-rules` crate's,
//! shared with rules written as text. Here: the rule as the model holds it
//! (this module); `from_attribute` reads a rule from an attribute (with its
//! `results(...)`) for the first phase; the second phase describes the
//! tool's fields to the language's checks in `check::rules`; and the
//! third generates the evaluation and the static bound: `generate` (the
//! tables and the owned evaluation), `predicate_code` (one rule's test),
//! `struct_shapes` (the two struct shapes), `borrowing_evaluation` (the
//! path that reads borrowed values from the request) and `dfa_builder`
//! (each field's patterns as one DFA, built at compile time).

mod borrowing_evaluation;
mod dfa_builder;
#[cfg(test)]
mod dfa_builder_tests;
mod from_attribute;
mod generate;
mod predicate_code;
mod struct_shapes;
#[cfg(test)]
mod tests;

use core::fmt;

use proc_macro2::Span;

use crate::internals::hints::{HINTS, HintSet, HintValue, READ_ONLY, is_write_only};
use crate::internals::result_claims::ResultClaims;
pub use annot_rules::check::Place;
pub use annot_rules::patterns::FieldPatterns;
pub use annot_rules::{AuthSpec, Comparison, Haystack, Literal, Predicate, SqlTest, Test};

pub use from_attribute::{parse_auth, parse_rule};
pub use generate::{RulesCode, generate};

/// A rule that passed the checks, with its place among the tool's rules.
pub struct CheckedRule {
    pub index: usize,
    pub rule: Rule,
    /// Whether it applies to each variant (shape a); all true for shape b.
    pub applies: Vec<bool>,
    /// The normalised source text.
    pub source: String,
}

/// What the checks found, for code generation.
#[derive(Default)]
pub struct Checked {
    pub rules: Vec<CheckedRule>,
    pub patterns: Vec<FieldPatterns>,
    /// Every scope named, in order of first appearance (bit `i` is `scopes[i]`).
    pub scopes: Vec<String>,
    /// Whether the tool declares authorization anywhere.
    pub uses_auth: bool,
}

impl Checked {
    /// The bit of a scope in the table.
    pub fn scope_bit(&self, scope: &str) -> u64 {
        let index = self
            .scopes
            .iter()
            .position(|known| known == scope)
            .expect("checked: every scope is in the table");
        1 << index
    }

    /// The set and position of a `matches`/`matches_template` test of `field`.
    pub fn pattern(&self, field: &str, test: &Test) -> Option<(usize, usize)> {
        annot_rules::patterns::find_pattern(&self.patterns, field, test)
    }
}

/// One rule as written.
#[derive(Clone)]
pub struct Rule {
    /// The `when` keyword.
    pub span: Span,
    pub predicate: Predicate,
    /// The hints the rule sets.
    pub hints: HintSet,
    /// The authorization the rule sets.
    pub auth: Option<AuthSpec>,
    /// What the results of a call it fires on claim: `results(...)`.
    pub results: Option<ResultClaims>,
}

impl Rule {
    /// The hints the rule sets that only mean something for writes, when it
    /// does not also turn `read_only` off: on a read-only action they are dead.
    pub fn write_only_hints(&self) -> Vec<(&'static str, Span)> {
        let turns_read_only_off = matches!(
            self.hints.values[READ_ONLY],
            Some(HintValue { value: false, .. })
        );
        if turns_read_only_off {
            return Vec::new();
        }
        (0..HINTS.len())
            .filter(|&index| is_write_only(index))
            .filter_map(|index| {
                let value = self.hints.values[index]?;
                Some((HINTS[index].key, value.span))
            })
            .collect()
    }
}

/// The rule as its source text: `when(<predicate>) => (<hints>)`, normalised
/// (hints, then authorization, then `results(...)`).
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&annot_rules::syntax::rule_source(
            &self.predicate,
            &self.hints.values,
            self.auth.as_ref(),
            self.results.as_ref().map(ToString::to_string),
        ))
    }
}
