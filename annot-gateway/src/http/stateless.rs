//! MCP 2026-07-28 hosts over `--http`: a request without `Mcp-Session-Id`
//! whose `MCP-Protocol-Version` header or `params._meta` names 2026-07-28.
//! There is no handshake and no session: each request stands alone, so any
//! process behind a load balancer may answer it.
//!
//! Each process serves such requests through one gateway session per caller
//! (the token's subject under `[auth]`; one for everybody without it), with
//! its own upstream processes, started on the first request. The caller is
//! the trifecta's risk key: what one request of a caller read counts against
//! the next. Several hosts of one caller share the session, so each request
//! goes to the gateway under an id of the process's own, unique in it, and
//! its response comes back under the host's id; each call is judged by the
//! scopes of the token it came with.

use annot_runtime::protocol::MODERN_PROTOCOL_VERSION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::auth::Caller;

use super::refusals::{Kind, SESSION_HEADER, VERSION_HEADER, line};
use super::streams::{Session, exchange};

/// Whether a POST is a 2026-07-28 request without a session.
pub(super) fn wanted(headers: &HeaderMap, message: &Value) -> bool {
    if headers.contains_key(SESSION_HEADER) {
        return false;
    }
    let by_header = headers
        .get(VERSION_HEADER)
        .is_some_and(|version| version.as_bytes() == MODERN_PROTOCOL_VERSION.as_bytes());
    let method = message["method"].as_str().unwrap_or_default();
    by_header || crate::era::is_modern(method, &message["params"])
}

/// The caller's key: the token's subject, or `""` for everybody without one.
pub(super) fn caller_key(caller: Option<&Caller>) -> String {
    caller
        .and_then(|caller| caller.subject.clone())
        .unwrap_or_default()
}

/// Serves one request (or hands over one notification or response) in the
/// caller's `session` of this process; `number` makes the request's id
/// unique in it.
pub(super) async fn serve(
    session: &Session,
    number: u64,
    kind: Kind,
    message: Value,
    body: &[u8],
    sse: bool,
    caller: Option<Caller>,
) -> Response {
    let Kind::Request(shown_id) = kind else {
        session.gateway.from_host(body);
        return StatusCode::ACCEPTED.into_response();
    };
    let id = json!(format!("annot-gateway-http-{number}"));
    let mut forwarded = message;
    forwarded["id"] = id.clone();
    let body = line(&forwarded);
    if let Some(caller) = caller {
        session.gateway.set_request_caller(&id, caller);
    }
    match exchange(session, &id, &forwarded, &body, sse, Some(shown_id)).await {
        Ok(answer) => answer.into_response(),
        Err(refused) => refused.into_response(),
    }
}
