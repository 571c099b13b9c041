//! What a [`Profile`] leaves of a tool: the actions kept, and the
//! `inputSchema` narrowed to them (by [`crate::action_schema`]).

use crate::server::answers::annotation_json::normalise;
use crate::server::answers::profile::Profile;
use crate::server::registry::erased_tool::ErasedTool;
use crate::{Action, Annotations, Authorization};

/// What a profile leaves of a tool.
pub(crate) struct Narrowed {
    /// The actions kept, in declaration order.
    pub actions: Vec<Action>,
    /// The `inputSchema` to list.
    pub schema: String,
    /// Whether anything is left to list.
    pub listed: bool,
}

/// Drops the actions of `tool` that can never satisfy `profile`
/// ([`Profile::can_satisfy_action`] on its compiled rules, else
/// [`Profile::can_satisfy`]) and lowers its static annotations to the join
/// of those left, which every resolution of them is within. A tool without
/// actions (a single-action tool) is kept or dropped whole on its static
/// annotations. Without a profile, or when every action is kept, the tool is
/// unchanged.
pub(crate) fn narrow(tool: &mut ErasedTool, profile: Profile) -> Narrowed {
    let whole = |listed| Narrowed {
        actions: tool.actions.to_vec(),
        schema: tool.input_schema.trim().to_owned(),
        listed,
    };
    if profile.is_any() {
        return whole(true);
    }
    // With the compiled rules, per action and exact; else from the bound
    // and every rule of the tool.
    let can_pass = |index: usize, bound: &Annotations| match tool.rule_table {
        Some(table) => profile.can_satisfy_action(table, index),
        None => profile.can_satisfy(bound, tool.rules),
    };
    if tool.actions.is_empty() {
        // A per-action tool is its action's row of the compiled rules.
        let row = tool.fixed.map_or(0, |fixed| fixed.index);
        return whole(can_pass(row, &tool.static_annotations));
    }
    let kept: Vec<usize> = (0..tool.actions.len())
        .filter(|&index| {
            let bound = normalise(tool.actions[index].annotations, &tool.static_annotations);
            can_pass(index, &bound)
        })
        .collect();
    if kept.len() == tool.actions.len() {
        return whole(true);
    }
    if kept.is_empty() {
        return whole(false);
    }
    let actions: Vec<Action> = kept.iter().map(|&index| tool.actions[index]).collect();
    let bounds: Vec<Annotations> = actions.iter().map(|action| action.annotations).collect();
    let mut joined = Annotations::join_all(&bounds);
    joined.title = tool.static_annotations.title;
    tool.static_annotations = joined;
    // The authorization the kept actions can need, where the compiled rules
    // say it per action: a scope only dropped actions need is not listed.
    if let Some(table) = tool.rule_table {
        tool.static_authorization = kept
            .iter()
            .map(|&index| table.action_authorization(index))
            .fold(None, Authorization::join_optional);
    }
    Narrowed {
        actions,
        schema: (tool.narrowed_schema)(&kept),
        listed: true,
    }
}
