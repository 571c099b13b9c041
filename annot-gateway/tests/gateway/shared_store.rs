//! Several gateway processes on one store: the risk one records, the other
//! sees, for the same risk key.

use serde_json::json;

use crate::stores::{TestStore, on_each_store};
use crate::support::text;
use crate::upstreams::{configured, gateway};

on_each_store!(
    a_second_process_refuses_what_completes_the_trifecta_begun_in_the_first,
    another_risk_key_starts_clean,
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
