//! Faithful forwarding: what the upstream sends about a request before its
//! answer (progress, log messages) reaches the host before that answer, or
//! a host that retires the request's progress handler on the answer loses it.

use serde_json::{Value, json};

use crate::rules::{SPLIT_NOTES, Setup};
use crate::support::Host;

/// Sends `method` with a progress token and returns what the host read for
/// it, in order: `p1`.. for each progress notification, `answer` for the answer.
fn sequence(host: &mut Host, method: &str, params: Value, token: &str) -> Vec<String> {
    let mut params = params;
    params["_meta"] = json!({"progressToken": token});
    let id = host.send_request(method, params);
    let mut seen = Vec::new();
    loop {
        let (wanted_token, wanted_id) = (json!(token), id.clone());
        let message = host.wait_for("progress or the answer", move |message| {
            message["params"]["progressToken"] == wanted_token
                || (message.get("id") == Some(&wanted_id) && message.get("method").is_none())
        });
        if message.get("id") == Some(&id) {
            seen.push("answer".to_owned());
            return seen;
        }
        seen.push(format!("p{}", message["params"]["progress"]));
    }
}

#[test]
fn progress_the_upstream_sends_before_its_answer_reaches_the_host_before_it() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(
        &["--exposure", "resolvable", "--confirm", "host"],
        &["--misbehave", "progress"],
    );
    host.initialize(json!({}));
    host.tools();
    for round in 0..25 {
        // A forwarded method (the upstream answers it with an error) and a tool call.
        let forwarded = sequence(
            &mut host,
            "prompts/list",
            json!({}),
            &format!("list-{round}"),
        );
        assert_eq!(forwarded, ["p1", "p2", "p3", "answer"], "round {round}");
        let call = json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}});
        let called = sequence(&mut host, "tools/call", call, &format!("call-{round}"));
        assert_eq!(called, ["p1", "p2", "p3", "answer"], "round {round}");
    }
}

#[test]
fn a_call_the_host_cancels_is_answered_to_nobody_logged_as_cancelled_and_holds_nothing_up() {
    let setup = Setup::new(SPLIT_NOTES);
    // `silent`: the upstream never answers a call, as a server that honours
    // a cancellation does not.
    let mut host = setup.start(
        &[
            "--exposure",
            "resolvable",
            "--confirm",
            "host",
            "--timeout",
            "30",
        ],
        &["--misbehave", "silent"],
    );
    host.initialize(json!({}));
    host.tools();
    let id = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    host.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": id, "reason": "the person stopped it"}}),
    );
    assert_eq!(host.request("ping", json!({}))["result"], json!({}));
    let started = std::time::Instant::now();
    let (status, rest) = host.finish_with_rest();
    assert!(status.success());
    assert!(
        !rest.iter().any(|message| message.get("id") == Some(&id)),
        "the cancelled call was answered: {rest:?}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "the gateway waited {:?} for an answer to a cancelled call",
        started.elapsed()
    );
    let calls = crate::support::exported(setup.log());
    assert_eq!(calls[0]["outcome"], json!("cancelled"), "{calls:?}");
}
