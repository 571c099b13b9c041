//! Which markers the rmcp adapter lists to which client: the extension's
//! marker only to a request or session that takes the extension up
//! (docs/PROTOCOL.md section 3), as the built-in server does.

use crate::rmcp_support;
use annot::server::{Server as BuiltIn, ToolOutput};
use rmcp_support::fixtures::{
    Fetch, INITIALIZE, INITIALIZED, raw_session, raw_session_with, result, tool,
};
use rmcp_support::manage_files::ManageFiles;
use serde_json::{Value, json};

const MARKER: &str = "io.modelcontextprotocol/tool-resolution";

fn extension() -> Value {
    json!({"extensions": {MARKER: {}}})
}

/// `tools/list` with `meta` as its `_meta` (none when null).
fn list(id: u64, meta: Value) -> String {
    let params = if meta.is_null() {
        json!({})
    } else {
        json!({"_meta": meta})
    };
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}).to_string()
}

fn initialize(capabilities: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "0"}
    }})
    .to_string()
}

fn modern(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

/// Runs `requests` through rmcp (lifted) and through the built-in server;
/// returns, per answered `tools/list` id, the rmcp listing, after checking
/// that each annotated tool is listed exactly as the built-in server lists it.
async fn listings(requests: &[String]) -> Vec<(u64, Value)> {
    let built_in = BuiltIn::builder("parity", "0")
        .tool(|_: Fetch| Ok(ToolOutput::text("")))
        .tool(|_: ManageFiles| Ok(ToolOutput::text("")))
        .build()
        .unwrap();
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let through_rmcp = raw_session(true, &requests).await;
    let mut connection = built_in.connect();
    let mut listed = Vec::new();
    for request in &requests {
        let expected = connection.handle(request.as_bytes());
        if !request.contains("tools/list") {
            continue;
        }
        let expected: Value = serde_json::from_slice(&expected.unwrap()).unwrap();
        let id = expected["id"].as_u64().unwrap();
        let (_, line) = through_rmcp.iter().find(|(i, _)| *i == id).unwrap();
        let got = result(line);
        for annotated in expected["result"]["tools"].as_array().unwrap() {
            let name = annotated["name"].as_str().unwrap();
            assert_eq!(tool(&got, name), annotated, "request {id}");
        }
        listed.push((id, got));
    }
    listed
}

/// Whether `fetch` and `manage_files` carry the extension's marker (both
/// resolvable, so both or neither); `echo`, the router's own, never does.
fn marked(list: &Value) -> bool {
    let marker = |name: &str| tool(list, name)["_meta"].get(MARKER).cloned();
    assert_eq!(marker("echo"), None);
    let fetch = marker("fetch");
    assert_eq!(fetch, marker("manage_files"));
    match fetch {
        None => false,
        Some(marker) => {
            assert_eq!(marker, json!({"resolvable": true}));
            true
        }
    }
}

#[tokio::test]
async fn a_session_without_the_extension_sees_the_marker_only_when_a_request_asks() {
    let caps =
        |capabilities: Value| json!({"io.modelcontextprotocol/clientCapabilities": capabilities});
    let requests = [
        INITIALIZE.to_owned(),
        INITIALIZED.to_owned(),
        list(2, Value::Null),
        list(3, caps(extension())),
        list(4, caps(json!({"extensions": {"com.example/other": {}}}))),
        list(5, caps(json!({"extensions": {MARKER: {"mode": "strict"}}}))),
        list(6, Value::Null),
    ];
    let listed = listings(&requests).await;
    let seen: Vec<(u64, bool)> = listed
        .iter()
        .map(|(id, list)| (*id, marked(list)))
        .collect();
    assert_eq!(
        seen,
        [(2, false), (3, true), (4, false), (5, false), (6, false)]
    );
    // Without the extension, SEP-1862's and dialect A's markers stay.
    let fetch = tool(&listed[0].1, "fetch");
    assert_eq!(fetch["resolve"], json!(true));
    assert_eq!(fetch["dynamicAnnotations"], json!(true));
}

#[tokio::test]
async fn a_session_that_took_the_extension_up_sees_the_marker() {
    let requests = [
        initialize(extension()),
        INITIALIZED.to_owned(),
        list(2, Value::Null),
        list(3, json!({"io.modelcontextprotocol/clientCapabilities": {}})),
    ];
    let listed = listings(&requests).await;
    let seen: Vec<(u64, bool)> = listed
        .iter()
        .map(|(id, list)| (*id, marked(list)))
        .collect();
    assert_eq!(seen, [(2, true), (3, false)]);
    // The extension's ResolvableTool shape: no marker of dialects A and B.
    let fetch = tool(&listed[0].1, "fetch");
    assert!(
        fetch.get("resolve").is_none() && fetch.get("dynamicAnnotations").is_none(),
        "{fetch}"
    );

    // Named with settings the extension does not define: not taken up.
    let requests = [
        initialize(json!({"extensions": {MARKER: {"mode": "strict"}}})),
        INITIALIZED.to_owned(),
        list(2, Value::Null),
    ];
    let listed = listings(&requests).await;
    assert!(!marked(&listed[0].1));
}

#[tokio::test]
async fn a_2026_07_28_request_is_judged_by_its_own_capabilities() {
    let requests = [
        list(2, modern(json!({}))),
        list(3, modern(extension())),
        list(4, modern(json!({"extensions": {"com.example/other": {}}}))),
    ];
    let listed = listings(&requests).await;
    let seen: Vec<(u64, bool)> = listed
        .iter()
        .map(|(id, list)| (*id, marked(list)))
        .collect();
    assert_eq!(seen, [(2, false), (3, true), (4, false)]);
    // SEP-1862's marker belongs to handshake sessions.
    let fetch = tool(&listed[0].1, "fetch");
    assert!(fetch.get("resolve").is_none(), "{fetch}");
    assert_eq!(fetch["dynamicAnnotations"], json!(true));
}

#[tokio::test]
async fn sessions_of_one_server_each_get_the_listing_of_their_own_stance() {
    // Clones of one `Annotated` share its tools (and their listings), as
    // rmcp's Streamable HTTP service's per-session factory makes them.
    let server = rmcp_support::fixtures::server();
    let took_up = [
        initialize(extension()),
        INITIALIZED.to_owned(),
        list(2, Value::Null),
    ];
    let declined = [
        INITIALIZE.to_owned(),
        INITIALIZED.to_owned(),
        list(2, Value::Null),
    ];
    let stateless = [list(2, modern(json!({}))), list(3, modern(extension()))];
    fn lines(requests: &[String]) -> Vec<&str> {
        requests.iter().map(String::as_str).collect()
    }
    let (took_up, declined, stateless) = (lines(&took_up), lines(&declined), lines(&stateless));
    let (first, second, third, fourth) = tokio::join!(
        raw_session_with(server.clone(), true, &took_up),
        raw_session_with(server.clone(), true, &declined),
        raw_session_with(server.clone(), true, &stateless),
        raw_session_with(server.clone(), true, &took_up),
    );
    let marks = |session: &[(u64, String)]| {
        // The listings only, not `initialize`'s answer.
        session
            .iter()
            .filter(|(id, _)| *id != 1)
            .map(|(id, line)| (*id, marked(&result(line))))
            .collect::<Vec<_>>()
    };
    assert_eq!(marks(&first), [(2, true)]);
    assert_eq!(marks(&second), [(2, false)]);
    assert_eq!(marks(&third), [(2, false), (3, true)]);
    assert_eq!(marks(&fourth), marks(&first));
    // The declining session keeps SEP-1862's marker, the other loses it.
    let declined = result(&second[1].1);
    assert_eq!(tool(&declined, "fetch")["resolve"], json!(true));
    let took_up = result(&first[1].1);
    assert!(
        tool(&took_up, "fetch").get("resolve").is_none(),
        "{took_up}"
    );
}
