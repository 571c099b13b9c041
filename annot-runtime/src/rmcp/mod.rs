//! Serving `#[mcp_tool]` tools from a server built on [rmcp], the official Rust SDK.
//!
//! Enabled by the `rmcp` cargo feature (and `rmcp-http` for Streamable HTTP).
//! Accepts rmcp `>=3.9, <4`; tested against 3.9.0 and the newest release.
//!
//! Three pieces, each usable alone:
//!
//! 1. [`rmcp_tool`] converts any [`AnnotatedTool`](crate::AnnotatedTool) into an
//!    [`rmcp::model::Tool`] with its static worst-case annotations, its
//!    `inputSchema` and the markers of every resolution dialect.
//! 2. [`Annotated`] wraps your [`ServerHandler`](::rmcp::ServerHandler): it lists the
//!    annotated tools next to yours, calls your [`HandleTool`] implementation with
//!    the typed, validated arguments, and answers `tools/resolve` (dialects B and C,
//!    negotiated per request) and `tools/annotations` (dialect A) through rmcp's
//!    custom-request path, with the rendered tools, the negotiation and the error
//!    answers of the built-in [`server`](crate::server), so both runtimes answer
//!    alike. Everything else goes to your handler untouched, so your own
//!    `#[tool_router]` tools, prompts and resources keep working.
//! 3. The lift: rmcp's `Tool`, `ToolAnnotations` and `ServerCapabilities` have no
//!    field for the SEP-1984 hints, the `resolve` / `dynamicAnnotations` tool
//!    markers or the `tools.resolve` / `tools.dynamicAnnotations` capabilities. The
//!    adapter carries them in `_meta[`[`LIFT_META`]`]`, and [`lifted`] (any rmcp
//!    transport, such as stdio) or `LiftHttp` (rmcp's Streamable HTTP service,
//!    feature `rmcp-http`) moves them to their place in the JSON on the way out. Served without the
//!    lift, a client still finds them under that `_meta` key. On a byte stream,
//!    [`resolving`] lifts too, and answers a plain `tools/resolve` as its line is
//!    read, before rmcp's custom-request path (cheaper than rmcp's own `tools/call`).
//!
//! ```no_run
//! # use annot_runtime as annot;
//! use annot::rmcp::{Annotated, AnnotatedTools, HandleTool, lifted};
//! # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
//! use rmcp::model::{CallToolResult, ContentBlock};
//! use rmcp::service::RequestContext;
//! use rmcp::transport::IntoTransport;
//! use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
//! # struct Echo;
//! # impl AnnotatedTool for Echo {
//! #     const NAME: &'static str = "echo";
//! #     const TITLE: Option<&'static str> = None;
//! #     const DESCRIPTION: Option<&'static str> = None;
//! #     const DISCRIMINATOR: Option<&'static str> = Some("action");
//! #     const ACTIONS: &'static [Action] = &[];
//! #     const STATIC_ANNOTATIONS: Annotations = Annotations::new();
//! #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
//! #     fn resolve(&self) -> Annotations { Annotations::new() }
//! #     fn from_arguments(_: &serde_json::Value) -> Result<Self, ArgumentError> { Ok(Echo) }
//! # }
//!
//! #[derive(Clone)]
//! struct Server;
//!
//! impl ServerHandler for Server {}
//!
//! impl HandleTool<Echo> for Server {
//!     async fn handle(
//!         &self,
//!         _tool: Echo,
//!         _context: RequestContext<RoleServer>,
//!     ) -> Result<CallToolResult, ErrorData> {
//!         Ok(CallToolResult::success(vec![ContentBlock::text("echo")]))
//!     }
//! }
//!
//! // `transport` is any rmcp server transport, such as `rmcp::transport::stdio()`.
//! async fn run<E, A>(
//!     transport: impl IntoTransport<RoleServer, E, A>,
//! ) -> Result<(), Box<dyn std::error::Error>>
//! where
//!     E: std::error::Error + Send + Sync + 'static,
//! {
//!     let tools = AnnotatedTools::builder().tool::<Echo>().build()?;
//!     let running = Annotated::new(Server, tools)?.serve(lifted(transport)).await?;
//!     running.waiting().await?;
//!     Ok(())
//! }
//! ```

mod annotated_tools;
mod claims;
mod clash;
mod client;
mod convert;
mod handler;
mod lift;
#[cfg(feature = "rmcp-http")]
mod lift_http;
mod lift_transport;
mod resolving;
mod structured;
#[cfg(feature = "rmcp-http")]
mod tagged_sessions;

pub use annotated_tools::{AnnotatedTools, AnnotatedToolsBuilder, HandleTool, resolved_call};
pub use claims::{claim_content, claim_result};
pub use clash::ToolNameClash;
pub use convert::{ToolConversionError, rmcp_tool};
pub use handler::Annotated;
pub use lift::{lift_result, lift_server_message};
#[cfg(feature = "rmcp-http")]
pub use lift_http::{LiftBody, LiftHttp};
pub use lift_transport::{Lifted, lifted};
pub use resolving::{Resolving, resolving};
pub use structured::structured;
#[cfg(feature = "rmcp-http")]
pub use tagged_sessions::{
    InvalidSessionTag, MAX_SESSION_TAG_LEN, SESSION_TAG_SEPARATOR, TaggedSessionManager,
};

/// The `_meta` key under which the adapter carries what rmcp's types cannot hold:
/// an object deep-merged into the enclosing object (a listed Tool, or the result
/// of `initialize` / `server/discover`) by [`lift_result`].
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rmcp::{LIFT_META, lift_result};
/// use serde_json::json;
///
/// let mut result = json!({"tools": [{
///     "name": "t",
///     "inputSchema": {"type": "object"},
///     "annotations": {"readOnlyHint": false},
///     "_meta": {LIFT_META: {"annotations": {"sensitiveDataHint": true}, "resolve": true}}
/// }]});
/// assert!(lift_result(&mut result));
/// assert_eq!(result["tools"][0], json!({
///     "name": "t",
///     "inputSchema": {"type": "object"},
///     "annotations": {"readOnlyHint": false, "sensitiveDataHint": true},
///     "resolve": true
/// }));
/// ```
pub const LIFT_META: &str = "dev.annot/lift";
