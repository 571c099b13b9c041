//! Measures the built-in stdio server under concurrent calls: spawns the
//! `long_running` example, sends it 100 `tools/call`s of a tool that sleeps
//! 100 ms all at once and a `ping` right behind them, and prints the
//! wall-clock time until every call was answered and how long the ping
//! waited. A measurement to read, not a test: the serving chapter of the docs
//! quotes its figures.
//!
//! ```sh
//! cargo build --release --example long_running --example measure_concurrency
//! target/release/examples/measure_concurrency            # 100 calls of 100 ms
//! target/release/examples/measure_concurrency 200 50     # 200 calls of 50 ms
//! ```
//!
//! The server runs with `--max-concurrent-calls` set to the number of calls,
//! so that none is refused.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn main() -> ExitCode {
    let arguments: Vec<u64> = match std::env::args().skip(1).map(|a| a.parse()).collect() {
        Ok(arguments) => arguments,
        Err(error) => {
            eprintln!("usage: measure_concurrency [calls] [ms]: {error}");
            return ExitCode::from(2);
        }
    };
    let calls = arguments.first().copied().unwrap_or(100);
    let ms = arguments.get(1).copied().unwrap_or(100);
    let server = std::env::current_exe()
        .expect("this binary's path")
        .with_file_name(format!("long_running{}", std::env::consts::EXE_SUFFIX));
    let mut child = match Command::new(&server)
        .args(["--max-concurrent-calls", &calls.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            eprintln!(
                "measure_concurrency: cannot start {} ({error}): build the long_running example first",
                server.display()
            );
            return ExitCode::FAILURE;
        }
    };
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (sender, answers) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            let value: Value = serde_json::from_str(&line).expect("the server sends JSON");
            if sender.send((Instant::now(), value)).is_err() {
                return;
            }
        }
    });
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").expect("write to the server");
        stdin.flush().expect("flush");
    };
    let next = |answers: &mpsc::Receiver<(Instant, Value)>| {
        answers
            .recv_timeout(Duration::from_secs(120))
            .expect("an answer in time")
    };

    send(
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "measure_concurrency", "version": "0"}}}),
    );
    next(&answers);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // Warm up: the first call starts a worker thread, the first ping nothing.
    send(
        json!({"jsonrpc": "2.0", "id": "warm", "method": "tools/call",
        "params": {"name": "wait", "arguments": {"ms": 1}}}),
    );
    next(&answers);
    let idle_ping = Instant::now();
    send(json!({"jsonrpc": "2.0", "id": "idle", "method": "ping"}));
    let (answered, _) = next(&answers);
    let idle_ping = answered - idle_ping;

    let start = Instant::now();
    for id in 0..calls {
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "wait", "arguments": {"ms": ms}}}));
    }
    let ping_sent = Instant::now();
    send(json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"}));
    let mut ping = None;
    let mut last_call = start;
    let mut answered = 0;
    let mut refused = 0;
    while answered + refused < calls || ping.is_none() {
        let (at, answer) = next(&answers);
        if answer["id"] == "ping" {
            ping = Some(at - ping_sent);
        } else if answer.get("error").is_some() {
            refused += 1;
        } else {
            answered += 1;
            last_call = last_call.max(at);
        }
    }
    drop(stdin);
    let _ = child.wait();

    let ping = ping.expect("the ping was answered");
    println!("{calls} concurrent calls of a handler sleeping {ms} ms, then a ping:");
    println!(
        "  all answered after {:.1} ms (one call alone: {ms} ms; one after the other: {} ms)",
        millis(last_call - start),
        calls * ms
    );
    println!("  refused: {refused}");
    println!(
        "  ping behind them answered in {:.3} ms (idle: {:.3} ms)",
        millis(ping),
        millis(idle_ping)
    );
    ExitCode::SUCCESS
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
