//! Rules on argument values: `when(<predicate>) => (<hints>)` in
//! `#[mcp_tool(...)]` and `#[annotate(...)]`.
//!
//! The language itself (the predicate's syntax tree, its parser, its checks
//! against typed fields, the pattern sets) is the `annot-rules` crate's,
//! shared with rules written as text. Here: `parse` reads a rule from an
//! attribute (with its `results(...)`), `check` describes the tool's fields
//! to the language's checks and adds what only a Rust item has, `expand`
//! generates the evaluation and the static bound.

mod check;
mod code;
mod dfa;
#[cfg(test)]
mod dfa_tests;
mod expand;
mod parse;
mod patterns;
mod scopes;
mod struct_shape;
#[cfg(test)]
mod tests;
mod view;

use core::fmt;

use proc_macro2::Span;

use crate::hints::HintSet;
use crate::results::ResultClaims;
pub use annot_rules::check::Place;
pub use annot_rules::patterns::FieldPatterns;
pub use annot_rules::{AuthSpec, Comparison, Haystack, Literal, Predicate, SqlTest, Test};

pub use check::{check_actions_enum, check_tool};
pub use expand::{RulesCode, generate};
pub use parse::{parse_auth, parse_rule};

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
