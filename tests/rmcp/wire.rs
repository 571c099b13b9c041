//! What reaches the wire when rmcp serves annotated tools: the JSON itself, read
//! raw, over an rmcp stdio-style stream and through rmcp's Streamable HTTP
//! service. rmcp's own types have no field for the SEP-1984 hints, the
//! `resolve` / `dynamicAnnotations` markers or the matching capabilities; these
//! tests show they arrive where the protocol puts them once lifted, and under
//! `_meta["dev.annot/lift"]` when served without the lift.

use crate::rmcp_support;
use std::sync::Arc;
use std::time::Duration;

use annot::Hint;
use annot::rmcp::{Annotated, LIFT_META, LiftHttp};
use rmcp_support::expected::{fetch_listed, manage_files_listed, manage_files_tool};
use rmcp_support::fixtures::{
    INITIALIZE, INITIALIZED, LIST, Server, raw_session, result, server, tool,
};
use rmcp_support::reference;
use rmcp_support::{MCP_SCHEMA, assert_valid};
use serde_json::{Value, json};

#[tokio::test]
async fn lifted_stream_puts_hints_markers_and_capabilities_in_place() {
    let responses = raw_session(true, &[INITIALIZE, INITIALIZED, LIST]).await;
    for (_, line) in &responses {
        assert!(!line.contains(LIFT_META), "{line}");
    }
    let initialize = result(&responses[0].1);
    let capabilities = &initialize["capabilities"];
    assert_eq!(capabilities["tools"]["resolve"], json!(true));
    assert_eq!(capabilities["tools"]["dynamicAnnotations"], json!(true));
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/tool-resolution"],
        json!({})
    );

    assert_valid(MCP_SCHEMA, "InitializeResult", &initialize);

    let list = result(&responses[1].1);
    assert_valid(MCP_SCHEMA, "ListToolsResult", &list);
    assert_eq!(tool(&list, "fetch"), &fetch_listed());
    let names: Vec<&Value> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(
        names,
        [&json!("fetch"), &json!("manage_files"), &json!("echo")]
    );
    let echo = tool(&list, "echo");
    assert!(
        echo.get("resolve").is_none() && echo.get("_meta").is_none(),
        "{echo}"
    );
}

/// `server/discover` of 2026-07-28, before any `initialize`.
const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}"#;

#[tokio::test]
async fn discovery_declares_every_dialect_too() {
    let responses = raw_session(true, &[DISCOVER]).await;
    let discovered = result(&responses[0].1);
    assert!(!responses[0].1.contains(LIFT_META), "{}", responses[0].1);
    assert!(
        discovered["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28")),
        "{discovered}"
    );
    let capabilities = &discovered["capabilities"];
    assert_eq!(capabilities["tools"]["resolve"], json!(true));
    assert_eq!(capabilities["tools"]["dynamicAnnotations"], json!(true));
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/tool-resolution"],
        json!({})
    );
}

#[tokio::test]
async fn without_the_lift_everything_still_reaches_the_wire_under_meta() {
    let responses = raw_session(false, &[INITIALIZE, INITIALIZED, LIST]).await;
    let initialize = result(&responses[0].1);
    assert!(initialize["capabilities"]["tools"].get("resolve").is_none());
    assert_eq!(
        initialize["_meta"][LIFT_META],
        json!({"capabilities": {"tools": {"resolve": true, "dynamicAnnotations": true}}})
    );
    let list = result(&responses[1].1);
    let fetch = tool(&list, "fetch");
    assert!(fetch.get("resolve").is_none());
    let carried = &fetch["_meta"][LIFT_META];
    assert_eq!(carried["resolve"], json!(true));
    assert_eq!(carried["dynamicAnnotations"], json!(true));
    assert_eq!(carried["annotations"]["privilegedAccessHint"], json!(true));
    assert_eq!(carried["annotations"]["reversibleHint"], json!(false));
    // rmcp's own annotations hold the core hints.
    assert_eq!(fetch["annotations"]["readOnlyHint"], json!(false));
    assert!(fetch["annotations"].get("sensitiveDataHint").is_none());
    // Lifting the raw result gives exactly annot's listing.
    let mut lifted_list = list.clone();
    assert!(annot::rmcp::lift_result(&mut lifted_list));
    assert_eq!(tool(&lifted_list, "fetch"), &fetch_listed());
}

#[tokio::test]
async fn calls_reach_the_right_handler_and_a_panic_is_an_error() {
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    let requests = [
        INITIALIZE.to_owned(),
        INITIALIZED.to_owned(),
        call(3, "fetch", json!({"method": "post"})),
        call(4, "echo", json!({})),
        call(5, "manage_files", json!({"action": "read", "path": "a"})),
        call(6, "fetch", json!({"method": "put"})),
        call(7, "fetch", json!({"method": "get"})),
    ];
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let responses = raw_session(true, &requests).await;
    let text = |line: &str| result(line)["content"][0]["text"].clone();
    assert_eq!(text(&responses[1].1), json!("Post"));
    assert_eq!(text(&responses[2].1), json!("echo"));
    // A panic and arguments that do not fit are tool errors, as in the
    // built-in server; the handler did not run for the latter.
    let panicked = result(&responses[3].1);
    assert_eq!(panicked["isError"], json!(true), "{panicked}");
    assert_eq!(
        panicked["content"][0]["text"],
        json!("internal error: the tool `manage_files` failed unexpectedly")
    );
    let unknown = result(&responses[4].1);
    assert_eq!(unknown["isError"], json!(true), "{unknown}");
    assert!(
        unknown["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("invalid arguments: unknown method `put`"),
        "{unknown}"
    );
    // The server kept serving after the panic.
    assert_eq!(text(&responses[5].1), json!("Get"));
}

/// The hints of `annotations` on the wire agree with the hand-written resolver
/// of `manage_files` for `arguments`: every hint of `hints` present exactly
/// when the resolver has a value for it, and equal to it.
fn agrees_with_reference(annotations: &Value, arguments: &Value, hints: &[Hint]) {
    let resolved = reference::manage_files(arguments);
    for hint in hints {
        assert_eq!(
            annotations.get(hint.wire_name()),
            resolved.get(*hint).map(Value::Bool).as_ref(),
            "{hint} in {annotations} for {arguments}"
        );
    }
}

/// rmcp serving `manage_files` answers each dialect and each bad request as the
/// protocol says: literal answers, derived by hand from the tool's declaration,
/// and the hints checked against the hand-written resolver as well.
#[tokio::test]
async fn rmcp_answers_each_dialect_as_the_protocol_says() {
    let resolve = |id: u64, method: &str, arguments: &Value, meta: Value| {
        let mut params = json!({"name": "manage_files", "arguments": arguments});
        if !meta.is_null() {
            params["_meta"] = meta;
        }
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    let system_read = json!({"action": "read", "path": "/etc/passwd"});
    let notes_read = json!({"action": "read", "path": "notes.txt"});
    let negotiated = json!({"io.modelcontextprotocol/clientCapabilities":
        {"extensions": {"io.modelcontextprotocol/tool-resolution": {}, "dev.annot/resolution": {}}}});
    let mut explained = negotiated.clone();
    explained["dev.annot/resolution"] = json!({"explain": true});
    let requests = [
        INITIALIZE.to_owned(),
        INITIALIZED.to_owned(),
        LIST.to_owned(),
        resolve(3, "tools/annotations", &system_read, Value::Null),
        resolve(4, "tools/resolve", &system_read, Value::Null),
        resolve(5, "tools/resolve", &system_read, negotiated),
        resolve(6, "tools/resolve", &system_read, explained),
        resolve(
            7,
            "tools/resolve",
            &notes_read,
            json!({"dev.annot/resolution": {"explain": true}}),
        ),
        resolve(8, "tools/resolve", &json!({"action": "read"}), Value::Null),
        resolve(
            9,
            "tools/resolve",
            &json!({"action": "shred", "path": "a"}),
            Value::Null,
        ),
        resolve(10, "tools/resolve", &json!("not an object"), Value::Null),
        json!({"jsonrpc": "2.0", "id": 11, "method": "tools/annotations",
               "params": {"name": "nope", "arguments": {}}})
        .to_string(),
    ];
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let responses = raw_session(true, &requests).await;
    let ids: Vec<u64> = responses.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        (1..=11).collect::<Vec<u64>>(),
        "one answer per request"
    );
    let answer = |id: u64| -> Value {
        let (_, line) = responses.iter().find(|(i, _)| *i == id).unwrap();
        let message: Value = serde_json::from_str(line).unwrap();
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        assert_eq!(message["id"], id, "{message}");
        message
    };

    let initialized = answer(1);
    assert_eq!(
        initialized["result"]["capabilities"],
        json!({
            "tools": {"resolve": true, "dynamicAnnotations": true},
            "extensions": {
                "io.modelcontextprotocol/tool-resolution": {},
                "dev.annot/resolution": {},
                "io.modelcontextprotocol/trust-annotations": {}
            }
        })
    );
    assert_eq!(initialized["result"]["protocolVersion"], "2025-11-25");

    // rmcp lists the router's own `echo` too, unmarked.
    let listed = answer(2);
    assert_eq!(
        tool(&listed["result"], "manage_files"),
        &manage_files_listed()
    );
    assert_eq!(
        tool(&listed["result"], "echo"),
        &json!({"name": "echo", "description": "Echo the tool's name.",
                "inputSchema": {"type": "object"}})
    );

    // A system path: read-only (so not destructive, idempotent), closed world
    // from the tool's default, and the path rule's two SEP-1984 hints; the
    // action's title. Dialect A: `{ annotations }`.
    let system_hints = json!({
        "title": "Read a file",
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false,
        "sensitiveDataHint": true,
        "privilegedAccessHint": true
    });
    let dynamic = answer(3);
    assert_eq!(dynamic["result"], json!({"annotations": system_hints}));
    agrees_with_reference(&dynamic["result"]["annotations"], &system_read, &Hint::ALL);

    // Dialect B, the extension not negotiated: `{ tool }`.
    assert_eq!(
        answer(4)["result"],
        json!({"tool": manage_files_tool(system_hints)})
    );

    // Dialect C, negotiated on the request: the four core booleans only.
    let core = json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
    });
    let extension = answer(5);
    assert_eq!(
        extension["result"],
        json!({"resultType": "complete", "name": "manage_files", "annotations": core})
    );
    agrees_with_reference(
        &extension["result"]["annotations"],
        &system_read,
        &Hint::CORE,
    );

    // Dialect C with the explanation the request negotiated: which rule fired
    // and where each hint came from.
    let unclaimed = json!({"source": "specificationDefault", "value": null});
    let explanation = |rule_hint: Value, rules: Value| {
        json!({
            "action": "read",
            "hints": {
                "readOnlyHint": {"source": "action", "value": true},
                "destructiveHint": {"source": "readOnly", "value": false},
                "idempotentHint": {"source": "readOnly", "value": true},
                "openWorldHint": {"source": "toolDefault", "value": false},
                "aiProcessingHint": unclaimed,
                "slowExecutionHint": unclaimed,
                "resourceIntensiveHint": unclaimed,
                "sensitiveDataHint": rule_hint,
                "privilegedAccessHint": rule_hint,
                "reversibleHint": {"source": "readOnly", "value": null}
            },
            "rules": rules
        })
    };
    assert_eq!(
        answer(6)["result"],
        json!({
            "resultType": "complete",
            "name": "manage_files",
            "annotations": core,
            "_meta": {"dev.annot/resolution": explanation(
                json!({"source": "rules", "value": true, "rules": [0]}),
                json!([{"index": 0, "rule": "when(path path_matches \
                    \"^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)\") \
                    => (sensitive_data, privileged_access)"}]),
            )}
        })
    );

    // Dialect B asked for an explanation: no rule fires on `notes.txt`, so the
    // two SEP-1984 hints keep the tool's defaults (false).
    let notes = answer(7);
    assert_eq!(
        notes["result"],
        json!({
            "tool": manage_files_tool(json!({
                "title": "Read a file",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false,
                "sensitiveDataHint": false,
                "privilegedAccessHint": false
            })),
            "_meta": {"dev.annot/resolution": explanation(
                json!({"source": "toolDefault", "value": false}),
                json!([]),
            )}
        })
    );
    agrees_with_reference(
        &notes["result"]["tool"]["annotations"],
        &notes_read,
        &Hint::ALL,
    );

    // Bad arguments and unknown tools: -32602 naming what was wrong and where.
    let invalid = |id: u64, message: &str, data: Value| {
        assert_eq!(
            answer(id)["error"],
            json!({"code": -32602, "message": message, "data": data}),
            "request {id}"
        );
    };
    invalid(
        8,
        "invalid arguments for `manage_files`: missing field `path`",
        json!({"name": "manage_files", "path": "path", "reason": "missing field `path`"}),
    );
    let shred = "unknown action `shred`, expected one of `read`, `append`, `replace`, `delete`";
    invalid(
        9,
        &format!("invalid arguments for `manage_files`: {shred}"),
        json!({"name": "manage_files", "path": "action", "reason": shred}),
    );
    invalid(
        10,
        "`arguments` must be an object, found string",
        json!({"path": "arguments"}),
    );
    invalid(11, "unknown tool `nope`", json!({"name": "nope"}));
}

mod http {
    //! rmcp's Streamable HTTP service wrapped in `LiftHttp`, called in process.

    use super::*;
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use tower_service::Service as _;

    type Lifted = LiftHttp<StreamableHttpService<Annotated<Server>, LocalSessionManager>>;

    fn service(config: StreamableHttpServerConfig) -> Lifted {
        let server = server();
        LiftHttp::new(StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        ))
    }

    /// POSTs one message; returns the session id header and every JSON-RPC
    /// message of the body (one JSON document, or the `data:` lines of an event
    /// stream up to the response).
    async fn post(
        service: &mut Lifted,
        session: Option<&str>,
        body: &str,
    ) -> (Option<String>, Vec<Value>) {
        let mut request = ::http::Request::post("http://127.0.0.1/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_owned())))
            .unwrap();
        let response = service.call(request).await.unwrap();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|value| value.to_str().unwrap().to_owned());
        let json = response
            .headers()
            .get("content-type")
            .is_none_or(|value| value.to_str().unwrap().starts_with("application/json"));
        let mut body = response.into_body();
        let mut text = String::new();
        let mut messages = Vec::new();
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(20), body.frame())
                .await
                .expect("body frame in time");
            let Some(frame) = frame else { break };
            text.push_str(std::str::from_utf8(&frame.unwrap().into_data().unwrap()).unwrap());
            if json {
                continue;
            }
            messages = text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .collect();
            if messages.iter().any(|message| message.get("id").is_some()) {
                break;
            }
        }
        if json && !text.is_empty() {
            messages.push(serde_json::from_str(&text).unwrap());
        }
        (session, messages)
    }

    fn check_listing(messages: &[Value]) {
        let response = messages
            .iter()
            .find(|message| message["id"] == 2)
            .expect("tools/list answered");
        assert!(!response.to_string().contains(LIFT_META), "{response}");
        assert_valid(MCP_SCHEMA, "ListToolsResult", &response["result"]);
        assert_eq!(tool(&response["result"], "fetch"), &fetch_listed());
    }

    #[tokio::test]
    async fn stateful_sessions_stream_lifted_events() {
        let mut service = service(StreamableHttpServerConfig::default());
        let (session, messages) = post(&mut service, None, INITIALIZE).await;
        let session = session.expect("a session id");
        let capabilities = &messages[0]["result"]["capabilities"];
        assert_eq!(capabilities["tools"]["resolve"], json!(true));
        assert_eq!(capabilities["tools"]["dynamicAnnotations"], json!(true));
        post(&mut service, Some(&session), INITIALIZED).await;
        let (_, messages) = post(&mut service, Some(&session), LIST).await;
        check_listing(&messages);
    }

    #[tokio::test]
    async fn stateless_json_responses_are_lifted() {
        let mut config = StreamableHttpServerConfig::default();
        config.legacy_session_mode = false;
        config.json_response = true;
        let mut service = service(config);
        let (_, messages) = post(&mut service, None, LIST).await;
        check_listing(&messages);
    }
}
