//! A bounded load generator for `examples/rmcp_server` over Streamable HTTP,
//! alone or behind a load balancer (docs/scaling.md, tests/scaleout/run.sh).
//!
//! It sends a fixed number of `tools/list`, `tools/resolve` and `tools/call`
//! requests from a few concurrent workers and checks every answer against a
//! hand-written table of what `manage_files` must say. It stops by itself: when
//! every request is answered, or at the time limit, whichever comes first.
//!
//! ```sh
//! cargo run --example loadgen -- --url http://127.0.0.1:8080/mcp --requests 2000
//! cargo run --example loadgen -- --url URL --era legacy --tags b1,b2
//! ```
//!
//! - `--era modern` (the default): MCP 2026-07-28, every request stateless and
//!   carrying the per-request `_meta` built by annot's client
//!   ([`ClientInfo::request_meta`]).
//! - `--era legacy`: one session per worker, opened with `initialize`. With
//!   `--tags`, every session id must start with one of them, and the run
//!   reports how many sessions each tag held.
//!
//! Retries: the mix holds only requests that are safe to repeat (listing,
//! resolution, reading, and replacing a file with the same content), so a
//! request that got no answer (connection refused or reset, or a gateway's
//! 502/503/504) is sent again, up to three times. A legacy request answered 404
//! has lost its session: the worker opens a new one, as the specification
//! tells a client, and sends the request again. `--kill PID --kill-after N`
//! kills a process with SIGKILL once N requests are answered, to test exactly
//! that.
//!
//! The last line is a summary, `loadgen: key=value ...`; the exit status is
//! non-zero when a request was lost or answered wrongly.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use annot::client::ClientInfo;
use serde_json::{Map, Value, json};

#[path = "loadgen/expected.rs"]
mod expected;

use expected::{Kind, check_answer};

const USAGE: &str = "usage: loadgen --url URL [--era modern|legacy] [--requests N] \
[--concurrency N] [--time-limit SECS] [--tags T1,T2] [--kill PID --kill-after N] [--label NAME]";

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const ATTEMPTS: usize = 4;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Era {
    Modern,
    Legacy,
}

#[derive(Clone, Debug)]
struct Options {
    url: String,
    era: Era,
    requests: usize,
    concurrency: usize,
    time_limit: Duration,
    tags: Vec<String>,
    kill: Option<(u32, usize)>,
    label: String,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        url: String::new(),
        era: Era::Modern,
        requests: 1000,
        concurrency: 8,
        time_limit: Duration::from_secs(120),
        tags: Vec::new(),
        kill: None,
        label: "run".into(),
    };
    let mut kill_pid = None;
    let mut kill_after = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| {
            text.parse::<usize>()
                .map_err(|e| format!("{flag} {text}: {e}"))
        };
        match flag.as_str() {
            "--url" => options.url = value()?,
            "--era" => {
                options.era = match value()?.as_str() {
                    "modern" => Era::Modern,
                    "legacy" => Era::Legacy,
                    other => return Err(format!("--era {other}: modern or legacy")),
                }
            }
            "--requests" => options.requests = number(value()?)?,
            "--concurrency" => options.concurrency = number(value()?)?.max(1),
            "--time-limit" => options.time_limit = Duration::from_secs(number(value()?)? as u64),
            "--tags" => options.tags = value()?.split(',').map(str::to_owned).collect(),
            "--kill" => kill_pid = Some(number(value()?)? as u32),
            "--kill-after" => kill_after = Some(number(value()?)?),
            "--label" => options.label = value()?,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if options.url.is_empty() {
        return Err("--url is required".into());
    }
    options.kill = match (kill_pid, kill_after) {
        (Some(pid), Some(after)) => Some((pid, after)),
        (None, None) => None,
        _ => return Err("--kill and --kill-after go together".into()),
    };
    Ok(options)
}

/// What the workers share.
struct Run {
    options: Options,
    http: reqwest::Client,
    meta: Map<String, Value>,
    deadline: Instant,
    next: AtomicUsize,
    answered: AtomicUsize,
    killed: AtomicBool,
    tally: Mutex<Tally>,
}

/// What the run counts.
#[derive(Default)]
struct Tally {
    right: usize,
    wrong: usize,
    retries: usize,
    lost_sessions: usize,
    sessions_by_tag: std::collections::BTreeMap<String, usize>,
    latencies: Vec<Duration>,
    first_wrong: Vec<String>,
}

/// Why an attempt got no answer to check.
enum Failure {
    /// Nothing usable came back: worth sending again.
    Retry(String),
    /// The legacy session is gone (HTTP 404): open a new one, then send again.
    SessionLost,
}

#[tokio::main]
async fn main() {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let client =
        ClientInfo::new("annot-loadgen", env!("CARGO_PKG_VERSION")).with_capabilities(json!({}));
    let run = Arc::new(Run {
        meta: client.request_meta(MODERN, true),
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("an HTTP client"),
        deadline: Instant::now() + options.time_limit,
        next: AtomicUsize::new(0),
        answered: AtomicUsize::new(0),
        killed: AtomicBool::new(false),
        tally: Mutex::new(Tally::default()),
        options,
    });
    let started = Instant::now();
    let workers: Vec<_> = (0..run.options.concurrency)
        .map(|worker| tokio::spawn(work(Arc::clone(&run), worker)))
        .collect();
    for worker in workers {
        if let Err(error) = worker.await {
            eprintln!("loadgen: a worker failed: {error}");
        }
    }
    let elapsed = started.elapsed();
    std::process::exit(report(&run, elapsed));
}

/// One worker: takes request numbers until all are taken or time is up.
async fn work(run: Arc<Run>, worker: usize) {
    let mut session = None;
    loop {
        let index = run.next.fetch_add(1, Ordering::Relaxed);
        if index >= run.options.requests || Instant::now() >= run.deadline {
            return;
        }
        if run.options.era == Era::Legacy && session.is_none() {
            session = open_session(&run).await;
            if session.is_none() {
                // No session, so nothing of this request can be sent.
                continue;
            }
        }
        let kind = Kind::of(index);
        let started = Instant::now();
        let mut outcome = None;
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                run.tally.lock().unwrap().retries += 1;
                tokio::time::sleep(Duration::from_millis(50 * attempt as u64)).await;
            }
            match send(&run, &session, index, worker, kind).await {
                Ok(answer) => {
                    outcome = Some(answer);
                    break;
                }
                Err(Failure::Retry(why)) => outcome_note(&run, index, &why),
                Err(Failure::SessionLost) => {
                    run.tally.lock().unwrap().lost_sessions += 1;
                    session = open_session(&run).await;
                }
            }
        }
        let Some(answer) = outcome else { continue };
        let verdict = check_answer(kind, worker, &answer);
        let answered = run.answered.fetch_add(1, Ordering::Relaxed) + 1;
        {
            let mut tally = run.tally.lock().unwrap();
            tally.latencies.push(started.elapsed());
            match verdict {
                Ok(()) => tally.right += 1,
                Err(why) => {
                    tally.wrong += 1;
                    if tally.first_wrong.len() < 5 {
                        tally.first_wrong.push(format!("#{index} {kind:?}: {why}"));
                    }
                }
            }
        }
        if let Some((pid, after)) = run.options.kill
            && answered >= after
            && !run.killed.swap(true, Ordering::Relaxed)
        {
            let status = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            eprintln!("loadgen: killed process {pid} after {answered} answers ({status:?})");
        }
    }
}

fn outcome_note(run: &Run, index: usize, why: &str) {
    if run.options.kill.is_none() {
        eprintln!("loadgen: request #{index} got no answer: {why}");
    }
}

/// Opens a legacy session: `initialize`, then `notifications/initialized`.
async fn open_session(run: &Run) -> Option<String> {
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(50 * attempt as u64)).await;
        }
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY,
            "capabilities": {"extensions": {"io.modelcontextprotocol/tool-resolution": {}}},
            "clientInfo": {"name": "annot-loadgen", "version": env!("CARGO_PKG_VERSION")}
        }});
        let Ok(response) = post(run, None, None, &initialize).await else {
            continue;
        };
        let Some(id) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
        else {
            continue;
        };
        if answer_of(response, 0).await.is_err() {
            continue;
        }
        let tag = id.split_once('.').map_or("", |(tag, _)| tag).to_owned();
        if !run.options.tags.is_empty() && !run.options.tags.contains(&tag) {
            let mut tally = run.tally.lock().unwrap();
            tally.wrong += 1;
            tally
                .first_wrong
                .push(format!("session id `{id}` carries none of the tags"));
        }
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        match post(run, Some(&id), None, &initialized).await {
            Ok(response) if response.status() == reqwest::StatusCode::ACCEPTED => {}
            _ => continue,
        }
        *run.tally
            .lock()
            .unwrap()
            .sessions_by_tag
            .entry(tag)
            .or_default() += 1;
        return Some(id);
    }
    None
}

/// One attempt of one request.
async fn send(
    run: &Run,
    session: &Option<String>,
    index: usize,
    worker: usize,
    kind: Kind,
) -> Result<Value, Failure> {
    let id = index as u64 + 1;
    let (method, mut params) = kind.request(worker);
    if run.options.era == Era::Modern {
        params["_meta"] = Value::Object(run.meta.clone());
    }
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let name = params["name"].as_str().map(str::to_owned);
    let headers = (method, name.as_deref());
    let response = post(run, session.as_deref(), Some(headers), &message)
        .await
        .map_err(|error| Failure::Retry(error.to_string()))?;
    match response.status().as_u16() {
        404 if session.is_some() => return Err(Failure::SessionLost),
        502..=504 => return Err(Failure::Retry(format!("HTTP {}", response.status()))),
        _ => {}
    }
    answer_of(response, id).await.map_err(Failure::Retry)
}

/// POSTs one JSON-RPC message with the headers its era wants.
async fn post(
    run: &Run,
    session: Option<&str>,
    method: Option<(&str, Option<&str>)>,
    message: &Value,
) -> reqwest::Result<reqwest::Response> {
    let mut request = run
        .http
        .post(&run.options.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", LEGACY);
    }
    if run.options.era == Era::Modern {
        request = request.header("mcp-protocol-version", MODERN);
        // SEP-2243: the method and the tool's name in headers, for routers.
        if let Some((method, name)) = method {
            request = request.header("mcp-method", method);
            if let Some(name) = name {
                request = request.header("mcp-name", name);
            }
        }
    }
    request.send().await
}

/// The JSON-RPC answer with `id` in a JSON or server-sent-events body.
async fn answer_of(response: reqwest::Response, id: u64) -> Result<Value, String> {
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|error| format!("HTTP {status}, body cut: {error}"))?;
    let messages = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .chain(std::iter::once(body.trim()))
        .filter_map(|text| serde_json::from_str::<Value>(text).ok());
    for message in messages {
        if message["id"] == json!(id) {
            return Ok(message);
        }
    }
    Err(format!(
        "HTTP {status} without an answer to id {id}: {body:.200}"
    ))
}

/// Prints the summary; the exit status.
fn report(run: &Run, elapsed: Duration) -> i32 {
    let tally = run.tally.lock().unwrap();
    let mut latencies = tally.latencies.clone();
    latencies.sort();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * p).round() as usize)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let answered = tally.right + tally.wrong;
    let lost = run.options.requests.saturating_sub(answered);
    for wrong in &tally.first_wrong {
        eprintln!("loadgen: wrong answer {wrong}");
    }
    let sessions: Vec<String> = tally
        .sessions_by_tag
        .iter()
        .map(|(tag, count)| format!("{}:{count}", if tag.is_empty() { "-" } else { tag }))
        .collect();
    println!(
        "loadgen: label={} era={} requests={} answered={answered} right={} wrong={} lost={lost} \
         retries={} sessions_lost={} sessions={} seconds={:.2} throughput={:.0}/s \
         p50_ms={:.2} p99_ms={:.2}",
        run.options.label,
        match run.options.era {
            Era::Modern => MODERN,
            Era::Legacy => LEGACY,
        },
        run.options.requests,
        tally.right,
        tally.wrong,
        tally.retries,
        tally.lost_sessions,
        if sessions.is_empty() {
            "-".to_owned()
        } else {
            sessions.join(",")
        },
        elapsed.as_secs_f64(),
        answered as f64 / elapsed.as_secs_f64(),
        percentile(0.50),
        percentile(0.99),
    );
    i32::from(lost > 0 || tally.wrong > 0)
}
