//! The rmcp path: `manage_files` served through annot's rmcp adapter
//! (`Annotated`, the `#[mcp_tool]` enum, `lifted`) against the same tool
//! written with rmcp's own `#[tool_router]` / `#[tool]` and a hand-written
//! serde + schemars struct, for `tools/call` and `tools/list`; and the
//! adapter's `tools/resolve` against rmcp's own `tools/call` of the tool and
//! against the same `tools/resolve` answered by the plain server's
//! `on_custom_request` (what rmcp costs any server for a custom method).
//!
//! Two lanes for each request:
//!
//! - `wire/...`: an rmcp client and server in one process over
//!   `tokio::io::duplex`, on one current-thread runtime: the client's request
//!   serialized, framed, read by the server's rmcp service, dispatched to the
//!   handler, the response serialized (lifted, for the adapter) and read back
//!   by the client. The path a client's request takes, minus the OS.
//! - `handler/...`: the `ServerHandler` method alone, called with a
//!   `RequestContext` of the live session: what the adapter itself adds.
//!
//! Both servers answer a call with the same text, `"<action> <path>"`, and a
//! `tools/resolve` with the same result, byte for byte; the requests cycle
//! through the four actions.
//!
//! ```sh
//! cargo bench --bench rmcp -- --warm-up-time 1 --measurement-time 3
//! ```
//!
//! For instruction counts (a loaded machine moves wall-clock ratios, not
//! these), `ANNOT_RMCP_LOOP=<lane>/<case>/<times>` runs one case `times`
//! times and exits: lanes `wire`, `handler`; cases `call-annot`,
//! `call-plain`, `list-annot`, `list-plain`, `resolve-annot`,
//! `resolve-plain`, and on the wire `resolve-fast` and `call-fast` (the
//! adapter served through `resolving`, which answers a resolution before
//! rmcp reads it). The difference of two counts of the whole process
//! (`valgrind --tool=callgrind`) divided by the difference of `times` is one
//! request's.

mod support;

use std::hint::black_box;

use annot::protocol::TOOL_RESOLUTION_EXTENSION;
use annot::rmcp::{Annotated, AnnotatedTools, HandleTool, lifted, resolving};
use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ClientRequest, ContentBlock, CustomRequest, CustomResult, ErrorCode, ExtensionCapabilities,
    Implementation, ListToolsRequest, RequestId, ServerCapabilities, ServerConfig, ServerResult,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{
    ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt, tool,
    tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;

use support::manage_files::ManageFiles;

/// The answer both servers give: the action and the path.
fn reply(action: &str, path: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(format!("{action} {path}"))])
}

/// (a) The annotated tool, served through the adapter.
#[derive(Clone, Debug)]
struct AnnotServer;

impl ServerHandler for AnnotServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("bench-annot", "0.1.0"))
    }
}

impl HandleTool<ManageFiles> for AnnotServer {
    async fn handle(
        &self,
        tool: ManageFiles,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match tool {
            ManageFiles::Read { path } => reply("read", &path),
            ManageFiles::Append { path, .. } => reply("append", &path),
            ManageFiles::Replace { path, .. } => reply("replace", &path),
            ManageFiles::Delete { path } => reply("delete", &path),
        })
    }
}

/// (b) The same tool as a plain rmcp author writes it.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum FileAction {
    /// Return the contents of the file.
    Read,
    /// Add text at the end of the file, creating it if needed.
    Append,
    /// Replace the whole contents of the file.
    Replace,
    /// Delete the file.
    Delete,
}

/// The arguments of `manage_files`.
#[derive(Deserialize, schemars::JsonSchema)]
struct ManageFilesArguments {
    /// What to do with the file.
    action: FileAction,
    /// Path of the file, relative to the server's root.
    path: String,
    /// Text to add (`append`) or the new contents (`replace`).
    #[serde(default)]
    content: Option<String>,
}

#[derive(Clone)]
struct PlainServer {
    tool_router: ToolRouter<PlainServer>,
}

#[tool_router]
impl PlainServer {
    fn new() -> Self {
        PlainServer {
            tool_router: Self::tool_router(),
        }
    }

    /// Read, append, replace, or delete file contents.
    #[tool(
        name = "manage_files",
        title = "Manage files",
        annotations(
            title = "Manage files",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn manage_files(
        &self,
        Parameters(arguments): Parameters<ManageFilesArguments>,
    ) -> Result<CallToolResult, ErrorData> {
        let needs_content = |action: &str| {
            if arguments.content.is_none() {
                Err(ErrorData::invalid_params(
                    format!("`{action}` needs `content`"),
                    None,
                ))
            } else {
                Ok(())
            }
        };
        let action = match arguments.action {
            FileAction::Read => "read",
            FileAction::Append => {
                needs_content("append")?;
                "append"
            }
            FileAction::Replace => {
                needs_content("replace")?;
                "replace"
            }
            FileAction::Delete => "delete",
        };
        Ok(reply(action, &arguments.path))
    }
}

/// The params of `tools/resolve`, as a plain rmcp author reads them.
#[derive(Deserialize)]
struct ResolveParams {
    name: String,
    arguments: ManageFilesArguments,
}

impl PlainServer {
    /// `tools/resolve` of the tool-resolution extension, by hand: the
    /// arguments read as a call reads them (borrowed from rmcp's tree, not
    /// cloned), and each action's four hints from the tool's own table.
    fn resolve(&self, params: Option<&Value>) -> Result<CustomResult, ErrorData> {
        let params = params.ok_or_else(|| ErrorData::invalid_params("no params", None))?;
        let ResolveParams { name, arguments } = ResolveParams::deserialize(params)
            .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
        if name != "manage_files" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name}"),
                None,
            ));
        }
        let needs_content = matches!(arguments.action, FileAction::Append | FileAction::Replace);
        if needs_content && arguments.content.is_none() {
            return Err(ErrorData::invalid_params("`content` is missing", None));
        }
        // (readOnly, destructive, idempotent); no action reaches outside.
        let (read_only, destructive, idempotent) = match arguments.action {
            FileAction::Read => (true, false, true),
            FileAction::Append => (false, false, false),
            FileAction::Replace | FileAction::Delete => (false, true, true),
        };
        Ok(CustomResult(json!({
            "resultType": "complete",
            "name": name,
            "annotations": {
                "readOnlyHint": read_only,
                "destructiveHint": destructive,
                "idempotentHint": idempotent,
                "openWorldHint": false,
            },
        })))
    }
}

// The router built once and kept, not `Self::tool_router()` per request
// (rmcp-macros' default): the faster of the two ways rmcp documents.
#[tool_handler(router = self.tool_router)]
impl ServerHandler for PlainServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("bench-plain", "0.1.0"))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match request.method.as_str() {
            "tools/resolve" => self.resolve(request.params.as_ref()),
            _ => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            )),
        }
    }
}

/// The client: it takes up the tool-resolution extension in `initialize`, so
/// the adapter answers `tools/resolve` in the extension's shape.
#[derive(Clone, Debug)]
struct BenchClient;

impl ClientHandler for BenchClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let mut extensions = ExtensionCapabilities::new();
        extensions.insert(TOOL_RESOLUTION_EXTENSION.to_owned(), Map::new());
        capabilities.extensions = Some(extensions);
        ClientConfig::new(capabilities, Implementation::new("bench-client", "0.1.0"))
    }
}

/// One server and its connected client.
struct Session<S: ServerHandler> {
    server: RunningService<RoleServer, S>,
    client: RunningService<RoleClient, BenchClient>,
}

/// The adapter served through `lifted`, or through `resolving` (`fast`),
/// which answers resolutions before rmcp reads them.
fn annot_session(runtime: &Runtime, fast: bool) -> Session<Annotated<AnnotServer>> {
    let tools = AnnotatedTools::builder()
        .tool::<ManageFiles>()
        .build()
        .expect("the bench's tools are valid");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let annotated = Annotated::new(AnnotServer, tools).expect("no name clash");
    let server = if fast {
        let (read, write) = tokio::io::split(server_io);
        let transport = resolving(&annotated, read, write);
        runtime.spawn(annotated.serve(transport))
    } else {
        runtime.spawn(annotated.serve(lifted(server_io)))
    };
    let client = runtime
        .block_on(BenchClient.serve(client_io))
        .expect("client connects");
    let server = runtime
        .block_on(server)
        .expect("server task")
        .expect("server starts");
    Session { server, client }
}

fn plain_session(runtime: &Runtime) -> Session<PlainServer> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = runtime.spawn(PlainServer::new().serve(server_io));
    let client = runtime
        .block_on(BenchClient.serve(client_io))
        .expect("client connects");
    let server = runtime
        .block_on(server)
        .expect("server task")
        .expect("server starts");
    Session { server, client }
}

/// The four actions' arguments, cycled through.
fn every_action() -> Vec<Map<String, Value>> {
    ["read", "append", "replace", "delete"]
        .into_iter()
        .map(|action| {
            let mut arguments = Map::new();
            arguments.insert("action".to_owned(), json!(action));
            arguments.insert("path".to_owned(), json!("notes/today.txt"));
            if matches!(action, "append" | "replace") {
                arguments.insert("content".to_owned(), json!("a line"));
            }
            arguments
        })
        .collect()
}

fn call_request(arguments: &Map<String, Value>) -> CallToolRequestParams {
    CallToolRequestParams::new("manage_files").with_arguments(arguments.clone())
}

fn resolve_request(arguments: &Map<String, Value>) -> CustomRequest {
    // Built as the call's params are, the arguments cloned, not serialized.
    let mut params = Map::new();
    params.insert("name".to_owned(), json!("manage_files"));
    params.insert("arguments".to_owned(), Value::Object(arguments.clone()));
    CustomRequest::new("tools/resolve", Some(Value::Object(params)))
}

/// The text of a call's answer, checked to be a success.
fn called(result: ServerResult) -> String {
    let ServerResult::CallToolResult(result) = result else {
        panic!("not a call result: {result:?}");
    };
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let ContentBlock::Text(text) = &result.content[0] else {
        panic!("not text: {result:?}");
    };
    text.text.clone()
}

async fn wire_call<S: ServerHandler>(
    session: &Session<S>,
    arguments: &Map<String, Value>,
) -> String {
    let request =
        ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(call_request(arguments)));
    called(
        session
            .client
            .send_request(request)
            .await
            .expect("answered"),
    )
}

async fn wire_list<S: ServerHandler>(session: &Session<S>) -> usize {
    let request = ClientRequest::ListToolsRequest(ListToolsRequest::default());
    match session
        .client
        .send_request(request)
        .await
        .expect("answered")
    {
        ServerResult::ListToolsResult(result) => result.tools.len(),
        // The lifted listing reaches an rmcp client as the JSON it is.
        ServerResult::CustomResult(result) => result.0["tools"].as_array().map_or(0, Vec::len),
        other => panic!("not a listing: {other:?}"),
    }
}

async fn wire_resolve<S: ServerHandler>(
    session: &Session<S>,
    arguments: &Map<String, Value>,
) -> Value {
    let request = ClientRequest::CustomRequest(resolve_request(arguments));
    match session
        .client
        .send_request(request)
        .await
        .expect("answered")
    {
        ServerResult::CustomResult(result) => result.0,
        other => panic!("not a resolution: {other:?}"),
    }
}

fn context<S: ServerHandler>(session: &Session<S>) -> RequestContext<RoleServer> {
    RequestContext::new(RequestId::Number(1), session.server.peer().clone())
}

async fn handler_call<S: ServerHandler>(
    session: &Session<S>,
    arguments: &Map<String, Value>,
) -> CallToolResult {
    let service = session.server.service();
    match service
        .call_tool(call_request(arguments), context(session))
        .await
    {
        Ok(CallToolResponse::Complete(result)) => result,
        other => panic!("not a call result: {other:?}"),
    }
}

async fn handler_list<S: ServerHandler>(session: &Session<S>) -> usize {
    let service = session.server.service();
    service
        .list_tools(None, context(session))
        .await
        .expect("listed")
        .tools
        .len()
}

async fn handler_resolve<S: ServerHandler>(
    session: &Session<S>,
    arguments: &Map<String, Value>,
) -> Value {
    let service = session.server.service();
    service
        .on_custom_request(resolve_request(arguments), context(session))
        .await
        .expect("resolved")
        .0
}

/// The three servers: the adapter through `lifted` and through `resolving`,
/// and plain rmcp.
struct Sessions {
    annot: Session<Annotated<AnnotServer>>,
    fast: Session<Annotated<AnnotServer>>,
    plain: Session<PlainServer>,
}

/// Checks that the servers answer alike before anything is measured.
fn check(runtime: &Runtime, sessions: &Sessions) {
    let Sessions { annot, fast, plain } = sessions;
    for arguments in every_action() {
        let action = arguments["action"].as_str().expect("a string").to_owned();
        let expected = format!("{action} notes/today.txt");
        assert_eq!(runtime.block_on(wire_call(annot, &arguments)), expected);
        assert_eq!(runtime.block_on(wire_call(plain, &arguments)), expected);
        let resolved = runtime.block_on(wire_resolve(annot, &arguments));
        assert_eq!(resolved["name"], "manage_files", "{resolved}");
        assert_eq!(
            resolved["annotations"]["readOnlyHint"],
            json!(action == "read"),
            "{resolved}"
        );
        let by_annot = runtime.block_on(handler_resolve(annot, &arguments));
        assert_eq!(by_annot, resolved);
        // The plain server's answer: the same bytes as the adapter's, as
        // the handlers hand them to rmcp to write, and the same result as
        // the client reads it.
        let by_plain = runtime.block_on(handler_resolve(plain, &arguments));
        assert_eq!(
            serde_json::to_string(&by_plain).expect("JSON"),
            serde_json::to_string(&by_annot).expect("JSON"),
            "{action}"
        );
        assert_eq!(runtime.block_on(wire_resolve(plain, &arguments)), resolved);
        assert_eq!(runtime.block_on(wire_resolve(fast, &arguments)), resolved);
        assert_eq!(runtime.block_on(wire_call(fast, &arguments)), expected);
    }
    assert_eq!(runtime.block_on(wire_list(annot)), 1);
    assert_eq!(runtime.block_on(wire_list(plain)), 1);
    assert_eq!(runtime.block_on(handler_list(annot)), 1);
    assert_eq!(runtime.block_on(handler_list(plain)), 1);
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let sessions = Sessions {
        annot: annot_session(&runtime, false),
        fast: annot_session(&runtime, true),
        plain: plain_session(&runtime),
    };
    check(&runtime, &sessions);
    let actions = every_action();
    if let Ok(case) = std::env::var("ANNOT_RMCP_LOOP") {
        count_loop(&runtime, &sessions, &actions, &case);
    }

    for lane in LANES {
        let mut group = c.benchmark_group(lane);
        let wire_only = WIRE_CASES.iter().filter(|_| lane == "wire");
        for case in CASES.iter().chain(wire_only) {
            let mut next = cycle(&actions);
            let id = format!("tools/{}", case.replace('-', "/"));
            group.bench_function(id, |b| {
                b.iter(|| runtime.block_on(run(lane, case, &sessions, next())))
            });
        }
        group.finish();
    }
}

/// The two ways a request reaches the server: over rmcp's client and an
/// in-memory transport, or by calling its `ServerHandler` methods.
const LANES: [&str; 2] = ["wire", "handler"];
/// Every measured request of a lane, `<request>-<side>`.
const CASES: [&str; 6] = [
    "call-annot",
    "call-plain",
    "resolve-annot",
    "resolve-plain",
    "list-annot",
    "list-plain",
];
/// Cases of the wire lane alone: the adapter served through `resolving`,
/// whose handler is the adapter's.
const WIRE_CASES: [&str; 2] = ["resolve-fast", "call-fast"];

/// One request of `case` in `lane`; a call or resolution with `arguments`.
async fn run(lane: &str, case: &str, sessions: &Sessions, arguments: &Map<String, Value>) {
    let Sessions { annot, fast, plain } = sessions;
    match (lane, case) {
        ("wire", "resolve-fast") => drop(black_box(wire_resolve(fast, arguments).await)),
        ("wire", "call-fast") => drop(black_box(wire_call(fast, arguments).await)),
        ("wire", "call-annot") => drop(black_box(wire_call(annot, arguments).await)),
        ("wire", "call-plain") => drop(black_box(wire_call(plain, arguments).await)),
        ("wire", "resolve-annot") => drop(black_box(wire_resolve(annot, arguments).await)),
        ("wire", "resolve-plain") => drop(black_box(wire_resolve(plain, arguments).await)),
        ("wire", "list-annot") => drop(black_box(wire_list(annot).await)),
        ("wire", "list-plain") => drop(black_box(wire_list(plain).await)),
        ("handler", "call-annot") => drop(black_box(handler_call(annot, arguments).await)),
        ("handler", "call-plain") => drop(black_box(handler_call(plain, arguments).await)),
        ("handler", "resolve-annot") => drop(black_box(handler_resolve(annot, arguments).await)),
        ("handler", "resolve-plain") => drop(black_box(handler_resolve(plain, arguments).await)),
        ("handler", "list-annot") => drop(black_box(handler_list(annot).await)),
        ("handler", "list-plain") => drop(black_box(handler_list(plain).await)),
        _ => panic!("no case {lane}/{case}"),
    }
}

/// The next element of `items` on each call, round and round.
fn cycle<'a, T>(items: &'a [T]) -> impl FnMut() -> &'a T + 'a {
    let mut index = 0;
    move || {
        let item = &items[index % items.len()];
        index += 1;
        black_box(item)
    }
}

/// `ANNOT_RMCP_LOOP=<lane>/<case>/<times>`: one case `times` times, then exit.
fn count_loop(
    runtime: &Runtime,
    sessions: &Sessions,
    actions: &[Map<String, Value>],
    case: &str,
) -> ! {
    let mut parts = case.split('/');
    let (lane, case, times) = (parts.next(), parts.next(), parts.next());
    let times: usize = times.and_then(|times| times.parse().ok()).expect("a count");
    let (lane, case) = (lane.expect("a lane"), case.expect("a case"));
    let mut next = cycle(actions);
    runtime.block_on(async {
        for _ in 0..times {
            run(lane, case, sessions, next()).await;
        }
    });
    std::process::exit(0)
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = bench
}
criterion_main!(benches);
