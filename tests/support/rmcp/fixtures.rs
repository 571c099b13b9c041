//! What the rmcp wire tests serve: a tool with SEP-1984 hints, `manage_files`,
//! a server with a tool of its own in rmcp's router, and a raw client that
//! speaks JSON lines to it over an in-memory stream.

use std::time::Duration;

use annot::rmcp::{
    Annotated, AnnotatedTools, AnnotatedToolsBuilder, HandleTool, lifted, resolving,
};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as RmcpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::manage_files::ManageFiles;

/// A tool whose actions carry SEP-1984 hints.
#[derive(Debug)]
pub enum Fetch {
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
    const DISCRIMINATOR: Option<&'static str> = Some("method");
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
pub struct Server {
    router: ToolRouter<Server>,
}

impl Server {
    pub fn new() -> Self {
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

pub fn server() -> Annotated<Server> {
    server_with(|builder| builder)
}

/// [`server`] with the builder's other settings (a profile, an exposure)
/// chosen by `configure` before the two tools are added.
pub fn server_with(
    configure: impl FnOnce(AnnotatedToolsBuilder<Server>) -> AnnotatedToolsBuilder<Server>,
) -> Annotated<Server> {
    let tools = configure(AnnotatedTools::builder())
        .tool::<Fetch>()
        .tool::<ManageFiles>()
        .build()
        .expect("valid tools");
    Annotated::new(Server::new(), tools).expect("no name clash")
}

/// One JSON-RPC request line.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
pub const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

/// Runs `server` over an in-memory byte stream (what stdio carries), sends
/// `requests` as JSON lines and returns the responses by id, as raw text.
pub async fn raw_session(lift: bool, requests: &[&str]) -> Vec<(u64, String)> {
    raw_session_with(server(), lift, requests).await
}

/// [`raw_session`] with another server built from these fixtures.
pub async fn raw_session_with<H: ServerHandler>(
    server: Annotated<H>,
    lift: bool,
    requests: &[&str],
) -> Vec<(u64, String)> {
    let served = if lift { Served::Lifted } else { Served::Plain };
    let exchanged: Vec<(&str, bool)> = requests
        .iter()
        .map(|request| {
            let id = serde_json::from_str::<Value>(request).unwrap()["id"].as_u64();
            (*request, id.is_some())
        })
        .collect();
    let ids = requests
        .iter()
        .filter_map(|request| serde_json::from_str::<Value>(request).unwrap()["id"].as_u64());
    let lines = raw_exchange(server, served, &exchanged).await;
    ids.zip(lines)
        .map(|(id, line)| {
            let message: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(message["id"], id, "{line}");
            (id, line)
        })
        .collect()
}

/// How [`raw_exchange`] serves the rmcp server.
#[derive(Clone, Copy, Debug)]
pub enum Served {
    /// rmcp's own transport, nothing lifted.
    Plain,
    /// Through `lifted`.
    Lifted,
    /// Through `resolving`, which answers resolutions before rmcp reads them.
    Resolving,
}

/// Writes each line to `server` over an in-memory stream, one at a time, and
/// reads one line back after each line marked as answered: the lines read.
pub async fn raw_exchange<H: ServerHandler>(
    server: Annotated<H>,
    served: Served,
    lines: &[(&str, bool)],
) -> Vec<String> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    let running = tokio::spawn(async move {
        let running = match served {
            Served::Plain => server.serve(server_side).await,
            Served::Lifted => server.serve(lifted(server_side)).await,
            Served::Resolving => {
                let (read, write) = tokio::io::split(server_side);
                let transport = resolving(&server, read, write);
                server.serve(transport).await
            }
        };
        running.expect("initialize").waiting().await.expect("serve");
    });
    let (read, mut write) = tokio::io::split(client_side);
    let mut answers = BufReader::new(read).lines();
    let mut read = Vec::new();
    for (line, answered) in lines {
        write.write_all(line.as_bytes()).await.unwrap();
        write.write_all(b"\n").await.unwrap();
        if !answered {
            continue;
        }
        let answer = tokio::time::timeout(Duration::from_secs(20), answers.next_line())
            .await
            .expect("answered in time")
            .unwrap()
            .expect("a line");
        read.push(answer);
    }
    drop(write);
    running.abort();
    read
}

pub fn result(line: &str) -> Value {
    serde_json::from_str::<Value>(line).unwrap()["result"].take()
}

pub fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} listed in {list}"))
}
