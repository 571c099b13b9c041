//! MCP 2026-07-28: no handshake, every request carries its protocol version
//! and the client's capabilities in `params._meta` (docs/PROTOCOL.md
//! section 7).
//!
//! A request is judged by its own `_meta`, never by an earlier `initialize`:
//! [`classify`] tells a 2026-07-28 request from a handshake one, and the
//! pre-rendered [`ModernForms`] close every 2026-07-28 result with its
//! `resultType`, caching hints and `_meta["io.modelcontextprotocol/serverInfo"]`.

use std::borrow::Cow;

use crate::read::Json;
use serde::Serialize;
use serde_json::{Value, json};

use crate::read::{self, Meta};

use crate::protocol::{
    CLIENT_CAPABILITIES_META, CLIENT_INFO_META, MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION_META,
    RpcError, SERVER_INFO_META, SUPPORTED_PROTOCOL_VERSIONS, error_code,
};

/// The method every 2026-07-28 server answers with what it supports.
pub(crate) const METHOD_DISCOVER: &str = "server/discover";

/// How long a client may cache `tools/list` and `server/discover`, in
/// milliseconds: 0, as rmcp does, because the listing depends on the
/// capabilities of each request.
const TTL_MS: u32 = 0;

/// How a request is to be served.
#[derive(Debug)]
pub(crate) enum Era<'a> {
    /// By the rules of the handshake session.
    Legacy,
    /// By 2026-07-28's rules, with the request's own `clientCapabilities`
    /// (any JSON value: only an object can take anything up).
    Modern { capabilities: Json<'a> },
}

/// Tells a 2026-07-28 request from a handshake one by its `params._meta`:
/// `server/discover` and every request naming 2026-07-28 (or later) are
/// 2026-07-28 requests; a version this server does not serve is `-32022`,
/// and a 2026-07-28 request without its required keys `-32602` naming them.
pub(crate) fn classify<'a>(method: &str, meta: Option<&Meta<'a>>) -> Result<Era<'a>, RpcError> {
    if method == "initialize" {
        return Ok(Era::Legacy);
    }
    match meta.and_then(|meta| meta.protocol_version) {
        Some(version) => {
            let Some(version) = read::string(version) else {
                return Err(meta_error(
                    PROTOCOL_VERSION_META,
                    format!("must be a string, found {}", read::type_name(version)),
                ));
            };
            if !SUPPORTED_PROTOCOL_VERSIONS.contains(&&*version) {
                return Err(unsupported_version(&version));
            }
            if *version < *MODERN_PROTOCOL_VERSION && method != METHOD_DISCOVER {
                return Ok(Era::Legacy);
            }
        }
        None if method != METHOD_DISCOVER => return Ok(Era::Legacy),
        None => {}
    }
    let version = meta.and_then(|meta| meta.protocol_version);
    let capabilities = meta.and_then(|meta| meta.client_capabilities);
    let (Some(_), Some(capabilities)) = (version, capabilities) else {
        let missing: Vec<&str> = [
            (PROTOCOL_VERSION_META, version.is_none()),
            (CLIENT_CAPABILITIES_META, capabilities.is_none()),
        ]
        .into_iter()
        .filter_map(|(key, missing)| missing.then_some(key))
        .collect();
        let named: Vec<String> = missing.iter().map(|key| format!("`{key}`")).collect();
        return Err(RpcError::new(
            error_code::INVALID_PARAMS,
            format!(
                "a 2026-07-28 request's `params._meta` is missing {}",
                named.join(" and ")
            ),
        )
        .with_data(json!({ "path": "_meta", "missing": missing })));
    };
    if let Some(info) = meta
        .and_then(|meta| meta.client_info)
        .filter(|info| !read::is_object(*info))
    {
        return Err(meta_error(
            CLIENT_INFO_META,
            format!("must be an object, found {}", read::type_name(info)),
        ));
    }
    Ok(Era::Modern { capabilities })
}

/// `-32602` about one `_meta` key.
fn meta_error(key: &str, problem: String) -> RpcError {
    RpcError::new(
        error_code::INVALID_PARAMS,
        format!("`params._meta[\"{key}\"]` {problem}"),
    )
    .with_data(json!({ "path": format!("_meta.{key}") }))
}

/// `-32022 { supported, requested }`.
fn unsupported_version(requested: &str) -> RpcError {
    let quoted = crate::server::transport::request_params::quote(requested);
    RpcError::new(
        error_code::UNSUPPORTED_PROTOCOL_VERSION,
        format!("unsupported protocol version `{quoted}`"),
    )
    .with_data(json!({
        "supported": SUPPORTED_PROTOCOL_VERSIONS,
        "requested": requested,
    }))
}

/// The checks of a 2026-07-28 request's capabilities other than the
/// extension's: they must be an object. (`tools/resolve` reads them itself,
/// so that a non-object gets `-32021` there.)
pub(crate) fn capabilities_object(capabilities: Json<'_>) -> Result<(), RpcError> {
    if read::is_object(capabilities) {
        Ok(())
    } else {
        Err(meta_error(
            CLIENT_CAPABILITIES_META,
            format!("must be an object, found {}", read::type_name(capabilities)),
        ))
    }
}

/// Everything 2026-07-28 adds to results, rendered once.
#[derive(Debug)]
pub(crate) struct ModernForms {
    /// `{"io.modelcontextprotocol/serverInfo":{...}}`.
    pub server_info_meta: Box<str>,
    /// `,"resultType":"complete","_meta":{...}`.
    pub tail: Box<str>,
    /// `,"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{...}`.
    pub cacheable_tail: Box<str>,
    /// The whole `server/discover` result.
    pub discover: Box<str>,
}

/// `serverInfo`, fields in the schema's order.
#[derive(Serialize)]
pub(crate) struct ServerInfo<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    pub version: &'a str,
}

impl ModernForms {
    /// Renders the forms for a server of this identity, `capabilities` and
    /// `instructions`.
    pub fn render(info: &ServerInfo<'_>, capabilities: Value, instructions: Option<&str>) -> Self {
        let info = serde_json::to_string(info).expect("a serverInfo always serializes");
        let server_info_meta = format!("{{\"{SERVER_INFO_META}\":{info}}}");
        let tail = format!(",\"resultType\":\"complete\",\"_meta\":{server_info_meta}");
        let cacheable_tail = format!(
            ",\"resultType\":\"complete\",\"ttlMs\":{TTL_MS},\"cacheScope\":\"private\",\"_meta\":{server_info_meta}"
        );
        let mut discover = serde_json::to_string(&json!({
            "supportedVersions": SUPPORTED_PROTOCOL_VERSIONS,
            "capabilities": capabilities,
        }))
        .expect("a discover result always serializes");
        discover.pop();
        if let Some(instructions) = instructions {
            discover.push_str(",\"instructions\":");
            discover.push_str(&serde_json::to_string(instructions).expect("strings serialize"));
        }
        discover.push_str(&cacheable_tail);
        discover.push('}');
        ModernForms {
            server_info_meta: server_info_meta.into_boxed_str(),
            tail: tail.into_boxed_str(),
            cacheable_tail: cacheable_tail.into_boxed_str(),
            discover: discover.into_boxed_str(),
        }
    }

    /// Closes a result object written to the end of `out` with `resultType`
    /// and the server's `_meta`. The result must not carry either already.
    pub fn close(&self, out: &mut Vec<u8>) {
        debug_assert_eq!(out.last(), Some(&b'}'));
        out.pop();
        out.extend_from_slice(self.tail.as_bytes());
        out.push(b'}');
    }

    /// [`close`](Self::close), with the keys of `extra` (another `_meta`
    /// object's text) in the server's `_meta`, if any.
    pub fn close_with(&self, out: &mut Vec<u8>, extra: Option<&str>) {
        let Some(extra) = extra else {
            return self.close(out);
        };
        debug_assert_eq!(out.last(), Some(&b'}'));
        out.pop();
        out.extend_from_slice(br#","resultType":"complete","_meta":"#);
        out.extend_from_slice(self.meta_with(Some(extra)).as_bytes());
        out.push(b'}');
    }

    /// A result `_meta` object's text: the server's identity, then the keys of
    /// `extra` (another `_meta` object's text), if any.
    pub fn meta_with(&self, extra: Option<&str>) -> Cow<'_, str> {
        let info = &*self.server_info_meta;
        match extra {
            None => Cow::Borrowed(info),
            Some(extra) => Cow::Owned(format!("{},{}", &info[..info.len() - 1], &extra[1..])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(text: &str) -> Meta<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn legacy_requests_stay_legacy() {
        assert!(matches!(classify("tools/list", None), Ok(Era::Legacy)));
        let old = meta(r#"{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}"#);
        assert!(matches!(
            classify("tools/list", Some(&old)),
            Ok(Era::Legacy)
        ));
        let modern = meta(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#);
        assert!(matches!(
            classify("initialize", Some(&modern)),
            Ok(Era::Legacy)
        ));
    }

    #[test]
    fn a_modern_request_needs_its_keys_and_a_served_version() {
        let error = classify("server/discover", None).unwrap_err();
        assert_eq!(error.code, error_code::INVALID_PARAMS);
        assert!(error.message.contains(PROTOCOL_VERSION_META), "{error:?}");
        assert!(
            error.message.contains(CLIENT_CAPABILITIES_META),
            "{error:?}"
        );

        let no_caps = meta(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#);
        let error = classify("tools/list", Some(&no_caps)).unwrap_err();
        assert!(
            error.message.contains(CLIENT_CAPABILITIES_META),
            "{error:?}"
        );
        assert!(!error.message.contains(PROTOCOL_VERSION_META), "{error:?}");

        let future = meta(r#"{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}"#);
        let error = classify("tools/list", Some(&future)).unwrap_err();
        assert_eq!(error.code, -32022);
        assert_eq!(error.data.unwrap()["requested"], "2099-01-01");

        let good = meta(
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":{}}"#,
        );
        assert!(matches!(
            classify("tools/list", Some(&good)),
            Ok(Era::Modern { .. })
        ));
    }

    #[test]
    fn forms_close_results() {
        let info = ServerInfo {
            name: "s",
            title: None,
            version: "1",
        };
        let forms = ModernForms::render(&info, json!({"tools": {}}), Some("hi"));
        let mut out = b"{\"content\":[]}".to_vec();
        forms.close(&mut out);
        let value: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["resultType"], "complete");
        assert_eq!(value["_meta"][SERVER_INFO_META]["name"], "s");
        let discover: Value = serde_json::from_str(&forms.discover).unwrap();
        assert_eq!(discover["instructions"], "hi");
        assert_eq!(discover["ttlMs"], 0);
        assert_eq!(
            forms.meta_with(Some("{\"a\":1}")),
            "{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"a\":1}"
        );
    }
}
