//! The stdio transport runs `tools/call` beside the session: a slow call holds
//! up no other request, answers come out of order matched by id, a cancelled
//! call sees its flag and gets no answer, a handler's progress reaches a
//! client that asked for it, and a call past the bound is refused at once.
//!
//! Served in process over pipes (`Server::serve`), with a tool that holds
//! until the test lets it go, so that nothing here depends on timing; and
//! through the `long_running` example binary, as a client spawns it.

use crate::robust_support;
use crate::server_support;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use annot::mcp_tool;
use annot::server::{Call, Server, ToolError, ToolOutput};
use robust_support::manage_files::ManageFiles;
use robust_support::{example_binary, request};
use serde_json::{Value, json};
use server_support::assert_mcp;

/// How long any one line may take (a debug build on a busy machine); a hang
/// fails instead of stalling.
const DEADLINE: Duration = Duration::from_secs(60);

/// Holds until the test lets its gate go, or the call is cancelled.
#[mcp_tool(read_only, open_world = false)]
struct Hold {
    /// The gate to wait for.
    gate: String,
    /// Progress to report before holding, one notification per step.
    steps: Option<u32>,
}

/// What the `hold` handler tells the test.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Started(String),
    SawCancellation(String),
}

/// The gates the test has let go, and what handlers tell it.
#[derive(Clone)]
struct Gates {
    open: Arc<Mutex<HashSet<String>>>,
    events: Sender<Event>,
}

impl Gates {
    fn open(&self, gate: &str) {
        self.open.lock().unwrap().insert(gate.to_owned());
    }

    fn hold(&self, arguments: Hold, call: &Call) -> Result<ToolOutput, ToolError> {
        let steps = arguments.steps.unwrap_or(0);
        for step in 1..=steps {
            call.progress(
                f64::from(step),
                Some(f64::from(steps)),
                Some(&format!("step {step}")),
            );
        }
        self.events
            .send(Event::Started(arguments.gate.clone()))
            .unwrap();
        loop {
            if call.is_cancelled() {
                let _ = self
                    .events
                    .send(Event::SawCancellation(arguments.gate.clone()));
                return Ok(ToolOutput::text("finished after all"));
            }
            if self.open.lock().unwrap().contains(&arguments.gate) {
                return Ok(ToolOutput::text(format!("{} let go", arguments.gate)));
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

/// A server of `hold` and the example `manage_files` (whose calls answer at
/// once), at most `calls` calls at once.
fn server(calls: usize) -> (Server, Gates, Receiver<Event>) {
    let (events, received) = mpsc::channel();
    let gates = Gates {
        open: Arc::default(),
        events,
    };
    let holding = gates.clone();
    let server = Server::builder("concurrency", "0")
        .max_concurrent_calls(calls)
        .tool_with_call(move |arguments: Hold, call: &Call| holding.hold(arguments, call))
        .tool(|_: ManageFiles| Ok(ToolOutput::text("done")))
        .build()
        .unwrap();
    (server, gates, received)
}

/// One session of `Server::serve` over pipes, as a client sees it.
struct Session {
    input: Option<std::io::PipeWriter>,
    lines: Receiver<Value>,
    served: thread::JoinHandle<std::io::Result<()>>,
}

impl Session {
    fn start(server: Server) -> Session {
        let (input, to_server) = std::io::pipe().map(|(r, w)| (w, r)).unwrap();
        let (from_server, output) = std::io::pipe().unwrap();
        let served = thread::spawn(move || server.serve(BufReader::new(to_server), output));
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(from_server).lines() {
                let Ok(line) = line else { return };
                let value: Value = serde_json::from_str(&line).expect("the server sends JSON");
                if sender.send(value).is_err() {
                    return;
                }
            }
        });
        let mut session = Session {
            input: Some(input),
            lines,
            served,
        };
        session.send(&request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "concurrency", "version": "0"}}),
        ));
        assert_eq!(session.next()["id"], 0);
        session
    }

    fn send(&mut self, message: &str) {
        let input = self.input.as_mut().expect("input open");
        writeln!(input, "{message}").expect("write a message");
    }

    fn next(&self) -> Value {
        match self.lines.recv_timeout(DEADLINE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no line within {DEADLINE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the output closed"),
        }
    }

    /// Closes the input: the lines written until the server returned.
    fn finish(mut self) -> Vec<Value> {
        drop(self.input.take());
        self.served
            .join()
            .expect("serve does not panic")
            .expect("serve ends cleanly");
        self.lines.iter().collect()
    }
}

fn hold(id: impl Into<Value>, gate: &str) -> String {
    request(
        id,
        "tools/call",
        json!({"name": "hold", "arguments": {"gate": gate}}),
    )
}

fn started(events: &Receiver<Event>, gate: &str) {
    assert_eq!(
        events.recv_timeout(DEADLINE).unwrap(),
        Event::Started(gate.to_owned())
    );
}

/// Calls sent together start in no promised order: each of `gates`, once.
fn started_all(events: &Receiver<Event>, gates: &[&str]) {
    let mut seen: Vec<Event> = gates
        .iter()
        .map(|_| events.recv_timeout(DEADLINE).unwrap())
        .collect();
    let mut expected: Vec<Event> = gates
        .iter()
        .map(|gate| Event::Started((*gate).to_owned()))
        .collect();
    seen.sort_by_key(|event| format!("{event:?}"));
    expected.sort_by_key(|event| format!("{event:?}"));
    assert_eq!(seen, expected);
}

#[test]
fn a_slow_call_holds_up_nothing_else() {
    let (server, gates, events) = server(8);
    let mut session = Session::start(server);
    session.send(&hold("slow", "a"));
    started(&events, "a");
    // Every kind of request, answered while the call holds, in order.
    session.send(&request(1, "ping", json!({})));
    session.send(&request(2, "tools/list", json!({})));
    session.send(&request(
        3,
        "tools/resolve",
        json!({"name": "manage_files", "arguments": {"action": "delete", "path": "a"}}),
    ));
    session.send(&request(
        4,
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "read", "path": "a"}}),
    ));
    session.send("{broken");
    session.send(&request(5, "no/such/method", json!({})));
    session.send(&request(6, "tools/call", json!({"name": "nope"})));
    let ping = session.next();
    assert_eq!(ping, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let list = session.next();
    assert_eq!(list["result"]["tools"][0]["name"], "hold", "{list}");
    let resolved = session.next();
    assert_eq!(resolved["id"], 3);
    assert_eq!(
        resolved["result"]["tool"]["annotations"]["destructiveHint"],
        true
    );
    // A quick call's answer overtakes the slow one; a bad request gets its
    // clear error meanwhile, and serving goes on. Calls run on workers, so
    // these four come in any order.
    let rest: Vec<Value> = (0..4).map(|_| session.next()).collect();
    let answer = |id: Value| {
        rest.iter()
            .find(|answer| answer.get("id") == Some(&id))
            .unwrap_or_else(|| panic!("no answer {id}: {rest:?}"))
    };
    assert_eq!(answer(json!(4))["result"]["content"][0]["text"], "done");
    assert_eq!(answer(json!(5))["error"]["code"], -32601);
    assert_eq!(answer(json!(6))["error"]["code"], -32602);
    let broken = rest.iter().find(|answer| answer.get("id").is_none());
    assert_eq!(broken.unwrap()["error"]["code"], -32700, "{rest:?}");
    for answer in rest.iter().chain([&ping, &list, &resolved]) {
        assert_mcp("JSONRPCResponse", answer);
    }
    gates.open("a");
    let slow = session.next();
    assert_eq!(slow["id"], "slow");
    assert_eq!(slow["result"]["content"][0]["text"], "a let go");
    assert!(session.finish().is_empty());
}

#[test]
fn answers_come_as_calls_finish_matched_by_id() {
    let (server, gates, events) = server(8);
    let mut session = Session::start(server);
    for gate in ["first", "second", "third"] {
        session.send(&hold(gate, gate));
        started(&events, gate);
    }
    for gate in ["third", "first", "second"] {
        gates.open(gate);
        let answer = session.next();
        assert_eq!(answer["id"], gate, "{answer}");
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("{gate} let go")
        );
    }
    assert!(session.finish().is_empty());
}

#[test]
fn a_cancelled_call_sees_the_flag_and_gets_no_answer() {
    let (server, _gates, events) = server(8);
    let mut session = Session::start(server);
    session.send(&hold(7, "never"));
    started(&events, "never");
    // The id as the client wrote it or as a string: only the call's own id
    // (the number 7) cancels it.
    for other in [json!("7"), json!(8)] {
        session.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": other}})
            .to_string(),
        );
    }
    session.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 7, "reason": "the user pressed stop"}})
        .to_string(),
    );
    assert_eq!(
        events.recv_timeout(DEADLINE).unwrap(),
        Event::SawCancellation("never".into())
    );
    session.send(&request(9, "ping", json!({})));
    assert_eq!(session.next()["id"], 9);
    // The handler returned, but its answer was dropped.
    let rest = session.finish();
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn progress_reaches_a_client_that_asked_with_its_token() {
    let (server, gates, events) = server(8);
    let mut session = Session::start(server);
    gates.open("go");
    for token in [json!("token-1"), json!(42)] {
        session.send(&request(
            1,
            "tools/call",
            json!({"name": "hold", "arguments": {"gate": "go", "steps": 3},
                   "_meta": {"progressToken": token}}),
        ));
        for step in 1..=3 {
            let progress = session.next();
            assert_mcp("JSONRPCNotification", &progress);
            assert_mcp("ProgressNotification", &progress);
            assert_eq!(
                progress,
                json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                    "progressToken": token, "progress": step, "total": 3,
                    "message": format!("step {step}")}})
            );
        }
        started(&events, "go");
        // The answer comes after every notification.
        assert_eq!(session.next()["id"], 1);
    }
    // Without a token, no progress.
    session.send(&request(
        2,
        "tools/call",
        json!({"name": "hold", "arguments": {"gate": "go", "steps": 3}}),
    ));
    assert_eq!(session.next()["id"], 2);
    started(&events, "go");
    assert!(session.finish().is_empty());
}

#[test]
fn past_the_bound_a_call_is_refused_at_once_and_serving_goes_on() {
    let (server, gates, events) = server(2);
    assert_eq!(server.max_concurrent_calls(), 2);
    let mut session = Session::start(server);
    session.send(&hold(1, "a"));
    session.send(&hold(2, "b"));
    started_all(&events, &["a", "b"]);
    session.send(&hold(3, "c"));
    let busy = session.next();
    assert_mcp("JSONRPCResponse", &busy);
    assert_eq!(busy["id"], 3);
    assert_eq!(busy["error"]["code"], -32005, "{busy}");
    assert_eq!(busy["error"]["data"], json!({"maxConcurrentCalls": 2}));
    session.send(&request(4, "ping", json!({})));
    assert_eq!(session.next()["id"], 4);
    // A running call's id is taken until it is answered.
    gates.open("a");
    assert_eq!(session.next()["id"], 1);
    session.send(&hold(2, "c"));
    let repeated = session.next();
    assert_eq!(repeated["id"], 2);
    assert_eq!(repeated["error"]["code"], -32600, "{repeated}");
    // Room again: the refused call, sent again, runs.
    session.send(&hold(3, "c"));
    started(&events, "c");
    gates.open("b");
    gates.open("c");
    let mut ids: Vec<i64> = (0..2)
        .map(|_| session.next()["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [2, 3]);
    assert!(session.finish().is_empty());
    assert!(matches!(
        Server::builder("zero", "0").max_concurrent_calls(0).build(),
        Err(annot::server::BuildError::ZeroConcurrentCalls)
    ));
}

#[test]
fn the_end_of_input_waits_for_calls_in_flight() {
    let (server, gates, events) = server(8);
    let mut session = Session::start(server);
    session.send(&hold(1, "late"));
    started(&events, "late");
    let opener = thread::spawn(move || {
        thread::sleep(Duration::from_millis(50));
        gates.open("late");
    });
    let rest = session.finish();
    opener.join().unwrap();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["result"]["content"][0]["text"], "late let go");
}

#[test]
fn a_call_repeating_a_member_runs_as_serde_json_reads_it() {
    let (server, gates, events) = server(8);
    gates.open("b");
    let mut session = Session::start(server);
    session.send(
        r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"hold","arguments":{"gate":"a","gate":"b"}},"id":"y"}"#,
    );
    started(&events, "b");
    let answer = session.next();
    assert_eq!(answer["id"], "y", "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "b let go");
    assert!(session.finish().is_empty());
}

#[test]
fn a_closed_output_cancels_the_calls_in_flight() {
    let (server, _gates, events) = server(8);
    let (to_server, mut input) = std::io::pipe().unwrap();
    let (from_server, output) = std::io::pipe().unwrap();
    let served = thread::spawn(move || server.serve(BufReader::new(to_server), output));
    writeln!(input, "{}", hold(1, "forever")).unwrap();
    started(&events, "forever");
    // The client stops reading: the next answer finds the output closed.
    drop(from_server);
    writeln!(input, "{}", request(2, "ping", json!({}))).unwrap();
    assert_eq!(
        events.recv_timeout(DEADLINE).unwrap(),
        Event::SawCancellation("forever".into())
    );
    // A closed output is the end of the session, not a failure.
    served.join().unwrap().unwrap();
}

#[test]
fn a_2026_request_runs_beside_the_session_too() {
    let (server, gates, events) = server(8);
    let mut session = Session::start(server);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p"
    });
    session.send(&request(
        1,
        "tools/call",
        json!({"name": "hold", "arguments": {"gate": "m", "steps": 1}, "_meta": meta}),
    ));
    assert_eq!(session.next()["params"]["progressToken"], "p");
    started(&events, "m");
    session.send(&request(2, "server/discover", json!({"_meta": meta})));
    assert_eq!(session.next()["id"], 2);
    gates.open("m");
    let answer = session.next();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert!(session.finish().is_empty());
}

/// The `long_running` example as a client spawns it: its output lines as they
/// come.
struct Binary {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Binary {
    fn start() -> Binary {
        let mut child = Command::new(example_binary("long_running"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the long_running example");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let value: Value = serde_json::from_str(&line).expect("the server sends JSON");
                if sender.send(value).is_err() {
                    return;
                }
            }
        });
        Binary {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, message: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write a message");
        stdin.flush().expect("flush");
    }

    fn next(&self) -> Value {
        self.lines
            .recv_timeout(DEADLINE)
            .expect("a line within the deadline")
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_example_binary_answers_a_ping_behind_a_slow_call_and_honours_cancellation() {
    let mut binary = Binary::start();
    binary.send(&request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "concurrency", "version": "0"}}),
    ));
    assert_eq!(binary.next()["id"], 0);
    // Ten minutes, in steps of 10 ms: only a cancellation ends it.
    binary.send(&request(
        1,
        "tools/call",
        json!({"name": "wait", "arguments": {"ms": 600_000, "steps": 60_000},
               "_meta": {"progressToken": "w"}}),
    ));
    let progress = binary.next();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "w");
    assert_eq!(progress["params"]["total"], 60_000);
    binary.send(&request(2, "ping", json!({})));
    // Progress may come in between; the ping's answer comes long before
    // the call's could.
    let answered = loop {
        let line = binary.next();
        if line.get("id").is_some() {
            break line;
        }
    };
    assert_eq!(answered, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    binary.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 1}})
        .to_string(),
    );
    binary.send(&request(3, "ping", json!({})));
    // No answer to the cancelled call, ever: the next answer is the ping's,
    // and the session ends without another.
    let after = loop {
        let line = binary.next();
        if line.get("id").is_some() {
            break line;
        }
    };
    assert_eq!(after["id"], 3);
    drop(binary.stdin.take());
    let status = binary.child.wait().expect("the example exits");
    assert!(status.success(), "{status}");
    let rest: Vec<Value> = binary.lines.iter().collect();
    assert!(rest.iter().all(|line| line.get("id").is_none()), "{rest:?}");
}
