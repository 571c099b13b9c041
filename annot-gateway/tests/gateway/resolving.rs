//! In front of an upstream that resolves its own calls (annot's
//! `manage_files`): the upstream's resolution decides.

use serde_json::json;

use crate::support::{ManageFiles, exported, snapshot, text};

#[test]
fn a_read_only_profile_lets_resolved_reads_through_and_refuses_a_delete() {
    let files = ManageFiles::new();
    let (sandbox, log) = (files.sandbox(), files.log());
    let mut host = files.start(&["--profile", "read-only", "--confirm", "host"]);
    host.initialize(json!({}));
    let names: Vec<String> = host.tools().into_iter().map(|(name, _)| name).collect();
    assert!(names.contains(&"manage_files".to_owned()), "{names:?}");
    let before = snapshot(&sandbox);

    let read = host.call(
        "manage_files",
        json!({"action": "read", "path": "notes.txt"}),
    );
    assert_eq!(read.get("isError"), None, "{read}");
    assert_eq!(text(&read), "hello\n");

    let delete = host.call(
        "manage_files",
        json!({"action": "delete", "path": "notes.txt"}),
    );
    assert_eq!(delete["isError"], json!(true), "{delete}");
    let message = text(&delete);
    assert!(
        message.contains("read_only") && message.contains("readOnlyHint"),
        "{message}"
    );
    assert!(message.contains("resolved by tools/resolve"), "{message}");
    assert_eq!(
        snapshot(&sandbox),
        before,
        "a refused call changed the sandbox"
    );

    host.finish();
    let calls = exported(&log);
    let outcomes: Vec<(&str, &str)> = calls
        .iter()
        .map(|call| {
            (
                call["decision"].as_str().unwrap(),
                call["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(outcomes, [("confirm", "ok"), ("deny", "refused")]);
    assert_eq!(calls[0]["annotations"]["readOnlyHint"], json!(true));
    assert_eq!(calls[0]["confirmation"], json!("left to the host"));
}

#[test]
fn arguments_the_upstream_rejects_are_its_error_and_never_a_call() {
    let files = ManageFiles::new();
    let mut host = files.start(&["--confirm", "host"]);
    host.initialize(json!({}));
    let response = host.request(
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "chmod", "path": "notes.txt"}}),
    );
    assert_eq!(response["error"]["code"], json!(-32602), "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("chmod"),
        "{response}"
    );
    host.finish();
    assert_eq!(
        exported(files.log())[0]["outcome"],
        json!("invalid-arguments")
    );
}

#[test]
fn a_host_that_resolves_gets_the_upstreams_resolution_through_the_gateway() {
    let files = ManageFiles::new();
    let mut host = files.start(&[]);
    host.initialize(json!({}));
    let read = host.request(
        "tools/annotations",
        json!({"name": "manage_files", "arguments": {"action": "read", "path": "notes.txt"}}),
    );
    assert_eq!(
        read["result"]["annotations"]["readOnlyHint"],
        json!(true),
        "{read}"
    );
    let delete = host.request(
        "tools/annotations",
        json!({"name": "manage_files", "arguments": {"action": "delete", "path": "notes.txt"}}),
    );
    assert_eq!(
        delete["result"]["annotations"]["destructiveHint"],
        json!(true),
        "{delete}"
    );
    let invalid = host.request(
        "tools/annotations",
        json!({"name": "manage_files", "arguments": {"action": "chmod", "path": "notes.txt"}}),
    );
    assert_eq!(invalid["error"]["code"], json!(-32602), "{invalid}");
}
