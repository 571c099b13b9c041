//! A tool name the annotated tools share with the wrapped handler's own tools.

use std::fmt;

/// An annotated tool and a tool of the wrapped rmcp handler answer to the same
/// name, so calls of one would reach the other: refused by
/// [`Annotated::new`](super::Annotated::new) (for the handler's tools that its
/// `get_tool` knows, as `#[tool_handler]` generates it), and answered as an
/// error to a `tools/list` whose page from the handler lists such a name.
///
/// Every name an annotated tool answers to counts, in the exposure the tools
/// were built with: a tool's own name, and each per-action name
/// (`manage_files_read`) under [`Exposure::PerAction`](crate::server::Exposure)
/// or [`Exposure::Auto`](crate::server::Exposure).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolNameClash {
    name: String,
    tool: &'static str,
    action: Option<&'static str>,
    handler: &'static str,
}

impl ToolNameClash {
    pub(super) fn new(
        name: &str,
        tool: &'static str,
        action: Option<&'static str>,
        handler: &'static str,
    ) -> Self {
        ToolNameClash {
            name: name.to_owned(),
            tool,
            action,
            handler,
        }
    }

    /// The name both tools answer to.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The annotated tool's registered name (`AnnotatedTool::NAME`).
    pub fn annotated_tool(&self) -> &'static str {
        self.tool
    }

    /// The action of the annotated tool listed under [`name`](Self::name), for
    /// a per-action name.
    pub fn action(&self) -> Option<&'static str> {
        self.action
    }

    /// The wrapped handler's type, as `std::any::type_name` spells it.
    pub fn handler(&self) -> &'static str {
        self.handler
    }
}

impl fmt::Display for ToolNameClash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ToolNameClash {
            name,
            tool,
            action,
            handler,
        } = self;
        match action {
            None => write!(f, "the annotated tool `{tool}`")?,
            Some(action) => write!(
                f,
                "the action `{action}` of the annotated tool `{tool}`, listed per action as `{name}`,"
            )?,
        }
        write!(
            f,
            " and a tool of the rmcp handler `{handler}` are both named `{name}`: \
             rename one of them"
        )?;
        if action.is_some() {
            f.write_str(" (per-action names come from `action_names`)")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolNameClash {}
