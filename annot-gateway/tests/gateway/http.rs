//! `--http`: the same gateway over Streamable HTTP, through a real HTTP
//! client, in front of `plain_server`: sessions, answers as JSON or as event
//! streams, confirmations on the call's own stream, and every bad request
//! refused without harm.

use serde_json::{Value, json};

use crate::rules::{SPLIT_NOTES, Setup};
use crate::support::{HttpGateway, snapshot, text};

fn started(setup: &Setup, options: &[&str]) -> HttpGateway {
    let args = setup.args(options, &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    HttpGateway::start(&args)
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"name": tool, "arguments": arguments})
}

#[test]
fn a_session_lists_and_reads_over_http() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(&setup, &["--exposure", "per-action"]);
    let session = gateway.initialize(json!({}));
    assert_eq!(session.len(), 32, "128 random bits in hex: {session}");
    gateway.wait_for_upstreams(1);

    let listed = gateway.request(&session, 1, "tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["notes_append", "notes_delete", "notes_read"]);

    let read = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": "r", "method": "tools/call",
                "params": call("notes_read", json!({"name": "todo"}))}),
    );
    assert_eq!(read.status, 200);
    assert_eq!(
        read.content_type, "application/json",
        "nothing came before the answer: plain JSON"
    );
    assert_eq!(text(&read.messages[0]["result"]), "buy milk\n", "{read:?}");
    assert_eq!(
        gateway.request(&session, 2, "ping", json!({}))["result"],
        json!({})
    );

    // A second session is a second upstream, and knows nothing of the first.
    let other = gateway.initialize(json!({}));
    assert_ne!(other, session);
    gateway.wait_for_upstreams(2);
}

#[test]
fn a_read_only_profile_refuses_a_write_over_http() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(
        &setup,
        &["--exposure", "resolvable", "--profile", "read-only"],
    );
    let session = gateway.initialize(json!({}));
    let before = snapshot(&setup.notes());
    let append = gateway.request(
        &session,
        1,
        "tools/call",
        call(
            "notes",
            json!({"action": "append", "name": "todo", "text": "x"}),
        ),
    );
    assert_eq!(append["result"]["isError"], json!(true), "{append}");
    assert_eq!(snapshot(&setup.notes()), before);
    let read = gateway.request(
        &session,
        2,
        "tools/call",
        call("notes", json!({"action": "read", "name": "todo"})),
    );
    assert_eq!(text(&read["result"]), "buy milk\n", "{read}");
}

#[test]
fn a_confirmation_arrives_on_the_calls_event_stream() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(&setup, &["--exposure", "resolvable"]);
    let session = gateway.initialize(json!({"elicitation": {}}));
    let (status, content_type, mut events) = gateway.post_streaming(
        &session,
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": call("notes", json!({"action": "append", "name": "todo", "text": "eggs\n"}))}),
    );
    assert_eq!(status, 200);
    assert_eq!(content_type, "text/event-stream");
    let question = events.next().expect("the question");
    assert_eq!(
        question["method"],
        json!("elicitation/create"),
        "{question}"
    );
    assert!(
        question["params"]["message"]
            .as_str()
            .unwrap()
            .contains("eggs")
    );
    // The person's answer goes back as a POST of its own.
    let answered = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": question["id"],
                "result": {"action": "accept", "content": {"approve": true}}}),
    );
    assert_eq!(answered.status, 202, "{answered:?}");
    let response = events.next().expect("the call's response");
    assert_eq!(response["id"], json!(7), "{response}");
    assert_eq!(text(&response["result"]), "appended", "{response}");
    assert!(events.next().is_none(), "the stream ends with the response");
    assert_eq!(
        std::fs::read_to_string(setup.notes().join("todo")).unwrap(),
        "buy milk\neggs\n"
    );
}

#[test]
fn bad_requests_are_refused_and_the_gateway_serves_on() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(&setup, &[]);
    let session = gateway.initialize(json!({}));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();

    let missing = gateway.post_raw(&list, &[]);
    assert_eq!(missing.status, 400, "no session id: {missing:?}");
    let unknown = gateway.post_raw(&list, &[("mcp-session-id", "0123456789abcdef")]);
    assert_eq!(unknown.status, 404, "{unknown:?}");

    let bad = gateway.post_raw("{\"jsonrpc\": \"2.0\", ", &[("mcp-session-id", &session)]);
    assert_eq!(bad.status, 400);
    assert_eq!(bad.messages[0]["error"]["code"], json!(-32700), "{bad:?}");
    let batch = gateway.post_raw(&format!("[{list}]"), &[("mcp-session-id", &session)]);
    assert_eq!(batch.status, 400);
    assert_eq!(
        batch.messages[0]["error"]["code"],
        json!(-32600),
        "{batch:?}"
    );
    let version = gateway.post_raw(
        &list,
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "1999-01-01"),
        ],
    );
    assert_eq!(version.status, 400, "{version:?}");

    for origin in [
        "http://evil.example",
        "https://localhost.evil.example:443",
        "null",
    ] {
        let foreign = gateway.post_raw(&list, &[("mcp-session-id", &session), ("origin", origin)]);
        assert_eq!(foreign.status, 403, "{origin}: {foreign:?}");
    }
    let rebound = gateway.post_raw(
        &list,
        &[("mcp-session-id", &session), ("host", "evil.example")],
    );
    assert_eq!(rebound.status, 403, "a DNS-rebound Host: {rebound:?}");
    let local = gateway.post_raw(
        &list,
        &[
            ("mcp-session-id", &session),
            ("origin", "http://localhost:3000"),
            ("mcp-protocol-version", "2025-11-25"),
        ],
    );
    assert_eq!(local.status, 200, "{local:?}");
    assert!(local.messages[0]["result"]["tools"].is_array());
}

#[test]
fn delete_ends_the_session_and_its_upstream() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(&setup, &[]);
    let first = gateway.initialize(json!({}));
    let second = gateway.initialize(json!({}));
    gateway.wait_for_upstreams(2);
    assert_eq!(gateway.delete(&first), 204);
    gateway.wait_for_upstreams(1);
    let after = gateway.post(
        &first,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    assert_eq!(after.status, 404, "{after:?}");
    assert_eq!(gateway.delete(&first), 404);
    // The other session goes on.
    let listed = gateway.request(&second, 1, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

#[test]
fn an_idle_session_ends_by_itself() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(&setup, &["--http-idle-timeout", "1"]);
    let session = gateway.initialize(json!({}));
    gateway.wait_for_upstreams(1);
    gateway.wait_for_upstreams(0);
    let after = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(after.status, 404, "{after:?}");
}

#[test]
fn the_upstreams_own_request_rides_the_open_calls_stream() {
    let setup = Setup::new(SPLIT_NOTES);
    let args = setup.args(&["--exposure", "per-action"], &["--misbehave", "elicit"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = HttpGateway::start(&args);
    let session = gateway.initialize(json!({"elicitation": {}}));
    let (status, content_type, mut events) = gateway.post_streaming(
        &session,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": call("notes_read", json!({"name": "todo"}))}),
    );
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    let question = events.next().expect("the upstream's question");
    assert_eq!(question["params"]["message"], json!("Which colour?"));
    let answered = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": question["id"],
                "result": {"action": "accept", "content": {"colour": "green"}}}),
    );
    assert_eq!(answered.status, 202);
    let response = events.next().expect("the call's response");
    assert_eq!(
        text(&response["result"]),
        "answered \"green\"",
        "{response}"
    );
}

#[test]
fn one_standalone_stream_per_session() {
    let setup = Setup::new(SPLIT_NOTES);
    let gateway = started(&setup, &[]);
    let session = gateway.initialize(json!({}));
    let (status, content_type) = gateway.open_stream(&session);
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    let (again, _) = gateway.open_stream(&session);
    assert_eq!(again, 409, "a second standalone stream");
    let (unknown, _) = gateway.open_stream("feedface");
    assert_eq!(unknown, 404);
}

#[test]
fn sigterm_ends_every_session_and_its_upstream() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut gateway = started(&setup, &[]);
    gateway.initialize(json!({}));
    gateway.initialize(json!({}));
    gateway.wait_for_upstreams(2);
    let upstreams = gateway.upstreams();
    let status = gateway.terminate();
    assert!(status.success(), "{status}");
    for pid in upstreams {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            stat.is_empty() || stat.contains(") Z "),
            "upstream {pid} outlived the gateway: {stat}"
        );
    }
}
