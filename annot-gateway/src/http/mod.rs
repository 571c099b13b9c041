//! The host over MCP's Streamable HTTP transport (`--http ADDR`).
//!
//! One endpoint, `/mcp`. Each MCP session is one [`Gateway`] session with its
//! own upstream process: `initialize` (a POST without `Mcp-Session-Id`)
//! starts one and the answer carries its id, which every later request must
//! send back (none: 400, unknown or ended: 404). `DELETE /mcp` ends the
//! session and stops its upstream; so does the idle timeout. With a tag
//! (`--tag g1`) every id starts with it (`g1.<hex>`), so a load balancer in
//! front of several processes sends each session to the process that holds
//! it. A 2026-07-28 request comes without a session and is served by any
//! process (`stateless.rs`).
//!
//! A POSTed request is answered with `application/json` when nothing comes
//! before its response, which is the common case and the cheapest. When the
//! gateway has something for the host first (a confirmation it asks with
//! `elicitation/create`, a progress notification, a request of the upstream)
//! the answer becomes a `text/event-stream` carrying those messages and then
//! the response, which ends it. What goes on which stream:
//!
//! - a response: the stream of the POST that carried its request;
//! - a confirmation the gateway asks: the stream of the `tools/call` it is
//!   about ([`Gateway::related_request`]);
//! - a notification with a `progressToken`: the stream of the request that
//!   named that token;
//! - anything else (the upstream's own requests and notifications, which a
//!   stdio upstream cannot relate to a request): the one request stream open
//!   when there is exactly one, else the standalone stream (`GET /mcp`), else
//!   the newest request stream; with no stream at all it waits (bounded) for
//!   the next `GET`.
//!
//! Each message goes on one stream only. A stream whose client went away is
//! skipped for the next choice. Notifications and responses POSTed by the
//! host are handed to the gateway and answered 202.
//!
//! Checks, each before the gateway sees the message: an `Origin` that is not
//! a loopback origin is refused (403), and so is a `Host` that is not a
//! loopback name while the gateway listens on a loopback address (DNS
//! rebinding); a body that is not JSON is a 400 carrying a JSON-RPC parse
//! error; a batch or a message that is not JSON-RPC is a 400; an
//! `MCP-Protocol-Version` the gateway does not know is a 400. There is no
//! authentication: listen on a loopback address, or put one in front.

mod app;
mod page;
mod refusals;
mod stateless;
mod streams;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::StartError;
use crate::auth::Caller;
use crate::config::Settings;
use crate::gateway::Shared;
use crate::message::{MAX_MESSAGE_SIZE, code};

use app::{App, reap};
pub(crate) use page::serve_page_alone;
use refusals::{Kind, accepts, check_version, classify, plain, rpc_error};
pub use refusals::{SESSION_HEADER, VERSION_HEADER, VERSIONS};
use streams::{Answer, Outgoing, RouteGuard, event_stream, exchange, stream_body};

/// How to serve over HTTP.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Where to listen.
    pub listen: SocketAddr,
    /// A session with no request in flight, no stream open and no HTTP
    /// request for this long is ended (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// What every session id starts with (`TAG.`): the process's name for a
    /// load balancer that routes sessions by their id ([`check_tag`]).
    pub tag: Option<String>,
}

/// Whether `tag` can start a session id: 1 to 32 letters, digits, `-` or
/// `_`, so that it reads back up to the first `.` and needs no escaping in
/// a header or in a load balancer's pattern.
pub fn check_tag(tag: &str) -> Result<String, String> {
    let valid = !tag.is_empty()
        && tag.len() <= 32
        && tag
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || matches!(character, '-' | '_'));
    if valid {
        Ok(tag.to_owned())
    } else {
        Err(format!(
            "`{tag}`: a tag is 1 to 32 letters, digits, `-` or `_`"
        ))
    }
}

/// Serves hosts over Streamable HTTP at `http://LISTEN/mcp` until SIGINT or
/// SIGTERM, then ends every session (stopping its upstream). Writes the
/// address it listens on to stderr (useful with port 0).
pub async fn serve_http(settings: Settings, options: HttpOptions) -> Result<(), StartError> {
    let shared = Shared::open(settings).await?;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(StartError::Signal)?;
    let (stop, stopping) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        let _ = stop.send(true);
    });
    let (listener, local) = page::bind(options.listen).await?;
    let approvals = page::routes(&shared, local)?;
    if !local.ip().is_loopback() && shared.authenticator.is_none() {
        tracing::warn!(
            "listening on {local}, not a loopback address: the gateway authenticates nobody"
        );
    }
    let resource_metadata = shared.authenticator.as_ref().map(|authenticator| {
        let url = authenticator.resource_metadata().map_or_else(
            || format!("http://{local}/.well-known/oauth-protected-resource"),
            str::to_owned,
        );
        let document = json!({
            "resource": format!("http://{local}/mcp"),
            "authorization_servers": [authenticator.issuer()],
            "scopes_supported": authenticator.scopes(),
            "bearer_methods_supported": ["header"],
        });
        (url, document)
    });
    let app = Arc::new(App {
        shared,
        loopback: local.ip().is_loopback(),
        resource_metadata,
        tag: options.tag,
        sessions: Mutex::new(HashMap::new()),
        callers: Mutex::new(HashMap::new()),
        next_request: AtomicU64::new(1),
    });
    if let Some(idle) = options.idle_timeout {
        tokio::spawn(reap(Arc::downgrade(&app), idle));
    }
    let router = Router::new()
        .route("/mcp", post(post_mcp).get(get_mcp).delete(delete_mcp))
        .route(
            "/.well-known/oauth-protected-resource",
            get(protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(protected_resource),
        )
        .layer(DefaultBodyLimit::max(MAX_MESSAGE_SIZE))
        .with_state(Arc::clone(&app));
    let router = match approvals {
        Some(approvals) => router.merge(approvals),
        None => router,
    };
    eprintln!("annot-gateway: serving MCP over Streamable HTTP at http://{local}/mcp");
    let closing = Arc::clone(&app);
    let mut signalled = stopping.clone();
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        let _ = signalled.wait_for(|stop| *stop).await;
        // Ending the sessions answers what is in flight (with an error) and
        // ends every stream, so the connections can close.
        closing.end_all();
    });
    // Connections still open a while after the sessions ended do not hold
    // the exit.
    let mut signalled = stopping;
    let result = tokio::select! {
        result = server => result,
        () = async {
            let _ = signalled.wait_for(|stop| *stop).await;
            tokio::time::sleep(Duration::from_secs(3)).await;
        } => Ok(()),
    };
    app.end_all();
    result.map_err(|source| StartError::Listen {
        address: local,
        source,
    })
}

async fn post_mcp(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(refused) = app.check_origin(&headers) {
        return refused.into_response();
    }
    let caller = match app.authenticate(&headers) {
        Ok(caller) => caller,
        Err(refused) => return refused.into_response(),
    };
    let (json, sse) = accepts(&headers);
    if !json && !sse {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "accept application/json and text/event-stream",
        )
        .into_response();
    }
    if let Some(kind) = headers.get(header::CONTENT_TYPE)
        && !kind
            .to_str()
            .is_ok_and(|kind| kind.trim_start().starts_with("application/json"))
    {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be application/json",
        )
        .into_response();
    }
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(error) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                code::PARSE_ERROR,
                &format!("the body is not JSON: {error}"),
            )
            .into_response();
        }
    };
    let kind = match classify(&message) {
        Ok(kind) => kind,
        Err(refused) => return refused.into_response(),
    };
    if !matches!(kind, Kind::Initialize(_)) && stateless::wanted(&headers, &message) {
        let session = app.caller_session(&stateless::caller_key(caller.as_ref()));
        let number = app.next_request.fetch_add(1, Ordering::Relaxed);
        return stateless::serve(&session, number, kind, message, &body, sse, caller).await;
    }
    if let Kind::Initialize(id) = kind {
        if headers.contains_key(SESSION_HEADER) {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                "initialize starts a session: send it without Mcp-Session-Id",
            )
            .into_response();
        }
        return initialize(&app, id, &message, &body, sse, caller).await;
    }
    if let Err(refused) = check_version(&headers) {
        return refused.into_response();
    }
    let session = match app.session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    if let Some(caller) = caller
        && let Err(why) = session.gateway.set_caller(caller)
    {
        return plain(StatusCode::FORBIDDEN, &why).into_response();
    }
    match kind {
        Kind::Request(id) => match exchange(&session, &id, &message, &body, sse, None).await {
            Ok(answer) => answer.into_response(),
            Err(refused) => refused.into_response(),
        },
        _ => {
            session.gateway.from_host(&body);
            StatusCode::ACCEPTED.into_response()
        }
    }
}

async fn initialize(
    app: &Arc<App>,
    id: Value,
    message: &Value,
    body: &[u8],
    sse: bool,
    caller: Option<Caller>,
) -> Response {
    let session = app.new_session();
    if let Some(caller) = caller {
        session
            .gateway
            .set_caller(caller)
            .expect("a new session has no caller yet");
    }
    let session_id = match &app.tag {
        Some(tag) => format!("{tag}.{}", crate::digest::random_id()),
        None => crate::digest::random_id(),
    };
    let answer = match exchange(&session, &id, message, body, sse, None).await {
        Ok(answer) => answer,
        Err(refused) => {
            session.end();
            return refused.into_response();
        }
    };
    let started = match &answer {
        Answer::Json(bytes) => serde_json::from_slice::<Value>(bytes)
            .ok()
            .is_some_and(|response| response.get("result").is_some()),
        // Something came before the answer: the session is taken as started.
        Answer::Stream(_) => true,
    };
    if !started {
        session.end();
        return answer.into_response();
    }
    app.sessions
        .lock()
        .expect("sessions lock")
        .insert(session_id.clone(), session);
    let mut response = answer.into_response();
    response.headers_mut().insert(
        SESSION_HEADER,
        HeaderValue::from_str(&session_id).expect("hex is a header value"),
    );
    response
}

async fn get_mcp(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if let Err(refused) = app.check_origin(&headers) {
        return refused.into_response();
    }
    if let Err(refused) = app.authenticate(&headers) {
        return refused.into_response();
    }
    if !accepts(&headers).1 {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "GET /mcp opens an event stream: accept text/event-stream",
        )
        .into_response();
    }
    if let Err(refused) = check_version(&headers) {
        return refused.into_response();
    }
    let session = match app.session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    let (sender, receiver) = mpsc::unbounded_channel();
    let number = {
        let mut routes = session.routes.lock().expect("routes lock");
        if routes
            .standalone
            .as_ref()
            .is_some_and(|(_, sender)| !sender.is_closed())
        {
            return plain(
                StatusCode::CONFLICT,
                "this session's standalone stream is already open",
            )
            .into_response();
        }
        for bytes in std::mem::take(&mut routes.queued) {
            let _ = sender.send(Outgoing { bytes, last: false });
        }
        routes.next += 1;
        let number = routes.next;
        routes.standalone = Some((number, sender));
        number
    };
    let guard = RouteGuard {
        routes: Arc::clone(&session.routes),
        key: None,
        number,
    };
    event_stream(stream_body(None, receiver, guard, None))
}

async fn delete_mcp(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if let Err(refused) = app.check_origin(&headers) {
        return refused.into_response();
    }
    if let Err(refused) = app.authenticate(&headers) {
        return refused.into_response();
    }
    let session = match app.session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    let id = headers
        .get(SESSION_HEADER)
        .and_then(|id| id.to_str().ok())
        .unwrap_or_default();
    app.sessions.lock().expect("sessions lock").remove(id);
    session.end();
    StatusCode::NO_CONTENT.into_response()
}

/// RFC 9728's protected-resource metadata: where a client finds the issuer
/// of the tokens this endpoint takes.
async fn protected_resource(State(app): State<Arc<App>>) -> Response {
    match &app.resource_metadata {
        Some((_, document)) => (
            [(header::CONTENT_TYPE, "application/json")],
            document.to_string(),
        )
            .into_response(),
        None => plain(StatusCode::NOT_FOUND, "this gateway takes no bearer tokens").into_response(),
    }
}
