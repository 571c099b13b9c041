//! A bounded load client for MCP servers and proxies, for
//! `annot-gateway/bench/latency.sh` (docs/gateway.md, "Speed").
//!
//! Each client is its own MCP session: it initializes, makes a few warm-up
//! calls, waits for every other client to be ready, then makes `--calls`
//! `tools/call` requests one after the other, timing each from the first
//! byte sent to the whole response read. Over Streamable HTTP (`--url`) an
//! answer may be plain JSON or an event stream; over stdio (`--stdio --
//! COMMAND ARGS`) each client starts its own server process and talks to it
//! directly, which is the baseline with no proxy at all.
//!
//! ```sh
//! cargo run --release -p annot-gateway --example gateway_load -- \
//!     --url http://127.0.0.1:8080/mcp --clients 64 --calls 100 \
//!     --tool notes --arguments '{"action":"read","name":"todo"}'
//! ```
//!
//! With `--pid PID`, the resident memory of that process (and of the
//! processes under it) is read before the sessions open and once they are
//! all open and have made their calls, before they close.
//!
//! Prints one JSON line: the label, clients, calls, p50, p99 and mean
//! latency in microseconds, calls per second, and memory. Exits non-zero
//! when a call was not answered with a result.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const USAGE: &str = "usage: gateway_load (--url URL | --stdio -- COMMAND ARGS...) \
[--clients N] [--calls N] [--warmup N] [--tool NAME] [--arguments JSON] [--label TEXT] [--pid PID]";

struct Options {
    url: Option<String>,
    command: Vec<String>,
    clients: usize,
    calls: usize,
    warmup: usize,
    tool: String,
    arguments: Value,
    label: String,
    pid: Option<u32>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        url: None,
        command: Vec::new(),
        clients: 1,
        calls: 1000,
        warmup: 20,
        tool: "notes".into(),
        arguments: json!({"action": "read", "name": "todo"}),
        label: String::new(),
        pid: None,
    };
    let mut stdio = false;
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        let mut value = || {
            arguments
                .next()
                .ok_or_else(|| format!("{argument} needs a value"))
        };
        match argument.as_str() {
            "--url" => options.url = Some(value()?),
            "--stdio" => stdio = true,
            "--clients" => options.clients = value()?.parse().map_err(|e| format!("{e}"))?,
            "--calls" => options.calls = value()?.parse().map_err(|e| format!("{e}"))?,
            "--warmup" => options.warmup = value()?.parse().map_err(|e| format!("{e}"))?,
            "--tool" => options.tool = value()?,
            "--arguments" => {
                options.arguments = serde_json::from_str(&value()?).map_err(|e| format!("{e}"))?
            }
            "--label" => options.label = value()?,
            "--pid" => options.pid = Some(value()?.parse().map_err(|e| format!("{e}"))?),
            "--" => {
                options.command = arguments.by_ref().collect();
                break;
            }
            _ => return Err(format!("unknown argument {argument}")),
        }
    }
    if options.url.is_some() == stdio || (stdio && options.command.is_empty()) {
        return Err("give --url URL or --stdio -- COMMAND".into());
    }
    if options.label.is_empty() {
        options.label = options.url.clone().unwrap_or_else(|| "direct".into());
    }
    Ok(options)
}

/// One MCP session.
trait Client {
    /// Sends a request and reads its response.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Result<Value, String>;
    /// Sends a notification.
    fn notify(&mut self, method: &str) -> Result<(), String>;
    /// Ends the session.
    fn close(&mut self) {}
    /// When the last response arrived, if that was before `request`
    /// returned (an event stream read to its end after the response).
    fn answered_at(&mut self) -> Option<Instant> {
        None
    }
}

struct Http {
    agent: ureq::Agent,
    url: String,
    session: Option<String>,
    answered_at: Option<Instant>,
}

impl Http {
    fn post(&mut self, message: &Value) -> Result<(u16, String), String> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let response = request
            .send(message.to_string())
            .map_err(|error| error.to_string())?;
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_owned);
        }
        let status = response.status().as_u16();
        let is_stream = response
            .headers()
            .get("content-type")
            .and_then(|kind| kind.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        let mut body = response.into_body();
        if !is_stream {
            return Ok((status, body.read_to_string().map_err(|e| e.to_string())?));
        }
        // The response is the event whose message answers the request: the
        // call's time ends there. The stream is still read to its end (the
        // server ends it after the response), so that the connection is
        // used again, as a real client's would be.
        let mut reader = BufReader::new(body.into_reader());
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the event stream ended without the response".into());
            }
            if let Some(data) = line.trim_end().strip_prefix("data:") {
                let data = data.trim_start();
                if let Ok(answer) = serde_json::from_str::<Value>(data)
                    && answer.get("method").is_none()
                    && answer.get("id") == message.get("id")
                {
                    self.answered_at = Some(Instant::now());
                    let data = data.to_owned();
                    std::io::copy(&mut reader, &mut std::io::sink())
                        .map_err(|error| error.to_string())?;
                    return Ok((status, data));
                }
            }
        }
    }
}

impl Client for Http {
    fn request(&mut self, id: u64, method: &str, params: Value) -> Result<Value, String> {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (status, body) = self.post(&message)?;
        if status != 200 {
            return Err(format!("HTTP {status}: {body}"));
        }
        serde_json::from_str(&body).map_err(|error| format!("{error}: {body}"))
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        let (status, body) = self.post(&json!({"jsonrpc": "2.0", "method": method}))?;
        match status {
            200 | 202 => Ok(()),
            _ => Err(format!("HTTP {status}: {body}")),
        }
    }

    fn answered_at(&mut self) -> Option<Instant> {
        self.answered_at.take()
    }

    fn close(&mut self) {
        if let Some(session) = &self.session {
            let _ = self
                .agent
                .delete(&self.url)
                .header("mcp-session-id", session)
                .call();
        }
    }
}

struct Stdio_ {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Client for Stdio_ {
    fn request(&mut self, id: u64, method: &str, params: Value) -> Result<Value, String> {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{message}").map_err(|error| error.to_string())?;
        self.stdin.flush().map_err(|error| error.to_string())?;
        let mut line = String::new();
        loop {
            line.clear();
            if self
                .stdout
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("the server closed its output".into());
            }
            if let Ok(answer) = serde_json::from_str::<Value>(&line)
                && answer.get("method").is_none()
                && answer.get("id") == Some(&json!(id))
            {
                return Ok(answer);
            }
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .map_err(|error| error.to_string())
    }

    fn close(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(options: &Options) -> Result<Box<dyn Client>, String> {
    match &options.url {
        Some(url) => Ok(Box::new(Http {
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(120)))
                .build()
                .into(),
            url: url.clone(),
            session: None,
            answered_at: None,
        })),
        None => {
            let mut child = Command::new(&options.command[0])
                .args(&options.command[1..])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|error| format!("cannot start {}: {error}", options.command[0]))?;
            let stdin = child.stdin.take().expect("piped");
            let stdout = BufReader::new(child.stdout.take().expect("piped"));
            Ok(Box::new(Stdio_ {
                child,
                stdin,
                stdout,
            }))
        }
    }
}

/// Resident memory in KiB of `pid` alone, and of it with every process
/// under it, and how many processes are under it.
fn memory(pid: u32) -> (u64, u64, usize) {
    fn rss(pid: u32) -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find(|line| line.starts_with("VmRSS:"))?
                    .split_whitespace()
                    .nth(1)?
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    }
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let parent = std::fs::read_to_string(format!("/proc/{child}/stat"))
                .ok()
                .and_then(|stat| {
                    let rest = &stat[stat.rfind(')')? + 2..];
                    rest.split(' ').nth(1)?.parse::<u32>().ok()
                });
            if let Some(parent) = parent {
                parents.push((child, parent));
            }
        }
    }
    let mut tree = vec![pid];
    let mut index = 0;
    while index < tree.len() {
        let parent = tree[index];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        index += 1;
    }
    let total = tree.iter().map(|pid| rss(*pid)).sum();
    (rss(pid), total, tree.len() - 1)
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64) * fraction).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn main() {
    let options = match options() {
        Ok(options) => Arc::new(options),
        Err(error) => {
            eprintln!("gateway_load: {error}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let before = options.pid.map(memory);
    let ready = Arc::new(Barrier::new(options.clients + 1));
    let done = Arc::new(Barrier::new(options.clients + 1));
    let finish = Arc::new(Barrier::new(options.clients + 1));
    let workers: Vec<_> = (0..options.clients)
        .map(|_| {
            let options = Arc::clone(&options);
            let (ready, done, finish) =
                (Arc::clone(&ready), Arc::clone(&done), Arc::clone(&finish));
            std::thread::spawn(move || session(&options, &ready, &done, &finish))
        })
        .collect();
    ready.wait();
    let started = Instant::now();
    done.wait();
    let elapsed = started.elapsed();
    // Every session is open and has made its calls: the memory they hold.
    let during = options.pid.map(memory);
    finish.wait();
    let mut latencies = Vec::new();
    let mut failures = 0usize;
    let mut first_failure = None;
    for worker in workers {
        match worker.join().expect("a worker thread") {
            Ok(times) => latencies.extend(times),
            Err(error) => {
                failures += 1;
                first_failure.get_or_insert(error);
            }
        }
    }
    latencies.sort();
    let micros = |duration: Duration| duration.as_secs_f64() * 1e6;
    let mean = if latencies.is_empty() {
        0.0
    } else {
        latencies.iter().map(|d| micros(*d)).sum::<f64>() / latencies.len() as f64
    };
    let mut summary = json!({
        "label": options.label,
        "clients": options.clients,
        "calls": latencies.len(),
        "failed_clients": failures,
        "p50_us": micros(percentile(&latencies, 0.50)).round(),
        "p99_us": micros(percentile(&latencies, 0.99)).round(),
        "mean_us": mean.round(),
        "calls_per_s": (latencies.len() as f64 / elapsed.as_secs_f64()).round(),
    });
    if let (Some((proxy_before, tree_before, _)), Some((proxy, tree, processes))) = (before, during)
    {
        let sessions = options.clients as f64;
        summary["rss_kib"] = json!({
            "proxy_before": proxy_before, "proxy_during": proxy,
            "tree_before": tree_before, "tree_during": tree,
            "processes_under": processes,
            "proxy_per_session": ((proxy as f64 - proxy_before as f64) / sessions).round(),
            "tree_per_session": ((tree as f64 - tree_before as f64) / sessions).round(),
        });
    }
    println!("{summary}");
    if let Some(error) = first_failure {
        eprintln!("gateway_load: {failures} client(s) failed; the first: {error}");
        std::process::exit(1);
    }
}

/// One client: opens its session, warms up, waits for the others, makes its
/// calls, waits while the memory is read, and closes.
fn session(
    options: &Options,
    ready: &Barrier,
    done: &Barrier,
    finish: &Barrier,
) -> Result<Vec<Duration>, String> {
    let opened = (|| {
        let mut opened = connect(options)?;
        let init = opened.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "gateway_load", "version": "1"}}),
        )?;
        if init.get("result").is_none() {
            return Err(format!("initialize failed: {init}"));
        }
        opened.notify("notifications/initialized")?;
        Ok(opened)
    })();
    let call = |client: &mut Box<dyn Client>, id: u64| -> Result<Duration, String> {
        let params = json!({"name": options.tool, "arguments": options.arguments});
        let started = Instant::now();
        let answer = client.request(id, "tools/call", params)?;
        let took = client
            .answered_at()
            .unwrap_or_else(Instant::now)
            .duration_since(started);
        match answer.get("result") {
            Some(result) if result.get("isError") != Some(&json!(true)) => Ok(took),
            _ => Err(format!("the call was not answered with a result: {answer}")),
        }
    };
    let mut warmed = opened.and_then(|mut opened| {
        for id in 0..options.warmup {
            call(&mut opened, 1 + id as u64)?;
        }
        Ok(opened)
    });
    ready.wait();
    let mut times = Vec::with_capacity(options.calls);
    let outcome = match &mut warmed {
        Ok(opened) => (0..options.calls).try_for_each(|n| {
            times.push(call(opened, 100_000 + n as u64)?);
            Ok(())
        }),
        Err(error) => Err(error.clone()),
    };
    done.wait();
    // The caller reads the memory between `done` and `finish`.
    finish.wait();
    if let Ok(mut opened) = warmed {
        opened.close();
    }
    outcome.map(|()| times)
}
