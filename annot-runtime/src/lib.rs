//! The annotation model of annot, its risk lattice, and the runtime that serves
//! annotated MCP tools.
//!
//! Most users depend on the `annot` facade, which re-exports this crate together
//! with the `#[mcp_tool]` macro.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod client;
pub mod guard;
mod http;
mod json_text;
pub mod protocol;
#[cfg(feature = "rmcp")]
pub mod rmcp;
pub mod rules;
pub mod server;
mod tool;
mod wire;

#[doc(hidden)]
pub mod private;

pub use annot_model::{Annotations, Bound, BoundViolation, Hint};
pub use http::{HttpMethod, UnknownMethod};
pub use rules::{Authorization, Explanation, Rule, Scopes};
pub use tool::{Action, AnnotatedActions, AnnotatedTool, ArgumentError};
pub use wire::{Tool, ToolAnnotations};
