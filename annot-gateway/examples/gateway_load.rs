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
//! For several gateway processes behind a load balancer
//! (`annot-gateway/tests/scaleout.sh`):
//!
//! - `--era modern`: 2026-07-28 requests without a session (no `initialize`);
//!   `--bearer TOKEN` sends a token with every request;
//! - `--retry`: a request that got no answer (the connection refused or cut,
//!   or the balancer's 502, 503 or 504) is sent again, up to four times in
//!   all, and a legacy session the server no longer knows (404) is opened
//!   again, as the specification tells a client; a call that never got an
//!   answer counts as lost and the client goes on;
//! - `--kill PID --kill-after N`: SIGKILL to PID once N calls are answered;
//! - `--stamp KEY --answered FILE`: each call carries a unique value under
//!   `arguments.KEY` (`LABEL/CLIENT/N`), and FILE gets one line per answered
//!   call, `STAMP ATTEMPTS`, to hold against the gateway's log (every
//!   answered call logged, none logged more often than it was sent).
//!
//! Prints one JSON line: the label, clients, calls, p50, p99 and mean
//! latency in microseconds, calls per second, what was lost, wrong or
//! retried, the sessions opened by tag (the part of the id before its
//! first `.`), and memory. Exits non-zero when a call was not answered with
//! a result.

#[path = "gateway_load/clients.rs"]
mod clients;
#[path = "gateway_load/memory.rs"]
mod memory;

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use clients::{Client, Failure, Http, HttpTarget, StdioServer};
use memory::memory;

const USAGE: &str = "usage: gateway_load (--url URL | --stdio -- COMMAND ARGS...) \
[--clients N] [--calls N] [--warmup N] [--tool NAME] [--arguments JSON] [--label TEXT] [--pid PID] \
[--era legacy|modern] [--bearer TOKEN] [--retry] [--kill PID --kill-after N] \
[--stamp KEY --answered FILE]";

/// Attempts of one request with `--retry`.
const ATTEMPTS: usize = 4;

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
    modern: bool,
    bearer: Option<String>,
    retry: bool,
    kill: Option<(u32, usize)>,
    stamp: Option<String>,
    answered: Option<std::path::PathBuf>,
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
        modern: false,
        bearer: None,
        retry: false,
        kill: None,
        stamp: None,
        answered: None,
    };
    let mut stdio = false;
    let (mut kill_pid, mut kill_after) = (None, None);
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        let mut value = || {
            arguments
                .next()
                .ok_or_else(|| format!("{argument} needs a value"))
        };
        let number = |text: String| {
            text.parse::<usize>()
                .map_err(|error| format!("{argument} {text}: {error}"))
        };
        match argument.as_str() {
            "--url" => options.url = Some(value()?),
            "--stdio" => stdio = true,
            "--clients" => options.clients = number(value()?)?,
            "--calls" => options.calls = number(value()?)?,
            "--warmup" => options.warmup = number(value()?)?,
            "--tool" => options.tool = value()?,
            "--arguments" => {
                options.arguments = serde_json::from_str(&value()?).map_err(|e| format!("{e}"))?
            }
            "--label" => options.label = value()?,
            "--pid" => options.pid = Some(number(value()?)? as u32),
            "--era" => {
                options.modern = match value()?.as_str() {
                    "modern" => true,
                    "legacy" => false,
                    other => return Err(format!("--era {other}: legacy or modern")),
                }
            }
            "--bearer" => options.bearer = Some(value()?),
            "--retry" => options.retry = true,
            "--kill" => kill_pid = Some(number(value()?)? as u32),
            "--kill-after" => kill_after = Some(number(value()?)?),
            "--stamp" => options.stamp = Some(value()?),
            "--answered" => options.answered = Some(value()?.into()),
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
    if stdio && (options.modern || options.bearer.is_some()) {
        return Err("--era modern and --bearer are for --url".into());
    }
    if !options.arguments.is_object() {
        return Err("--arguments must be a JSON object".into());
    }
    options.kill = match (kill_pid, kill_after) {
        (Some(pid), Some(after)) => Some((pid, after)),
        (None, None) => None,
        _ => return Err("--kill and --kill-after go together".into()),
    };
    if options.answered.is_some() && options.stamp.is_none() {
        return Err("--answered needs --stamp".into());
    }
    if options.label.is_empty() {
        options.label = options.url.clone().unwrap_or_else(|| "direct".into());
    }
    Ok(options)
}

fn connect(options: &Options) -> Result<Box<dyn Client>, String> {
    match &options.url {
        Some(url) => Ok(Box::new(Http::new(HttpTarget {
            url: url.clone(),
            modern: options.modern,
            bearer: options.bearer.clone(),
        }))),
        None => Ok(Box::new(StdioServer::start(&options.command)?)),
    }
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64) * fraction).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// What all clients share.
struct Run {
    options: Options,
    /// Measured calls answered so far, for `--kill-after`.
    answered: AtomicUsize,
    killed: AtomicBool,
}

/// What one client came to.
#[derive(Default)]
struct Outcome {
    times: Vec<Duration>,
    /// Calls that never got an answer (`--retry`).
    lost: usize,
    /// Calls answered with something else than a result (`--retry`).
    wrong: usize,
    /// Attempts sent again.
    retries: usize,
    /// Sessions the server no longer knew (404).
    sessions_lost: usize,
    /// The tag of each session opened.
    tags: Vec<String>,
    /// Each answered call's stamp and how many attempts were sent.
    stamps: Vec<(String, usize)>,
    /// Why the client stopped, when it did.
    error: Option<String>,
}

fn main() {
    let options = match options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("gateway_load: {error}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let run = Arc::new(Run {
        options,
        answered: AtomicUsize::new(0),
        killed: AtomicBool::new(false),
    });
    let options = &run.options;
    let before = options.pid.map(memory);
    let ready = Arc::new(Barrier::new(options.clients + 1));
    let done = Arc::new(Barrier::new(options.clients + 1));
    let finish = Arc::new(Barrier::new(options.clients + 1));
    let workers: Vec<_> = (0..options.clients)
        .map(|index| {
            let run = Arc::clone(&run);
            let (ready, done, finish) =
                (Arc::clone(&ready), Arc::clone(&done), Arc::clone(&finish));
            std::thread::spawn(move || session(&run, index, &ready, &done, &finish))
        })
        .collect();
    ready.wait();
    let started = Instant::now();
    done.wait();
    let elapsed = started.elapsed();
    // Every session is open and has made its calls: the memory they hold.
    let during = options.pid.map(memory);
    finish.wait();
    let mut total = Outcome::default();
    let mut failures = 0usize;
    for worker in workers {
        let outcome = worker.join().expect("a worker thread");
        total.times.extend(outcome.times);
        total.lost += outcome.lost;
        total.wrong += outcome.wrong;
        total.retries += outcome.retries;
        total.sessions_lost += outcome.sessions_lost;
        total.tags.extend(outcome.tags);
        total.stamps.extend(outcome.stamps);
        if let Some(error) = outcome.error {
            failures += 1;
            total.error.get_or_insert(error);
        }
    }
    if let Some(path) = &options.answered {
        let written = std::fs::File::create(path).and_then(|mut file| {
            for (stamp, attempts) in &total.stamps {
                writeln!(file, "{stamp} {attempts}")?;
            }
            Ok(())
        });
        if let Err(error) = written {
            eprintln!("gateway_load: cannot write {}: {error}", path.display());
            std::process::exit(2);
        }
    }
    let mut latencies = total.times;
    latencies.sort();
    let micros = |duration: Duration| duration.as_secs_f64() * 1e6;
    let mean = if latencies.is_empty() {
        0.0
    } else {
        latencies.iter().map(|d| micros(*d)).sum::<f64>() / latencies.len() as f64
    };
    let mut sessions = serde_json::Map::new();
    for tag in &total.tags {
        let count = sessions.entry(tag.clone()).or_insert(json!(0));
        *count = json!(count.as_u64().unwrap_or(0) + 1);
    }
    let mut summary = json!({
        "label": options.label,
        "clients": options.clients,
        "calls": latencies.len(),
        "failed_clients": failures,
        "lost": total.lost,
        "wrong": total.wrong,
        "retries": total.retries,
        "sessions_lost": total.sessions_lost,
        "sessions": sessions,
        "seconds": (elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
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
    if let Some(error) = total.error {
        eprintln!("gateway_load: {failures} client(s) failed; the first: {error}");
        std::process::exit(1);
    }
    if total.lost > 0 || total.wrong > 0 {
        eprintln!("gateway_load: {} lost, {} wrong", total.lost, total.wrong);
        std::process::exit(1);
    }
}

/// One client: opens its session, warms up, waits for the others, makes its
/// calls, waits while the memory is read, and closes.
fn session(run: &Run, index: usize, ready: &Barrier, done: &Barrier, finish: &Barrier) -> Outcome {
    let mut outcome = Outcome::default();
    let mut client = connect(&run.options).and_then(|mut client| {
        open(run, client.as_mut(), &mut outcome).map_err(|error| error.to_string())?;
        Ok(client)
    });
    if let Ok(client) = &mut client {
        for n in 0..run.options.warmup {
            if let Err(error) = call(run, client.as_mut(), &mut outcome, index, n, false) {
                outcome.error = Some(error.to_string());
                break;
            }
        }
    }
    ready.wait();
    match &mut client {
        Ok(client) if outcome.error.is_none() => {
            for n in 0..run.options.calls {
                let number = run.options.warmup + n;
                if let Err(error) = call(run, client.as_mut(), &mut outcome, index, number, true) {
                    outcome.error = Some(error.to_string());
                    break;
                }
            }
        }
        Ok(_) => {}
        Err(error) => outcome.error = Some(error.clone()),
    }
    done.wait();
    // The caller reads the memory between `done` and `finish`.
    finish.wait();
    if let Ok(mut client) = client {
        client.close();
    }
    outcome
}

/// Opens a legacy session (`initialize`, then `notifications/initialized`),
/// again and again with `--retry`; nothing for 2026-07-28.
fn open(run: &Run, client: &mut dyn Client, outcome: &mut Outcome) -> Result<(), Failure> {
    if run.options.modern {
        return Ok(());
    }
    let attempts = if run.options.retry { ATTEMPTS } else { 1 };
    let mut last = None;
    for attempt in 0..attempts {
        if attempt > 0 {
            outcome.retries += 1;
            std::thread::sleep(Duration::from_millis(50 * attempt as u64));
        }
        client.forget_session();
        let opened = client
            .request(
                0,
                "initialize",
                json!({"protocolVersion": clients::LEGACY, "capabilities": {},
                       "clientInfo": {"name": "gateway_load", "version": "1"}}),
            )
            .and_then(|init| match init.get("result") {
                Some(_) => Ok(()),
                None => Err(Failure::Other(format!("initialize failed: {init}"))),
            })
            .and_then(|()| client.notify("notifications/initialized"));
        match opened {
            Ok(()) => {
                let tag = client
                    .session()
                    .and_then(|id| id.split_once('.'))
                    .map_or("-", |(tag, _)| tag);
                outcome.tags.push(tag.to_owned());
                return Ok(());
            }
            Err(error @ (Failure::Retry(_) | Failure::SessionLost)) => last = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last.expect("at least one attempt"))
}

/// One call, sent again (and its session opened again) as `--retry` says;
/// its time counted when `measured`. `Err` stops the client.
fn call(
    run: &Run,
    client: &mut dyn Client,
    outcome: &mut Outcome,
    index: usize,
    number: usize,
    measured: bool,
) -> Result<(), Failure> {
    let options = &run.options;
    let mut arguments = options.arguments.clone();
    let stamp = options.stamp.as_ref().map(|key| {
        let stamp = format!("{}/{index}/{number}", options.label);
        arguments[key] = json!(stamp);
        stamp
    });
    let params = json!({"name": options.tool, "arguments": arguments});
    let id = 1 + number as u64;
    let attempts = if options.retry { ATTEMPTS } else { 1 };
    let started = Instant::now();
    let mut sent = 0;
    let mut answer = None;
    for attempt in 0..attempts {
        if attempt > 0 {
            outcome.retries += 1;
            std::thread::sleep(Duration::from_millis(50 * attempt as u64));
        }
        match client.request(id, "tools/call", params.clone()) {
            Ok(response) => {
                sent += 1;
                answer = Some(response);
                break;
            }
            Err(Failure::Retry(_)) if options.retry => sent += 1,
            Err(Failure::SessionLost) if options.retry => {
                // The 404 came before the call reached a gateway session.
                outcome.sessions_lost += 1;
                open(run, client, outcome)?;
            }
            Err(error) => return Err(error),
        }
    }
    let Some(answer) = answer else {
        outcome.lost += 1;
        return Ok(());
    };
    let took = client
        .answered_at()
        .unwrap_or_else(Instant::now)
        .duration_since(started);
    match answer.get("result") {
        Some(result) if result.get("isError") != Some(&json!(true)) => {}
        _ if options.retry => outcome.wrong += 1,
        _ => {
            return Err(Failure::Other(format!(
                "the call was not answered with a result: {answer}"
            )));
        }
    }
    if let Some(stamp) = stamp {
        outcome.stamps.push((stamp, sent));
    }
    if measured {
        outcome.times.push(took);
        let answered = run.answered.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some((pid, after)) = options.kill
            && answered >= after
            && !run.killed.swap(true, Ordering::Relaxed)
        {
            let status = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            eprintln!("gateway_load: killed process {pid} after {answered} answers ({status:?})");
        }
    }
    Ok(())
}
