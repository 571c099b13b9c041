//! The gateway between one host session and one upstream: what it forwards
//! as it is, what it answers or changes, and where each message goes.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use annot_runtime::client::ResolutionSupport;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use crate::StartError;
use crate::approvals::catalog::ToolCatalog;
use crate::auth::{Authenticator, Caller};
use crate::config::Settings;
use crate::era::{self, HostIdentity, UpstreamEra};
use crate::message::{code, error_response};
use crate::sources::{AuditRaise, Listed, RuleBook};
use crate::store::Store;
use crate::upstream::{Pending, Upstream, UpstreamError};

mod from_host;
mod relay;

tokio::task_local! {
    /// The host request a task works for: what the gateway asks the host
    /// meanwhile (a confirmation) relates to it, which a transport that
    /// streams per request (Streamable HTTP) needs to know.
    static HOST_REQUEST: Value;
}

/// What the gateway knows of the session, behind one lock.
pub(crate) struct State {
    /// Each upstream's resolution support (from its `initialize` result)
    /// and rules, by position.
    pub upstreams: Vec<UpstreamState>,
    /// The host declared `elicitation` in `initialize`.
    pub host_elicits: bool,
    /// The host offered the tool-resolution extension (so `auto` exposure
    /// lists it the resolvable tools).
    pub host_resolves: bool,
    /// Each name the host was listed, and what it stands for.
    pub listed: HashMap<String, Listed>,
    /// Tools whose definition changed, withheld: listed name → pinned digest.
    pub withheld: HashMap<String, String>,
    /// With several upstreams: which one listed a resource's URI or template.
    pub origins: HashMap<String, usize>,
    /// Who the host is, for the upstreams.
    pub identity: HostIdentity,
    /// The protocol version of the host's `initialize`, if any.
    pub requested_version: Option<String>,
    /// Every capability an upstream declared.
    pub capabilities: Map<String, Value>,
}

/// What the gateway knows of one upstream.
pub(crate) struct UpstreamState {
    /// How it was opened.
    pub era: UpstreamEra,
    /// Its `initialize` result (or what its `server/discover` result says
    /// in that shape), once opened.
    pub hello: Option<Value>,
    /// What it resolves, from its `initialize` result.
    pub support: ResolutionSupport,
    /// The configuration's rules for its tools.
    pub rules: RuleBook,
}

/// One upstream of the session.
pub(crate) struct Member {
    /// The process.
    pub upstream: Arc<Upstream>,
    /// With several upstreams, the prefix of every name it lists.
    pub namespace: Option<String>,
    /// Held while the upstream is being opened, so it is opened once.
    pub opening: tokio::sync::Mutex<()>,
}

/// Who waits for the host's answer to a request the gateway sent it.
pub(crate) enum HostWaiter {
    /// An upstream's request (by position), under that upstream's own id.
    Upstream(usize, Value),
    /// The gateway's confirmation request.
    Gateway(oneshot::Sender<Value>),
}

/// What every session of one gateway process shares.
pub struct Shared {
    /// The settings.
    pub settings: Settings,
    /// The store: the decision log, pinned definitions, risk, confirmations.
    pub store: Store,
    pub(crate) audit: AuditRaise,
    /// The bearer-token check of HTTP callers, when `[auth]` configures one.
    pub authenticator: Option<Authenticator>,
    /// Woken when this process's approvals page decides a call, so a call
    /// waiting here looks at once (another process's decisions are polled).
    pub(crate) decided: tokio::sync::Notify,
    /// Each upstream's tools as last listed, for the approvals page.
    pub(crate) catalog: ToolCatalog,
}

impl Shared {
    /// Opens the store and reads the audit report the settings name.
    pub async fn open(settings: Settings) -> Result<Arc<Shared>, StartError> {
        let store = Store::open(&settings.store)
            .await
            .map_err(|source| StartError::Store {
                location: settings.store.describe(),
                source,
            })?;
        let audit = match &settings.audit {
            Some(path) => AuditRaise::read(path).map_err(StartError::Audit)?,
            None => AuditRaise::default(),
        };
        let authenticator = match &settings.auth {
            Some(section) => Some(
                Authenticator::open(section)
                    .await
                    .map_err(StartError::Auth)?,
            ),
            None => None,
        };
        Ok(Arc::new(Shared {
            settings,
            store,
            audit,
            authenticator,
            decided: tokio::sync::Notify::new(),
            catalog: ToolCatalog::default(),
        }))
    }
}

/// One host session in front of its upstreams.
pub struct Gateway {
    pub(crate) shared: Arc<Shared>,
    pub(crate) settings: Settings,
    pub(crate) members: Vec<Member>,
    host: mpsc::UnboundedSender<Vec<u8>>,
    pub(crate) session_id: String,
    pub(crate) state: Mutex<State>,
    waiters: Mutex<HashMap<String, HostWaiter>>,
    /// The gateway's own requests to the host → the host request they are for.
    related: Mutex<HashMap<String, Value>>,
    next_host_id: AtomicU64,
    /// Host request id (as JSON text) → the upstream and the id it was
    /// forwarded as.
    in_flight: Mutex<HashMap<String, (usize, u64)>>,
    /// Host requests the host cancelled while they were upstream (their id
    /// as JSON text): they are answered to nobody.
    cancelled: Mutex<HashSet<String>>,
    /// Host requests not answered yet.
    active: Arc<AtomicUsize>,
    /// The 2026-07-28 requests not answered yet, by id (as JSON text), with
    /// whether their result is a listing.
    modern: Mutex<HashMap<String, bool>>,
    /// Who calls, by their bearer token (HTTP with `[auth]`).
    caller: Mutex<Option<Caller>>,
    /// The caller of each request (its id as JSON text) of a gateway that
    /// serves requests without a session: two tokens of one subject may
    /// carry other scopes, and each call is judged by its own.
    request_callers: Mutex<HashMap<String, Caller>>,
}

/// A host request sent upstream, its answer not yet in.
pub(crate) struct Forwarding {
    id: Value,
    pending: Result<Pending, UpstreamError>,
}

/// The separator between an upstream's name and what it lists.
const NAMESPACE_SEPARATOR: &str = "__";

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
            Err(_) if gateway.is_cancelled(&self.id) => error_response(
                &self.id,
                code::REQUEST_CANCELLED,
                "the host cancelled the request",
            ),
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
        let several = settings.upstreams.len() > 1;
        let mut members = Vec::new();
        let mut receivers = Vec::new();
        let mut upstreams = Vec::new();
        for config in &settings.upstreams {
            let (incoming, from_upstream) = mpsc::unbounded_channel();
            let upstream = Upstream::start(
                &config.name,
                config.spec.clone(),
                settings.timeout,
                incoming,
            );
            members.push(Member {
                upstream,
                namespace: several.then(|| config.name.clone()),
                opening: tokio::sync::Mutex::new(()),
            });
            receivers.push(from_upstream);
            upstreams.push(UpstreamState {
                era: UpstreamEra::Unknown,
                hello: None,
                support: ResolutionSupport::default(),
                rules: RuleBook::new(config.tools.clone()),
            });
        }
        let gateway = Arc::new(Gateway {
            shared,
            settings,
            members,
            host,
            session_id: crate::digest::random_id(),
            state: Mutex::new(State {
                upstreams,
                host_elicits: false,
                host_resolves: false,
                listed: HashMap::new(),
                withheld: HashMap::new(),
                origins: HashMap::new(),
                identity: HostIdentity::default(),
                requested_version: None,
                capabilities: Map::new(),
            }),
            waiters: Mutex::new(HashMap::new()),
            related: Mutex::new(HashMap::new()),
            next_host_id: AtomicU64::new(1),
            in_flight: Mutex::new(HashMap::new()),
            cancelled: Mutex::new(HashSet::new()),
            active: Arc::default(),
            modern: Mutex::new(HashMap::new()),
            caller: Mutex::new(None),
            request_callers: Mutex::new(HashMap::new()),
        });
        for (index, mut from_upstream) in receivers.into_iter().enumerate() {
            let relay = Arc::downgrade(&gateway);
            tokio::spawn(async move {
                while let Some(incoming) = from_upstream.recv().await {
                    // An answer is handed over here, after what the upstream
                    // sent before it went to the host.
                    let Some(message) = incoming.deliver() else {
                        continue;
                    };
                    match relay.upgrade() {
                        Some(gateway) => gateway.relay_from_upstream(index, message),
                        None => break,
                    }
                }
            });
        }
        gateway
    }

    /// Who calls this session from now on: the caller of its latest request.
    /// `Err` when the token names another subject than the session's.
    pub fn set_caller(&self, caller: Caller) -> Result<(), String> {
        let mut current = self.caller.lock().expect("caller lock");
        if let Some(previous) = current.as_ref()
            && previous.subject != caller.subject
        {
            return Err(
                "the token names another subject than the one that opened the session".into(),
            );
        }
        *current = Some(caller);
        Ok(())
    }

    /// Who calls with the next request `id` (a request without a session).
    pub fn set_request_caller(&self, id: &Value, caller: Caller) {
        self.request_callers
            .lock()
            .expect("request-callers lock")
            .insert(id.to_string(), caller);
    }

    /// The caller of request `id`, when tokens are checked: its own token's
    /// (a request without a session), else the session's.
    pub(crate) fn caller(&self, id: &Value) -> Option<Caller> {
        let own = self
            .request_callers
            .lock()
            .expect("request-callers lock")
            .get(&id.to_string())
            .cloned();
        own.or_else(|| self.caller.lock().expect("caller lock").clone())
    }

    /// Stops the session's upstream servers (no restart).
    pub fn close(&self) {
        for member in &self.members {
            member.upstream.stop();
        }
    }

    /// The upstream at `index`.
    pub(crate) fn upstream(&self, index: usize) -> &Arc<Upstream> {
        &self.members[index].upstream
    }

    /// What the host sees of `name` listed by upstream `index`.
    pub(crate) fn shown_name(&self, index: usize, name: &str) -> String {
        match &self.members[index].namespace {
            Some(namespace) => format!("{namespace}{NAMESPACE_SEPARATOR}{name}"),
            None => name.to_owned(),
        }
    }

    /// The upstream and its own name of a name the host was shown.
    pub(crate) fn split_name<'a>(&self, shown: &'a str) -> Option<(usize, &'a str)> {
        if self.members.len() == 1 {
            return Some((0, shown));
        }
        let (namespace, name) = shown.split_once(NAMESPACE_SEPARATOR)?;
        let index = self
            .members
            .iter()
            .position(|member| member.namespace.as_deref() == Some(namespace))?;
        Some((index, name))
    }

    /// The store.
    pub(crate) fn store(&self) -> &Store {
        &self.shared.store
    }

    /// The audit's raised hints.
    pub(crate) fn audit(&self) -> &AuditRaise {
        &self.shared.audit
    }

    /// Writes one message to the host; a response in the era of its request.
    pub fn to_host(&self, message: &Value) {
        let is_response = message.get("method").is_none();
        // The answer to a request the host cancelled goes to nobody.
        if let Some(id) = message.get("id").filter(|_| is_response)
            && self
                .cancelled
                .lock()
                .expect("cancelled lock")
                .remove(&id.to_string())
        {
            return;
        }
        let answered = message.get("id").filter(|_| is_response).and_then(|id| {
            self.modern
                .lock()
                .expect("modern lock")
                .remove(&id.to_string())
        });
        let shaped = match (is_response, answered) {
            (true, Some(listing)) => Some(era::for_modern_host(message.clone(), listing)),
            _ => None,
        };
        let message = shaped.as_ref().unwrap_or(message);
        let mut bytes = serde_json::to_vec(message).expect("a Value serializes");
        bytes.push(b'\n');
        let _ = self.host.send(bytes);
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
}
