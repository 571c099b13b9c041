//! What the rmcp adapter relies on that rmcp does not promise, asked of rmcp
//! itself with plain handlers (no annot inside), so a change in rmcp fails
//! here by name. docs/rmcp.md lists each; tests/rmcp_versions.sh runs this
//! file against both ends of the supported rmcp range.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use annot::protocol::{CLIENT_CAPABILITIES_META, PROTOCOL_VERSION_META};
use rmcp::model::{
    CustomRequest, CustomResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Serves `handler` on rmcp's own byte-stream transport, writes `lines` and
/// returns one answer line per line that has an `id`.
async fn exchange<H: ServerHandler>(handler: H, lines: &[String]) -> Vec<String> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    let running = tokio::spawn(async move {
        if let Ok(running) = handler.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_side);
    let mut answers = BufReader::new(read).lines();
    let mut read = Vec::new();
    for line in lines {
        write.write_all(line.as_bytes()).await.unwrap();
        write.write_all(b"\n").await.unwrap();
        if serde_json::from_str::<Value>(line)
            .unwrap()
            .get("id")
            .is_none()
        {
            continue;
        }
        let answer = tokio::time::timeout(Duration::from_secs(20), answers.next_line())
            .await
            .expect("answered in time")
            .unwrap()
            .expect("a line");
        read.push(answer);
    }
    running.abort();
    read
}

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn handshake_then(lines: &[String]) -> Vec<String> {
    let mut all = vec![INITIALIZE.to_owned(), INITIALIZED.to_owned()];
    all.extend_from_slice(lines);
    all
}

fn parsed(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// Answers every custom request with what reached it.
#[derive(Clone)]
struct Hook;

impl ServerHandler for Hook {
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Ok(CustomResult(json!({
            "method": request.method,
            "params": request.params,
            "meta": serde_json::to_value(&context.meta).unwrap(),
        })))
    }
}

#[tokio::test]
async fn a_custom_request_reaches_the_hook_with_its_meta_moved() {
    let params = json!({"name": "t", "arguments": {"a": [1, null]}, "_meta": {"k": "v"}});
    let lines = handshake_then(&[
        request(2, "tools/resolve", params),
        request(3, "tools/annotations", json!({"name": "t"})),
    ]);
    let answers = exchange(Hook, &lines).await;
    assert_eq!(
        parsed(&answers[1])["result"],
        json!({
            "method": "tools/resolve",
            "params": {"name": "t", "arguments": {"a": [1, null]}},
            "meta": {"k": "v"},
        }),
        "{}",
        answers[1]
    );
    assert_eq!(parsed(&answers[2])["result"]["method"], "tools/annotations");
}

/// Answers every custom request with one fixed value.
#[derive(Clone)]
struct Fixed;

/// Nested objects, an empty one, `null`, a float, keys out of order: what a
/// lifted `tools/list` result holds.
const FIXED: &str = r#"{"tools":[{"name":"t","resolve":true,"annotations":{"readOnlyHint":false,"sensitiveDataHint":null},"inputSchema":{"type":"object"},"zeta":{},"alpha":1.5}],"nextCursor":"c"}"#;

impl ServerHandler for Fixed {
    async fn on_custom_request(
        &self,
        _: CustomRequest,
        _: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Ok(CustomResult(serde_json::from_str(FIXED).unwrap()))
    }
}

#[tokio::test]
async fn a_custom_result_is_written_verbatim() {
    let answers = exchange(Fixed, &handshake_then(&[request(2, "x/y", json!({}))])).await;
    let answer = parsed(&answers[1]);
    assert_eq!(answer["result"], parsed(FIXED), "{}", answers[1]);
    // No field of rmcp's own added or taken away, whatever the result's shape.
    assert_eq!(
        answer.as_object().map(|o| o.len()),
        Some(3),
        "{}",
        answers[1]
    );
}

/// What `list_tools` saw of one request: the context's `_meta`, whether the
/// capabilities in it decode, and the session's protocol version.
type Sighting = (Value, bool, Option<String>);

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Sighting>>>);

impl ServerHandler for Seen {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let meta = serde_json::to_value(&context.meta).unwrap();
        let decoded = context.meta.client_capabilities().is_some();
        let session = context
            .peer
            .peer_info()
            .map(|info| info.protocol_version.to_string());
        self.0.lock().unwrap().push((meta, decoded, session));
        Ok(ListToolsResult::default())
    }
}

#[tokio::test]
async fn request_meta_and_peer_info_reach_the_handler() {
    let capabilities = json!({"extensions": {"io.example/x": {}}});
    let per_request = json!({ CLIENT_CAPABILITIES_META: capabilities });
    let seen = Seen::default();
    let handshake = handshake_then(&[request(2, "tools/list", json!({"_meta": per_request}))]);
    exchange(seen.clone(), &handshake).await;

    let modern = json!({
        PROTOCOL_VERSION_META: "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        CLIENT_CAPABILITIES_META: capabilities,
    });
    exchange(
        seen.clone(),
        &[request(5, "tools/list", json!({"_meta": modern}))],
    )
    .await;

    let seen = seen.0.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            (per_request, true, Some("2025-11-25".to_owned())),
            (modern, true, None),
        ]
    );
}

/// rmcp's defaults, nothing overridden.
#[derive(Clone)]
struct Bare;

impl ServerHandler for Bare {}

/// rmcp's defaults with the `tools` capability declared.
#[derive(Clone)]
struct Declared;

impl ServerHandler for Declared {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::test]
async fn the_defaults_of_a_handler_without_tools() {
    let call = request(2, "tools/call", json!({"name": "t", "arguments": {}}));
    let list = request(3, "tools/list", json!({}));
    let lines = handshake_then(&[call, list]);
    for answers in [
        exchange(Bare, &lines).await,
        exchange(Declared, &lines).await,
    ] {
        // The adapter turns this into -32602 "unknown tool".
        assert_eq!(
            parsed(&answers[1])["error"]["code"],
            -32601,
            "{}",
            answers[1]
        );
        // The adapter reads either as "no tools of the handler's own".
        let listed = parsed(&answers[2]);
        let empty = listed["result"] == json!({"tools": []});
        let not_found = listed["error"]["code"] == -32601;
        assert!(empty || not_found, "{listed}");
    }
    // A handler that declares tools keeps the empty list on every version.
    let declared = exchange(Declared, &lines).await;
    assert_eq!(parsed(&declared[2])["result"], json!({"tools": []}));
}
