//! [`BuildError`]: why a server's configuration cannot be built, found by
//! the builder and by each tool's registration.

use crate::{BoundViolation, ToolNameError};

/// A server's configuration is inconsistent. Returned by
/// [`ServerBuilder::build`](crate::server::ServerBuilder::build).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools share a name.
    #[error("two tools are named `{name}`")]
    DuplicateTool {
        /// The name.
        name: String,
    },
    /// The name of a per-action tool
    /// ([`ServerBuilder::exposure`](crate::server::ServerBuilder::exposure)) is one
    /// another tool, registered or per-action, already has.
    #[error(
        "`{name}`, the per-action tool of action `{action}` of `{tool}`, is another tool's name"
    )]
    ActionNameTaken {
        /// The name both have.
        name: String,
        /// The registered tool whose action it names.
        tool: String,
        /// The action.
        action: String,
    },
    /// A registered tool's name breaks MCP's tool-name rules
    /// ([`check_tool_name`](crate::check_tool_name)).
    #[error("`{name}`, the name of a registered tool, is not an MCP tool name: {problem}")]
    InvalidToolName {
        /// The name.
        name: String,
        /// The rule it breaks.
        problem: ToolNameError,
    },
    /// The name a naming scheme gave a per-action tool
    /// ([`ServerBuilder::action_names`](crate::server::ServerBuilder::action_names))
    /// breaks MCP's tool-name rules.
    #[error(
        "`{name}`, the per-action tool of action `{action}` of `{tool}`, is not an MCP tool name: \
         {problem}"
    )]
    InvalidActionName {
        /// The name the scheme gave.
        name: String,
        /// The registered tool whose action it names.
        tool: String,
        /// The action.
        action: String,
        /// The rule it breaks.
        problem: ToolNameError,
    },
    /// A tool's `inputSchema` is not a JSON object with `"type": "object"`.
    #[error("the inputSchema of `{tool}` is invalid: {reason}")]
    InvalidInputSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A tool's `outputSchema` is not a JSON Schema of an object.
    #[error("the outputSchema of `{tool}` is invalid: {reason}")]
    InvalidOutputSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// An action claims more risk than the tool's static annotations, so
    /// `tools/list` would not be the worst case.
    #[error("action `{action}` of `{tool}` is outside the static annotations: {violation}")]
    ActionOutsideBound {
        /// The tool.
        tool: String,
        /// The action.
        action: String,
        /// The hint that breaks the bound.
        violation: BoundViolation,
    },
    /// `tools/list` pages must hold at least one tool.
    #[error("the page size of tools/list must be at least 1")]
    ZeroPageSize,
    /// The stdio transport must accept messages of at least one byte.
    #[error("the maximum message size must be at least 1 byte")]
    ZeroMessageSize,
    /// The stdio transport must be able to run at least one call.
    #[error("the number of concurrent calls must be at least 1")]
    ZeroConcurrentCalls,
}
