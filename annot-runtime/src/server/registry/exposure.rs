//! How a server exposes a tool of several actions: one resolvable tool,
//! one tool per action, or either per client ([`Exposure`]).
//!
//! A per-action tool is derived from the registered tool when the server is
//! built: its name from the naming scheme, its title and description from
//! the action's, its `inputSchema` narrowed to the action without the
//! discriminator, its static annotations the action's own worst case. Its
//! calls and resolutions run the registered tool's parser, resolver and
//! handler on the arguments with the discriminator put back.

use core::fmt;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::de::IgnoredAny;

use crate::ArgumentError;
use crate::action_schema::{action_description, without_member};
use crate::server::answers::annotation_json::normalise;
use crate::server::registry::erased_tool::{ErasedTool, FixedAction};

/// How a server exposes each tool of several actions
/// ([`ServerBuilder::exposure`](crate::server::ServerBuilder::exposure)). A tool of
/// one action is listed as it is in every mode.
///
/// Most hosts judge a tool by its static annotations and never resolve it:
/// a tool whose actions range from read to delete is, for them, always its
/// worst case. Exposed per action, its reads are read-only tools.
///
/// | mode | `tools/list` | `tools/call` accepts |
/// |---|---|---|
/// | [`Resolvable`](Exposure::Resolvable) (default) | one tool, resolvable | its name |
/// | [`PerAction`](Exposure::PerAction) | one tool per action | the per-action names |
/// | [`Auto`](Exposure::Auto) | the resolvable tool to a client that negotiated tool resolution, the per-action tools to any other | both |
///
/// Under `Auto` a handshake session is judged on its `initialize`
/// capabilities (or the request's own, when it carries some), a 2026-07-28
/// request on its own; a listing never holds both forms of one tool.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::server::Exposure;
///
/// assert_eq!(Exposure::default(), Exposure::Resolvable);
/// assert_eq!(Exposure::named("per-action"), Some(Exposure::PerAction));
/// assert_eq!(Exposure::Auto.to_string(), "auto");
/// assert_eq!(Exposure::named("both"), None);
/// ```
///
/// The enum is `#[non_exhaustive]`: a later mode is not a breaking change, so
/// a `match` on it needs a `_` arm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Exposure {
    /// One tool with every action, resolvable through the enabled dialects.
    #[default]
    Resolvable,
    /// One tool per action, each with its own exact static annotations.
    PerAction,
    /// The resolvable tool to clients that negotiated the tool-resolution
    /// extension, the per-action tools to every other client.
    Auto,
}

impl Exposure {
    /// The names [`named`](Self::named) knows, as [`Display`](fmt::Display)
    /// writes them.
    pub const NAMES: [&'static str; 3] = ["resolvable", "per-action", "auto"];

    /// The mode of one name (`resolvable`, `per-action` or `per_action`,
    /// `auto`); `None` for any other.
    pub fn named(name: &str) -> Option<Exposure> {
        match name {
            "resolvable" => Some(Exposure::Resolvable),
            "per-action" | "per_action" => Some(Exposure::PerAction),
            "auto" => Some(Exposure::Auto),
            _ => None,
        }
    }

    /// Whether a client that negotiated the extension (`extension`) or not
    /// is listed the per-action tools.
    pub(crate) fn per_action_for(self, extension: bool) -> bool {
        match self {
            Exposure::Resolvable => false,
            Exposure::PerAction => true,
            Exposure::Auto => !extension,
        }
    }

    /// Whether the resolvable tools are listed to some client.
    pub(crate) fn lists_resolvable(self) -> bool {
        self != Exposure::PerAction
    }

    /// Whether the per-action tools are listed to some client.
    pub(crate) fn lists_per_action(self) -> bool {
        self != Exposure::Resolvable
    }
}

impl fmt::Display for Exposure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exposure::Resolvable => Self::NAMES[0],
            Exposure::PerAction => Self::NAMES[1],
            Exposure::Auto => Self::NAMES[2],
        })
    }
}

/// Which tools each listing shows, as indices into the server's tools.
#[derive(Debug)]
pub(crate) struct Exposed {
    pub(crate) exposure: Exposure,
    /// The registered tools, in registration order.
    pub(crate) resolvable: Vec<usize>,
    /// Each registered tool's per-action tools, or the tool itself when it
    /// has one action; empty under [`Exposure::Resolvable`].
    pub(crate) per_action: Vec<usize>,
    /// The tools of the listings some client gets, each once.
    pub(crate) accepted: Vec<usize>,
}

impl Exposed {
    /// The tools a client that negotiated tool resolution (`extension`) or
    /// not is listed, in order.
    pub(crate) fn listed_to(&self, extension: bool) -> &[usize] {
        if self.exposure.per_action_for(extension) {
            &self.per_action
        } else {
            &self.resolvable
        }
    }
}

/// The name of the per-action tool of `action` of `tool` unless
/// [`ServerBuilder::action_names`](crate::server::ServerBuilder::action_names) says
/// otherwise: `<tool>_<action>`, the action's wire name as it is.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::server::default_action_name;
///
/// assert_eq!(default_action_name("manage_files", "read"), "manage_files_read");
/// assert_eq!(default_action_name("github_api", "GET"), "github_api_GET");
/// ```
pub fn default_action_name(tool: &str, action: &str) -> String {
    format!("{tool}_{action}")
}

/// A naming scheme: the per-action tool's name from the tool's and the
/// action's.
pub(crate) type ActionNaming = Box<dyn Fn(&str, &str) -> String + Send + Sync>;

/// The per-action tools of `tool`, in action order; none for a tool of fewer
/// than two actions or without a discriminator.
pub(crate) fn per_action_tools(tool: &ErasedTool, naming: &ActionNaming) -> Vec<ErasedTool> {
    let Some(discriminator) = tool.discriminator else {
        return Vec::new();
    };
    if tool.actions.len() < 2 {
        return Vec::new();
    }
    tool.actions
        .iter()
        .enumerate()
        .map(|(index, action)| {
            let schema = (tool.narrowed_schema)(&[index]);
            let description = action_description(&tool.input_schema, discriminator, action.name)
                .map(Cow::Owned)
                .or_else(|| tool.description.clone());
            let title = match (action.annotations.title, &tool.title) {
                (Some(title), _) => Some(Cow::Borrowed(title)),
                (None, Some(tool_title)) => {
                    Some(Cow::Owned(format!("{tool_title}: {}", action.name)))
                }
                (None, None) => None,
            };
            let row = tool.rule_table.and_then(|table| table.actions.get(index));
            ErasedTool {
                name: Cow::Owned(naming(&tool.name, action.name)),
                tool: tool.tool,
                title,
                description,
                display_template: tool.display_templates.get(index).copied(),
                display_templates: &[],
                input_schema: Cow::Owned(
                    without_member(&schema, discriminator, action.name).unwrap_or(schema),
                ),
                output_schema: tool.output_schema,
                discriminator: None,
                static_annotations: normalise(action.annotations, &tool.static_annotations),
                static_authorization: match tool.rule_table {
                    Some(table) if index < table.actions.len() => table.action_authorization(index),
                    _ => tool.static_authorization,
                },
                // Only rules that can fire on this action, and not on every
                // call of it, make its annotations vary.
                has_rules: row.map_or(tool.has_rules, |row| row.applicable & !row.certain != 0),
                rules: tool.rules,
                rule_table: tool.rule_table,
                actions: &[],
                narrowed_schema: tool.narrowed_schema,
                resolve: tool.resolve,
                #[cfg(feature = "rmcp")]
                resolve_tree: tool.resolve_tree,
                call: Arc::clone(&tool.call),
                fixed: Some(FixedAction {
                    tool: tool.tool,
                    discriminator,
                    action: action.name,
                    index,
                }),
            }
        })
        .collect()
}

impl FixedAction {
    /// The registered tool's arguments for a call of this per-action tool:
    /// `arguments` (a JSON object's text) with the discriminator set to the
    /// action. Arguments that name the discriminator themselves are refused:
    /// the per-action tool has no such field.
    pub(crate) fn arguments(&self, arguments: &str) -> Result<String, ArgumentError> {
        let members: BTreeMap<String, IgnoredAny> =
            serde_json::from_str(arguments).map_err(ArgumentError::syntax)?;
        if members.contains_key(self.discriminator) {
            return Err(self.discriminator_given());
        }
        let quoted = |text: &str| serde_json::to_string(text).expect("a string serializes");
        let head = format!("{{{}:{}", quoted(self.discriminator), quoted(self.action));
        let rest = arguments.trim_start();
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        Ok(if members.is_empty() {
            head + "}"
        } else {
            head + "," + rest
        })
    }

    /// The error for arguments of a per-action tool that name the
    /// discriminator.
    pub(crate) fn discriminator_given(&self) -> ArgumentError {
        ArgumentError::InvalidValue {
            path: self.discriminator.to_owned(),
            message: format!(
                "this tool is the `{}` action of `{}`: leave `{}` out",
                self.action, self.tool, self.discriminator
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ: FixedAction = FixedAction {
        tool: "files",
        discriminator: "action",
        action: "read",
        index: 0,
    };

    #[test]
    fn puts_the_discriminator_back() {
        assert_eq!(READ.arguments("{}").unwrap(), r#"{"action":"read"}"#);
        assert_eq!(READ.arguments(" { } ").unwrap(), r#"{"action":"read"}"#);
        assert_eq!(
            READ.arguments(r#"{"path":"a"}"#).unwrap(),
            r#"{"action":"read","path":"a"}"#
        );
        assert_eq!(
            READ.arguments(" {\n\"path\" : \"a\" }").unwrap(),
            "{\"action\":\"read\",\n\"path\" : \"a\" }"
        );
    }

    #[test]
    fn refuses_a_discriminator_in_any_spelling() {
        for given in [
            r#"{"action":"read"}"#,
            r#"{"path":"a","action":"delete"}"#,
            r#"{"\u0061ction":"read"}"#,
        ] {
            let error = READ.arguments(given).unwrap_err();
            assert_eq!(error.path(), Some("action"), "{given}");
        }
    }
}
