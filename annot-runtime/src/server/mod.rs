//! The runtime that serves annotated tools over MCP.
//!
//! A [`Server`] is built once from its tools ([`Server::builder`]); each client
//! session gets a [`Connection`] ([`Server::connect`]), whose
//! [`handle`](Connection::handle) maps one JSON-RPC message to zero or one
//! response. Transports are thin loops around it: [`Server::serve_stdio`] is
//! the one this crate ships.
//!
//! The server answers `initialize`, `ping`, `tools/list`, `tools/call`, and the
//! argument-specific annotations of every enabled dialect
//! ([`Dialect`](crate::protocol::Dialect)): `tools/annotations` (A) and
//! `tools/resolve` in the shape of SEP-1862 (B) or of the tool-resolution
//! extension (C), chosen per request by negotiation. Every annotation JSON an
//! action can produce is rendered when the server is built, never per request.
//!
//! ```
//! # use annot_runtime as annot;
//! use annot::server::{Server, ToolOutput};
//! # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
//! # use serde_json::Value;
//! # struct Echo;
//! # impl AnnotatedTool for Echo {
//! #     const NAME: &'static str = "echo";
//! #     const TITLE: Option<&'static str> = None;
//! #     const DESCRIPTION: Option<&'static str> = None;
//! #     const DISCRIMINATOR: Option<&'static str> = Some("action");
//! #     const ACTIONS: &'static [Action] = &[];
//! #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().read_only(true);
//! #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
//! #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
//! #     fn from_arguments(_: &Value) -> Result<Self, ArgumentError> { Ok(Echo) }
//! # }
//!
//! let server = Server::builder("demo", "0.1.0")
//!     .tool(|_: Echo| Ok(ToolOutput::text("hello")))
//!     .build()?;
//! let mut connection = server.connect();
//! let response = connection
//!     .handle(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
//!     .unwrap();
//! assert_eq!(response, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
//! # Ok::<(), annot::server::BuildError>(())
//! ```

mod build_error;
mod builder;
mod call;
mod claims;
mod connection;
mod erased;
mod exposure;
mod extras;
mod inflight;
mod jsonrpc;
mod listing;
mod modern;
mod narrow;
mod negotiation;
mod output;
mod pagination;
mod params;
mod profile;
mod registry;
mod render;
mod resolution;
#[cfg(feature = "rmcp")]
pub(crate) mod shared;
mod state;
mod stdio;
mod structured;
mod tools;
#[cfg(feature = "rmcp")]
mod tree;

pub use build_error::BuildError;
pub use builder::{
    DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, ServerBuilder,
};
pub use call::Call;
pub use connection::Connection;
pub use exposure::{Exposure, default_action_name};
pub use output::{Content, ToolError, ToolOutput};
pub use profile::{Profile, ProfileViolation};
pub use state::Server;
