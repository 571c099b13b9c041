//! A profile on the rmcp adapter (`AnnotatedToolsBuilder::profile`): the
//! listing keeps only what can pass it, resolutions outside it answer
//! `-32602`, and calls outside it are refused before the handler runs (the
//! fixture's `manage_files` handler panics, so a call that reached it says so).

use crate::rmcp_support;
use annot::rmcp::Annotated;
use annot::server::Profile;
use rmcp_support::fixtures::{
    INITIALIZE, INITIALIZED, LIST, Server, raw_session_with, request, result, server_with, tool,
};
use rmcp_support::{MCP_SCHEMA, assert_valid};
use serde_json::{Value, json};

fn read_only_server() -> Annotated<Server> {
    server_with(|builder| builder.profile(Profile::read_only()))
}

fn manage_files(id: u64, method: &str, arguments: Value) -> String {
    request(
        id,
        method,
        json!({"name": "manage_files", "arguments": arguments}),
    )
}

#[tokio::test]
async fn read_only_through_rmcp() {
    let append = json!({"action": "append", "path": "a.txt", "content": "x"});
    let messages = [
        INITIALIZE.to_owned(),
        INITIALIZED.to_owned(),
        LIST.to_owned(),
        manage_files(3, "tools/call", append.clone()),
        manage_files(4, "tools/call", json!({"action": "read", "path": "a.txt"})),
        manage_files(5, "tools/resolve", append.clone()),
        manage_files(6, "tools/annotations", append),
        request(
            7,
            "tools/annotations",
            json!({"name": "fetch", "arguments": {"method": "post"}}),
        ),
    ];
    let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
    let responses = raw_session_with(read_only_server(), true, &messages).await;

    let list = result(&responses[1].1);
    assert_valid(MCP_SCHEMA, "ListToolsResult", &list);
    let files = tool(&list, "manage_files");
    assert_eq!(
        files["inputSchema"]["properties"]["action"]["enum"],
        json!(["read"])
    );
    assert_eq!(files["annotations"]["readOnlyHint"], true);
    // A hand-written tool without per-action fields: its enum is narrowed.
    let fetch = tool(&list, "fetch");
    assert_eq!(
        fetch["inputSchema"]["properties"]["method"]["enum"],
        json!(["get"])
    );
    assert_eq!(fetch["annotations"]["readOnlyHint"], true);
    assert_eq!(fetch["annotations"]["sensitiveDataHint"], false);
    // rmcp's own tool is none of the profile's business.
    tool(&list, "echo");

    let refused = result(&responses[2].1);
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["content"][0]["text"],
        "refused: this call of `manage_files` is outside the server's profile `read_only`: \
         readOnlyHint is false, and read_only needs true"
    );
    // Inside the profile the handler runs (and this fixture's panics).
    let ran = result(&responses[3].1);
    assert_eq!(
        ran["content"][0]["text"],
        "internal error: the tool `manage_files` failed unexpectedly"
    );
    for (_, line) in &responses[4..6] {
        let response: Value = serde_json::from_str(line).unwrap();
        assert_eq!(response["error"]["code"], -32602, "{line}");
        let message = response["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("outside the server's profile `read_only`: readOnlyHint is false"),
            "{message}"
        );
    }
    // What is left of `fetch` resolves alike for every call: no longer
    // marked. A resolution of the action the profile dropped answers the
    // profile's refusal, as a call of it does.
    assert!(fetch.get("resolve").is_none(), "{fetch}");
    let response: Value = serde_json::from_str(&responses[6].1).unwrap();
    assert_eq!(
        response["error"]["message"],
        "this call of `fetch` is outside the server's profile `read_only`: readOnlyHint is \
         false, and read_only needs true"
    );
}
