//! The client side: ask a server for argument-specific annotations, decide
//! whether a call needs a person's confirmation, and watch a session for the
//! lethal trifecta.
//!
//! Three independent pieces a host (an agent runtime, a gateway, an IDE) wires
//! together around every `tools/call` a model proposes:
//!
//! 1. [`ResolutionSupport::preflight`] asks the server, in the best dialect both
//!    sides speak, what the call's annotations are; it checks the answer and falls
//!    back to the static annotations of `tools/list` on any failure but invalid
//!    arguments. It is transport-agnostic: the host passes a [`Requester`] (a
//!    closure, its own connection type, or a [`JsonRpcRequester`] around any
//!    function that exchanges JSON-RPC messages as bytes).
//!    In a session opened with `initialize` the requests carry nothing per
//!    request; in MCP 2026-07-28 ([`ResolutionSupport::from_discover_result`])
//!    each carries `params._meta` with the protocol version, the client's
//!    [`ClientInfo`] and its whole capabilities.
//! 2. [`Policy::decide`] turns the annotations of a [`ProposedCall`] and the
//!    server's [`Trust`] into a [`Decision`]: allow, confirm (light, normal or
//!    strong) or deny, with a reason a person can read.
//! 3. [`Session`] remembers whether the session has read private data and seen
//!    untrusted content, and refuses (or escalates) the external communication
//!    that would complete the trifecta.
//!
//! One rule runs through all three: **silence never lowers risk**. A hint a
//! resolution leaves out keeps its static value ([`Resolution`]), and an
//! untrusted server's silence or denial counts as the risky value
//! ([`Trust::screen`]) in the policy and the session.
//!
//! ```
//! # use annot_runtime as annot;
//! use annot::client::{
//!     ClientExtension, Policy, ProposedCall, ResolutionSupport, Session, Trust,
//! };
//! use annot::protocol::RpcError;
//! use annot::Tool;
//! use serde_json::{json, Map, Value};
//!
//! // What the server said in `initialize` and `tools/list`.
//! let support = ResolutionSupport::from_initialize_result(
//!     &json!({"capabilities": {"tools": {"resolve": true}}}),
//!     ClientExtension::NotOffered,
//! );
//! let tool: Tool = serde_json::from_value(json!({
//!     "name": "manage_files",
//!     "inputSchema": {"type": "object"},
//!     "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false},
//!     "resolve": true
//! }))
//! .unwrap();
//!
//! // Any transport: here the server is a closure answering `tools/resolve`.
//! let mut server = |_method: &str, params: Value| -> Result<Value, RpcError> {
//!     Ok(json!({"tool": {
//!         "name": params["name"],
//!         "inputSchema": {"type": "object"},
//!         "annotations": {"readOnlyHint": true, "openWorldHint": false}
//!     }}))
//! };
//! let arguments: Map<String, Value> =
//!     serde_json::from_value(json!({"action": "read", "path": "notes.txt"})).unwrap();
//!
//! let preflight = support.preflight(&mut server, &tool, &arguments).unwrap();
//! let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
//! let mut session = Session::default();
//! let decision = session.review(&call, Policy::default().decide(&call));
//! assert!(decision.is_allowed(), "{decision}");
//! session.record(&call);
//! ```

mod call;
#[cfg(feature = "display-templates")]
pub mod display;
mod envelope;
mod failure;
mod jsonrpc;
mod policy;
mod preflight;
mod resolution;
mod session;
mod support;

pub use call::{ProposedCall, Trust};
pub use envelope::{ClientInfo, DiscoverError};
pub use failure::{PreflightError, ResolutionFailure};
pub use jsonrpc::JsonRpcRequester;
pub use policy::{Decision, HostRule, Policy, PolicyRule, Reason, Strength, Verdict};
pub use preflight::{AnnotationSource, Preflight};
pub use resolution::Resolution;
pub use session::{Classifier, Legs, Session, SessionConfig, Trifecta};
pub use support::{ClientExtension, NotResolvable, RequestError, Requester, ResolutionSupport};
