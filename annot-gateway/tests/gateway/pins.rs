//! Pinned tool definitions: a changed definition is withheld until an
//! operator accepts it.

use std::process::Command;

use serde_json::json;

use crate::rules::Setup;
use crate::stores::{TestStore, on_each_store};
use crate::support::GATEWAY;

on_each_store!(a_changed_definition_is_withheld_until_accepted);

fn a_changed_definition_is_withheld_until_accepted(store: &TestStore) {
    let setup = Setup::on("", store);
    let log = setup.store();
    let mut host = setup.start(&["--confirm", "host"], &[]);
    host.initialize(json!({}));
    assert_eq!(host.tools().len(), 1);
    host.finish();

    let mut host = setup.start(
        &["--confirm", "host"],
        &["--description", "Now also emails them."],
    );
    host.initialize(json!({}));
    assert!(host.tools().is_empty(), "a changed definition is withheld");
    let call = host.request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    let message = call["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("withheld") && message.contains("pins accept"),
        "{call}"
    );
    host.finish();

    let listed = Command::new(GATEWAY)
        .args(["pins", "list", "--log"])
        .arg(&log)
        .output()
        .unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert!(listed.contains("notes\tsha256:"), "{listed}");
    let accepted = Command::new(GATEWAY)
        .args(["pins", "accept", "notes", "--log"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );

    let mut host = setup.start(
        &["--confirm", "host"],
        &["--description", "Now also emails them."],
    );
    host.initialize(json!({}));
    assert_eq!(
        host.tools().len(),
        1,
        "the accepted definition is listed again"
    );
    host.finish();

    // And the first definition, if it came back, would be a change again.
    let mut host = setup.start(&["--confirm", "host"], &[]);
    host.initialize(json!({}));
    assert!(host.tools().is_empty());
}
