//! The load client's two ways to reach a server: Streamable HTTP (a legacy
//! session, or 2026-07-28 requests without one) and stdio.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The protocol version of a legacy session.
pub const LEGACY: &str = "2025-11-25";
/// The protocol version of requests without a session.
pub const MODERN: &str = "2026-07-28";

/// Why a request got no answer.
#[derive(Debug)]
pub enum Failure {
    /// Nothing usable came back (the connection refused or cut, or a
    /// gateway's 502, 503 or 504): the request may be sent again.
    Retry(String),
    /// The server does not know the session (404): open a new one.
    SessionLost,
    /// Anything else: the server answered, and not with a response.
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Retry(why) => write!(f, "no answer ({why})"),
            Failure::SessionLost => write!(f, "the session is gone (404)"),
            Failure::Other(why) => write!(f, "{why}"),
        }
    }
}

/// One MCP client.
pub trait Client {
    /// Sends a request and reads its response.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Result<Value, Failure>;
    /// Sends a notification.
    fn notify(&mut self, method: &str) -> Result<(), Failure>;
    /// The session's id, if it has one.
    fn session(&self) -> Option<&str> {
        None
    }
    /// Forgets the session (it is gone), so the next `initialize` opens one.
    fn forget_session(&mut self) {}
    /// Ends the session.
    fn close(&mut self) {}
    /// When the last response arrived, if that was before `request`
    /// returned (an event stream read to its end after the response).
    fn answered_at(&mut self) -> Option<Instant> {
        None
    }
}

/// How to reach the server over HTTP.
pub struct HttpTarget {
    pub url: String,
    /// 2026-07-28 requests, without a session.
    pub modern: bool,
    /// `Authorization: Bearer` on every request.
    pub bearer: Option<String>,
}

pub struct Http {
    agent: ureq::Agent,
    target: HttpTarget,
    session: Option<String>,
    answered_at: Option<Instant>,
}

impl Http {
    pub fn new(target: HttpTarget) -> Http {
        Http {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(120)))
                .build()
                .into(),
            target,
            session: None,
            answered_at: None,
        }
    }

    fn post(&mut self, message: &Value) -> Result<(u16, String), Failure> {
        let mut request = self
            .agent
            .post(&self.target.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if self.target.modern {
            request = request.header("mcp-protocol-version", MODERN);
        } else if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", LEGACY);
        }
        if let Some(bearer) = &self.target.bearer {
            request = request.header("authorization", &format!("Bearer {bearer}"));
        }
        let response = request
            .send(message.to_string())
            .map_err(|error| Failure::Retry(error.to_string()))?;
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_owned);
        }
        let status = response.status().as_u16();
        match status {
            404 if self.session.is_some() => return Err(Failure::SessionLost),
            502..=504 => return Err(Failure::Retry(format!("HTTP {status}"))),
            _ => {}
        }
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|kind| kind.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        let cut = |error: std::io::Error| Failure::Retry(format!("the body was cut: {error}"));
        let mut body = response.into_body();
        if !is_stream {
            let text = body
                .read_to_string()
                .map_err(|error| Failure::Retry(format!("the body was cut: {error}")))?;
            return Ok((status, text));
        }
        // The response is the event whose message answers the request: the
        // call's time ends there. The stream is still read to its end (the
        // server ends it after the response), so that the connection is
        // used again, as a real client's would be.
        let mut reader = BufReader::new(body.into_reader());
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).map_err(cut)? == 0 {
                return Err(Failure::Retry(
                    "the event stream ended without the response".into(),
                ));
            }
            if let Some(data) = line.trim_end().strip_prefix("data:") {
                let data = data.trim_start();
                if let Ok(answer) = serde_json::from_str::<Value>(data)
                    && answer.get("method").is_none()
                    && answer.get("id") == message.get("id")
                {
                    self.answered_at = Some(Instant::now());
                    let data = data.to_owned();
                    std::io::copy(&mut reader, &mut std::io::sink()).map_err(cut)?;
                    return Ok((status, data));
                }
            }
        }
    }
}

impl Client for Http {
    fn request(&mut self, id: u64, method: &str, mut params: Value) -> Result<Value, Failure> {
        if self.target.modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "gateway_load", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (status, body) = self.post(&message)?;
        if status != 200 {
            return Err(Failure::Other(format!("HTTP {status}: {body}")));
        }
        serde_json::from_str(&body).map_err(|error| Failure::Other(format!("{error}: {body}")))
    }

    fn notify(&mut self, method: &str) -> Result<(), Failure> {
        let (status, body) = self.post(&json!({"jsonrpc": "2.0", "method": method}))?;
        match status {
            200 | 202 => Ok(()),
            _ => Err(Failure::Other(format!("HTTP {status}: {body}"))),
        }
    }

    fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    fn forget_session(&mut self) {
        self.session = None;
    }

    fn answered_at(&mut self) -> Option<Instant> {
        self.answered_at.take()
    }

    fn close(&mut self) {
        if let Some(session) = &self.session {
            let _ = self
                .agent
                .delete(&self.target.url)
                .header("mcp-session-id", session)
                .call();
        }
    }
}

/// A server of the client's own, on its stdin and stdout.
pub struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl StdioServer {
    pub fn start(command: &[String]) -> Result<StdioServer, String> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| format!("cannot start {}: {error}", command[0]))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Ok(StdioServer {
            child,
            stdin,
            stdout,
        })
    }
}

impl Client for StdioServer {
    fn request(&mut self, id: u64, method: &str, params: Value) -> Result<Value, Failure> {
        let broken = |error: std::io::Error| Failure::Other(error.to_string());
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{message}").map_err(broken)?;
        self.stdin.flush().map_err(broken)?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line).map_err(broken)? == 0 {
                return Err(Failure::Other("the server closed its output".into()));
            }
            if let Ok(answer) = serde_json::from_str::<Value>(&line)
                && answer.get("method").is_none()
                && answer.get("id") == Some(&json!(id))
            {
                return Ok(answer);
            }
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), Failure> {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .map_err(|error| Failure::Other(error.to_string()))
    }

    fn close(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
