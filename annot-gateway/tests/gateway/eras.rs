//! Each side in its own era: a 2026-07-28 host (no handshake, `_meta` on
//! every request) in front of a server that wants `initialize`, and a host
//! that opens with `initialize` in front of a 2026-07-28 server.

use serde_json::{Value, json};

use crate::rules::{SPLIT_NOTES, Setup};
use crate::stores::{TestStore, on_each_store};
use crate::support::{Host, ManageFiles, text};

const MODERN: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "modern-host", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn modern(host: &mut Host, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    host.request(method, params)
}

#[test]
fn a_2026_host_in_front_of_a_server_that_wants_initialize() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "resolvable", "--profile", "read-only"], &[]);
    let discovered = modern(&mut host, "server/discover", json!({}));
    let result = &discovered["result"];
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!(MODERN)),
        "{discovered}"
    );
    assert_eq!(result["resultType"], json!("complete"));
    assert!(result["capabilities"]["tools"].is_object(), "{discovered}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("annot-gateway")
    );

    let listed = modern(&mut host, "tools/list", json!({}));
    assert_eq!(
        listed["result"]["resultType"],
        json!("complete"),
        "{listed}"
    );
    assert_eq!(listed["result"]["ttlMs"], json!(0));
    assert_eq!(listed["result"]["tools"][0]["name"], json!("notes"));

    let read = modern(
        &mut host,
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    assert_eq!(read["result"]["resultType"], json!("complete"), "{read}");
    assert_eq!(text(&read["result"]), "buy milk\n");
    let delete = modern(
        &mut host,
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "delete", "name": "todo"}}),
    );
    assert_eq!(delete["result"]["isError"], json!(true), "{delete}");
    assert_eq!(delete["result"]["resultType"], json!("complete"));
    assert!(setup.notes().join("todo").exists());
}

#[test]
fn a_handshake_host_in_front_of_a_2026_server() {
    let files = ManageFiles::new();
    let mut host = files.start(&["--confirm", "host"]);
    let initialized = host.initialize(json!({}));
    let result = &initialized["result"];
    assert_eq!(
        result["protocolVersion"],
        json!("2025-11-25"),
        "{initialized}"
    );
    assert_eq!(
        result["serverInfo"]["name"],
        json!("annot-manage-files"),
        "{initialized}"
    );
    let read = host.call(
        "manage_files",
        json!({"action": "read", "path": "notes.txt"}),
    );
    assert_eq!(text(&read), "hello\n", "{read}");
    let resolved = host.request(
        "tools/annotations",
        json!({"name": "manage_files", "arguments": {"action": "read", "path": "notes.txt"}}),
    );
    assert_eq!(
        resolved["result"]["annotations"]["readOnlyHint"],
        json!(true),
        "{resolved}"
    );
}

#[test]
fn a_2026_host_in_front_of_a_2026_server() {
    let files = ManageFiles::new();
    let mut host = files.start(&["--confirm", "host"]);
    let read = modern(
        &mut host,
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "read", "path": "notes.txt"}}),
    );
    assert_eq!(text(&read["result"]), "hello\n", "{read}");
    assert_eq!(read["result"]["resultType"], json!("complete"));
}

fn eliciting_meta() -> Value {
    let mut meta = meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    meta
}

fn call_with(host: &mut Host, arguments: Value, extra: Value) -> Value {
    let mut params = json!({"name": "notes", "arguments": arguments, "_meta": eliciting_meta()});
    if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
        params.extend(extra.clone());
    }
    host.request("tools/call", params)["result"].clone()
}

on_each_store!(
    a_2026_host_confirms_by_the_multi_round_trip_input_request,
    a_question_asked_by_one_process_is_answered_through_another,
);

fn a_2026_host_confirms_by_the_multi_round_trip_input_request(store: &TestStore) {
    let setup = Setup::on(SPLIT_NOTES, store);
    let mut host = setup.start(&["--exposure", "resolvable"], &[]);
    let append = json!({"action": "append", "name": "todo", "text": "eggs\n"});
    let first = call_with(&mut host, append.clone(), json!({}));
    assert_eq!(first["resultType"], json!("input_required"), "{first}");
    let question = &first["inputRequests"]["confirm"];
    assert_eq!(question["method"], json!("elicitation/create"));
    assert!(
        question["params"]["message"]
            .as_str()
            .unwrap()
            .contains("Call digest: sha256:")
    );
    let state = first["requestState"].clone();
    let accept = json!({"confirm": {"action": "accept", "content": {"approve": true}}});

    let done = call_with(
        &mut host,
        append.clone(),
        json!({"requestState": state, "inputResponses": accept}),
    );
    assert_eq!(text(&done), "appended", "{done}");
    assert_eq!(done["resultType"], json!("complete"));

    // The same answer again: its state is spent.
    let replayed = call_with(
        &mut host,
        append.clone(),
        json!({"requestState": state, "inputResponses": accept}),
    );
    assert_eq!(replayed["isError"], json!(true), "{replayed}");
    assert!(text(&replayed).contains("already used"), "{replayed}");

    // An answer for one call brought with another call's arguments.
    let asked = call_with(&mut host, append.clone(), json!({}));
    let other = json!({"action": "append", "name": "todo", "text": "rm -rf\n"});
    let altered = call_with(
        &mut host,
        other,
        json!({"requestState": asked["requestState"], "inputResponses": accept}),
    );
    assert_eq!(altered["isError"], json!(true), "{altered}");
    assert!(text(&altered).contains("another call"), "{altered}");
    assert_eq!(
        std::fs::read_to_string(setup.notes().join("todo")).unwrap(),
        "buy milk\neggs\n"
    );
}

/// A pending confirmation outlives the process that asked it: the retried
/// call, with its answer, reaches another gateway process on the same store
/// (as behind a load balancer), which runs it, once.
fn a_question_asked_by_one_process_is_answered_through_another(store: &TestStore) {
    let setup = Setup::on(SPLIT_NOTES, store);
    let append = json!({"action": "append", "name": "todo", "text": "eggs\n"});
    let mut asking = setup.start(&["--exposure", "resolvable"], &[]);
    let first = call_with(&mut asking, append.clone(), json!({}));
    assert_eq!(first["resultType"], json!("input_required"), "{first}");
    asking.kill();

    let accept = json!({"confirm": {"action": "accept", "content": {"approve": true}}});
    let retry = json!({"requestState": first["requestState"], "inputResponses": accept});
    let mut answering = setup.start(&["--exposure", "resolvable"], &[]);
    let done = call_with(&mut answering, append.clone(), retry.clone());
    assert_eq!(text(&done), "appended", "{done}");
    let mut third = setup.start(&["--exposure", "resolvable"], &[]);
    let replayed = call_with(&mut third, append, retry);
    assert!(text(&replayed).contains("already used"), "{replayed}");
    assert_eq!(
        std::fs::read_to_string(setup.notes().join("todo")).unwrap(),
        "buy milk\neggs\n"
    );
}
