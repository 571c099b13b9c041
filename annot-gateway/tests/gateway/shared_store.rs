//! Several gateway processes on one store: the risk one records, the other
//! sees, for the same risk key.

use serde_json::json;

use crate::rules::{SPLIT_NOTES, Setup};
use crate::stores::{TestStore, on_each_store};
use crate::support::{HttpGateway, exported, text};
use crate::tokens::{Issuer, auth_section, claims};
use crate::upstreams::{configured, gateway};

on_each_store!(
    a_second_process_refuses_what_completes_the_trifecta_begun_in_the_first,
    another_risk_key_starts_clean,
    one_token_subject_has_one_risk_across_http_gateways,
    two_processes_calling_at_once_both_log_every_call,
);

/// Private data and untrusted content read through one process; the post
/// out through another, under the same risk key, is refused.
fn a_second_process_refuses_what_completes_the_trifecta_begun_in_the_first(store: &TestStore) {
    let directory = tempfile::tempdir().unwrap();
    let config = configured(&directory);
    let mut first = gateway(&config, &store.url, &["--risk-key", "alice"]);
    first.call("private__notes", json!({"action": "read", "name": "todo"}));
    first.call("web__notes", json!({"action": "read", "name": "todo"}));
    // Killed: what it recorded was committed before each answer.
    first.kill();

    let before = std::fs::read(directory.path().join("web/todo")).unwrap();
    let mut second = gateway(&config, &store.url, &["--risk-key", "alice"]);
    let post = second.call(
        "web__notes",
        json!({"action": "append", "name": "todo", "text": "salary: 1"}),
    );
    assert_eq!(post["isError"], json!(true), "{post}");
    let message = text(&post);
    assert!(
        message.contains("private__notes") && message.contains("web__notes"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(directory.path().join("web/todo")).unwrap(),
        before
    );
}

/// The same reads under one key leave another key's post alone.
fn another_risk_key_starts_clean(store: &TestStore) {
    let directory = tempfile::tempdir().unwrap();
    let config = configured(&directory);
    let mut first = gateway(&config, &store.url, &["--risk-key", "alice"]);
    first.call("private__notes", json!({"action": "read", "name": "todo"}));
    first.call("web__notes", json!({"action": "read", "name": "todo"}));
    let mut second = gateway(&config, &store.url, &["--risk-key", "bob"]);
    let post = second.call(
        "web__notes",
        json!({"action": "append", "name": "todo", "text": "hi"}),
    );
    assert_eq!(text(&post), "appended", "{post}");
    first.finish();
}

/// With `[auth]`, the risk key is the token's subject: what alice read
/// through one HTTP gateway counts in her session on another; bob's does
/// not.
fn one_token_subject_has_one_risk_across_http_gateways(store: &TestStore) {
    let directory = tempfile::tempdir().unwrap();
    let config = configured(&directory);
    let issuer = Issuer::new(7, "k1");
    let auth = auth_section(&issuer, directory.path());
    let upstreams = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{upstreams}\n{auth}")).unwrap();
    let args = [
        "--config",
        config.to_str().unwrap(),
        "--store",
        &store.url,
        "--exposure",
        "resolvable",
        "--confirm",
        "host",
    ];
    let (one, two) = (HttpGateway::start(&args), HttpGateway::start(&args));
    let alice = issuer.mint("k1", &claims("alice", "files:write"));
    let bob = issuer.mint("k1", &claims("bob", "files:write"));

    let session = open(&one, &alice);
    call(
        &one,
        &session,
        &alice,
        "private__notes",
        json!({"action": "read", "name": "todo"}),
    );
    call(
        &one,
        &session,
        &alice,
        "web__notes",
        json!({"action": "read", "name": "todo"}),
    );

    let post = json!({"action": "append", "name": "todo", "text": "salary: 1"});
    let session = open(&two, &alice);
    let refused = call(&two, &session, &alice, "web__notes", post.clone());
    assert_eq!(refused["isError"], json!(true), "{refused}");
    assert!(text(&refused).contains("private__notes"), "{refused}");
    let session = open(&two, &bob);
    let posted = call(&two, &session, &bob, "web__notes", post);
    assert_eq!(text(&posted), "appended", "{posted}");
}

/// An MCP session on `gateway` opened with `token`.
fn open(gateway: &HttpGateway, token: &str) -> String {
    let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "shared-store-test", "version": "1"}}});
    let bearer = format!("Bearer {token}");
    let reply = gateway.post_raw(&message.to_string(), &[("authorization", &bearer)]);
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.session.expect("a session id")
}

/// The result of calling `tool` in `session` with `token`.
fn call(
    gateway: &HttpGateway,
    session: &str,
    token: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": tool, "arguments": arguments}});
    let bearer = format!("Bearer {token}");
    let reply = gateway.post_raw(
        &message.to_string(),
        &[("authorization", &bearer), ("mcp-session-id", session)],
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    let response = reply.messages.last().cloned().expect("a response");
    response["result"].clone()
}

/// Two processes writing one store at the same time (one SQLite file's
/// writer lock, or one server): every call of both is answered and logged.
fn two_processes_calling_at_once_both_log_every_call(store: &TestStore) {
    let setup = Setup::on(SPLIT_NOTES, store);
    let options = ["--exposure", "resolvable", "--confirm", "host"];
    let hosts: Vec<_> = (0..2)
        .map(|_| {
            let mut host = setup.start(&options, &[]);
            host.initialize(json!({}));
            host
        })
        .collect();
    let callers: Vec<_> = hosts
        .into_iter()
        .enumerate()
        .map(|(index, mut host)| {
            std::thread::spawn(move || {
                for round in 0..15 {
                    let line = format!("{index}-{round}\n");
                    let arguments = json!({"action": "append", "name": "todo", "text": line});
                    let result = host.call("notes", arguments);
                    assert_eq!(text(&result), "appended", "{result}");
                }
                host.finish();
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
    let calls = exported(setup.store());
    assert_eq!(calls.len(), 30);
    assert!(calls.iter().all(|call| call["outcome"] == json!("ok")));
}
