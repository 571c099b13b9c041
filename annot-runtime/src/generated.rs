//! What `#[mcp_tool]` generates for a tool beside the items of its
//! [`AnnotatedTool`](crate::AnnotatedTool) impl that a user calls: the
//! compiled rules and the fast paths the runtime takes. The macro's contract
//! with the runtime, not the user's: hidden, reached through
//! `annot::__private`, and listed in `tests/public-api.txt` like the public
//! API, so that a change to it shows in review.

use crate::ArgumentError;
use crate::read::SplitArguments;
use crate::rules::patterns::PatternSet;
use crate::rules::table::{Outcome, RuleTable};
use crate::trust::TrustClaims;

/// The code `#[mcp_tool]` generates for the tool `T` that only the runtime
/// calls, as `T`'s hidden `AnnotatedTool::GENERATED`.
///
/// A table of function pointers rather than a trait, so that the runtime
/// reaches it from an `AnnotatedTool` bound alone (a tool written by hand
/// implements that trait only, and gets
/// [`hand_written`](Generated::hand_written), read from its
/// `AnnotatedTool` items). The table is a constant: each call through it is
/// a direct call once compiled, inlined as a trait method would be.
///
/// Every path it gives answers as the owned path (`from_arguments_str`,
/// then [`evaluate`](Self::evaluate)) does, where it answers at all.
pub struct Generated<T> {
    /// The tool's compiled rules (per action: its base, the rules that may
    /// and that must fire on it), which a server with a `Profile` reads to
    /// drop exactly the actions no call can pass
    /// (`Profile::can_satisfy_action`). `None` for a tool written by hand:
    /// a server then decides from its `RULES` and static bounds
    /// (`Profile::can_satisfy`).
    pub rule_table: Option<&'static RuleTable>,
    /// The pattern sets the tool's rules search, one per field (and kind of
    /// haystack), so tests can check how each is compiled.
    pub pattern_sets: fn() -> &'static [&'static PatternSet],
    /// One evaluation of a value, from which its annotations, authorization
    /// and explanation are all read: a server evaluates a call once, so no
    /// rule's predicate runs twice.
    pub evaluate: fn(&T) -> Outcome,
    /// `AnnotatedTool::result_claims` of a value, given its own
    /// [`evaluate`](Self::evaluate) outcome, so that a server which has
    /// evaluated it already reads the claims of its rules without evaluating
    /// them again. The outcome must be that value's evaluation.
    pub result_claims_of: fn(&T, &Outcome) -> TrustClaims,
    /// Parses arguments from JSON text and evaluates them in one step
    /// (`tools/resolve`, `tools/annotations`): accepts and refuses exactly
    /// what `from_arguments_str` does, through the borrowing path
    /// ([`evaluate_view`](Self::evaluate_view)) where it can.
    pub evaluate_arguments_str: fn(&str) -> Result<Outcome, ArgumentError>,
    /// The borrowing path alone: the outcome of arguments read straight from
    /// their text, strings borrowed from it and no `serde_json::Value`
    /// built, or `None` when it leaves them to the owned path (invalid
    /// arguments, a repeated member, an absent member with a
    /// `default = "..."` function that a rule tests). It never accepts what
    /// `from_arguments_str` refuses.
    pub evaluate_view: fn(&str) -> Option<Outcome>,
    /// [`evaluate_view`](Self::evaluate_view) of arguments whose object the
    /// server's request reader has already split into its members (the same
    /// object as the text), so that they are not read again. Answers
    /// exactly as `evaluate_view` of the text.
    pub evaluate_split: fn(&str, &SplitArguments<'_>) -> Option<Outcome>,
    /// The value of arguments read straight from their members, strings
    /// copied from the text once and no `serde_json::Value` built: what a
    /// server's `tools/call` hands the handler. The split is the argument
    /// object as the server's request reader split it, when it did; else
    /// the members are read from the text. `None` when it leaves the
    /// arguments to `from_arguments_str` (invalid arguments, a repeated
    /// member, a value it does not read itself), which then gives the value
    /// or the error: it gives the value `from_arguments_str` gives.
    pub from_members: fn(&str, Option<&SplitArguments<'_>>) -> Option<T>,
}
