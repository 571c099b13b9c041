//! A host that resolves asks the gateway, in any of the three dialects, and
//! gets the annotations a call would be decided on.

use serde_json::json;

use crate::rules::{SPLIT_NOTES, Setup};

const EXTENSION: &str = "io.modelcontextprotocol/tool-resolution";

#[test]
fn a_handshake_host_resolves_in_dialects_a_and_b() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "resolvable"], &[]);
    let initialized = host.initialize(json!({}));
    let tools = &initialized["result"]["capabilities"]["tools"];
    assert_eq!(
        (
            tools["resolve"].clone(),
            tools["dynamicAnnotations"].clone()
        ),
        (json!(true), json!(true))
    );
    let listed = host.request("tools/list", json!({}));
    let notes = &listed["result"]["tools"][0];
    assert_eq!(
        (
            notes["resolve"].clone(),
            notes["dynamicAnnotations"].clone()
        ),
        (json!(true), json!(true))
    );

    let read = host.request(
        "tools/resolve",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    let tool = &read["result"]["tool"];
    assert_eq!(tool["name"], json!("notes"), "{read}");
    assert_eq!(tool["annotations"]["readOnlyHint"], json!(true), "{read}");
    assert_eq!(tool["inputSchema"], notes["inputSchema"]);

    let append = host.request(
        "tools/annotations",
        json!({"name": "notes", "arguments": {"action": "append", "name": "todo", "text": "x"}}),
    );
    let annotations = &append["result"]["annotations"];
    assert_eq!(annotations["readOnlyHint"], json!(false), "{append}");
    assert_eq!(annotations["destructiveHint"], json!(false), "{append}");

    // The extension named on one request gets its shape.
    let extension = host.request(
        "tools/resolve",
        json!({"name": "notes", "arguments": {"action": "delete", "name": "todo"},
               "_meta": {"io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}}}}),
    );
    assert_eq!(
        extension["result"]["resultType"],
        json!("complete"),
        "{extension}"
    );
    assert_eq!(
        extension["result"]["annotations"]["destructiveHint"],
        json!(true)
    );
}

#[test]
fn a_host_that_took_up_the_extension_gets_its_shape() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "auto"], &[]);
    host.initialize(json!({"extensions": {EXTENSION: {}}}));
    let listed = host.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert_eq!(
        tools.len(),
        1,
        "auto exposure lists the resolvable tool to a resolving host"
    );
    assert_eq!(tools[0]["_meta"][EXTENSION], json!({"resolvable": true}));
    assert_eq!(tools[0].get("resolve"), None);
    let read = host.request(
        "tools/resolve",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    let result = &read["result"];
    assert_eq!(result["resultType"], json!("complete"), "{read}");
    assert_eq!(result["name"], json!("notes"));
    let annotations = result["annotations"].as_object().unwrap();
    let mut names: Vec<&str> = annotations.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
            "readOnlyHint"
        ]
    );
    assert_eq!(annotations["readOnlyHint"], json!(true));
}

#[test]
fn a_tool_whose_annotations_never_vary_is_not_resolvable() {
    let setup = Setup::new("");
    let mut host = setup.start(&[], &[]);
    host.initialize(json!({}));
    let listed = host.request("tools/list", json!({}));
    assert_eq!(
        listed["result"]["tools"][0].get("resolve"),
        None,
        "{listed}"
    );
    let resolve = host.request(
        "tools/resolve",
        json!({"name": "notes", "arguments": {"action": "read", "name": "todo"}}),
    );
    assert_eq!(resolve["error"]["code"], json!(-32602), "{resolve}");
    let unknown = host.request("tools/resolve", json!({"name": "nope", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], json!(-32602), "{unknown}");
}
