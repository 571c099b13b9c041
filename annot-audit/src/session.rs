//! A server under audit: how it is started (in a sandbox directory, in its
//! own network namespace when one can be made), reset, and talked to in
//! either protocol era.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio as Pipe};
use std::time::Duration;

use annot_runtime::protocol::{
    CLIENT_CAPABILITIES_META, CLIENT_INFO_META, LATEST_PROTOCOL_VERSION, MODERN_PROTOCOL_VERSION,
    PROTOCOL_VERSION_META, TOOL_RESOLUTION_EXTENSION,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::namespace::{self, Namespace};
use crate::transport::{Http, Stdio, Transport};
use crate::wire::{self, Exchange};

/// The method a 2026-07-28 client asks first.
const METHOD_DISCOVER: &str = "server/discover";

/// The two protocol eras.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Era {
    /// `initialize` handshake (2025-11-25 and earlier).
    Legacy,
    /// MCP 2026-07-28: `server/discover`, capabilities on every request.
    Modern,
}

/// Whether the auditor offers the tool-resolution extension on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Extension,
    Plain,
}

/// How to start and reach the server.
#[derive(Clone, Debug)]
pub struct Launch {
    pub command: Vec<String>,
    pub url: Option<String>,
    pub era: Option<Era>,
    /// Environment variables for the server (`{sandbox}` in a value is the sandbox's path).
    pub env: Vec<(String, String)>,
    /// Try to give the server its own network namespace.
    pub namespaces: bool,
    pub timeout: Duration,
}

/// What a network namespace tells about a server, when it has one.
#[derive(Clone, Debug)]
pub enum Network {
    /// The server's namespace, held open: its counters cover every process
    /// the launcher started in it.
    Observed(Namespace),
    /// No namespace: why.
    Unobserved(String),
}

/// A running server process (or just an endpoint) and its sandbox.
pub struct Server {
    pub launch: Launch,
    pub sandbox: PathBuf,
    child: Option<Child>,
    pub network: Network,
}

impl Server {
    /// Starts the command (if any) in `sandbox`.
    pub fn start(launch: &Launch, sandbox: &Path) -> Result<Server, String> {
        let mut server = Server {
            launch: launch.clone(),
            sandbox: sandbox.to_owned(),
            child: None,
            network: Network::Unobserved("no command to start: the server runs elsewhere".into()),
        };
        if launch.command.is_empty() {
            return Ok(server);
        }
        let mut reason = "namespaces disabled (--no-namespace or ANNOT_AUDIT_NO_NETNS)".to_owned();
        if launch.namespaces {
            match server.spawn(true) {
                Ok(()) => return Ok(server),
                Err(error) => reason = format!("no network namespace could be made: {error}"),
            }
        }
        server.spawn(false)?;
        server.network = Network::Unobserved(reason);
        Ok(server)
    }

    fn spawn(&mut self, isolated: bool) -> Result<(), String> {
        let sandbox = self.sandbox.to_string_lossy().into_owned();
        let place = |text: &String| text.replace("{sandbox}", &sandbox);
        let program = place(&self.launch.command[0]);
        let arguments: Vec<String> = self.launch.command[1..].iter().map(place).collect();
        let mut command = if isolated {
            let mut command = Command::new("unshare");
            command
                .args(["--net", "sh", "-c", namespace::SETUP, "sh"])
                .arg(&program)
                .args(&arguments);
            command
        } else {
            let mut command = Command::new(&program);
            command.args(&arguments);
            command
        };
        for (key, value) in &self.launch.env {
            command.env(key, place(value));
        }
        // Its own process group: stopping the server stops whatever the
        // launcher started (npx's node, uv's interpreter, a forked child).
        command
            .process_group(0)
            .current_dir(&self.sandbox)
            .env("ANNOT_AUDIT_SANDBOX", &self.sandbox)
            .stdin(Pipe::piped())
            .stdout(if self.launch.url.is_some() {
                Pipe::null()
            } else {
                Pipe::piped()
            })
            .stderr(if isolated {
                Pipe::piped()
            } else {
                Pipe::null()
            });
        let mut child = command
            .spawn()
            .map_err(|error| format!("cannot start `{}`: {error}", self.launch.command[0]))?;
        if isolated {
            // The setup says when the namespace is ready, then execs the
            // launcher, whatever it is; it exits 97 when it cannot.
            let stderr = child.stderr.take().ok_or("the child has no stderr pipe")?;
            let pid = child.id();
            match Namespace::await_ready(stderr, pid, self.launch.timeout) {
                Ok(held) => self.network = Network::Observed(held),
                Err(error) => {
                    namespace::kill_group(pid);
                    let _ = child.wait();
                    return Err(error);
                }
            }
        }
        self.child = Some(child);
        Ok(())
    }

    /// Connects to the server, detecting its era unless one is forced.
    pub fn connect(&mut self, offer: Offer) -> Result<Connection, String> {
        let timeout = self.launch.timeout;
        let transport = match &self.launch.url {
            Some(url) => {
                let namespace = match &self.network {
                    Network::Observed(held) => Some(held.clone()),
                    Network::Unobserved(_) => None,
                };
                let transport = Transport::Http(Http::new(url, namespace, timeout));
                transport.wait_until_listening(Duration::from_secs(20))?;
                transport
            }
            None => {
                let child = self.child.as_mut().ok_or("no server process")?;
                Transport::Stdio(Stdio::attach(child, timeout)?)
            }
        };
        Connection::open(transport, self.launch.era, offer)
    }

    /// A second instance on its own sandbox copy for stdio (a connection is a
    /// process there); over HTTP, another session on the same endpoint.
    pub fn second_connection(
        &mut self,
        offer: Offer,
    ) -> Result<(Option<Server>, Connection), String> {
        if self.launch.url.is_some() {
            return Ok((None, self.connect(offer)?));
        }
        let mut other = Server::start(&self.launch, &self.sandbox)?;
        let connection = other.connect(offer)?;
        Ok((Some(other), connection))
    }

    /// `TCP ActiveOpens + UDP OutDatagrams` of the server's namespace.
    pub fn network_counter(&self) -> Option<u64> {
        match &self.network {
            Network::Observed(held) => held.counter(),
            Network::Unobserved(_) => None,
        }
    }

    /// Stops the server: its whole process group.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            namespace::kill_group(child.id());
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A connection in one era, numbering its requests.
pub struct Connection {
    pub transport: Transport,
    pub era: Era,
    pub offer: Offer,
    /// The server's capabilities (initialize or server/discover result).
    pub capabilities: Value,
    /// The handshake's exchanges, for evidence.
    pub handshake: Vec<Exchange>,
    next_id: u64,
}

impl Connection {
    fn open(transport: Transport, forced: Option<Era>, offer: Offer) -> Result<Connection, String> {
        let mut connection = Connection {
            transport,
            era: Era::Modern,
            offer,
            capabilities: Value::Null,
            handshake: Vec::new(),
            next_id: 1,
        };
        if forced != Some(Era::Legacy) {
            // The full timeout: a slow start (an interpreter loading its SDK)
            // must not pass for a server without 2026-07-28.
            let timeout = connection.transport.timeout();
            let probe = connection.request_with(METHOD_DISCOVER, json!({}), timeout);
            let discovered = probe.result().filter(|result| {
                result["supportedVersions"]
                    .as_array()
                    .is_some_and(|versions| versions.iter().any(|v| v == MODERN_PROTOCOL_VERSION))
            });
            let answered = probe.response.is_some();
            connection.handshake.push(probe);
            if let Some(result) = discovered {
                connection.capabilities = result["capabilities"].clone();
                connection
                    .transport
                    .set_protocol_version(MODERN_PROTOCOL_VERSION);
                return Ok(connection);
            }
            if forced == Some(Era::Modern) {
                return Err("the server does not answer server/discover with 2026-07-28".into());
            }
            if !answered {
                // A server that ignores an unknown method may still have read
                // it: a fresh id keeps the answers apart.
                connection.next_id += 1;
            }
        }
        connection.era = Era::Legacy;
        let mut capabilities = json!({});
        if offer == Offer::Extension {
            capabilities = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
        }
        let init = connection.request(
            "initialize",
            json!({
                "protocolVersion": LATEST_PROTOCOL_VERSION,
                "capabilities": capabilities,
                "clientInfo": {"name": "annot-audit", "version": env!("CARGO_PKG_VERSION")},
            }),
        );
        let Some(result) = init.result() else {
            return Err(format!("initialize failed: {}", init.outcome()));
        };
        connection.capabilities = result["capabilities"].clone();
        if let Some(version) = result["protocolVersion"].as_str() {
            connection.transport.set_protocol_version(version);
        }
        connection.handshake.push(init);
        connection
            .transport
            .notify(&wire::notification("notifications/initialized"))
            .map_err(|error| format!("notifications/initialized: {error}"))?;
        Ok(connection)
    }

    /// `params._meta` of a 2026-07-28 request.
    fn modern_meta(&self) -> Value {
        let extensions = match self.offer {
            Offer::Extension => json!({TOOL_RESOLUTION_EXTENSION: {}}),
            Offer::Plain => json!({}),
        };
        json!({
            PROTOCOL_VERSION_META: MODERN_PROTOCOL_VERSION,
            CLIENT_CAPABILITIES_META: {"extensions": extensions},
            CLIENT_INFO_META: {"name": "annot-audit", "version": env!("CARGO_PKG_VERSION")},
        })
    }

    /// The text of a request, `_meta` added in the 2026-07-28 era.
    pub fn prepare(&mut self, method: &str, mut params: Value) -> (u64, String) {
        let modern = self.era == Era::Modern || method == METHOD_DISCOVER;
        if modern && let Some(object) = params.as_object_mut() {
            object.insert("_meta".into(), self.modern_meta());
        }
        let id = self.next_id;
        self.next_id += 1;
        (id, wire::request(id, method, params))
    }

    pub fn request(&mut self, method: &str, params: Value) -> Exchange {
        let timeout = self.transport.timeout();
        self.request_with(method, params, timeout)
    }

    fn request_with(&mut self, method: &str, params: Value, timeout: Duration) -> Exchange {
        let (id, text) = self.prepare(method, params);
        let answer = self.transport.request(id, &text, timeout);
        exchange(text, answer)
    }

    /// Two or more requests in flight at once.
    pub fn concurrent(&mut self, method: &str, params: &[Value]) -> Vec<Exchange> {
        let prepared: Vec<(u64, String)> = params
            .iter()
            .map(|params| self.prepare(method, params.clone()))
            .collect();
        let answers = self.transport.concurrent(&prepared);
        prepared
            .into_iter()
            .zip(answers)
            .map(|((_, text), answer)| exchange(text, answer))
            .collect()
    }

    /// Every tool of `tools/list`, following pagination; the exchanges are the
    /// evidence of the declarations tier.
    pub fn list_tools(&mut self) -> (Vec<Exchange>, Vec<Value>) {
        let mut exchanges = Vec::new();
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..100 {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let exchange = self.request("tools/list", params);
            let result = exchange.result();
            exchanges.push(exchange);
            let Some(result) = result else { break };
            tools.extend(result["tools"].as_array().cloned().unwrap_or_default());
            match result["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        (exchanges, tools)
    }
}

fn exchange(request: String, answer: Result<String, String>) -> Exchange {
    match answer {
        Ok(response) => Exchange {
            request,
            response: Some(response),
            failure: None,
        },
        Err(failure) => Exchange {
            request,
            response: None,
            failure: Some(failure),
        },
    }
}
