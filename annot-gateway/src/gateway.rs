//! The gateway between one host session and one upstream: what it forwards
//! as it is, what it answers or changes, and where each message goes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use annot_runtime::client::{ClientExtension, ResolutionSupport, Session};
use annot_runtime::protocol::TOOL_RESOLUTION_EXTENSION;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::StartError;
use crate::config::Settings;
use crate::log::Log;
use crate::message::{code, error_response, result_response};
use crate::sources::{AuditRaise, Listed, RuleBook};
use crate::upstream::{Pending, Upstream, UpstreamError};

tokio::task_local! {
    /// The host request a task works for: what the gateway asks the host
    /// meanwhile (a confirmation) relates to it, which a transport that
    /// streams per request (Streamable HTTP) needs to know.
    static HOST_REQUEST: Value;
}

/// What the gateway knows of the session, behind one lock.
pub(crate) struct State {
    /// The upstream's resolution support, from its `initialize` result.
    pub support: ResolutionSupport,
    /// The host declared `elicitation` in `initialize`.
    pub host_elicits: bool,
    /// The host offered the tool-resolution extension (so `auto` exposure
    /// lists it the resolvable tools).
    pub host_resolves: bool,
    /// Each name the host was listed, and what it stands for.
    pub listed: HashMap<String, Listed>,
    /// Upstream tools whose definition changed, withheld: name → pinned digest.
    pub withheld: HashMap<String, String>,
    /// The configuration's rules.
    pub rules: RuleBook,
    /// The lethal trifecta's legs so far.
    pub session: Session,
}

/// Who waits for the host's answer to a request the gateway sent it.
pub(crate) enum HostWaiter {
    /// The upstream's request, under the upstream's own id.
    Upstream(Value),
    /// The gateway's confirmation request.
    Gateway(oneshot::Sender<Value>),
}

/// What every session of one gateway process shares.
pub struct Shared {
    /// The settings.
    pub settings: Settings,
    /// The decision log and pinned definitions.
    pub log: Log,
    pub(crate) audit: AuditRaise,
}

impl Shared {
    /// Opens the log and reads the audit report the settings name.
    pub fn open(settings: Settings) -> Result<Arc<Shared>, StartError> {
        let log = Log::open(&settings.log).map_err(|source| StartError::Log {
            path: settings.log.clone(),
            source,
        })?;
        let audit = match &settings.audit {
            Some(path) => AuditRaise::read(path).map_err(StartError::Audit)?,
            None => AuditRaise::default(),
        };
        Ok(Arc::new(Shared {
            settings,
            log,
            audit,
        }))
    }
}

/// One host session in front of one upstream.
pub struct Gateway {
    pub(crate) shared: Arc<Shared>,
    pub(crate) settings: Settings,
    pub(crate) upstream: Arc<Upstream>,
    host: mpsc::UnboundedSender<Vec<u8>>,
    pub(crate) session_id: String,
    pub(crate) state: Mutex<State>,
    waiters: Mutex<HashMap<String, HostWaiter>>,
    /// The gateway's own requests to the host → the host request they are for.
    related: Mutex<HashMap<String, Value>>,
    next_host_id: AtomicU64,
    /// Host request id (as JSON text) → the upstream id it was forwarded as.
    in_flight: Mutex<HashMap<String, u64>>,
    /// Host requests not answered yet.
    active: Arc<AtomicUsize>,
}

/// A host request sent upstream, its answer not yet in.
pub(crate) struct Forwarding {
    id: Value,
    pending: Result<Pending, UpstreamError>,
}

impl Forwarding {
    /// The upstream's answer under the host's id, or the gateway's error.
    pub(crate) async fn finish(self, gateway: &Gateway) -> Value {
        let answer = match self.pending {
            Ok(pending) => pending.wait().await,
            Err(error) => Err(error),
        };
        gateway
            .in_flight
            .lock()
            .expect("in-flight lock")
            .remove(&self.id.to_string());
        match answer {
            Ok(mut response) => {
                response["id"] = self.id;
                response
            }
            Err(error) => error_response(&self.id, code::UPSTREAM_UNAVAILABLE, error.to_string()),
        }
    }
}

/// Counts one host request as active while it lives.
struct Busy(Arc<AtomicUsize>);

impl Busy {
    fn new(active: &Arc<AtomicUsize>) -> Busy {
        active.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(active))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Gateway {
    /// A session: starts its upstream server and answers the host through
    /// `host`, one message per send, each ending in a newline; after
    /// [`drain`](Self::drain), an empty message marks the end.
    pub fn start(shared: Arc<Shared>, host: mpsc::UnboundedSender<Vec<u8>>) -> Arc<Gateway> {
        let settings = shared.settings.clone();
        let (incoming, mut from_upstream) = mpsc::unbounded_channel();
        let upstream = Upstream::start(
            "upstream",
            settings.upstream.clone(),
            settings.timeout,
            incoming,
        );
        let rules = RuleBook::new(settings.tools.clone());
        let gateway = Arc::new(Gateway {
            shared,
            settings,
            upstream,
            host,
            session_id: session_id(),
            state: Mutex::new(State {
                support: ResolutionSupport::default(),
                host_elicits: false,
                host_resolves: false,
                listed: HashMap::new(),
                withheld: HashMap::new(),
                rules,
                session: Session::default(),
            }),
            waiters: Mutex::new(HashMap::new()),
            related: Mutex::new(HashMap::new()),
            next_host_id: AtomicU64::new(1),
            in_flight: Mutex::new(HashMap::new()),
            active: Arc::default(),
        });
        let relay = Arc::downgrade(&gateway);
        tokio::spawn(async move {
            while let Some(message) = from_upstream.recv().await {
                match relay.upgrade() {
                    Some(gateway) => gateway.from_upstream(message),
                    None => break,
                }
            }
        });
        gateway
    }

    /// Stops the session's upstream server (no restart).
    pub fn close(&self) {
        self.upstream.stop();
    }

    /// The decision log.
    pub(crate) fn log(&self) -> &Log {
        &self.shared.log
    }

    /// The audit's raised hints.
    pub(crate) fn audit(&self) -> &AuditRaise {
        &self.shared.audit
    }

    /// Writes one message to the host.
    pub fn to_host(&self, message: &Value) {
        let mut bytes = serde_json::to_vec(message).expect("a Value serializes");
        bytes.push(b'\n');
        let _ = self.host.send(bytes);
    }

    /// Handles one line from the host.
    pub fn from_host(self: &Arc<Self>, bytes: &[u8]) {
        let message: Value = match serde_json::from_slice(bytes) {
            Ok(message) => message,
            Err(error) => {
                return self.to_host(&error_response(
                    &Value::Null,
                    code::PARSE_ERROR,
                    format!("the gateway could not parse the message as JSON: {error}"),
                ));
            }
        };
        let Some(object) = message.as_object() else {
            return self.to_host(&error_response(
                &Value::Null,
                code::INVALID_REQUEST,
                "a JSON-RPC message must be an object (batches are not part of MCP)",
            ));
        };
        let id = object.get("id").cloned();
        match (object.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => {
                let params = object.get("params").cloned().unwrap_or(json!({}));
                self.request(method.to_owned(), id, params);
            }
            (Some(method), None) => self.notification(method, object),
            (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
                self.response(&id, message)
            }
            (None, id) => self.to_host(&error_response(
                &id.unwrap_or(Value::Null),
                code::INVALID_REQUEST,
                "not a JSON-RPC request, notification or response: `method` is missing",
            )),
        }
    }

    fn request(self: &Arc<Self>, method: String, id: Value, params: Value) {
        if method == "ping" {
            // The gateway's own liveness: answered even while the upstream restarts.
            return self.to_host(&result_response(&id, json!({})));
        }
        let gateway = Arc::clone(self);
        let busy = Busy::new(&self.active);
        // What goes upstream as it came is sent now, in the host's order
        // (an `initialize` before the `initialized` that follows it).
        let sent = match method.as_str() {
            "initialize" => Some(self.begin_initialize(&id, params.clone())),
            "tools/list" => Some(self.begin_forward(&id, &method, params.clone())),
            "tools/call" => None,
            _ => Some(self.begin_forward(&id, &method, params.clone())),
        };
        tokio::spawn(HOST_REQUEST.scope(id.clone(), async move {
            match (method.as_str(), sent) {
                ("initialize", Some(sent)) => gateway.initialize(sent).await,
                ("tools/list", Some(sent)) => gateway.list_tools(sent).await,
                (_, None) => gateway.call_tool(id, params).await,
                (_, Some(sent)) => {
                    let answer = sent.finish(&gateway).await;
                    gateway.to_host(&answer);
                }
            }
            drop(busy);
        }));
    }

    /// Waits until every host request has been answered, at most `limit`,
    /// then has everything written.
    pub async fn drain(&self, limit: Duration) {
        let started = tokio::time::Instant::now();
        while self.active.load(Ordering::Acquire) > 0 && started.elapsed() < limit {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // The writer stops at the empty message, after everything before it.
        let _ = self.host.send(Vec::new());
    }

    /// Sends a host request upstream and gives back the upstream's answer
    /// under the host's id (or the gateway's error when none came).
    pub(crate) async fn forward(&self, id: &Value, method: &str, params: Value) -> Value {
        self.begin_forward(id, method, params).finish(self).await
    }

    /// Sends a host request upstream now, in the order the host sent it.
    pub(crate) fn begin_forward(&self, id: &Value, method: &str, params: Value) -> Forwarding {
        let upstream_id = self.upstream.allocate_id();
        let pending = self.upstream.send_request(upstream_id, method, params);
        if pending.is_ok() {
            self.in_flight
                .lock()
                .expect("in-flight lock")
                .insert(id.to_string(), upstream_id);
        }
        Forwarding {
            id: id.clone(),
            pending,
        }
    }

    fn notification(&self, method: &str, object: &Map<String, Value>) {
        let mut message = Value::Object(object.clone());
        if method == "notifications/cancelled" {
            let host_id = object
                .get("params")
                .and_then(|params| params.get("requestId"))
                .map(Value::to_string);
            let upstream_id = host_id.and_then(|host_id| {
                self.in_flight
                    .lock()
                    .expect("in-flight lock")
                    .get(&host_id)
                    .copied()
            });
            match upstream_id {
                Some(upstream_id) => message["params"]["requestId"] = json!(upstream_id),
                // Not in flight upstream (answered, or refused here): nothing to stop.
                None => return,
            }
        }
        if let Err(error) = self.upstream.send(&message) {
            tracing::warn!("dropped `{method}` for the upstream: {error}");
        }
    }

    fn response(&self, id: &Value, mut message: Value) {
        let key = id
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| id.to_string());
        let waiter = self.waiters.lock().expect("waiters lock").remove(&key);
        self.related.lock().expect("related lock").remove(&key);
        match waiter {
            Some(HostWaiter::Upstream(upstream_id)) => {
                message["id"] = upstream_id;
                if let Err(error) = self.upstream.send(&message) {
                    tracing::warn!("dropped the host's answer for the upstream: {error}");
                }
            }
            Some(HostWaiter::Gateway(sender)) => {
                let _ = sender.send(message);
            }
            None => tracing::warn!("dropped a host response nobody waits for (id {id})"),
        }
    }

    /// Sends the host a request of the gateway's own; the answer goes to the
    /// receiver.
    pub(crate) fn ask_host(
        &self,
        prefix: &str,
        method: &str,
        params: Value,
    ) -> (String, oneshot::Receiver<Value>) {
        let (sender, receiver) = oneshot::channel();
        let id = format!(
            "{prefix}-{}",
            self.next_host_id.fetch_add(1, Ordering::Relaxed)
        );
        self.waiters
            .lock()
            .expect("waiters lock")
            .insert(id.clone(), HostWaiter::Gateway(sender));
        if let Ok(related) = HOST_REQUEST.try_with(Value::clone) {
            self.related
                .lock()
                .expect("related lock")
                .insert(id.clone(), related);
        }
        self.to_host(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        (id, receiver)
    }

    /// Forgets a request to the host that will not be waited for.
    pub(crate) fn forget_host_request(&self, id: &str) {
        self.waiters.lock().expect("waiters lock").remove(id);
        self.related.lock().expect("related lock").remove(id);
    }

    /// The id of the host request that the gateway's request `id` to the
    /// host (a confirmation) is about, while it waits for its answer.
    pub fn related_request(&self, id: &str) -> Option<Value> {
        self.related.lock().expect("related lock").get(id).cloned()
    }

    /// Handles what the upstream sends that is not a response.
    pub fn from_upstream(&self, mut message: Value) {
        if let Some(upstream_id) = message.get("id").cloned() {
            let id = format!(
                "annot-gateway-upstream-{}",
                self.next_host_id.fetch_add(1, Ordering::Relaxed)
            );
            self.waiters
                .lock()
                .expect("waiters lock")
                .insert(id.clone(), HostWaiter::Upstream(upstream_id));
            message["id"] = json!(id);
        }
        self.to_host(&message);
    }

    fn begin_initialize(&self, id: &Value, mut params: Value) -> Forwarding {
        {
            let mut state = self.state.lock().expect("state lock");
            let capabilities = &params["capabilities"];
            state.host_elicits = capabilities.get("elicitation").is_some();
            state.host_resolves = capabilities
                .get("extensions")
                .and_then(|extensions| extensions.get(TOOL_RESOLUTION_EXTENSION))
                .is_some();
        }
        // The gateway is the upstream's client: it opts into resolution
        // whatever the host does.
        if let Some(capabilities) = params
            .get_mut("capabilities")
            .and_then(Value::as_object_mut)
        {
            let extensions = capabilities
                .entry("extensions")
                .or_insert_with(|| json!({}));
            if let Some(extensions) = extensions.as_object_mut() {
                extensions.insert(TOOL_RESOLUTION_EXTENSION.to_owned(), json!({}));
            }
        }
        self.upstream.remember_handshake(params.clone());
        self.begin_forward(id, "initialize", params)
    }

    async fn initialize(self: Arc<Self>, sent: Forwarding) {
        let answer = sent.finish(&self).await;
        if let Some(result) = answer.get("result") {
            self.state.lock().expect("state lock").support =
                ResolutionSupport::from_initialize_result(result, ClientExtension::Initialize);
        }
        self.to_host(&answer);
    }
}

fn session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    format!("{:x}-{:x}", std::process::id(), nanos)
}
