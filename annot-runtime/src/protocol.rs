//! Wire names, error codes and result shapes shared by the server, the client
//! helpers and the rmcp adapter.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Annotations, Tool, ToolAnnotations};

/// The extension key of the tool-resolution extension (dialect C).
pub const TOOL_RESOLUTION_EXTENSION: &str = "io.modelcontextprotocol/tool-resolution";
/// The extension key of the trust-annotations extension: `sensitive` and
/// `untrusted` claims on results (see [`crate::trust`]).
pub const TRUST_ANNOTATIONS_EXTENSION: &str = "io.modelcontextprotocol/trust-annotations";
/// The extension key of the display-templates extension: the tool-level call
/// preview `_meta[..].template` and the result-side `_meta[..].text`.
pub const DISPLAY_TEMPLATES_EXTENSION: &str = "io.modelcontextprotocol/display-templates";
/// The key of a call preview on one `oneOf`/`anyOf` branch of an `inputSchema`
/// (singular, beside the branch's other keywords).
pub const DISPLAY_TEMPLATE_BRANCH_KEY: &str = "io.modelcontextprotocol/display-template";
/// The `params._meta` key carrying per-request client capabilities (dialect C).
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key under which this project reports its own extras (explanations).
///
/// A client asks for the explanation of a resolution with
/// `params._meta["dev.annot/resolution"] = {"explain": true}`; the result then
/// carries it under `_meta["dev.annot/resolution"]`. In dialect C only when
/// the client negotiated the extension of this name (in `initialize` or on
/// the request, as the tool-resolution extension), which a server advertises
/// when one of its tools has rules.
pub const ANNOT_META: &str = "dev.annot/resolution";
/// The extension under which dialect C results carry the authorization a call
/// needs: `_meta["dev.annot/authorization"] = {"securitySchemes": [...]}`,
/// only for a client that negotiated it; dialect B puts `securitySchemes` in
/// the resolved Tool itself. A server advertises it when one of its tools
/// declares authorization.
pub const AUTHORIZATION_EXTENSION: &str = "dev.annot/authorization";

/// The MCP protocol versions this project negotiates through `initialize`,
/// oldest first.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The newest protocol version negotiated through `initialize`: what a server
/// answers a client whose `initialize` asks for a version it does not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// The protocol version without a handshake: every request carries its
/// version and capabilities in `params._meta` (docs/PROTOCOL.md section 7).
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";
/// Every version a server of this project serves, oldest first: what
/// `server/discover` lists, and what `-32022` offers instead of a version it
/// does not serve.
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    MODERN_PROTOCOL_VERSION,
];
/// The `params._meta` key carrying a 2026-07-28 request's protocol version.
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// The `params._meta` key carrying a 2026-07-28 request's client identity.
pub const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";
/// The result `_meta` key carrying the server's identity on 2026-07-28 results.
pub const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// The method of dialect A.
pub const METHOD_ANNOTATIONS: &str = "tools/annotations";
/// The method of dialects B and C.
pub const METHOD_RESOLVE: &str = "tools/resolve";

/// JSON-RPC and MCP error codes this project uses.
pub mod error_code {
    /// The message is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message is JSON but not a valid JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Unknown or unmarked tool, or arguments that do not fit its schema.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The client did not negotiate a capability the request needs (dialect C).
    pub const MISSING_CAPABILITY: i64 = -32021;
    /// The request's `_meta` names a protocol version the server does not
    /// serve; `data` is `{ supported, requested }` (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// A `tools/call` arrived while the session already ran as many calls as
    /// the server runs at once; `data` is `{ maxConcurrentCalls }`. Sending
    /// it again once a call was answered may succeed.
    pub const SERVER_BUSY: i64 = -32005;
}

/// The three ways a client can ask for argument-specific annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// A: `tools/annotations`, result `{ annotations }`.
    DynamicAnnotations,
    /// B: `tools/resolve` (SEP-1862), result `{ tool }`.
    ResolveTool,
    /// C: `tools/resolve` of the `io.modelcontextprotocol/tool-resolution`
    /// extension, result `{ resultType, name, annotations, _meta? }`.
    ToolResolutionExtension,
}

impl Dialect {
    /// Every dialect, oldest first.
    pub const ALL: [Dialect; 3] = [
        Dialect::DynamicAnnotations,
        Dialect::ResolveTool,
        Dialect::ToolResolutionExtension,
    ];

    /// The JSON-RPC method the dialect uses.
    pub const fn method(self) -> &'static str {
        match self {
            Dialect::DynamicAnnotations => METHOD_ANNOTATIONS,
            Dialect::ResolveTool | Dialect::ToolResolutionExtension => METHOD_RESOLVE,
        }
    }
}

/// A JSON-RPC error object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct RpcError {
    /// One of [`error_code`] or another JSON-RPC code.
    pub code: i64,
    /// Short description.
    pub message: String,
    /// Details, such as the path of an invalid argument.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Adds `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// `params` of `tools/annotations` and `tools/resolve`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolveParams {
    /// The tool's name.
    pub name: String,
    /// The arguments of the intended call.
    pub arguments: Map<String, Value>,
    /// Request metadata; dialect C carries per-request capabilities here.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// Result of dialect A, `tools/annotations`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnnotationsResult {
    /// The refined annotations.
    pub annotations: ToolAnnotations,
}

/// Result of dialect B, `tools/resolve` of SEP-1862.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolveToolResult {
    /// The full Tool with refined annotations.
    pub tool: Tool,
}

/// The four core hints, all present: the `annotations` of a dialect C result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolvedToolAnnotations {
    /// `readOnlyHint`.
    pub read_only_hint: bool,
    /// `destructiveHint`.
    pub destructive_hint: bool,
    /// `idempotentHint`.
    pub idempotent_hint: bool,
    /// `openWorldHint`.
    pub open_world_hint: bool,
}

impl From<Annotations> for ResolvedToolAnnotations {
    /// The effective core hints (defaults applied).
    fn from(annotations: Annotations) -> Self {
        Self::of_effective(&annotations.effective())
    }
}

impl ResolvedToolAnnotations {
    /// The core hints of annotations whose defaults are applied already
    /// (a resolution the server normalised): read as they stand.
    #[inline]
    pub(crate) fn of_effective(effective: &Annotations) -> Self {
        debug_assert_eq!(*effective, effective.effective(), "defaults applied");
        ResolvedToolAnnotations {
            read_only_hint: effective.read_only == Some(true),
            destructive_hint: effective.destructive == Some(true),
            idempotent_hint: effective.idempotent == Some(true),
            open_world_hint: effective.open_world == Some(true),
        }
    }
}

impl From<ResolvedToolAnnotations> for Annotations {
    fn from(resolved: ResolvedToolAnnotations) -> Self {
        Annotations::new()
            .read_only(resolved.read_only_hint)
            .destructive(resolved.destructive_hint)
            .idempotent(resolved.idempotent_hint)
            .open_world(resolved.open_world_hint)
    }
}

/// Result of dialect C, the tool-resolution extension's `tools/resolve`.
// A field added here must be added to `server::answers::resolution_tree::extension_result` too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtensionResolveResult {
    /// Always `"complete"`.
    pub result_type: String,
    /// The tool's name, to correlate with the request.
    pub name: String,
    /// The four core hints, all present.
    pub annotations: ResolvedToolAnnotations,
    /// Metadata of negotiated extensions only.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolved_annotations_apply_defaults() {
        let resolved = ResolvedToolAnnotations::from(Annotations::new().read_only(true));
        assert_eq!(
            serde_json::to_value(resolved).unwrap(),
            serde_json::json!({
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": true
            })
        );
    }

    #[test]
    fn extension_result_refuses_extra_fields() {
        let json = r#"{"resultType":"complete","name":"t","annotations":
            {"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,
             "openWorldHint":false,"title":"x"}}"#;
        assert!(serde_json::from_str::<ExtensionResolveResult>(json).is_err());
    }
}
