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

/// An example binary, built once per name by cargo: `plain_server` of this
/// crate, or `manage_files` of the `annot` package.
pub fn example(package: &str, name: &str) -> PathBuf {
    let directory = Path::new(GATEWAY)
        .parent()
        .expect("target/debug")
        .join("examples");
    let binary = directory.join(name);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--example", name])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --example {name}");
    binary
}

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
        let mut child = Command::new(GATEWAY)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("annot-gateway starts");
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
        Host {
            stdin: child.stdin.take(),
            child,
            lines,
            unread: Vec::new(),
            next_id: 1,
        }
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
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// The decision log as `annot-gateway export` prints it.
pub fn exported(log: &Path) -> Vec<Value> {
    let output = Command::new(GATEWAY)
        .args(["export", "--log"])
        .arg(log)
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
        let upstream = example("annot", "manage_files");
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
