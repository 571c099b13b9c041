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
//!
//! # Layout
//!
//! - `transport/`: from bytes to answered messages and back. `stdio` (the
//!   transport this crate ships: lines in, workers for calls, one writer),
//!   `connection` (a session: reads each message and dispatches it by era and
//!   method), `jsonrpc` (the envelope, read without a tree, and responses
//!   written around pre-rendered results), `request_params` (a request's
//!   params and their `-32602` errors) and `in_flight` (what a call running
//!   beside the session shares with it: cancellation, progress, its answer).
//! - `negotiation/`: what a request is owed. `versions`, `dialects` (which
//!   resolution shape a request gets) and `era` (MCP 2026-07-28, whose
//!   requests carry their version and capabilities in `_meta`).
//! - `registry/`: the server as built. `builder`, `build_error`,
//!   `erased_tool` (a registered tool with its type erased), `exposure` (one
//!   tool per action, derived at build), `profile_narrowing` (what a profile
//!   leaves of a tool), `tool_entry` (a tool with its wire forms rendered) and
//!   `server_state` (the [`Server`] every connection shares).
//! - `answers/`: the `tools/*` answers. `list_pages` and `tool_forms`
//!   (`tools/list`); `call`, `call_context` (the [`Call`] a handler gets),
//!   `tool_output`, `trust_claims` and `output_schema` (`tools/call`);
//!   `resolution`, `resolution_meta`, `annotation_json` and, for rmcp,
//!   `resolution_tree` (`tools/resolve`, `tools/annotations`); `profile`.
//! - `rmcp_bridge`: all that the rmcp adapter (`crate::rmcp`, feature `rmcp`) takes
//!   from this server, so that both runtimes answer alike.
//!
//! # The walk of a request
//!
//! A `tools/resolve` served over stdio visits these modules, each named once,
//! in order:
//!
//! 1. `transport::stdio` reads a line and hands it to the session;
//! 2. `transport::connection` answers it (`Connection::handle_into`);
//! 3. `transport::jsonrpc` reads the envelope (`parse`);
//! 4. `transport::request_params` reads the params;
//! 5. `negotiation::era` tells a 2026-07-28 request from a handshake one, and
//!    the connection dispatches the method;
//! 6. `answers::resolution` answers it (`answer`, `resolve`);
//! 7. `negotiation::dialects` chooses the dialect;
//! 8. `answers::resolution_meta` decides what the result's `_meta` may carry;
//! 9. `registry::server_state` finds the tool by name;
//! 10. `registry::tool_entry` resolves the arguments and checks the result
//!     against the tool's bound;
//! 11. `registry::erased_tool` runs the tool's generated evaluation;
//! 12. `answers::profile` checks the resolution against the server's profile;
//! 13. `answers::annotation_json` normalises it and looks up its pre-rendered
//!     JSON, which `tool_entry` writes between the result's other parts,
//!     inside the response `jsonrpc` opened; `stdio` writes the line.
//!
//! A `tools/call` over stdio runs beside the session:
//!
//! 1. `transport::stdio` reads the line;
//! 2. `transport::connection` reads it as above (`jsonrpc`, `request_params`,
//!    `negotiation::era`) and hands the call back to the transport;
//! 3. `transport::in_flight` gives it a `CallControl` (cancellation and
//!    progress), and a worker of `stdio` answers it (`answer_call`, which
//!    reads the message again);
//! 4. `answers::call` answers it;
//! 5. `answers::trust_claims` says whether the result carries claims;
//! 6. `registry::server_state` finds the tool, and `registry::tool_entry`
//!    calls it (per-action tools through `registry::exposure`);
//! 7. `registry::erased_tool` parses the arguments and runs the handler, with
//!    `answers::call_context` (the handler's [`Call`]) and `answers::profile`
//!    (the call's check) when they apply;
//! 8. `answers::output_schema` holds a result to the declared `outputSchema`;
//! 9. `answers::tool_output` writes the `CallToolResult`, its claims through
//!    `trust_claims`; `in_flight` hands the answer to the writer of `stdio`.

mod answers;
mod negotiation;
mod registry;
#[cfg(feature = "rmcp")]
pub(crate) mod rmcp_bridge;
mod transport;

pub use answers::call_context::Call;
pub use answers::profile::{Profile, ProfileViolation};
pub use answers::tool_output::{Content, ToolError, ToolOutput};
pub use registry::build_error::BuildError;
pub use registry::builder::{
    DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, ServerBuilder,
};
pub use registry::exposure::{Exposure, default_action_name};
pub use registry::server_state::Server;
pub use transport::connection::Connection;
