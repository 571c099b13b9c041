//! MCP 2026-07-28 on the client side: who the client is, the per-request
//! `params._meta` every request carries, reading `server/discover`, and the
//! result `_meta` a client may act on.

use serde_json::{Map, Value, json};

use crate::argument_error::json_type;
use crate::protocol::{
    CLIENT_CAPABILITIES_META, CLIENT_INFO_META, MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META,
    RpcError, SERVER_INFO_META, TOOL_RESOLUTION_EXTENSION,
};

/// The protocol versions this client speaks without a handshake, every request
/// carrying its own `_meta`; the newest first.
const PER_REQUEST_VERSIONS: [&str; 1] = [MODERN_PROTOCOL_VERSION];

/// Who this client is and everything it supports: what a 2026-07-28 request
/// carries as `io.modelcontextprotocol/clientInfo` and
/// `io.modelcontextprotocol/clientCapabilities`, and in a legacy session what
/// the client sent in `initialize`.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::ClientInfo;
/// use serde_json::json;
///
/// let client = ClientInfo::new("my-host", "1.2.0")
///     .with_capabilities(json!({"roots": {}, "extensions": {"com.example/x": {}}}));
/// assert_eq!(client.capabilities["roots"], json!({}));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientInfo {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
    /// The host's whole client capabilities, as it would send them in
    /// `initialize`. The preflight adds the tool-resolution extension when the
    /// client offers it.
    pub capabilities: Map<String, Value>,
}

impl ClientInfo {
    /// A client of this name and version with no capabilities.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientInfo {
            name: name.into(),
            version: version.into(),
            capabilities: Map::new(),
        }
    }

    /// The same client with these capabilities; anything but an object counts as
    /// none.
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = match capabilities {
            Value::Object(capabilities) => capabilities,
            _ => Map::new(),
        };
        self
    }

    /// The capabilities a request declares: the host's, with the tool-resolution
    /// extension added when `offer_extension`.
    pub(crate) fn declared_capabilities(&self, offer_extension: bool) -> Value {
        let mut capabilities = self.capabilities.clone();
        if offer_extension {
            let extensions = capabilities
                .entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()));
            if !extensions.is_object() {
                *extensions = Value::Object(Map::new());
            }
            if let Value::Object(extensions) = extensions {
                extensions.insert(TOOL_RESOLUTION_EXTENSION.to_owned(), json!({}));
            }
        }
        Value::Object(capabilities)
    }

    /// The extensions a request declares, whose result `_meta` keys the client
    /// reads.
    pub(crate) fn negotiated_extensions(&self, offer_extension: bool) -> Vec<String> {
        let declared = self.declared_capabilities(offer_extension);
        declared["extensions"]
            .as_object()
            .map(|extensions| extensions.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// `params._meta` of a 2026-07-28 request at `version`: the version, this
    /// client's name and version, and its whole capabilities, with the
    /// tool-resolution extension when `offer_extension`. The preflight sends it
    /// on every request; a host sends the same on `server/discover`,
    /// `tools/list` and `tools/call`.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::ClientInfo;
    /// use serde_json::json;
    ///
    /// let meta = ClientInfo::new("host", "1.0").request_meta("2026-07-28", true);
    /// assert_eq!(
    ///     serde_json::Value::Object(meta),
    ///     json!({
    ///         "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    ///         "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1.0"},
    ///         "io.modelcontextprotocol/clientCapabilities": {
    ///             "extensions": {"io.modelcontextprotocol/tool-resolution": {}}
    ///         }
    ///     })
    /// );
    /// ```
    pub fn request_meta(&self, version: &str, offer_extension: bool) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(PROTOCOL_VERSION_META.to_owned(), json!(version));
        meta.insert(
            CLIENT_INFO_META.to_owned(),
            json!({"name": self.name, "version": self.version}),
        );
        meta.insert(
            CLIENT_CAPABILITIES_META.to_owned(),
            self.declared_capabilities(offer_extension),
        );
        meta
    }
}

/// Why a `server/discover` result gives no 2026-07-28 session.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoverError {
    /// The result does not have the shape of `server/discover`.
    #[error("the server/discover result is malformed: {detail}")]
    Malformed {
        /// What is wrong and where.
        detail: String,
    },
    /// The server serves no version this client speaks without a handshake; a
    /// host falls back to `initialize`.
    #[error(
        "the server supports {supported:?}, none of which this client speaks per request ({:?})",
        PER_REQUEST_VERSIONS
    )]
    NoCommonVersion {
        /// `supportedVersions` as the server listed them.
        supported: Vec<String>,
    },
}

/// The `supportedVersions` of a `server/discover` result, and its
/// `capabilities`.
pub(crate) fn read_discover(result: &Value) -> Result<(String, &Value), DiscoverError> {
    let malformed = |detail: String| DiscoverError::Malformed { detail };
    if !result.is_object() {
        return Err(malformed(format!(
            "the result must be an object, found {}",
            json_type(result)
        )));
    }
    let versions = result["supportedVersions"].as_array().ok_or_else(|| {
        malformed(format!(
            "`supportedVersions` must be an array, found {}",
            json_type(&result["supportedVersions"])
        ))
    })?;
    let supported: Vec<String> = versions
        .iter()
        .enumerate()
        .map(|(index, version)| {
            version.as_str().map(str::to_owned).ok_or_else(|| {
                malformed(format!(
                    "`supportedVersions[{index}]` must be a string, found {}",
                    json_type(version)
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    if !result["capabilities"].is_object() {
        return Err(malformed(format!(
            "`capabilities` must be an object, found {}",
            json_type(&result["capabilities"])
        )));
    }
    match newest_common(&supported) {
        Some(version) => Ok((version, &result["capabilities"])),
        None => Err(DiscoverError::NoCommonVersion { supported }),
    }
}

/// The newest version of `supported` this client speaks per request.
pub(crate) fn newest_common(supported: &[String]) -> Option<String> {
    PER_REQUEST_VERSIONS
        .into_iter()
        .find(|version| supported.iter().any(|offered| offered == version))
        .map(str::to_owned)
}

/// `error.data.supported` of a `-32022`, when it is a list of strings.
pub(crate) fn supported_versions(error: &RpcError) -> Vec<String> {
    error
        .data
        .as_ref()
        .and_then(|data| data.get("supported"))
        .and_then(Value::as_array)
        .map(|versions| {
            versions
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a `-32602` is about the request's envelope (its `_meta`: protocol
/// version, client info, capabilities) rather than the tool's arguments. Servers
/// name the missing or malformed `_meta` keys (docs/PROTOCOL.md section 7), as rmcp does
/// ("request _meta is missing or has malformed required fields: ...").
pub(crate) fn is_about_envelope(error: &RpcError) -> bool {
    let mentions = |text: &str| text.contains("_meta") || text.contains("io.modelcontextprotocol/");
    mentions(&error.message)
        || error
            .data
            .as_ref()
            .is_some_and(|data| mentions(&data.to_string()))
}

/// What a result's `_meta` carries for the client.
#[derive(Debug, Default)]
pub(crate) struct ResultMeta {
    pub server_info: Option<Map<String, Value>>,
    pub negotiated: Map<String, Value>,
}

/// Takes `_meta` out of `result` and keeps what the client may read:
/// `serverInfo` when it is an object, and the keys `readable` admits. Every other
/// key is ignored, whatever its value. A `_meta` that is not an object makes the
/// result malformed.
pub(crate) fn take_result_meta(
    result: &mut Value,
    readable: impl Fn(&str) -> bool,
) -> Result<ResultMeta, String> {
    let Some(meta) = result
        .as_object_mut()
        .and_then(|object| object.remove("_meta"))
    else {
        return Ok(ResultMeta::default());
    };
    let Value::Object(meta) = meta else {
        return Err(format!(
            "`_meta` must be an object, found {}",
            json_type(&meta)
        ));
    };
    let mut kept = ResultMeta::default();
    for (key, value) in meta {
        if key == SERVER_INFO_META {
            if let Value::Object(info) = value {
                kept.server_info = Some(info);
            }
        } else if readable(&key) {
            kept.negotiated.insert(key, value);
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_joins_the_hosts_capabilities() {
        let client = ClientInfo::new("h", "1")
            .with_capabilities(json!({"roots": {}, "extensions": {"com.example/x": {}}}));
        assert_eq!(
            client.declared_capabilities(true),
            json!({"roots": {}, "extensions": {"com.example/x": {}, TOOL_RESOLUTION_EXTENSION: {}}})
        );
        assert_eq!(
            client.declared_capabilities(false),
            json!({"roots": {}, "extensions": {"com.example/x": {}}})
        );
        let mut negotiated = client.negotiated_extensions(true);
        negotiated.sort();
        assert_eq!(negotiated, ["com.example/x", TOOL_RESOLUTION_EXTENSION]);
    }

    #[test]
    fn envelope_errors_name_meta() {
        let rmcp = RpcError::new(
            -32602,
            "request _meta is missing or has malformed required fields: \
             io.modelcontextprotocol/protocolVersion",
        );
        assert!(is_about_envelope(&rmcp));
        let data = RpcError::new(-32602, "Invalid params")
            .with_data(json!({"missing": ["io.modelcontextprotocol/clientInfo"]}));
        assert!(is_about_envelope(&data));
        let arguments =
            RpcError::new(-32602, "unknown action `shred`").with_data(json!({"path": "/action"}));
        assert!(!is_about_envelope(&arguments));
    }

    #[test]
    fn discover_needs_a_common_version() {
        let result = json!({"supportedVersions": ["2025-11-25", "2026-07-28"], "capabilities": {}});
        assert_eq!(read_discover(&result).unwrap().0, "2026-07-28");
        let old = json!({"supportedVersions": ["2025-11-25"], "capabilities": {}});
        assert_eq!(
            read_discover(&old).unwrap_err(),
            DiscoverError::NoCommonVersion {
                supported: vec!["2025-11-25".to_owned()]
            }
        );
        let bad = json!({"supportedVersions": [7], "capabilities": {}});
        assert!(
            read_discover(&bad)
                .unwrap_err()
                .to_string()
                .contains("`supportedVersions[0]` must be a string, found")
        );
    }
}
