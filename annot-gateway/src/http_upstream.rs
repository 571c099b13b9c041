//! An upstream over Streamable HTTP: every message the gateway sends is one
//! POST; what comes back (one JSON message, or an event stream of them) is
//! handed to `deliver`, exactly as lines read from a process are.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Where each message the upstream sends goes.
pub(crate) type Deliver = Arc<dyn Fn(&[u8]) + Send + Sync>;

/// What every POST of one upstream shares.
struct Endpoint {
    client: reqwest::Client,
    url: String,
    headers: BTreeMap<String, String>,
    /// `Mcp-Session-Id` from the upstream's `initialize` answer.
    session: Mutex<Option<String>>,
    /// The protocol version to name in `MCP-Protocol-Version`.
    version: Mutex<Option<String>>,
    deliver: Deliver,
}

/// Posts each message of `outgoing` to `url`, concurrently, until the
/// channel closes.
pub(crate) fn start(
    client: reqwest::Client,
    url: String,
    headers: BTreeMap<String, String>,
    mut outgoing: mpsc::UnboundedReceiver<Vec<u8>>,
    deliver: Deliver,
) {
    let endpoint = Arc::new(Endpoint {
        client,
        url,
        headers,
        session: Mutex::new(None),
        version: Mutex::new(None),
        deliver,
    });
    tokio::spawn(async move {
        while let Some(bytes) = outgoing.recv().await {
            let endpoint = Arc::clone(&endpoint);
            tokio::spawn(async move { endpoint.post(bytes).await });
        }
    });
}

impl Endpoint {
    async fn post(&self, mut bytes: Vec<u8>) {
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let request_id = message.get("method").and(message.get("id")).cloned();
        // A 2026-07-28 request names its own version; `initialize` none;
        // any other the one `initialize` negotiated.
        let per_request = message
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let version = match message.get("method").and_then(Value::as_str) {
            Some("initialize") => None,
            _ => per_request.or_else(|| self.version.lock().expect("version lock").clone()),
        };
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(session) = self.session.lock().expect("session lock").clone() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = version {
            request = request.header("mcp-protocol-version", version);
        }
        let response = match request.body(bytes).send().await {
            Ok(response) => response,
            Err(error) => {
                return self.fail(
                    request_id,
                    &format!("the HTTP upstream is unreachable: {error}"),
                );
            }
        };
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        {
            *self.session.lock().expect("session lock") = Some(session.to_owned());
        }
        let status = response.status();
        if status.as_u16() == 202 || request_id.is_none() && status.is_success() {
            return;
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            let body: String = body.chars().take(200).collect();
            return self.fail(
                request_id,
                &format!("the HTTP upstream answered {status}: {body}"),
            );
        }
        let event_stream = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        if event_stream {
            self.read_events(response).await;
        } else {
            match response.bytes().await {
                Ok(body) => self.receive(&body),
                Err(error) => self.fail(
                    request_id,
                    &format!("the HTTP upstream's answer broke off: {error}"),
                ),
            }
        }
    }

    /// Each `data:` event of the stream is one message.
    async fn read_events(&self, mut response: reqwest::Response) {
        let mut buffer: Vec<u8> = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            buffer.extend_from_slice(&chunk);
            while let Some(end) = event_end(&buffer) {
                let event: Vec<u8> = buffer.drain(..end.0).collect();
                buffer.drain(..end.1 - end.0);
                self.receive_event(&event);
            }
        }
        if !buffer.is_empty() {
            self.receive_event(&buffer);
        }
    }

    fn receive_event(&self, event: &[u8]) {
        let text = String::from_utf8_lossy(event);
        let data: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        // An event without data (a stream's priming event, which carries only
        // an id to resume from) is no message.
        let message = data.join("\n");
        if !message.trim().is_empty() {
            self.receive(message.as_bytes());
        }
    }

    fn receive(&self, body: &[u8]) {
        let answer = serde_json::from_slice::<Value>(body).unwrap_or(Value::Null);
        if let Some(version) = answer
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        {
            *self.version.lock().expect("version lock") = Some(version.to_owned());
        }
        (self.deliver)(body);
    }

    /// Answers request `id` (if it was one) with the gateway's error.
    fn fail(&self, id: Option<Value>, why: &str) {
        tracing::warn!(url = %self.url, "{why}");
        if let Some(id) = id {
            let error =
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": why}});
            (self.deliver)(error.to_string().as_bytes());
        }
    }
}

/// Where the first event of `buffer` ends, and where the next begins.
fn event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = buffer
        .windows(2)
        .position(|pair| pair == b"\n\n")
        .map(|at| (at, at + 2));
    let crlf = buffer
        .windows(4)
        .position(|quad| quad == b"\r\n\r\n")
        .map(|at| (at, at + 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (one, other) => one.or(other),
    }
}
