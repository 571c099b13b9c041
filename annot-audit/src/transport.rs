//! The two ways to reach a server: the stdin/stdout of a child process (one
//! JSON-RPC message a line) and Streamable HTTP (a POST a message, answered
//! with JSON or an event stream). Both hand back the exact response text.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::namespace::Namespace;

/// A transport that could not deliver or did not get an answer.
pub type Failure = String;

/// A server's stdin and stdout.
pub struct Stdio {
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Responses read while waiting for another id.
    early: Vec<(Value, String)>,
    timeout: Duration,
}

impl Stdio {
    /// Takes over the pipes of a child started with piped stdin and stdout.
    pub fn attach(child: &mut Child, timeout: Duration) -> Result<Self, Failure> {
        let stdin = child.stdin.take().ok_or("the child has no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("the child has no stdout pipe")?;
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Stdio {
            stdin,
            lines,
            early: Vec::new(),
            timeout,
        })
    }

    fn send(&mut self, text: &str) -> Result<(), Failure> {
        writeln!(self.stdin, "{text}")
            .and_then(|()| self.stdin.flush())
            .map_err(|error| format!("cannot write to the server: {error}"))
    }

    /// The response line carrying `id`; server requests on the way are
    /// refused with -32601 so that the server does not wait for us.
    fn receive(&mut self, id: &Value, timeout: Duration) -> Result<String, Failure> {
        if let Some(at) = self.early.iter().position(|(early, _)| early == id) {
            return Ok(self.early.remove(at).1);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer within {} ms", timeout.as_millis()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the server closed its stdout".to_owned());
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let Some(message_id) = message.get("id").cloned() else {
                continue;
            };
            if message.get("method").is_some() {
                let refusal = json!({"jsonrpc": "2.0", "id": message_id,
                    "error": {"code": -32601, "message": "the auditor serves no requests"}});
                self.send(&refusal.to_string())?;
                continue;
            }
            if &message_id == id {
                return Ok(line);
            }
            self.early.push((message_id, line));
        }
    }
}

/// A Streamable HTTP endpoint.
pub struct Http {
    url: String,
    agent: ureq::Agent,
    session: Option<String>,
    protocol_version: Option<String>,
    /// The network namespace to make connections from (a sandboxed server's).
    namespace: Option<Namespace>,
    timeout: Duration,
}

impl Http {
    pub fn new(url: &str, namespace: Option<Namespace>, timeout: Duration) -> Self {
        // No idle connections: every request opens exactly one connection, so
        // the connections a sandboxed server's namespace counts are ours plus
        // its own, and ours are known.
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .timeout_global(Some(timeout))
            .build();
        Http {
            url: url.to_owned(),
            agent: ureq::Agent::new_with_config(config),
            session: None,
            protocol_version: None,
            namespace,
            timeout,
        }
    }

    /// Posts one message; `Ok(None)` when the server accepted it without a
    /// body (notifications).
    fn post(
        &self,
        text: &str,
        id: Option<&Value>,
    ) -> Result<(Option<String>, Option<String>), Failure> {
        let work = || {
            let mut request = self
                .agent
                .post(&self.url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream");
            if let Some(session) = &self.session {
                request = request.header("Mcp-Session-Id", session);
            }
            if let Some(version) = &self.protocol_version {
                request = request.header("MCP-Protocol-Version", version);
            }
            let response = request
                .send(text.as_bytes())
                .map_err(|error| format!("HTTP request failed: {error}"))?;
            let status = response.status().as_u16();
            let session = header(&response, "mcp-session-id");
            let event_stream = header(&response, "content-type")
                .is_some_and(|kind| kind.starts_with("text/event-stream"));
            let mut body = Vec::new();
            response
                .into_body()
                .into_reader()
                .read_to_end(&mut body)
                .map_err(|error| format!("cannot read the HTTP body: {error}"))?;
            let body = String::from_utf8_lossy(&body).into_owned();
            if id.is_none() {
                return Ok((None, session));
            }
            if event_stream {
                return event_with_id(&body, id)
                    .map(|found| (Some(found), session))
                    .ok_or_else(|| format!("HTTP {status}: the event stream carried no response"));
            }
            if body.trim().is_empty() {
                return Err(format!("HTTP {status} with an empty body"));
            }
            Ok((Some(body), session))
        };
        match &self.namespace {
            Some(namespace) => namespace.run(work),
            None => work(),
        }
    }
}

fn header(response: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// The `data` of the server-sent event that answers `id`.
fn event_with_id(body: &str, id: Option<&Value>) -> Option<String> {
    let mut data = String::new();
    let mut found = None;
    for line in body.lines().chain(std::iter::once("")) {
        if let Some(rest) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        } else if line.is_empty() && !data.is_empty() {
            let text = std::mem::take(&mut data);
            if let Ok(message) = serde_json::from_str::<Value>(&text)
                && message.get("method").is_none()
                && message.get("id") == id
            {
                found = Some(text);
                break;
            }
        }
    }
    found
}

/// Either transport.
pub enum Transport {
    Stdio(Stdio),
    Http(Http),
}

impl Transport {
    /// Sends a request and returns the exact text of its response.
    pub fn request(&mut self, id: u64, text: &str, timeout: Duration) -> Result<String, Failure> {
        let id = Value::from(id);
        match self {
            Transport::Stdio(stdio) => {
                stdio.send(text)?;
                stdio.receive(&id, timeout)
            }
            Transport::Http(http) => {
                let (body, session) = http.post(text, Some(&id))?;
                if http.session.is_none() {
                    http.session = session;
                }
                body.ok_or_else(|| "no body".to_owned())
            }
        }
    }

    /// Sends requests all at once, then collects their responses: two calls
    /// in flight together.
    pub fn concurrent(&mut self, requests: &[(u64, String)]) -> Vec<Result<String, Failure>> {
        match self {
            Transport::Stdio(stdio) => {
                let sent: Vec<Result<(), Failure>> =
                    requests.iter().map(|(_, text)| stdio.send(text)).collect();
                let timeout = stdio.timeout;
                requests
                    .iter()
                    .zip(sent)
                    .map(|((id, _), sent)| {
                        sent.and_then(|()| stdio.receive(&Value::from(*id), timeout))
                    })
                    .collect()
            }
            Transport::Http(http) => {
                let http = &*http;
                std::thread::scope(|scope| {
                    let handles: Vec<_> = requests
                        .iter()
                        .map(|(id, text)| {
                            scope.spawn(move || {
                                http.post(text, Some(&Value::from(*id)))
                                    .and_then(|(body, _)| body.ok_or_else(|| "no body".to_owned()))
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|handle| {
                            handle
                                .join()
                                .unwrap_or_else(|_| Err("the HTTP worker failed".to_owned()))
                        })
                        .collect()
                })
            }
        }
    }

    /// Sends a notification.
    pub fn notify(&mut self, text: &str) -> Result<(), Failure> {
        match self {
            Transport::Stdio(stdio) => stdio.send(text),
            Transport::Http(http) => http.post(text, None).map(|_| ()),
        }
    }

    /// Remembers the protocol version for the HTTP header of later requests.
    pub fn set_protocol_version(&mut self, version: &str) {
        if let Transport::Http(http) = self {
            http.protocol_version = Some(version.to_owned());
        }
    }

    /// How many connections the auditor itself opens per request (HTTP opens
    /// one each, stdio none): subtracted from a namespace's counters.
    pub fn connections_per_request(&self) -> u64 {
        match self {
            Transport::Stdio(_) => 0,
            Transport::Http(_) => 1,
        }
    }

    /// Waits until an HTTP endpoint accepts connections.
    pub fn wait_until_listening(&self, deadline: Duration) -> Result<(), Failure> {
        let Transport::Http(http) = self else {
            return Ok(());
        };
        let start = Instant::now();
        let probe = crate::wire::request(0, "ping", json!({}));
        loop {
            match http.post(&probe, Some(&Value::from(0))) {
                Ok(_) => return Ok(()),
                Err(error) if error.starts_with("HTTP request failed") => {}
                Err(_) => return Ok(()),
            }
            if start.elapsed() > deadline {
                return Err(format!(
                    "{} did not accept connections within {} s",
                    http.url,
                    deadline.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn timeout(&self) -> Duration {
        match self {
            Transport::Stdio(stdio) => stdio.timeout,
            Transport::Http(http) => http.timeout,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_event_that_answers_the_request() {
        let body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
                    data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n";
        assert_eq!(
            event_with_id(body, Some(&Value::from(7))).as_deref(),
            Some("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}")
        );
        assert_eq!(event_with_id(body, Some(&Value::from(8))), None);
    }
}
