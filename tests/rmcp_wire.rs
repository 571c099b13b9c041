//! What reaches the wire when rmcp serves annotated tools: the JSON itself, read
//! raw, over an rmcp stdio-style stream and through rmcp's Streamable HTTP
//! service. rmcp's own types have no field for the SEP-1984 hints, the
//! `resolve` / `dynamicAnnotations` markers or the matching capabilities; these
//! tests show they arrive where the protocol puts them once lifted, and under
//! `_meta["dev.annot/lift"]` when served without the lift.

mod rmcp_support;

use std::sync::Arc;
use std::time::Duration;

use annot::rmcp::{Annotated, AnnotatedTools, HandleTool, LIFT_META, LiftHttp, lifted};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as RmcpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use rmcp_support::manage_files::ManageFiles;
use rmcp_support::{MCP_SCHEMA, assert_valid};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A tool whose actions carry SEP-1984 hints.
#[derive(Debug)]
enum Fetch {
    Get,
    Post,
}

const GET: Annotations = Annotations::new()
    .read_only(true)
    .open_world(true)
    .sensitive_data(false)
    .effective();
const POST: Annotations = Annotations::new()
    .destructive(false)
    .open_world(true)
    .ai_processing(true)
    .slow_execution(true)
    .resource_intensive(false)
    .sensitive_data(true)
    .privileged_access(true)
    .reversible(false)
    .effective();

impl AnnotatedTool for Fetch {
    const NAME: &'static str = "fetch";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = Some("GET or POST a URL.");
    const DISCRIMINATOR: &'static str = "method";
    const ACTIONS: &'static [Action] = &[
        Action {
            name: "get",
            annotations: GET,
        },
        Action {
            name: "post",
            annotations: POST,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations = Annotations::join_all(&[GET, POST]);

    fn input_schema() -> &'static str {
        r#"{"type":"object","properties":{"method":{"type":"string","enum":["get","post"]}},"required":["method"]}"#
    }

    fn resolve(&self) -> Annotations {
        match self {
            Fetch::Get => GET,
            Fetch::Post => POST,
        }
    }

    fn from_arguments(arguments: &Value) -> Result<Self, ArgumentError> {
        match arguments.get("method").and_then(Value::as_str) {
            Some("get") => Ok(Fetch::Get),
            Some("post") => Ok(Fetch::Post),
            Some(other) => Err(ArgumentError::UnknownAction {
                field: "method".into(),
                found: other.into(),
                expected: &["get", "post"],
            }),
            None => Err(ArgumentError::MissingField {
                field: "method".into(),
            }),
        }
    }
}

/// A server with a tool of its own in rmcp's tool router, beside the annotated
/// ones: the router is what `#[tool_router]` and `#[tool_handler]` build.
#[derive(Clone)]
struct Server {
    router: ToolRouter<Server>,
}

impl Server {
    fn new() -> Self {
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        let echo = RmcpTool::new("echo", "Echo the tool's name.", schema);
        let mut router = ToolRouter::new();
        router.add_route(ToolRoute::new_dyn(
            echo,
            |context: ToolCallContext<'_, Server>| {
                let name = context.name().to_owned();
                Box::pin(async move {
                    Ok(CallToolResult::success(vec![ContentBlock::text(name)]).into())
                })
            },
        ));
        Server { router }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.router
            .call(ToolCallContext::new(self, request, context))
            .await
    }

    fn get_tool(&self, name: &str) -> Option<RmcpTool> {
        self.router.get(name).cloned()
    }
}

impl HandleTool<Fetch> for Server {
    async fn handle(
        &self,
        tool: Fetch,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{tool:?}"
        ))]))
    }
}

impl HandleTool<ManageFiles> for Server {
    async fn handle(
        &self,
        _tool: ManageFiles,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        panic!("a handler that panics");
    }
}

fn server() -> Annotated<Server> {
    let tools = AnnotatedTools::new()
        .with::<Fetch>()
        .and_then(|tools| tools.with::<ManageFiles>())
        .expect("valid tools");
    Annotated::new(Server::new(), tools)
}

/// `fetch` exactly as annot lists it: every hint in `annotations`, every marker.
fn expected_fetch() -> Value {
    json!({
        "name": "fetch",
        "description": "GET or POST a URL.",
        "inputSchema": {
            "type": "object",
            "properties": {"method": {"type": "string", "enum": ["get", "post"]}},
            "required": ["method"]
        },
        "annotations": {
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": false,
            "openWorldHint": true,
            "aiProcessingHint": true,
            "slowExecutionHint": true,
            // GET makes no claim about resources, so the worst case makes none.
            "sensitiveDataHint": true,
            "privilegedAccessHint": true,
            "reversibleHint": false
        },
        "dynamicAnnotations": true,
        "resolve": true,
        "_meta": {"io.modelcontextprotocol/tool-resolution": {"resolvable": true}}
    })
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

/// Runs `server` over an in-memory byte stream (what stdio carries), sends
/// `requests` as JSON lines and returns the responses by id, as raw text.
async fn raw_session(lift: bool, requests: &[&str]) -> Vec<(u64, String)> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    let running = tokio::spawn(async move {
        let running = if lift {
            server().serve(lifted(server_side)).await
        } else {
            server().serve(server_side).await
        };
        running.expect("initialize").waiting().await.expect("serve");
    });
    let (read, mut write) = tokio::io::split(client_side);
    let mut lines = BufReader::new(read).lines();
    let mut responses = Vec::new();
    for request in requests {
        write.write_all(request.as_bytes()).await.unwrap();
        write.write_all(b"\n").await.unwrap();
        let Some(id) = serde_json::from_str::<Value>(request).unwrap()["id"].as_u64() else {
            continue;
        };
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("answered in time")
            .unwrap()
            .expect("a line");
        let message: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(message["id"], id, "{line}");
        responses.push((id, line));
    }
    drop(write);
    running.abort();
    responses
}

fn result(line: &str) -> Value {
    serde_json::from_str::<Value>(line).unwrap()["result"].take()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} listed in {list}"))
}

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
    assert_eq!(tool(&list, "fetch"), &expected_fetch());
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
    assert_eq!(tool(&lifted_list, "fetch"), &expected_fetch());
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
        assert_eq!(tool(&response["result"], "fetch"), &expected_fetch());
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
