//! The annotation model of annot, its risk lattice, and the runtime that serves
//! annotated MCP tools.
//!
//! Most users depend on the `annot` facade, which re-exports this crate together
//! with the `#[mcp_tool]` macro.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod action;
mod action_schema;
mod argument_error;
pub mod client;
mod decimal;
mod generated;
pub mod guard;
mod http;
mod json_text;
pub mod protocol;
mod read;
#[cfg(feature = "rmcp")]
pub mod rmcp;
pub mod rules;
pub mod schema;
pub mod server;
mod tool;
pub mod trust;
mod wire;

mod private;

/// What the code `#[mcp_tool]` generates calls. Not a public API: reach it
/// only through `::annot::__private`.
#[doc(hidden)]
pub mod __private {
    pub use crate::private::*;
}

pub use action::Action;
pub use annot_model::{
    Annotations, Bound, BoundViolation, Hint, MAX_TOOL_NAME_LEN, ToolNameError, check_tool_name,
};
pub use argument_error::ArgumentError;
pub use http::{HttpMethod, UnknownMethod};
pub use rules::{Authorization, Explanation, Rule, Scopes};
pub use tool::{AnnotatedActions, AnnotatedTool};
pub use wire::{Tool, ToolAnnotations};
