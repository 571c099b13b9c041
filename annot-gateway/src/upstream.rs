//! One upstream server over stdio: its process, its requests in flight, and
//! its restarts.
//!
//! The gateway numbers every request it sends upstream itself, so the host's
//! ids and the gateway's own requests (resolutions) never collide. A response
//! finds its waiter by that number; everything else the upstream sends
//! (notifications, its own requests to the host) goes to `incoming`. A
//! response goes through `incoming` too, to be handed to its waiter there:
//! so what the upstream sent before an answer (progress, log messages)
//! reaches the host before it.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

use crate::config::UpstreamSpec;
use crate::http_upstream;
use crate::message::{MAX_MESSAGE_SIZE, read_line};

/// Why a request got no response from the upstream.
#[derive(Clone, Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The upstream is not running (it died and is being restarted).
    #[error("the upstream server is not running ({0}); it is being restarted")]
    Down(String),
    /// It did not answer in time.
    #[error("the upstream server did not answer `{method}` within {seconds} s")]
    Timeout {
        /// The request.
        method: String,
        /// The limit.
        seconds: u64,
    },
    /// It exited (or closed its output) before answering.
    #[error("the upstream server exited before answering `{0}`")]
    Exited(String),
}

type Waiters = Mutex<HashMap<u64, oneshot::Sender<Value>>>;

/// What the upstream sent, in its order.
pub enum Incoming {
    /// A notification, or a request of the upstream's own.
    Message(Value),
    /// A response, with the waiter it answers.
    Answer(oneshot::Sender<Value>, Value),
}

impl Incoming {
    /// Hands an answer to its waiter; gives back anything else.
    pub fn deliver(self) -> Option<Value> {
        match self {
            Incoming::Message(message) => Some(message),
            Incoming::Answer(waiter, response) => {
                let _ = waiter.send(response);
                None
            }
        }
    }
}

/// The running process, while it runs.
struct Link {
    to_upstream: mpsc::UnboundedSender<Vec<u8>>,
    waiters: Arc<Waiters>,
    /// Handshake replayed (after a restart): requests may go.
    ready: bool,
}

/// A request sent upstream, its response not yet awaited.
pub struct Pending {
    upstream: Arc<Upstream>,
    id: u64,
    method: String,
    receiver: oneshot::Receiver<Value>,
    waiters: Arc<Waiters>,
}

impl Pending {
    /// Waits for the response, at most the upstream's timeout.
    pub async fn wait(self) -> Result<Value, UpstreamError> {
        let limit = self.upstream.timeout;
        self.wait_at_most(limit).await
    }

    /// Waits for the response, at most `limit`.
    pub async fn wait_at_most(self, limit: Duration) -> Result<Value, UpstreamError> {
        match tokio::time::timeout(limit, self.receiver).await {
            Ok(Ok(response)) => {
                self.upstream.timeouts_in_a_row.store(0, Ordering::Relaxed);
                Ok(response)
            }
            Ok(Err(_)) => Err(UpstreamError::Exited(self.method)),
            Err(_) => {
                self.waiters.lock().expect("waiters lock").remove(&self.id);
                // Tell it to stop working on what nobody waits for any more.
                let _ = self.upstream.notify(
                    "notifications/cancelled",
                    json!({"requestId": self.id, "reason": "timed out in the gateway"}),
                );
                let in_a_row = self
                    .upstream
                    .timeouts_in_a_row
                    .fetch_add(1, Ordering::Relaxed)
                    + 1;
                if in_a_row >= HUNG_AFTER {
                    self.upstream.timeouts_in_a_row.store(0, Ordering::Relaxed);
                    self.upstream.hung.notify_one();
                }
                Err(UpstreamError::Timeout {
                    method: self.method,
                    seconds: limit.as_secs(),
                })
            }
        }
    }
}

/// The upstream server: started, watched and restarted with backoff.
pub struct Upstream {
    name: String,
    spec: UpstreamSpec,
    timeout: Duration,
    link: Mutex<Option<Link>>,
    next_id: AtomicU64,
    /// The host's `initialize` params, replayed to a restarted process.
    handshake: Mutex<Option<Value>>,
    incoming: mpsc::UnboundedSender<Incoming>,
    last_failure: Mutex<String>,
    stopped: tokio::sync::Notify,
    stopping: std::sync::atomic::AtomicBool,
    /// Requests that timed out in a row: past `HUNG_AFTER`, the process is
    /// taken for hung and restarted.
    timeouts_in_a_row: std::sync::atomic::AtomicU32,
    hung: tokio::sync::Notify,
}

/// Timeouts in a row after which the upstream is restarted.
const HUNG_AFTER: u32 = 3;

impl Upstream {
    /// Starts `spec` and keeps it running; what it sends that is not a
    /// response goes to `incoming`.
    pub fn start(
        name: &str,
        spec: UpstreamSpec,
        timeout: Duration,
        incoming: mpsc::UnboundedSender<Incoming>,
    ) -> Arc<Upstream> {
        let upstream = Arc::new(Upstream {
            name: name.to_owned(),
            spec,
            timeout,
            link: Mutex::new(None),
            next_id: AtomicU64::new(1),
            handshake: Mutex::new(None),
            incoming,
            last_failure: Mutex::new("not started yet".to_owned()),
            stopped: tokio::sync::Notify::new(),
            stopping: std::sync::atomic::AtomicBool::new(false),
            timeouts_in_a_row: std::sync::atomic::AtomicU32::new(0),
            hung: tokio::sync::Notify::new(),
        });
        if let Some(url) = upstream.spec.url.clone() {
            upstream.connect(url);
            return upstream;
        }
        let first = upstream.spawn(true);
        tokio::spawn(Arc::clone(&upstream).supervise(first));
        upstream
    }

    /// Stops the process for good: no restart.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.stopped.notify_one();
        if self.spec.url.is_some() {
            // Closing the link's channel ends the HTTP poster.
            *self.link.lock().expect("link lock") = None;
        }
    }

    /// Links a Streamable HTTP upstream: each message a POST, each answer
    /// routed as a process's lines are.
    fn connect(&self, url: String) {
        let (to_upstream, outgoing) = mpsc::unbounded_channel();
        let waiters: Arc<Waiters> = Arc::default();
        let (routed, incoming, name) = (
            Arc::clone(&waiters),
            self.incoming.clone(),
            self.name.clone(),
        );
        let deliver = Arc::new(move |bytes: &[u8]| route(bytes, &routed, &incoming, &name));
        match self.spec.http_client(&self.name) {
            Ok(client) => {
                http_upstream::start(client, url, self.spec.headers.clone(), outgoing, deliver)
            }
            // Checked at start: only a certificate file changed since can fail here.
            Err(error) => tracing::error!(upstream = %self.name, "{error}"),
        }
        *self.link.lock().expect("link lock") = Some(Link {
            to_upstream,
            waiters,
            ready: true,
        });
    }

    /// The upstream's name in the log and in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A fresh id for a request to the upstream.
    pub fn allocate_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Remembers the host's `initialize` params, to replay after a restart.
    pub fn remember_handshake(&self, params: Value) {
        *self.handshake.lock().expect("handshake lock") = Some(params);
    }

    /// Sends request `id` and waits for its response message (a `result` or
    /// an `error`, as the upstream wrote it).
    pub async fn request(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        params: Value,
    ) -> Result<Value, UpstreamError> {
        self.send_request(id, method, params)?.wait().await
    }

    /// Sends request `id` now (so it keeps its place among the messages sent
    /// after it); the response is awaited with [`Pending::wait`].
    pub fn send_request(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        params: Value,
    ) -> Result<Pending, UpstreamError> {
        self.enqueue(id, method, params, false)
    }

    fn enqueue(
        self: &Arc<Self>,
        id: u64,
        method: &str,
        params: Value,
        handshake: bool,
    ) -> Result<Pending, UpstreamError> {
        let (sender, receiver) = oneshot::channel();
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let link = self.link.lock().expect("link lock");
        let link = match link.as_ref() {
            Some(link) if link.ready || handshake => link,
            _ => return Err(UpstreamError::Down(self.failure())),
        };
        link.waiters
            .lock()
            .expect("waiters lock")
            .insert(id, sender);
        if link.to_upstream.send(line(&message)).is_err() {
            link.waiters.lock().expect("waiters lock").remove(&id);
            return Err(UpstreamError::Down(self.failure()));
        }
        Ok(Pending {
            upstream: Arc::clone(self),
            id,
            method: method.to_owned(),
            receiver,
            waiters: Arc::clone(&link.waiters),
        })
    }

    /// Stops waiting for the answer to request `id` (the host cancelled it):
    /// its [`Pending::wait`] ends at once.
    pub fn forget(&self, id: u64) {
        if let Some(link) = self.link.lock().expect("link lock").as_ref() {
            link.waiters.lock().expect("waiters lock").remove(&id);
        }
    }

    /// Sends a notification, or a response to one of the upstream's requests.
    pub fn send(&self, message: &Value) -> Result<(), UpstreamError> {
        let link = self.link.lock().expect("link lock");
        let link = link
            .as_ref()
            .ok_or_else(|| UpstreamError::Down(self.failure()))?;
        link.to_upstream
            .send(line(message))
            .map_err(|_| UpstreamError::Down(self.failure()))
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) -> Result<(), UpstreamError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    fn failure(&self) -> String {
        self.last_failure.lock().expect("failure lock").clone()
    }

    fn fail(&self, why: String) {
        tracing::warn!(upstream = %self.name, "{why}");
        *self.last_failure.lock().expect("failure lock") = why;
    }

    /// Runs the process; when it ends, fails what waits on it and starts it
    /// again after a backoff that grows while it keeps dying young.
    async fn supervise(self: Arc<Self>, first: std::io::Result<(Child, Arc<Waiters>)>) {
        let mut backoff = Duration::from_millis(250);
        let mut spawned = Some(first);
        loop {
            let started = Instant::now();
            let restart = spawned.is_none();
            match spawned.take().unwrap_or_else(|| self.spawn(false)) {
                Ok((mut child, waiters)) => {
                    if restart {
                        self.replay_handshake().await;
                    }
                    let status = tokio::select! {
                        status = wait(&mut child) => status,
                        () = self.stopped.notified() => {
                            let _ = child.kill().await;
                            "stopped by the gateway".to_owned()
                        }
                        () = self.hung.notified() => {
                            let _ = child.kill().await;
                            format!("killed after {HUNG_AFTER} requests in a row timed out")
                        }
                    };
                    *self.link.lock().expect("link lock") = None;
                    // Dropping the waiters' senders answers every request in
                    // flight with `Exited`.
                    waiters.lock().expect("waiters lock").clear();
                    if self.stopping.load(Ordering::Acquire) {
                        // The session ended: nothing to warn about.
                        tracing::debug!(upstream = %self.name, "`{}` stopped", self.spec.describe());
                        return;
                    }
                    self.fail(format!("`{}` exited: {status}", self.spec.describe()));
                }
                Err(error) => {
                    self.fail(format!("cannot start `{}`: {error}", self.spec.describe()))
                }
            }
            if self.stopping.load(Ordering::Acquire) {
                return;
            }
            if started.elapsed() > Duration::from_secs(60) {
                backoff = Duration::from_millis(250);
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(30));
        }
    }

    /// Starts the process; its link takes requests at once when `ready`,
    /// else once the handshake is replayed.
    fn spawn(&self, ready: bool) -> std::io::Result<(Child, Arc<Waiters>)> {
        let mut child = Command::new(&self.spec.command)
            .args(&self.spec.args)
            .envs(&self.spec.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (to_upstream, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            while let Some(bytes) = outgoing.recv().await {
                if stdin.write_all(&bytes).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let waiters: Arc<Waiters> = Arc::default();
        let reader_waiters = Arc::clone(&waiters);
        let incoming = self.incoming.clone();
        let name = self.name.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            loop {
                match read_line(&mut reader, MAX_MESSAGE_SIZE).await {
                    Ok(None) => break,
                    Ok(Some(Ok(bytes))) => route(&bytes, &reader_waiters, &incoming, &name),
                    Ok(Some(Err(too_long))) => {
                        tracing::warn!(upstream = %name, "dropped a message of {too_long} bytes, past the cap")
                    }
                    Err(error) => {
                        tracing::warn!(upstream = %name, "reading the upstream failed: {error}");
                        break;
                    }
                }
            }
        });
        *self.link.lock().expect("link lock") = Some(Link {
            to_upstream,
            waiters: Arc::clone(&waiters),
            ready,
        });
        Ok((child, waiters))
    }

    async fn replay_handshake(self: &Arc<Self>) {
        let params = self.handshake.lock().expect("handshake lock").clone();
        if let Some(params) = params {
            let id = self.allocate_id();
            let answered = match self.enqueue(id, "initialize", params, true) {
                Ok(pending) => pending.wait().await.is_ok(),
                Err(_) => false,
            };
            if answered {
                let _ = self.notify("notifications/initialized", json!({}));
                tracing::info!(upstream = %self.name, "restarted and initialized again");
            }
        }
        if let Some(link) = self.link.lock().expect("link lock").as_mut() {
            link.ready = true;
        }
    }
}

/// How the process ended.
async fn wait(child: &mut Child) -> String {
    match child.wait().await {
        Ok(status) => status.to_string(),
        Err(error) => error.to_string(),
    }
}

/// One message from the upstream: a response to its waiter, anything else
/// to the host side.
fn route(bytes: &[u8], waiters: &Waiters, incoming: &mpsc::UnboundedSender<Incoming>, name: &str) {
    let Ok(message) = serde_json::from_slice::<Value>(bytes) else {
        let start = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]).into_owned();
        tracing::warn!(upstream = %name, "dropped a message of {} bytes that is not JSON: {start}", bytes.len());
        return;
    };
    let is_response = message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some());
    if is_response {
        let waiter = message
            .get("id")
            .and_then(Value::as_u64)
            .and_then(|id| waiters.lock().expect("waiters lock").remove(&id));
        match waiter {
            Some(waiter) => {
                let _ = incoming.send(Incoming::Answer(waiter, message));
            }
            None => {
                tracing::warn!(upstream = %name, "dropped a response nobody waits for: {message}")
            }
        }
    } else if message.get("method").and_then(Value::as_str).is_some() {
        let _ = incoming.send(Incoming::Message(message));
    } else {
        tracing::warn!(upstream = %name, "dropped a message that is neither a request, a notification nor a response");
    }
}

fn line(message: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(message).expect("a Value serializes");
    bytes.push(b'\n');
    bytes
}
