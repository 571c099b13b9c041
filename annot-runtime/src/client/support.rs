//! What a server offers for resolution, what this client opted into, and the
//! request function through which the client talks to the server.

use core::fmt;

use serde_json::{Map, Value};

use super::envelope::{ClientInfo, DiscoverError, read_discover};
use crate::Tool;
use crate::protocol::{CLIENT_CAPABILITIES_META, Dialect, RpcError, TOOL_RESOLUTION_EXTENSION};

/// Sends one JSON-RPC request to the server and returns its `result`.
///
/// The preflight is transport-agnostic: stdio, HTTP, an in-process server or a
/// test double all fit behind this trait. Closures
/// `FnMut(&str, Value) -> Result<Value, RpcError>` implement it, which suits
/// in-process servers and tests; a transport that can fail on its own implements
/// it on its connection type and reports [`RequestError::Transport`].
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::{RequestError, Requester};
/// use annot::protocol::{error_code, RpcError};
/// use serde_json::{json, Value};
///
/// let mut old_server = |method: &str, _params: Value| -> Result<Value, RpcError> {
///     Err(RpcError::new(error_code::METHOD_NOT_FOUND, format!("no method {method}")))
/// };
/// let error = old_server.request("tools/resolve", json!({})).unwrap_err();
/// assert!(matches!(error, RequestError::Rpc(e) if e.code == error_code::METHOD_NOT_FOUND));
/// ```
pub trait Requester {
    /// Sends `method` with `params` and waits for the answer: the response's
    /// `result`, or its `error`, or why no response came.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError>;
}

impl<F> Requester for F
where
    F: FnMut(&str, Value) -> Result<Value, RpcError>,
{
    fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError> {
        self(method, params).map_err(RequestError::Rpc)
    }
}

/// Why a request produced no result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// The server answered with a JSON-RPC error.
    #[error("{0}")]
    Rpc(RpcError),
    /// No answer came: the connection failed, timed out or sent garbage.
    #[error("transport failed: {message}")]
    Transport {
        /// What the transport reported.
        message: String,
    },
}

impl RequestError {
    /// A transport failure described by `message`.
    pub fn transport(message: impl fmt::Display) -> Self {
        RequestError::Transport {
            message: message.to_string(),
        }
    }
}

impl From<RpcError> for RequestError {
    fn from(error: RpcError) -> Self {
        RequestError::Rpc(error)
    }
}

impl From<std::io::Error> for RequestError {
    fn from(error: std::io::Error) -> Self {
        RequestError::transport(error)
    }
}

/// Whether and how this client opted into the tool-resolution extension
/// (dialect C).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ClientExtension {
    /// The client did not offer the extension: dialect C is not used.
    #[default]
    NotOffered,
    /// The client listed the extension under `capabilities.extensions` in its
    /// `initialize` request; requests carry no per-request capabilities.
    Initialize,
    /// The client declares the extension on each `tools/resolve` request, in
    /// `params._meta["io.modelcontextprotocol/clientCapabilities"]` (sessions
    /// without `initialize`).
    PerRequest,
}

/// The resolution dialects a server declared, whether this client opted into
/// the extension, and the protocol era of the connection: everything the
/// preflight needs to pick a dialect for a tool and to shape its request.
///
/// Build it from the server's `initialize` result with
/// [`from_initialize_result`](Self::from_initialize_result) (a legacy session,
/// 2025-11-25 and earlier), from its `server/discover` result with
/// [`from_discover_result`](Self::from_discover_result) (MCP 2026-07-28: no
/// handshake, every request carries its own `_meta`), or set the fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResolutionSupport {
    /// `capabilities.tools.dynamicAnnotations: true` (dialect A).
    pub dynamic_annotations: bool,
    /// `capabilities.tools.resolve: true` (dialect B, SEP-1862).
    pub resolve: bool,
    /// `capabilities.extensions["io.modelcontextprotocol/tool-resolution"]` is an
    /// empty object (dialect C).
    pub extension: bool,
    /// How this client opted into dialect C.
    pub client_extension: ClientExtension,
    /// `None` in a session opened with `initialize`; the protocol version every
    /// request carries in `params._meta` otherwise (`"2026-07-28"`). Such
    /// requests also carry [`client`](Self::client)'s info and capabilities, and
    /// SEP-1862's `{tool}` shape (dialect B) is not used: it belongs to legacy
    /// sessions.
    pub protocol_version: Option<String>,
    /// Who this client is and what it supports: sent on every 2026-07-28
    /// request, and in a legacy session with per-request opt-in
    /// ([`ClientExtension::PerRequest`]). Its `extensions` are the ones whose
    /// result `_meta` the preflight reads.
    pub client: ClientInfo,
}

impl ResolutionSupport {
    /// Reads the server's `capabilities` object. Values of the wrong type count as
    /// not declared; so does an extension entry with settings this client does not
    /// know (the extension defines none).
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::{ClientExtension, ResolutionSupport};
    /// use serde_json::json;
    ///
    /// let support = ResolutionSupport::from_server_capabilities(
    ///     &json!({"tools": {"dynamicAnnotations": true, "resolve": "yes"}}),
    ///     ClientExtension::NotOffered,
    /// );
    /// assert!(support.dynamic_annotations && !support.resolve && !support.extension);
    /// ```
    pub fn from_server_capabilities(
        capabilities: &Value,
        client_extension: ClientExtension,
    ) -> Self {
        let tools = &capabilities["tools"];
        let extension = capabilities["extensions"]
            .get(TOOL_RESOLUTION_EXTENSION)
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        ResolutionSupport {
            dynamic_annotations: tools["dynamicAnnotations"] == Value::Bool(true),
            resolve: tools["resolve"] == Value::Bool(true),
            extension,
            client_extension,
            protocol_version: None,
            client: ClientInfo::default(),
        }
    }

    /// Reads a `server/discover` result (MCP 2026-07-28): the newest version
    /// of `supportedVersions` this client speaks per request, and the
    /// server's `capabilities`. Every preflight request then carries
    /// `client`'s info and whole capabilities in its `_meta`, the
    /// tool-resolution extension among them unless `client_extension` is
    /// [`ClientExtension::NotOffered`] (there is no `initialize` to opt in
    /// through, so [`ClientExtension::Initialize`] counts as per request).
    ///
    /// # Errors
    ///
    /// [`DiscoverError::NoCommonVersion`] when the server serves no version this
    /// client speaks per request (the host falls back to `initialize`), and
    /// [`DiscoverError::Malformed`] when the result lacks `supportedVersions` or
    /// `capabilities`.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::{ClientExtension, ClientInfo, ResolutionSupport};
    /// use serde_json::json;
    ///
    /// let support = ResolutionSupport::from_discover_result(
    ///     &json!({
    ///         "supportedVersions": ["2025-11-25", "2026-07-28"],
    ///         "capabilities": {"extensions": {"io.modelcontextprotocol/tool-resolution": {}}},
    ///         "resultType": "complete", "ttlMs": 0, "cacheScope": "public"
    ///     }),
    ///     ClientInfo::new("my-host", "1.0.0"),
    ///     ClientExtension::PerRequest,
    /// )
    /// .unwrap();
    /// assert_eq!(support.protocol_version.as_deref(), Some("2026-07-28"));
    /// assert!(support.extension);
    /// ```
    pub fn from_discover_result(
        result: &Value,
        client: ClientInfo,
        client_extension: ClientExtension,
    ) -> Result<Self, DiscoverError> {
        let (version, capabilities) = read_discover(result)?;
        let client_extension = match client_extension {
            ClientExtension::NotOffered => ClientExtension::NotOffered,
            ClientExtension::Initialize | ClientExtension::PerRequest => {
                ClientExtension::PerRequest
            }
        };
        Ok(ResolutionSupport {
            protocol_version: Some(version),
            client,
            ..Self::from_server_capabilities(capabilities, client_extension)
        })
    }

    /// The same support, with this client's info and capabilities.
    #[must_use]
    pub fn with_client(mut self, client: ClientInfo) -> Self {
        self.client = client;
        self
    }

    /// Reads `result.capabilities` of the server's answer to `initialize`.
    pub fn from_initialize_result(result: &Value, client_extension: ClientExtension) -> Self {
        Self::from_server_capabilities(&result["capabilities"], client_extension)
    }

    /// Whether both sides can use `dialect`.
    pub fn supports(&self, dialect: Dialect) -> bool {
        match dialect {
            Dialect::DynamicAnnotations => self.dynamic_annotations,
            // SEP-1862's `{tool}` shape belongs to legacy sessions only.
            Dialect::ResolveTool => self.resolve && self.protocol_version.is_none(),
            Dialect::ToolResolutionExtension => {
                self.extension && self.client_extension != ClientExtension::NotOffered
            }
        }
    }

    /// The best dialect both sides speak and the tool is marked for: the
    /// extension (C) before `tools/resolve` (B) before `tools/annotations` (A).
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::{NotResolvable, ResolutionSupport};
    /// use annot::protocol::Dialect;
    /// use annot::Tool;
    /// use serde_json::json;
    ///
    /// let tool: Tool = serde_json::from_value(json!({
    ///     "name": "t", "inputSchema": {"type": "object"},
    ///     "dynamicAnnotations": true, "resolve": true
    /// })).unwrap();
    /// let support = ResolutionSupport { dynamic_annotations: true, ..Default::default() };
    /// assert_eq!(support.dialect_for(&tool), Ok(Dialect::DynamicAnnotations));
    /// let none = ResolutionSupport::default();
    /// assert_eq!(
    ///     none.dialect_for(&tool),
    ///     Err(NotResolvable::NotDeclared { dialect: Dialect::ResolveTool })
    /// );
    /// ```
    pub fn dialect_for(&self, tool: &Tool) -> Result<Dialect, NotResolvable> {
        let marked: Vec<Dialect> = Dialect::ALL
            .into_iter()
            .rev()
            .filter(|&dialect| is_marked(tool, dialect))
            .collect();
        if let Some(&dialect) = marked.iter().find(|&&dialect| self.supports(dialect)) {
            return Ok(dialect);
        }
        match marked.first() {
            None => Err(NotResolvable::Unmarked),
            Some(Dialect::ResolveTool) if self.resolve && self.protocol_version.is_some() => {
                Err(NotResolvable::LegacyOnly)
            }
            Some(Dialect::ToolResolutionExtension) if self.extension => {
                Err(NotResolvable::ExtensionNotOffered)
            }
            Some(&dialect) => Err(NotResolvable::NotDeclared { dialect }),
        }
    }

    /// Whether this client offers the extension (dialect C).
    pub(crate) fn offers_extension(&self) -> bool {
        self.client_extension != ClientExtension::NotOffered
    }

    /// The `params` of the preflight request in `dialect`, at `version` (the
    /// per-request protocol version; `None` in a legacy session).
    pub(crate) fn request_params(
        &self,
        dialect: Dialect,
        name: &str,
        arguments: &Map<String, Value>,
        version: Option<&str>,
    ) -> Value {
        let mut params = Map::new();
        params.insert("name".to_owned(), Value::String(name.to_owned()));
        params.insert("arguments".to_owned(), Value::Object(arguments.clone()));
        if let Some(version) = version {
            let meta = self.client.request_meta(version, self.offers_extension());
            params.insert("_meta".to_owned(), Value::Object(meta));
        } else if dialect == Dialect::ToolResolutionExtension
            && self.client_extension == ClientExtension::PerRequest
        {
            params.insert(
                "_meta".to_owned(),
                serde_json::json!({
                    CLIENT_CAPABILITIES_META: self.client.declared_capabilities(true)
                }),
            );
        }
        Value::Object(params)
    }
}

/// Whether the listed tool carries the marker of `dialect`.
fn is_marked(tool: &Tool, dialect: Dialect) -> bool {
    match dialect {
        Dialect::DynamicAnnotations => tool.dynamic_annotations == Some(true),
        Dialect::ResolveTool => tool.resolve == Some(true),
        Dialect::ToolResolutionExtension => tool
            .meta
            .as_ref()
            .and_then(|meta| meta.get(TOOL_RESOLUTION_EXTENSION))
            .is_some_and(|marker| marker["resolvable"] == Value::Bool(true)),
    }
}

/// Why a tool's call cannot be resolved, so its static annotations apply. None of
/// these is a failure: the preflight simply has nothing to ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum NotResolvable {
    /// The tool is marked for no resolution dialect.
    #[error("the tool offers no argument-specific annotations")]
    Unmarked,
    /// The tool is marked for `dialect`, but the server did not declare the
    /// capability in `initialize`.
    #[error("the tool is marked for {}, but the server did not declare that capability", label(*.dialect))]
    NotDeclared {
        /// The best dialect the tool is marked for.
        dialect: Dialect,
    },
    /// The tool and the server offer the extension (dialect C), but this client
    /// did not opt into it.
    #[error("the tool offers the tool-resolution extension, which this client did not negotiate")]
    ExtensionNotOffered,
    /// The tool is marked for SEP-1862's `tools/resolve` only, whose `{tool}`
    /// shape belongs to legacy sessions, and this client speaks 2026-07-28.
    #[error("the tool offers only tools/resolve (SEP-1862), which 2026-07-28 requests do not use")]
    LegacyOnly,
}

/// A short name of a dialect for messages.
pub(crate) fn label(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::DynamicAnnotations => "tools/annotations (dynamic annotations)",
        Dialect::ResolveTool => "tools/resolve (SEP-1862)",
        Dialect::ToolResolutionExtension => "tools/resolve (tool-resolution extension)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(json: Value) -> Tool {
        let mut base = json!({"name": "t", "inputSchema": {"type": "object"}});
        base.as_object_mut()
            .unwrap()
            .extend(json.as_object().unwrap().clone());
        serde_json::from_value(base).unwrap()
    }

    fn all_marked() -> Tool {
        tool(json!({
            "dynamicAnnotations": true,
            "resolve": true,
            "_meta": {TOOL_RESOLUTION_EXTENSION: {"resolvable": true}}
        }))
    }

    #[test]
    fn reads_every_capability() {
        let support = ResolutionSupport::from_initialize_result(
            &json!({"capabilities": {
                "tools": {"dynamicAnnotations": true, "resolve": true},
                "extensions": {TOOL_RESOLUTION_EXTENSION: {}}
            }}),
            ClientExtension::Initialize,
        );
        assert_eq!(
            support,
            ResolutionSupport {
                dynamic_annotations: true,
                resolve: true,
                extension: true,
                client_extension: ClientExtension::Initialize,
                ..Default::default()
            }
        );
    }

    #[test]
    fn an_extension_with_unknown_settings_is_not_supported() {
        let support = ResolutionSupport::from_server_capabilities(
            &json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {"mode": "x"}}}),
            ClientExtension::Initialize,
        );
        assert!(!support.extension);
    }

    #[test]
    fn prefers_c_then_b_then_a() {
        let tool = all_marked();
        let mut support = ResolutionSupport {
            dynamic_annotations: true,
            resolve: true,
            extension: true,
            client_extension: ClientExtension::PerRequest,
            ..Default::default()
        };
        assert_eq!(
            support.dialect_for(&tool),
            Ok(Dialect::ToolResolutionExtension)
        );
        support.client_extension = ClientExtension::NotOffered;
        assert_eq!(support.dialect_for(&tool), Ok(Dialect::ResolveTool));
        support.resolve = false;
        assert_eq!(support.dialect_for(&tool), Ok(Dialect::DynamicAnnotations));
        support.dynamic_annotations = false;
        assert_eq!(
            support.dialect_for(&tool),
            Err(NotResolvable::ExtensionNotOffered)
        );
        support.extension = false;
        assert_eq!(
            support.dialect_for(&tool),
            Err(NotResolvable::NotDeclared {
                dialect: Dialect::ToolResolutionExtension
            })
        );
    }

    #[test]
    fn a_marker_must_be_exactly_true() {
        let support = ResolutionSupport {
            dynamic_annotations: true,
            resolve: true,
            extension: true,
            client_extension: ClientExtension::Initialize,
            ..Default::default()
        };
        let tool = tool(json!({
            "resolve": false,
            "_meta": {TOOL_RESOLUTION_EXTENSION: {"resolvable": "true"}}
        }));
        assert_eq!(support.dialect_for(&tool), Err(NotResolvable::Unmarked));
    }

    #[test]
    fn per_request_opt_in_goes_into_meta() {
        let arguments = Map::new();
        let mut support = ResolutionSupport {
            extension: true,
            client_extension: ClientExtension::PerRequest,
            ..Default::default()
        };
        let params =
            support.request_params(Dialect::ToolResolutionExtension, "t", &arguments, None);
        assert_eq!(
            params["_meta"][CLIENT_CAPABILITIES_META]["extensions"][TOOL_RESOLUTION_EXTENSION],
            json!({})
        );
        support.client_extension = ClientExtension::Initialize;
        let params =
            support.request_params(Dialect::ToolResolutionExtension, "t", &arguments, None);
        assert_eq!(params, json!({"name": "t", "arguments": {}}));
    }
}
