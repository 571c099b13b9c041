//! What is refused before the gateway sees a message, and how: the checks
//! of a request's headers and body, and the answers for what fails them.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::auth::AuthError;
use crate::message::{code, error_response};

/// The header that carries the session's id.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The header that carries the negotiated protocol version.
pub const VERSION_HEADER: &str = "mcp-protocol-version";
/// The protocol versions whose Streamable HTTP the gateway serves.
pub const VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
pub(super) fn is_loopback_authority(authority: &str) -> bool {
    let authority = authority.trim_end_matches('/');
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

pub(super) fn check_version(headers: &HeaderMap) -> Result<(), Refused> {
    match headers.get(VERSION_HEADER) {
        None => Ok(()),
        Some(version) if version.to_str().is_ok_and(|v| VERSIONS.contains(&v)) => Ok(()),
        Some(version) => Err(plain(
            StatusCode::BAD_REQUEST,
            &format!(
                "unsupported MCP-Protocol-Version {version:?}; the gateway serves {}",
                VERSIONS.join(", ")
            ),
        )),
    }
}

/// What kind of JSON-RPC message a POST carried.
pub(super) enum Kind {
    Request(Value),
    Initialize(Value),
    Other,
}

pub(super) fn classify(message: &Value) -> Result<Kind, Refused> {
    let Some(object) = message.as_object() else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            "one JSON-RPC message per POST, an object (batches are not part of MCP)",
        ));
    };
    let method = object.get("method").and_then(Value::as_str);
    let id = object.get("id").filter(|id| !id.is_null());
    match (method, id) {
        (Some("initialize"), Some(id)) => Ok(Kind::Initialize(id.clone())),
        (Some(_), Some(id)) => Ok(Kind::Request(id.clone())),
        (Some(_), None) => Ok(Kind::Other),
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => {
            Ok(Kind::Other)
        }
        _ => Err(rpc_error(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            "not a JSON-RPC request, notification or response",
        )),
    }
}

/// What the client said it accepts: (JSON, an event stream).
pub(super) fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let Some(accept) = headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok())
    else {
        return (true, true);
    };
    let any = accept.contains("*/*");
    (
        any || accept.contains("application/json"),
        any || accept.contains("text/event-stream"),
    )
}

/// A request refused for its token: 401 or 403, with `WWW-Authenticate`.
pub(super) struct Unauthorized {
    pub(super) error: AuthError,
    pub(super) challenge: String,
}

impl IntoResponse for Unauthorized {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.error.status()).expect("401 or 403");
        let body = line(&error_response(
            &Value::Null,
            code::INVALID_REQUEST,
            self.error.to_string(),
        ));
        let mut response =
            (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if let Ok(value) = HeaderValue::from_str(&self.challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

pub(super) fn line(message: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).expect("a Value serializes");
    bytes.push(b'\n');
    bytes
}

/// A request refused before the gateway sees it: the status, and a JSON-RPC
/// error code when the body is a JSON-RPC error (else plain text).
pub(super) struct Refused {
    pub(super) status: StatusCode,
    pub(super) code: Option<i64>,
    pub(super) text: String,
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        match self.code {
            Some(code) => (
                self.status,
                [(header::CONTENT_TYPE, "application/json")],
                line(&error_response(&Value::Null, code, self.text)),
            )
                .into_response(),
            None => (self.status, format!("{}\n", self.text)).into_response(),
        }
    }
}

pub(super) fn plain(status: StatusCode, text: &str) -> Refused {
    Refused {
        status,
        code: None,
        text: text.to_owned(),
    }
}

pub(super) fn rpc_error(status: StatusCode, code: i64, text: &str) -> Refused {
    Refused {
        status,
        code: Some(code),
        text: text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::is_loopback_authority;

    #[test]
    fn loopback_authorities() {
        for yes in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "127.1.2.3",
            "[::1]:80",
            "[::1]",
        ] {
            assert!(is_loopback_authority(yes), "{yes}");
        }
        for no in [
            "evil.example",
            "evil.example:80",
            "10.0.0.1:80",
            "localhost.evil.example",
            "[::2]:1",
            "",
        ] {
            assert!(!is_loopback_authority(no), "{no}");
        }
    }
}
