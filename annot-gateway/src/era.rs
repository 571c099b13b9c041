//! The two protocol eras, negotiated on each side on its own: a host may
//! send 2026-07-28 requests (no handshake, `_meta` on every request) to an
//! upstream that wants `initialize`, and a host that opens with
//! `initialize` may sit in front of an upstream that answers
//! `server/discover`.

use annot_runtime::client::{ClientExtension, ClientInfo, ResolutionSupport};
use annot_runtime::protocol::{
    AUTHORIZATION_EXTENSION, CLIENT_CAPABILITIES_META, CLIENT_INFO_META, LATEST_PROTOCOL_VERSION,
    MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META, PROTOCOL_VERSIONS, SERVER_INFO_META,
    TOOL_RESOLUTION_EXTENSION,
};
use serde_json::{Map, Value, json};

/// An upstream's era, once the gateway knows it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum UpstreamEra {
    /// Not asked yet.
    Unknown,
    /// It was opened with `initialize`.
    Legacy,
    /// It answers `server/discover` with 2026-07-28: every request carries
    /// `_meta`.
    Modern,
}

/// Whether a host request is a 2026-07-28 request: `server/discover`, or
/// `params._meta` naming that version.
pub(crate) fn is_modern(method: &str, params: &Value) -> bool {
    method == "server/discover"
        || params
            .pointer("/_meta")
            .and_then(|meta| meta.get(PROTOCOL_VERSION_META))
            .and_then(Value::as_str)
            == Some(MODERN_PROTOCOL_VERSION)
}

/// Who the host is, for the upstream: its info and capabilities, from its
/// `initialize` params or a 2026-07-28 request's `_meta`, with the
/// tool-resolution extension the gateway itself takes up.
#[derive(Clone, Debug)]
pub(crate) struct HostIdentity {
    pub info: Value,
    pub capabilities: Value,
    /// The host itself took the tool-resolution extension up.
    pub takes_up_resolution: bool,
}

impl Default for HostIdentity {
    fn default() -> Self {
        HostIdentity {
            info: json!({"name": "annot-gateway", "version": env!("CARGO_PKG_VERSION")}),
            capabilities: json!({}),
            takes_up_resolution: false,
        }
    }
}

impl HostIdentity {
    /// From `initialize` params.
    pub(crate) fn from_initialize(params: &Value) -> HostIdentity {
        let mut identity = HostIdentity::default();
        if params["clientInfo"].is_object() {
            identity.info = params["clientInfo"].clone();
        }
        if params["capabilities"].is_object() {
            identity.capabilities = params["capabilities"].clone();
        }
        identity.take_up_resolution();
        identity
    }

    /// From a 2026-07-28 request's `_meta`.
    pub(crate) fn from_meta(params: &Value) -> HostIdentity {
        let mut identity = HostIdentity::default();
        if let Some(meta) = params.get("_meta") {
            if meta[CLIENT_INFO_META].is_object() {
                identity.info = meta[CLIENT_INFO_META].clone();
            }
            if meta[CLIENT_CAPABILITIES_META].is_object() {
                identity.capabilities = meta[CLIENT_CAPABILITIES_META].clone();
            }
        }
        identity.take_up_resolution();
        identity
    }

    fn take_up_resolution(&mut self) {
        self.takes_up_resolution = self.capabilities["extensions"]
            .get(TOOL_RESOLUTION_EXTENSION)
            .is_some();
        let extensions = &mut self.capabilities["extensions"];
        if !extensions.is_object() {
            *extensions = json!({});
        }
        extensions[TOOL_RESOLUTION_EXTENSION] = json!({});
        // The scopes each call needs, which the gateway checks against the
        // caller's token.
        extensions[AUTHORIZATION_EXTENSION] = json!({});
    }

    /// The client preflight's view of this host, for a legacy upstream: what
    /// its requests declared in `initialize`.
    pub(crate) fn client_info(&self) -> ClientInfo {
        ClientInfo::new(
            self.info["name"].as_str().unwrap_or("annot-gateway"),
            self.info["version"]
                .as_str()
                .unwrap_or(env!("CARGO_PKG_VERSION")),
        )
        .with_capabilities(self.capabilities.clone())
    }

    /// `params._meta` of a 2026-07-28 request to the upstream.
    pub(crate) fn meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(PROTOCOL_VERSION_META.into(), json!(MODERN_PROTOCOL_VERSION));
        meta.insert(CLIENT_INFO_META.into(), self.info.clone());
        meta.insert(CLIENT_CAPABILITIES_META.into(), self.capabilities.clone());
        meta
    }

    /// `initialize` params for a legacy upstream.
    pub(crate) fn initialize_params(&self, version: &str) -> Value {
        json!({
            "protocolVersion": version,
            "capabilities": self.capabilities,
            "clientInfo": self.info,
        })
    }

    /// The client preflight's resolution support for a 2026-07-28 upstream.
    pub(crate) fn support(&self, discovered: &Value) -> ResolutionSupport {
        ResolutionSupport::from_discover_result(
            discovered,
            self.client_info(),
            ClientExtension::PerRequest,
        )
        .unwrap_or_default()
    }
}

/// `params` as a 2026-07-28 upstream wants them: with `identity`'s `_meta`.
pub(crate) fn with_meta(mut params: Value, identity: &HostIdentity) -> Value {
    if !params.is_object() {
        params = json!({});
    }
    let meta = params
        .as_object_mut()
        .expect("an object")
        .entry("_meta")
        .or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.extend(identity.meta());
    }
    params
}

/// `params` as a legacy upstream wants them: without the 2026-07-28 keys.
pub(crate) fn without_meta(mut params: Value) -> Value {
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        for key in [
            PROTOCOL_VERSION_META,
            CLIENT_INFO_META,
            CLIENT_CAPABILITIES_META,
        ] {
            meta.remove(key);
        }
        if meta.is_empty() {
            params.as_object_mut().expect("an object").remove("_meta");
        }
    }
    params
}

/// A response as a 2026-07-28 host reads it: `resultType` and the
/// gateway's `serverInfo` on a result.
pub(crate) fn for_modern_host(mut response: Value, listing: bool) -> Value {
    let Some(result) = response.get_mut("result").and_then(Value::as_object_mut) else {
        return response;
    };
    result
        .entry("resultType")
        .or_insert_with(|| json!("complete"));
    if listing {
        result.entry("ttlMs").or_insert_with(|| json!(0));
        result
            .entry("cacheScope")
            .or_insert_with(|| json!("private"));
    }
    let meta = result.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.entry(SERVER_INFO_META).or_insert_with(server_info);
    }
    response
}

fn server_info() -> Value {
    json!({"name": "annot-gateway", "version": env!("CARGO_PKG_VERSION")})
}

/// The protocol version to answer a legacy host's `initialize` with, for an
/// upstream that does not take `initialize`: the host's, when the gateway
/// speaks it, else the latest.
pub(crate) fn negotiated(requested: Option<&str>) -> &'static str {
    PROTOCOL_VERSIONS
        .iter()
        .find(|version| Some(**version) == requested)
        .copied()
        .unwrap_or(LATEST_PROTOCOL_VERSION)
}
