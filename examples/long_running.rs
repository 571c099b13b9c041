//! An MCP server over stdio whose one tool takes its time: `wait` sleeps for
//! the milliseconds it is asked, in steps, sending progress after each step to
//! a client that asked for it (`_meta.progressToken`) and stopping early when
//! the client cancels the call (`notifications/cancelled`).
//!
//! ```sh
//! cargo run --example long_running
//! cargo run --example long_running -- --max-concurrent-calls 4
//! ```
//!
//! While a `wait` runs, the session goes on: `ping`, `tools/list`,
//! `tools/resolve` and other calls are answered at once, and answers come back
//! in the order calls finish, matched by id. Past `--max-concurrent-calls`
//! (64 by default) a call is refused at once with `-32005`. The serving
//! chapter of the docs measures 100 concurrent waits with it
//! (`examples/measure_concurrency.rs`). Logs go to stderr; stdout carries
//! only protocol messages.

use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use annot::mcp_tool;
use annot::server::{Call, DEFAULT_MAX_CONCURRENT_CALLS, Server, ToolError, ToolOutput};

/// Wait for a while, reporting progress.
#[mcp_tool(read_only, open_world = false)]
struct Wait {
    /// How long to wait, in milliseconds.
    ms: u64,
    /// How many steps to wait in, with progress after each (1 by default).
    steps: Option<u32>,
}

fn wait(arguments: Wait, call: &Call) -> Result<ToolOutput, ToolError> {
    let steps = arguments.steps.unwrap_or(1).max(1);
    let step = Duration::from_millis(arguments.ms) / steps;
    for done in 1..=steps {
        if call.is_cancelled() {
            // Dropped by the server: a cancelled call gets no answer.
            return Err(ToolError::new("cancelled"));
        }
        thread::sleep(step);
        call.progress(
            f64::from(done),
            Some(f64::from(steps)),
            Some(&format!("step {done} of {steps}")),
        );
    }
    Ok(ToolOutput::text(format!("waited {} ms", arguments.ms)))
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let calls = match arguments.as_slice() {
        [] => DEFAULT_MAX_CONCURRENT_CALLS,
        [flag, calls] if flag == "--max-concurrent-calls" => match calls.parse() {
            Ok(calls) => calls,
            Err(error) => {
                eprintln!("long_running: --max-concurrent-calls {calls}: {error}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: long_running [--max-concurrent-calls <n>]");
            return ExitCode::from(2);
        }
    };
    let server = match Server::builder("annot-long-running", env!("CARGO_PKG_VERSION"))
        .title("annot example: long_running")
        .max_concurrent_calls(calls)
        .tool_with_call(wait)
        .build()
    {
        Ok(server) => server,
        Err(error) => {
            eprintln!("long_running: {error}");
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "long_running: serving over stdio, at most {} calls at once",
        server.max_concurrent_calls()
    );
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("long_running: {error}");
            ExitCode::FAILURE
        }
    }
}
