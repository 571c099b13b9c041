//! No silent shadowing: a name an annotated tool answers to (its own, or a
//! per-action one) that a tool of the wrapped rmcp handler also has is refused
//! by `Annotated::new`, naming both; a handler that lists such a tool without
//! `get_tool` knowing it gets an error from `tools/list` instead.

use crate::rmcp_support;
use annot::mcp_tool;
use annot::rmcp::{Annotated, AnnotatedTools, HandleTool};
use annot::server::Exposure;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, ErrorCode, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use rmcp_support::fixtures::{
    Fetch, INITIALIZE, INITIALIZED, LIST, raw_session_with, result, tool as listed,
};
use serde_json::{Map, Value, json};

/// Read a file.
#[mcp_tool(read_only, open_world = false)]
struct ReadFile {
    path: String,
}

/// An rmcp server whose `#[tool_router]` has a `read_file` and a `fetch_get`.
#[derive(Clone)]
struct Files {
    tool_router: ToolRouter<Files>,
}

#[tool_router]
impl Files {
    fn new() -> Self {
        Files {
            tool_router: Self::tool_router(),
        }
    }

    /// rmcp's own file reader.
    #[tool(name = "read_file")]
    async fn read(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("rmcp")]))
    }

    /// rmcp's own fetcher.
    #[tool(name = "fetch_get")]
    async fn fetch_get(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("rmcp")]))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Files {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

impl HandleTool<ReadFile> for Files {
    async fn handle(
        &self,
        call: ReadFile,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(call.path)]))
    }
}

impl HandleTool<Fetch> for Files {
    async fn handle(
        &self,
        _: Fetch,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("annot")]))
    }
}

fn tools_of(exposure: Exposure) -> AnnotatedTools<Files> {
    AnnotatedTools::builder()
        .exposure(exposure)
        .tool::<Fetch>()
        .build()
        .expect("valid tools")
}

#[test]
fn a_tool_of_the_router_with_an_annotated_tools_name_is_refused() {
    let tools = AnnotatedTools::builder()
        .tool::<ReadFile>()
        .build()
        .expect("valid tools");
    let clash = Annotated::new(Files::new(), tools)
        .err()
        .expect("read_file is taken twice");
    assert_eq!(clash.name(), "read_file");
    assert_eq!(clash.annotated_tool(), "read_file");
    assert_eq!(clash.action(), None);
    assert!(clash.handler().ends_with("Files"), "{}", clash.handler());
    let message = clash.to_string();
    assert!(
        message.starts_with("the annotated tool `read_file` and a tool of the rmcp handler `")
            && message.contains("Files` are both named `read_file`"),
        "{message}"
    );
}

#[test]
fn a_per_action_name_clashes_in_every_exposure_that_lists_it() {
    for exposure in [Exposure::PerAction, Exposure::Auto] {
        let clash = Annotated::new(Files::new(), tools_of(exposure))
            .err()
            .expect("fetch_get is taken twice");
        assert_eq!(
            (clash.name(), clash.annotated_tool(), clash.action()),
            ("fetch_get", "fetch", Some("get")),
            "{exposure:?}"
        );
        let message = clash.to_string();
        assert!(
            message.starts_with(
                "the action `get` of the annotated tool `fetch`, listed per action as `fetch_get`,"
            ) && message.contains("are both named `fetch_get`"),
            "{message}"
        );
    }
    // One resolvable `fetch` answers to no per-action name: nothing is shadowed.
    let server = Annotated::new(Files::new(), tools_of(Exposure::Resolvable));
    assert!(server.is_ok(), "{:?}", server.err());
}

#[test]
fn a_renamed_per_action_tool_no_longer_clashes() {
    let tools = AnnotatedTools::builder()
        .exposure(Exposure::PerAction)
        .action_names(|tool, action| format!("{tool}-{action}"))
        .tool::<Fetch>()
        .build()
        .expect("valid tools");
    assert!(Annotated::new(Files::new(), tools).is_ok());
}

/// A handler that lists `fetch` by hand; its `get_tool` is rmcp's default,
/// which knows no tool, so only its listing shows the clash.
#[derive(Clone)]
struct Listing;

impl ServerHandler for Listing {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "fetch",
            "Another fetch.",
            schema,
        )]))
    }
}

impl HandleTool<Fetch> for Listing {
    async fn handle(
        &self,
        _: Fetch,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("annot")]))
    }
}

#[tokio::test]
async fn a_clash_only_the_listing_shows_is_an_error_from_tools_list() {
    let tools = AnnotatedTools::builder()
        .tool::<Fetch>()
        .build()
        .expect("valid tools");
    let server = Annotated::new(Listing, tools).expect("get_tool knows no tool");
    let responses = raw_session_with(server, true, &[INITIALIZE, INITIALIZED, LIST]).await;
    let answer: Value = serde_json::from_str(&responses[1].1).unwrap();
    assert_eq!(
        answer["error"]["code"],
        json!(ErrorCode::INTERNAL_ERROR.0),
        "{answer}"
    );
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the annotated tool `fetch` and a tool of the rmcp handler `")
            && message.contains("Listing` are both named `fetch`"),
        "{message}"
    );
}

/// A handler with no tools of its own that does not declare the capability:
/// rmcp 3.11's default `list_tools` answers it `-32601`, 3.9's an empty list.
/// Either way the annotated tools are listed.
#[derive(Clone)]
struct NoTools;

impl ServerHandler for NoTools {}

impl HandleTool<Fetch> for NoTools {
    async fn handle(
        &self,
        _: Fetch,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("annot")]))
    }
}

#[tokio::test]
async fn a_handler_without_tools_lists_the_annotated_ones() {
    let tools = AnnotatedTools::builder()
        .tool::<Fetch>()
        .build()
        .expect("valid tools");
    let server = Annotated::new(NoTools, tools).expect("no tools, no clash");
    let responses = raw_session_with(server, true, &[INITIALIZE, INITIALIZED, LIST]).await;
    let list = result(&responses[1].1);
    assert_eq!(listed(&list, "fetch")["name"], "fetch", "{list}");
    assert_eq!(list["tools"].as_array().map(Vec::len), Some(1), "{list}");
}
