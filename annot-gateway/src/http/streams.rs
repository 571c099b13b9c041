//! The streams of one session: where each message for the host goes (the
//! POST of the request it belongs to, or the standalone GET stream), and the
//! server-sent events that carry them.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::gateway::Gateway;
use crate::message::{code, error_response};

use super::refusals::{Refused, line, plain, rpc_error};

/// Messages kept for a standalone stream not open yet.
pub(super) const QUEUE_CAP: usize = 1024;
/// A comment line on an idle event stream this often, so a client that went
/// away is noticed.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(20);

/// One MCP session over HTTP.
pub(super) struct Session {
    pub(super) gateway: Arc<Gateway>,
    pub(super) routes: Arc<Mutex<Routes>>,
    pub(super) last_seen: Mutex<Instant>,
}

impl Session {
    pub(super) fn touch(&self) {
        *self.last_seen.lock().expect("last-seen lock") = Instant::now();
    }

    /// How long nothing happened: zero while a request or a stream is open.
    pub(super) fn idle_for(&self) -> Duration {
        let routes = self.routes.lock().expect("routes lock");
        let streaming = routes
            .standalone
            .as_ref()
            .is_some_and(|(_, sender)| !sender.is_closed());
        if !routes.requests.is_empty() || streaming {
            return Duration::ZERO;
        }
        self.last_seen.lock().expect("last-seen lock").elapsed()
    }

    /// Stops the upstream and closes every stream.
    pub(super) fn end(&self) {
        self.gateway.close();
        let mut routes = self.routes.lock().expect("routes lock");
        routes.requests.clear();
        routes.standalone = None;
        routes.queued.clear();
        routes.ended = true;
    }
}

/// Where the messages for the host go.
#[derive(Default)]
pub(super) struct Routes {
    /// Host request id (as JSON text) → its POST's stream.
    pub(super) requests: HashMap<String, Route>,
    /// The `GET` stream: its number and its sender.
    pub(super) standalone: Option<(u64, mpsc::UnboundedSender<Outgoing>)>,
    /// Messages for a standalone stream not open yet.
    pub(super) queued: VecDeque<Vec<u8>>,
    pub(super) next: u64,
    pub(super) ended: bool,
}

pub(super) struct Route {
    pub(super) number: u64,
    pub(super) sender: mpsc::UnboundedSender<Outgoing>,
    /// The request's `_meta.progressToken`, as JSON text.
    pub(super) progress: Option<String>,
    /// The client accepts an event stream: more than the response may go here.
    pub(super) streams: bool,
}

/// One message for a stream; `last` ends it.
pub(super) struct Outgoing {
    pub(super) bytes: Vec<u8>,
    pub(super) last: bool,
}

impl Routes {
    /// Picks the stream for a message that is not a response.
    fn deliver(&mut self, message: &Value, bytes: Vec<u8>, related: Option<Value>) {
        let mut bytes = bytes;
        // The stream of the request it is about, when that is known.
        let about = related.map(|id| id.to_string()).or_else(|| {
            let token = message.pointer("/params/progressToken")?.to_string();
            self.requests
                .iter()
                .find(|(_, route)| route.progress.as_deref() == Some(token.as_str()))
                .map(|(key, _)| key.clone())
        });
        if let Some(route) = about.and_then(|key| self.requests.get(&key))
            && route.streams
        {
            match route.sender.send(Outgoing { bytes, last: false }) {
                Ok(()) => return,
                Err(error) => bytes = error.0.bytes,
            }
        }
        let streaming: Vec<&Route> = self
            .requests
            .values()
            .filter(|route| route.streams && !route.sender.is_closed())
            .collect();
        if let [only] = streaming.as_slice() {
            match only.sender.send(Outgoing { bytes, last: false }) {
                Ok(()) => return,
                Err(error) => bytes = error.0.bytes,
            }
        }
        if let Some((_, standalone)) = &self.standalone {
            match standalone.send(Outgoing { bytes, last: false }) {
                Ok(()) => return,
                Err(error) => {
                    bytes = error.0.bytes;
                    self.standalone = None;
                }
            }
        }
        if let Some(newest) = streaming.iter().max_by_key(|route| route.number) {
            match newest.sender.send(Outgoing { bytes, last: false }) {
                Ok(()) => return,
                Err(error) => bytes = error.0.bytes,
            }
        }
        if self.queued.len() == QUEUE_CAP {
            self.queued.pop_front();
            tracing::warn!("dropped a message for the host: no stream is open to carry it");
        }
        self.queued.push_back(bytes);
    }
}

/// Takes what the gateway sends the host and puts each message on its stream.
pub(super) async fn relay(
    gateway: Weak<Gateway>,
    routes: Arc<Mutex<Routes>>,
    mut from_gateway: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(bytes) = from_gateway.recv().await {
        if bytes.is_empty() {
            continue;
        }
        let Ok(message) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let id = message.get("id");
        let is_response = message.get("method").is_none() && id.is_some();
        let mut routes = routes.lock().expect("routes lock");
        if routes.ended {
            continue;
        }
        if is_response {
            let key = id.map(Value::to_string).unwrap_or_default();
            match routes.requests.remove(&key) {
                Some(route) => {
                    let _ = route.sender.send(Outgoing { bytes, last: true });
                }
                None => tracing::debug!("dropped a response whose POST is gone (id {key})"),
            }
            continue;
        }
        // A request of the gateway's own (a confirmation) knows its call.
        let related = id
            .and_then(Value::as_str)
            .and_then(|id| gateway.upgrade()?.related_request(id));
        routes.deliver(&message, bytes, related);
    }
}

/// A request's answer: the response alone, or a stream ending with it.
pub(super) enum Answer {
    Json(Vec<u8>),
    Stream(Body),
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        match self {
            Answer::Json(bytes) => (
                [(header::CONTENT_TYPE, "application/json")],
                Body::from(bytes),
            )
                .into_response(),
            Answer::Stream(body) => event_stream(body),
        }
    }
}

pub(super) fn event_stream(body: Body) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// Takes a route off the table when its POST or GET goes away.
pub(super) struct RouteGuard {
    pub(super) routes: Arc<Mutex<Routes>>,
    pub(super) key: Option<String>,
    pub(super) number: u64,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        let mut routes = self.routes.lock().expect("routes lock");
        match &self.key {
            Some(key) => {
                if routes
                    .requests
                    .get(key)
                    .is_some_and(|route| route.number == self.number)
                {
                    routes.requests.remove(key);
                }
            }
            None => {
                if routes
                    .standalone
                    .as_ref()
                    .is_some_and(|(number, _)| *number == self.number)
                {
                    routes.standalone = None;
                }
            }
        }
    }
}

/// Hands a request to the gateway and waits for what comes back for it.
///
/// `shown_id`: the id the host gave the request, when the gateway forwarded
/// it under another (`id`, unique in a session that several hosts share);
/// the response goes back under it.
pub(super) async fn exchange(
    session: &Session,
    id: &Value,
    message: &Value,
    body: &[u8],
    streams: bool,
    shown_id: Option<Value>,
) -> Result<Answer, Refused> {
    let key = id.to_string();
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let number = {
        let mut routes = session.routes.lock().expect("routes lock");
        if routes.ended {
            return Err(plain(StatusCode::NOT_FOUND, "the session ended"));
        }
        if routes.requests.contains_key(&key) {
            return Err(rpc_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                &format!("a request with id {key} is already in flight in this session"),
            ));
        }
        routes.next += 1;
        let number = routes.next;
        let progress = message
            .pointer("/params/_meta/progressToken")
            .map(Value::to_string);
        routes.requests.insert(
            key.clone(),
            Route {
                number,
                sender,
                progress,
                streams,
            },
        );
        number
    };
    let guard = RouteGuard {
        routes: Arc::clone(&session.routes),
        key: Some(key),
        number,
    };
    session.gateway.from_host(body);
    let first = receiver.recv().await;
    Ok(match first {
        None => Answer::Json(line(&error_response(
            shown_id.as_ref().unwrap_or(id),
            code::UPSTREAM_UNAVAILABLE,
            "the session ended before the request was answered",
        ))),
        Some(Outgoing { bytes, last: true }) => Answer::Json(with_id(bytes, shown_id.as_ref())),
        Some(first) => Answer::Stream(stream_body(Some(first), receiver, guard, shown_id)),
    })
}

/// A response under the host's own id, when it was forwarded under another.
fn with_id(bytes: Vec<u8>, shown_id: Option<&Value>) -> Vec<u8> {
    let Some(shown_id) = shown_id else {
        return bytes;
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(mut response) => {
            response["id"] = shown_id.clone();
            line(&response)
        }
        Err(_) => bytes,
    }
}

/// Server-sent events, one `message` event per JSON-RPC message, a comment
/// now and then while idle; ends after a message marked `last`, or when the
/// sender goes. The last message (the response) goes under `shown_id`, when
/// given.
pub(super) fn stream_body(
    first: Option<Outgoing>,
    receiver: mpsc::UnboundedReceiver<Outgoing>,
    guard: RouteGuard,
    shown_id: Option<Value>,
) -> Body {
    struct Stream {
        first: Option<Outgoing>,
        receiver: mpsc::UnboundedReceiver<Outgoing>,
        done: bool,
        shown_id: Option<Value>,
        _guard: RouteGuard,
    }
    let state = Stream {
        first,
        receiver,
        done: false,
        shown_id,
        _guard: guard,
    };
    let events = futures_util::stream::unfold(state, |mut state| async move {
        if state.done {
            return None;
        }
        let next = match state.first.take() {
            Some(first) => Some(first),
            None => tokio::select! {
                next = state.receiver.recv() => next,
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    return Some((Ok::<_, std::convert::Infallible>(Bytes::from_static(b": keep-alive\n\n")), state));
                }
            },
        };
        let outgoing = next?;
        state.done = outgoing.last;
        let bytes = if outgoing.last {
            with_id(outgoing.bytes, state.shown_id.as_ref())
        } else {
            outgoing.bytes
        };
        Some((Ok(event(&bytes)), state))
    });
    Body::from_stream(events)
}

/// `data: MESSAGE` as one server-sent event.
pub(super) fn event(bytes: &[u8]) -> Bytes {
    let json = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut event = Vec::with_capacity(json.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(json);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}
