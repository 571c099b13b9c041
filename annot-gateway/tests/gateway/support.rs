//! Drives the real `annot-gateway` binary as a host would, over its stdin and
//! stdout: the one helper every suite of this crate uses.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const GATEWAY: &str = env!("CARGO_BIN_EXE_annot-gateway");

/// How long any one answer may take before a test fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// An example binary of the workspace, built first: `plain_server` of this
/// crate, or `manage_files` of the `annot` package.
pub use annot_test_support::example_binary as example;

/// The gateway with a host on its stdio.
pub struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Messages read while waiting for something else.
    pub unread: Vec<Value>,
    next_id: u64,
}

impl Host {
    /// Starts `annot-gateway ARGS`.
    pub fn start(args: &[&str]) -> Host {
        Host::spawn(args, Stdio::inherit()).0
    }

    /// Starts `annot-gateway ARGS` with the approvals page on an address of
    /// its own (`--approvals-listen`): the host, and the page's
    /// `http://ADDR` as the gateway writes it to stderr.
    pub fn start_with_page(args: &[&str]) -> (Host, String) {
        let (host, stderr) = Host::spawn(args, Stdio::piped());
        let page = address_on_stderr(stderr.expect("stderr"), |line| {
            line.strip_prefix("annot-gateway: the approvals page is at ")?
                .strip_suffix("/approvals")
                .map(str::to_owned)
        });
        (host, page)
    }

    fn spawn(args: &[&str], stderr: Stdio) -> (Host, Option<std::process::ChildStderr>) {
        let mut child = Command::new(GATEWAY)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("annot-gateway starts");
        let stderr = child.stderr.take();
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let message = serde_json::from_str(&line)
                    .unwrap_or_else(|error| panic!("the gateway wrote non-JSON ({error}): {line}"));
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let host = Host {
            stdin: child.stdin.take(),
            child,
            lines,
            unread: Vec::new(),
            next_id: 1,
        };
        (host, stderr)
    }

    /// Writes one raw line.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes one message.
    pub fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message that satisfies `wanted`, keeping the others.
    pub fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(position) = self.unread.iter().position(&wanted) {
            return self.unread.remove(position);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.unread.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {PATIENCE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the gateway exited before {what}"),
            }
        }
    }

    /// The response to request `id`.
    pub fn response(&mut self, id: &Value) -> Value {
        let id = id.clone();
        self.wait_for(&format!("a response to {id}"), move |message| {
            message.get("id") == Some(&id) && message.get("method").is_none()
        })
    }

    /// Sends a request and waits for its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(&id)
    }

    /// `initialize` (with `capabilities`) and `notifications/initialized`.
    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let response = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "gateway-test", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    /// The names and annotations of `tools/list`.
    pub fn tools(&mut self) -> Vec<(String, Value)> {
        let response = self.request("tools/list", json!({}));
        response["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("no tools in {response}"))
            .iter()
            .map(|tool| {
                (
                    tool["name"].as_str().unwrap().to_owned(),
                    tool["annotations"].clone(),
                )
            })
            .collect()
    }

    /// The result of calling `tool` with `arguments`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("`{tool}` answered no result: {response}"))
    }

    /// The next request the gateway sends the host with `method`.
    pub fn host_request(&mut self, method: &str) -> Value {
        let method = method.to_owned();
        self.wait_for(&format!("a `{method}` request"), move |message| {
            message["method"] == json!(method) && message.get("id").is_some()
        })
    }

    /// Closes stdin and waits for the gateway to exit.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the gateway did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes stdin, waits for the gateway to exit, and gives back every
    /// message it wrote that was not read.
    pub fn finish_with_rest(mut self) -> (std::process::ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the gateway did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut rest = std::mem::take(&mut self.unread);
        while let Ok(message) = self.lines.recv_timeout(Duration::from_millis(200)) {
            rest.push(message);
        }
        (status, rest)
    }

    /// Sends the gateway SIGTERM and waits for it to exit.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success(), "kill -TERM {pid}");
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the gateway did not exit on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the gateway with SIGKILL.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a result's first content block.
/// Echoes a child's stderr from a thread, and gives back the first address
/// `find` reads in it.
fn address_on_stderr(
    stderr: std::process::ChildStderr,
    find: fn(&str) -> Option<String>,
) -> String {
    let (sender, addresses) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(address) = find(&line) {
                let _ = sender.send(address);
            }
            eprintln!("{line}");
        }
    });
    addresses
        .recv_timeout(PATIENCE)
        .expect("the gateway says where it listens")
}

pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The decision log as `annot-gateway export` prints it, from a SQLite
/// file's path or a store's URL.
pub fn exported(store: impl AsRef<std::ffi::OsStr>) -> Vec<Value> {
    let output = Command::new(GATEWAY)
        .args(["export", "--store"])
        .arg(store)
        .output()
        .expect("export runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every file under `directory` with its bytes, sorted.
pub fn snapshot(directory: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

/// A sandbox holding `notes.txt` (`hello`), for annot's `manage_files`
/// behind the gateway, and the gateway's log beside it.
pub struct ManageFiles {
    pub directory: tempfile::TempDir,
}

impl ManageFiles {
    pub fn new() -> ManageFiles {
        let directory = tempfile::tempdir().unwrap();
        std::fs::create_dir(directory.path().join("box")).unwrap();
        std::fs::write(directory.path().join("box/notes.txt"), "hello\n").unwrap();
        ManageFiles { directory }
    }

    pub fn sandbox(&self) -> PathBuf {
        self.directory.path().join("box")
    }

    pub fn log(&self) -> PathBuf {
        self.directory.path().join("log.sqlite3")
    }

    /// The gateway with `options` in front of `manage_files` over the sandbox.
    pub fn start(&self, options: &[&str]) -> Host {
        let upstream = example("manage_files");
        let (log, sandbox) = (self.log(), self.sandbox());
        let mut args: Vec<&str> = options.to_vec();
        args.extend(["--log", log.to_str().unwrap(), "--"]);
        args.extend([upstream.to_str().unwrap(), sandbox.to_str().unwrap()]);
        Host::start(&args)
    }
}

/// The exit code and stderr of a gateway started with the configuration
/// `config`, which should stop it before it serves.
pub fn refused_at_start(config: &str) -> (Option<i32>, String) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("gateway.toml");
    std::fs::write(&path, config).unwrap();
    let output = Command::new(GATEWAY)
        .arg("--config")
        .arg(&path)
        .args(["--log"])
        .arg(directory.path().join("log.sqlite3"))
        .output()
        .expect("annot-gateway runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

/// The gateway serving Streamable HTTP (`--http 127.0.0.1:0`), and a plain
/// HTTP client for it: the one helper of the HTTP suite.
pub struct HttpGateway {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    agent: ureq::Agent,
    /// Streams kept open.
    open: std::sync::Mutex<Vec<ureq::http::Response<ureq::Body>>>,
}

/// One HTTP answer: status, headers that matter, and the JSON-RPC messages
/// of its body (one for `application/json`, each event's for an event stream).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub session: Option<String>,
    pub www_authenticate: Option<String>,
    pub content_type: String,
    pub body: String,
    pub messages: Vec<Value>,
}

/// An event stream read as it comes.
pub struct Events {
    lines: std::io::Lines<BufReader<ureq::BodyReader<'static>>>,
}

impl Events {
    /// The next JSON-RPC message of the stream; `None` when it ends.
    pub fn next(&mut self) -> Option<Value> {
        let mut data = String::new();
        for line in self.lines.by_ref() {
            let line = line.ok()?;
            if let Some(rest) = line.strip_prefix("data:") {
                data.push_str(rest.trim_start());
            } else if line.is_empty() && !data.is_empty() {
                return Some(serde_json::from_str(&data).expect("an event carries JSON"));
            }
        }
        None
    }
}

impl HttpGateway {
    /// Starts `annot-gateway --http 127.0.0.1:0 ARGS` and reads the address
    /// it listens on from its stderr.
    pub fn start(args: &[&str]) -> HttpGateway {
        let mut child = Command::new(GATEWAY)
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::piped())
            .spawn()
            .expect("annot-gateway starts");
        let url = address_on_stderr(child.stderr.take().expect("stderr"), |line| {
            let url = line.strip_prefix("annot-gateway: serving MCP over Streamable HTTP at ")?;
            Some(url.trim().to_owned())
        });
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        HttpGateway {
            child,
            url,
            agent,
            open: Default::default(),
        }
    }

    /// The gateway's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// POSTs `body` with `headers` (a session's id among them, if any).
    pub fn post_raw(&self, body: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        reply(request.send(body).expect("the gateway answers"))
    }

    /// POSTs one message in session `session`.
    pub fn post(&self, session: &str, message: &Value) -> Reply {
        self.post_raw(&message.to_string(), &[("mcp-session-id", session)])
    }

    /// POSTs a request in session `session` and reads its answer as a stream
    /// of messages, as they come.
    pub fn post_streaming(&self, session: &str, message: &Value) -> (u16, String, Events) {
        let response = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", session)
            .send(message.to_string())
            .expect("the gateway answers");
        let status = response.status().as_u16();
        let content_type = header(&response, "content-type").unwrap_or_default();
        let reader = response.into_body().into_reader();
        let events = Events {
            lines: BufReader::new(reader).lines(),
        };
        (status, content_type, events)
    }

    /// `initialize` (with `capabilities`) and `notifications/initialized`:
    /// the session's id.
    pub fn initialize(&self, capabilities: Value) -> String {
        let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities,
                       "clientInfo": {"name": "gateway-http-test", "version": "1"}}});
        let reply = self.post_raw(&message.to_string(), &[]);
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.messages[0].get("result").is_some(), "{reply:?}");
        let session = reply.session.expect("initialize issues a session id");
        let initialized = self.post(
            &session,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert_eq!(initialized.status, 202, "{initialized:?}");
        session
    }

    /// A request's response (the last message of its answer).
    pub fn request(&self, session: &str, id: u64, method: &str, params: Value) -> Value {
        let reply = self.post(
            session,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        assert_eq!(reply.status, 200, "{reply:?}");
        let response = reply.messages.last().cloned().expect("a response");
        assert_eq!(response["id"], json!(id), "{reply:?}");
        response
    }

    /// `GET /mcp` for `session`: the status and content type; the stream
    /// stays open while the gateway lives.
    pub fn open_stream(&self, session: &str) -> (u16, String) {
        let response = self
            .agent
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .call()
            .expect("the gateway answers");
        let status = response.status().as_u16();
        let content_type = header(&response, "content-type").unwrap_or_default();
        self.open.lock().unwrap().push(response);
        (status, content_type)
    }

    /// `GET url` as JSON (a document the gateway serves beside `/mcp`).
    pub fn get_json(&self, url: &str) -> Value {
        let mut response = self.agent.get(url).call().expect("the gateway answers");
        assert_eq!(response.status().as_u16(), 200, "GET {url}");
        let body = response
            .body_mut()
            .read_to_string()
            .expect("a readable body");
        serde_json::from_str(&body).expect("a JSON document")
    }

    /// `DELETE /mcp` for `session`: the status.
    pub fn delete(&self, session: &str) -> u16 {
        self.agent
            .delete(&self.url)
            .header("mcp-session-id", session)
            .call()
            .expect("the gateway answers")
            .status()
            .as_u16()
    }

    /// Sends SIGTERM and waits for the gateway to exit.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the gateway did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The processes the gateway runs (its sessions' upstreams).
    pub fn upstreams(&self) -> Vec<u32> {
        children(self.pid())
    }

    /// Waits until the gateway runs `count` upstream processes.
    pub fn wait_for_upstreams(&self, count: usize) {
        let deadline = Instant::now() + PATIENCE;
        while self.upstreams().len() != count {
            assert!(
                Instant::now() < deadline,
                "the gateway runs {:?}, not {count} upstreams",
                self.upstreams()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpGateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn header(response: &ureq::http::Response<ureq::Body>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

fn reply(response: ureq::http::Response<ureq::Body>) -> Reply {
    let status = response.status().as_u16();
    let session = header(&response, "mcp-session-id");
    let www_authenticate = header(&response, "www-authenticate");
    let content_type = header(&response, "content-type").unwrap_or_default();
    let body = response
        .into_body()
        .read_to_string()
        .expect("a readable body");
    let messages = if content_type.starts_with("text/event-stream") {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| serde_json::from_str(data.trim_start()).expect("an event carries JSON"))
            .collect()
    } else if content_type.starts_with("application/json") {
        vec![serde_json::from_str(&body).expect("a JSON body")]
    } else {
        Vec::new()
    };
    Reply {
        status,
        session,
        www_authenticate,
        content_type,
        body,
        messages,
    }
}

/// The children of process `pid` (Linux: from /proc).
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/stat"))
                .ok()
                .and_then(|stat| {
                    // After the command's closing parenthesis: state, then ppid.
                    let rest = &stat[stat.rfind(')')? + 2..];
                    rest.split(' ').nth(1)?.parse::<u32>().ok()
                })
                == Some(pid)
        })
        .collect()
}
