//! The decision log: every answered call is in it, even when the gateway is
//! killed.

use serde_json::json;

use crate::rules::{SPLIT_NOTES, Setup};
use crate::stores::{TestStore, on_each_store};
use crate::support::exported;

on_each_store!(
    sigkill_loses_no_answered_call,
    the_log_can_keep_only_the_arguments_digest,
    sigterm_answers_what_is_in_flight_and_stops_the_upstream,
);

fn sigkill_loses_no_answered_call(store: &TestStore) {
    let setup = Setup::on(SPLIT_NOTES, store);
    let mut host = setup.start(&["--exposure", "resolvable", "--confirm", "host"], &[]);
    host.initialize(json!({}));
    let mut answered = 0;
    for round in 0..40 {
        let action = if round % 2 == 0 { "read" } else { "append" };
        let result = host.call(
            "notes",
            json!({"action": action, "name": "todo", "text": "x"}),
        );
        assert_eq!(result.get("isError"), None, "{result}");
        answered += 1;
    }
    // Calls still in flight when the gateway dies may or may not be logged;
    // every one answered must be.
    for _ in 0..5 {
        host.send_request(
            "tools/call",
            json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
        );
    }
    host.kill();
    let calls = exported(setup.store());
    assert!(
        calls.len() >= answered,
        "{} logged, {answered} answered",
        calls.len()
    );
    let appends = calls
        .iter()
        .filter(|call| call["arguments"]["action"] == json!("append"));
    assert_eq!(appends.count(), 20);
}

fn the_log_can_keep_only_the_arguments_digest(store: &TestStore) {
    let setup = Setup::on(SPLIT_NOTES, store);
    let mut host = setup.start(
        &[
            "--exposure",
            "resolvable",
            "--confirm",
            "host",
            "--no-log-arguments",
        ],
        &[],
    );
    host.initialize(json!({}));
    host.call("notes", json!({"action": "read", "name": "todo"}));
    host.finish();
    let calls = exported(setup.store());
    assert_eq!(calls[0]["arguments"], json!(null));
    assert!(
        calls[0]["argumentsDigest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_eq!(calls[0]["annotations"]["readOnlyHint"], json!(true));
}

fn sigterm_answers_what_is_in_flight_and_stops_the_upstream(store: &TestStore) {
    let setup = Setup::on(SPLIT_NOTES, store);
    let mut host = setup.start(&["--exposure", "resolvable", "--confirm", "host"], &[]);
    host.initialize(json!({}));
    host.call("notes", json!({"action": "read", "name": "todo"}));
    let status = host.terminate();
    assert!(status.success(), "{status}");
    let calls = exported(setup.store());
    assert_eq!(calls.len(), 1);
}
