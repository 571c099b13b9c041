//! Hostile upstreams and a host that sends garbage: clear answers, the
//! gateway keeps serving, and the log stays complete.

use serde_json::json;

use crate::rules::{SPLIT_NOTES, Setup};
use crate::support::{Host, exported};

fn misbehaving(setup: &Setup, mode: &str) -> Host {
    let mut host = setup.start(
        &[
            "--exposure",
            "resolvable",
            "--confirm",
            "host",
            "--timeout",
            "2",
        ],
        &["--misbehave", mode],
    );
    host.initialize(json!({}));
    host
}

fn read(host: &mut Host) -> serde_json::Value {
    host.request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    )
}

fn assert_still_serving(host: &mut Host) {
    assert_eq!(host.request("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_line_that_is_not_json_is_dropped_and_the_answer_still_comes() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = misbehaving(&setup, "garbage");
    let response = read(&mut host);
    assert_eq!(
        response["result"]["content"][0]["text"],
        json!("buy milk\n"),
        "{response}"
    );
    assert_still_serving(&mut host);
}

#[test]
fn an_answer_past_the_cap_times_out_clearly() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = misbehaving(&setup, "oversize");
    let response = read(&mut host);
    assert_eq!(response["error"]["code"], json!(-32001), "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("within 2 s")
    );
    assert_still_serving(&mut host);
    host.finish();
    assert_eq!(
        exported(setup.log())[0]["outcome"],
        json!("upstream-failed")
    );
}

#[test]
fn an_upstream_that_never_answers_times_out_and_the_log_says_so() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = misbehaving(&setup, "silent");
    let response = read(&mut host);
    assert_eq!(response["error"]["code"], json!(-32001), "{response}");
    assert_still_serving(&mut host);
    host.finish();
    assert_eq!(
        exported(setup.log())[0]["outcome"],
        json!("upstream-failed")
    );
}

#[test]
fn an_upstream_that_dies_mid_call_is_reported_and_restarted() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = misbehaving(&setup, "die");
    let response = read(&mut host);
    assert_eq!(response["error"]["code"], json!(-32001), "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exited"),
        "{response}"
    );
    // Restarted with the host's handshake replayed: it lists again.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let listed = host.request("tools/list", json!({}));
        if listed.get("result").is_some() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not restarted: {listed}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    host.finish();
    assert_eq!(
        exported(setup.log())[0]["outcome"],
        json!("upstream-failed")
    );
}

#[test]
fn a_resolution_that_breaks_the_bound_keeps_the_risk_it_admits() {
    // The upstream resolves a read as open-world although its static
    // annotations say closed: the answer is not used, and its open world
    // still counts.
    let setup = Setup::new("");
    let mut host = setup.start(
        &["--profile", "closed-world", "--confirm", "host"],
        &["--misbehave", "bound"],
    );
    host.initialize(json!({}));
    let response = read(&mut host);
    let text = response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(response["result"]["isError"], json!(true), "{response}");
    assert!(text.contains("openWorldHint"), "{text}");
    assert!(
        text.contains("bound"),
        "the source says the answer broke the bound: {text}"
    );
}

#[test]
fn a_question_from_the_upstream_reaches_the_host_and_its_answer_goes_back() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = misbehaving(&setup, "elicit");
    let id = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    let question = host.host_request("elicitation/create");
    assert_eq!(question["params"]["message"], json!("Which colour?"));
    host.send(&json!({"jsonrpc": "2.0", "id": question["id"],
                      "result": {"action": "accept", "content": {"colour": "green"}}}));
    let response = host.response(&id);
    assert_eq!(
        response["result"]["content"][0]["text"],
        json!("answered \"green\""),
        "{response}"
    );
}

#[test]
fn garbage_from_the_host_gets_clear_errors_and_the_gateway_keeps_serving() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = misbehaving(&setup, "");
    host.send_line("this is not JSON");
    let parse = host.wait_for("a parse error", |m| m["error"]["code"] == json!(-32700));
    assert_eq!(parse["id"], json!(null));
    host.send_line("[1, 2]");
    host.wait_for("an invalid request", |m| {
        m["error"]["code"] == json!(-32600)
    });
    host.send_line(r#"{"jsonrpc": "2.0", "id": 77}"#);
    let missing = host.wait_for("an invalid request", |m| m["id"] == json!(77));
    assert_eq!(missing["error"]["code"], json!(-32600));
    let bad_arguments = host.request("tools/call", json!({"name": "notes", "arguments": [1]}));
    assert_eq!(bad_arguments["error"]["code"], json!(-32602));
    let unknown = host.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], json!(-32602));
    let response = read(&mut host);
    assert_eq!(
        response["result"]["content"][0]["text"],
        json!("buy milk\n")
    );
}
