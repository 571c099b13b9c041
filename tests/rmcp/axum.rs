//! `examples/rmcp_axum.rs` over HTTP on loopback: its `/health` route answers
//! beside MCP, and rmcp's own client, in both lifecycles, lists the router's
//! `count_notes` beside the annotated `notes`, resolves a call of `notes`,
//! and calls both tools, which share the server's state. The raw listing
//! carries the lifted markers. tests/interop/run.sh drives the same example
//! with the Python and TypeScript SDKs.

use crate::rmcp_support;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use annot::protocol::TOOL_RESOLUTION_EXTENSION;
use annot::rmcp::LIFT_META;
use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp_support::client::{Client, custom};
use rmcp_support::example;
use serde_json::{Value, json};

/// Generous for a debug build on a loaded machine; a hang fails instead.
const BOUND: Duration = Duration::from_secs(90);

/// The example on an ephemeral port, killed on drop, and its MCP URL.
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start() -> Self {
        let mut child = Command::new(example("rmcp_axum"))
            .arg("127.0.0.1:0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the example");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the URL");
        let url = line.trim().to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "{url}"
        );
        Served { child, url }
    }

    fn health_url(&self) -> String {
        self.url.replace("/mcp", "/health")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn call(client: &RunningService<RoleClient, Client>, name: &str, arguments: Value) -> String {
    let mut request = CallToolRequestParams::new(name.to_owned());
    request.arguments = arguments.as_object().cloned();
    let result = client.call_tool(request).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    result.content[0].as_text().expect("text").text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotated_tools_beside_a_health_route_and_the_routers_own_tool() {
    let served = Served::start();
    let session = async {
        let health = reqwest::get(served.health_url())
            .await
            .expect("GET /health");
        assert!(health.status().is_success(), "{}", health.status());
        assert_eq!(health.text().await.expect("body"), "ok");

        for (index, client) in Client::ALL.into_iter().enumerate() {
            let transport = StreamableHttpClientTransport::from_uri(served.url.as_str());
            let client = client.connect(transport).await;
            let names: Vec<String> = (client.list_all_tools().await.expect("tools/list"))
                .into_iter()
                .map(|tool| tool.name.into_owned())
                .collect();
            assert_eq!(names, ["notes", "count_notes"]);

            let title = format!("note {index}");
            let write = json!({"action": "write", "title": title, "text": "hello"});
            let extension = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
            let resolved = custom(
                &client,
                "tools/resolve",
                json!({"name": "notes", "arguments": write}),
                Some(extension),
            )
            .await
            .expect("tools/resolve");
            assert_eq!(
                resolved["annotations"]["destructiveHint"],
                json!(true),
                "{resolved}"
            );
            let read = json!({"action": "read", "title": title});
            let resolved = custom(
                &client,
                "tools/resolve",
                json!({"name": "notes", "arguments": read}),
                Some(json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}})),
            )
            .await
            .expect("tools/resolve");
            assert_eq!(
                resolved["annotations"]["readOnlyHint"],
                json!(true),
                "{resolved}"
            );

            assert_eq!(
                call(&client, "notes", write).await,
                format!("wrote `{title}`")
            );
            assert_eq!(call(&client, "notes", read).await, "hello");
            // The router's tool sees what the annotated one wrote.
            let count = call(&client, "count_notes", json!({})).await;
            assert_eq!(count, (index + 1).to_string());
            client.cancel().await.expect("close the session");
        }
    };
    tokio::time::timeout(BOUND, session)
        .await
        .expect("the session finished in time");
}

/// The raw `tools/list` of a legacy session: rmcp's client types drop the
/// lifted fields, so the body is read as the server wrote it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_carries_the_lifted_markers_over_axum() {
    let served = Served::start();
    let session = async {
        let http = reqwest::Client::new();
        let post = |body: Value, session: Option<String>| {
            let mut request = http
                .post(&served.url)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .header("mcp-protocol-version", "2025-11-25")
                .body(body.to_string());
            if let Some(session) = session {
                request = request.header("mcp-session-id", session);
            }
            request.send()
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}});
        let answer = post(initialize, None).await.expect("initialize");
        let session = answer
            .headers()
            .get("mcp-session-id")
            .map(|id| id.to_str().expect("ascii").to_owned());
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(initialized, session.clone())
            .await
            .expect("initialized");
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let body = post(list, session).await.expect("tools/list");
        let body = body.text().await.expect("body");
        let listed = message(&body);
        let tools = listed["result"]["tools"].as_array().expect("tools");
        let notes = &tools[0];
        assert_eq!(notes["name"], "notes", "{listed}");
        assert_eq!(notes["resolve"], json!(true), "{notes}");
        assert_eq!(notes["dynamicAnnotations"], json!(true), "{notes}");
        assert!(notes["_meta"].get(LIFT_META).is_none(), "{notes}");
        assert_eq!(tools[1]["name"], "count_notes", "{listed}");
        assert_eq!(tools[1]["annotations"]["readOnlyHint"], json!(true));
    };
    tokio::time::timeout(BOUND, session)
        .await
        .expect("the session finished in time");
}

/// The one JSON-RPC message of a response body, plain JSON or an event stream.
fn message(body: &str) -> Value {
    let text = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| !data.is_empty())
        .unwrap_or(body);
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {body}"))
}
