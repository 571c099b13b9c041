//! The whole client flow through JSON-RPC bytes: `initialize`, `tools/list`,
//! preflight, policy and session, against a scripted server that resolves a
//! file tool per action. Shows the confirmations resolution saves.

use annot::Tool;
use annot::client::{
    AnnotationSource, ClientExtension, JsonRpcRequester, Policy, ProposedCall, Requester,
    ResolutionSupport, Session, Strength, Trust, Verdict,
};
use annot::protocol::{Dialect, TOOL_RESOLUTION_EXTENSION};
use serde_json::{Map, Value, json};

/// The hints of each action of the scripted `files` tool.
fn action_hints(action: &str) -> Option<Value> {
    Some(match action {
        "read" => json!({"readOnlyHint": true, "destructiveHint": false,
                         "idempotentHint": true, "openWorldHint": false}),
        "append" => json!({"readOnlyHint": false, "destructiveHint": false,
                           "idempotentHint": false, "openWorldHint": false}),
        "delete" => json!({"readOnlyHint": false, "destructiveHint": true,
                           "idempotentHint": true, "openWorldHint": false}),
        _ => return None,
    })
}

/// A scripted server offering dialect B and the extension (C), answering C only
/// to a client that took the extension up in `initialize`.
fn scripted_server(message: &[u8]) -> Option<Vec<u8>> {
    let request: Value = serde_json::from_slice(message).ok()?;
    let id = request.get("id")?.clone();
    let params = &request["params"];
    let outcome: Result<Value, Value> = match request["method"].as_str()? {
        "initialize" => Ok(json!({
            "protocolVersion": "2025-11-25",
            "serverInfo": {"name": "scripted", "version": "0"},
            "capabilities": {
                "tools": {"resolve": true},
                "extensions": {TOOL_RESOLUTION_EXTENSION: {}}
            }
        })),
        "tools/list" => Ok(json!({"tools": [{
            "name": "files",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": false, "destructiveHint": true,
                            "idempotentHint": false, "openWorldHint": false},
            "resolve": true,
            "_meta": {TOOL_RESOLUTION_EXTENSION: {"resolvable": true}}
        }]})),
        "tools/resolve" => match action_hints(params["arguments"]["action"].as_str()?) {
            Some(hints) => Ok(json!({
                "resultType": "complete",
                "name": params["name"],
                "annotations": hints
            })),
            None => Err(json!({"code": -32602, "message": "unknown action"})),
        },
        _ => Err(json!({"code": -32601, "message": "Method not found"})),
    };
    let response = match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    };
    Some(response.to_string().into_bytes())
}

fn arguments(action: &str) -> Map<String, Value> {
    json!({"action": action, "path": "notes.txt"})
        .as_object()
        .unwrap()
        .clone()
}

#[test]
fn resolution_saves_confirmations_end_to_end() {
    let mut requester = JsonRpcRequester::new(scripted_server);
    let initialize = requester
        .request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "clientInfo": {"name": "test", "version": "0"},
                "capabilities": {"extensions": {TOOL_RESOLUTION_EXTENSION: {}}}
            }),
        )
        .unwrap();
    requester
        .notify("notifications/initialized", json!({}))
        .unwrap();
    let support =
        ResolutionSupport::from_initialize_result(&initialize, ClientExtension::Initialize);
    let listed = requester.request("tools/list", json!({})).unwrap();
    let tools: Vec<Tool> = serde_json::from_value(listed["tools"].clone()).unwrap();
    let files = &tools[0];

    let policy = Policy::default();
    let session = Session::default();
    let mut with = Vec::new();
    let mut without = Vec::new();
    for action in ["read", "append", "delete", "read"] {
        let arguments = arguments(action);
        let preflight = support
            .preflight(&mut requester, files, &arguments)
            .unwrap();
        assert_eq!(
            preflight.source,
            AnnotationSource::Resolved(Dialect::ToolResolutionExtension)
        );
        let resolved = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        let listed_only =
            ProposedCall::new("files", &arguments, preflight.declared, Trust::Trusted);
        with.push(
            session
                .review(&resolved, policy.decide(&resolved))
                .verdict(),
        );
        without.push(
            session
                .review(&listed_only, policy.decide(&listed_only))
                .verdict(),
        );
    }
    let normal = Verdict::Confirm(Strength::Normal);
    assert_eq!(with, [Verdict::Allow, normal, normal, Verdict::Allow]);
    assert_eq!(without, [normal; 4]);

    // An action the server does not know is surfaced, not confirmed.
    let error = support
        .preflight(&mut requester, files, &arguments("shred"))
        .unwrap_err();
    assert!(error.to_string().contains("unknown action"), "{error}");
}

#[test]
fn a_client_without_the_extension_falls_back_when_the_server_insists() {
    // The client did not offer the extension, so the preflight uses dialect B;
    // this scripted server answers in C's shape regardless, which is malformed.
    let mut requester = JsonRpcRequester::new(scripted_server);
    let initialize = requester
        .request("initialize", json!({"capabilities": {}}))
        .unwrap();
    let support =
        ResolutionSupport::from_initialize_result(&initialize, ClientExtension::NotOffered);
    let listed = requester.request("tools/list", json!({})).unwrap();
    let tools: Vec<Tool> = serde_json::from_value(listed["tools"].clone()).unwrap();
    let preflight = support
        .preflight(&mut requester, &tools[0], &arguments("read"))
        .unwrap();
    assert!(
        matches!(
            preflight.source,
            AnnotationSource::Fallback {
                dialect: Dialect::ResolveTool,
                ..
            }
        ),
        "{}",
        preflight.source
    );
    assert!(!preflight.annotations().is_read_only());
}
