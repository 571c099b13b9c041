//! Rules on argument values: what they are at run time, how the rules that fire
//! on a call decide its annotations, and how that decision is explained.
//!
//! The rules themselves are written in `#[mcp_tool(...)]` and `#[annotate(...)]`
//! (see the `annot` facade's `mcp_tool` documentation for the grammar) and
//! compiled by the macro; this module holds what the generated code runs and
//! what it reports.
//!
//! # Semantics
//!
//! A call's annotations are its action's annotations (the action's own hints,
//! then the tool's defaults for the hints it leaves unset) with, for each hint
//! that at least one *firing* rule names, that hint set to the join of the
//! firing rules' values ([`Hint::join`](crate::Hint::join): the riskier value
//! wins), then [`Annotations::effective`]. Order never matters. The
//! authorization of a call follows the same scheme, the join being the union
//! of scopes.
//!
//! A predicate is three-valued: besides holding or not, it is *undecided*
//! when a path it tests has no safe normal form (see [`normalize_path`]).
//! `all`, `any` and `not` follow Kleene's logic (`all` with one false part
//! is false, `any` with one true part is true, `not` of undecided is
//! undecided). A rule whose predicate is undecided never lowers risk: for
//! each hint it names, its value is joined with the value the hint has
//! without it (the decided rules' join, or the action's), so the call is as
//! risky as the riskier of "fires" and "does not fire".
//!
//! When a rule turns a read-only action's `read_only` off, the hints that
//! only mean something for writes (`destructive`, `idempotent`,
//! `reversible`) that no firing rule sets take the values an action declared
//! `read_only = false` would have: the tool's defaults, then the
//! specification's. See
//! [`action_base`](annot_model::action_base). This precedence, like the lattice,
//! is defined once in `annot-model`, which the macro uses too.
//!
//! The static worst case of an action (its [`Action::annotations`](crate::Action))
//! joins its own annotations with every rule that can fire on it, so every
//! resolution is within it by construction; a rule that is certain to fire on
//! an action (a test of the discriminator) replaces the action's value of the
//! hints it names instead of being joined with it.

mod authorization;
// What the code `#[mcp_tool]` generates runs (the tables, the pattern sets,
// the three-valued logic and the static bounds): reached through
// `annot::__private`, not part of the public API.
pub(crate) mod bound;
pub(crate) mod dfa;
pub(crate) mod explain;
mod path;
pub(crate) mod patterns;
mod prefilter;
pub mod sql;
pub(crate) mod table;
#[cfg(feature = "rule-text")]
pub mod text;

pub use authorization::{Authorization, Scopes};
pub use explain::{Explanation, HintExplanation, Source};
pub use path::{NormalPath, PathKind, normalize_path};

pub(crate) use bound::Tri;

use crate::Annotations;

/// One rule of a tool, as compiled by `#[mcp_tool]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    /// Its position among the tool's rules: those of `#[mcp_tool(...)]` first,
    /// then each action's, in declaration order.
    pub index: usize,
    /// The rule as written, normalised:
    /// `when(path matches "^/etc(/|$)") => (privileged_access, sensitive_data)`.
    pub source: &'static str,
    /// The hints the rule sets; a hint it does not name is `None`.
    pub hints: Annotations,
    /// The authorization the rule sets, if it names one.
    pub authorization: Option<Authorization>,
}

#[cfg(test)]
mod tests;
