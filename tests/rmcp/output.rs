//! Structured output through the rmcp adapter: a tool declared with
//! `#[mcp_tool(output = Type)]` lists its `outputSchema` in every exposure,
//! a handler's `structured(Json(value))` is sent as `structuredContent` and
//! text, and a result that breaks the declaration is a tool error, as on the
//! built-in server.

use crate::rmcp_support;
use annot::rmcp::{Annotated, AnnotatedTools, HandleTool, structured};
use annot::server::Exposure;
use annot::{AnnotatedTool, mcp_tool};
use rmcp::handler::server::wrapper::Json;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use rmcp_support::fixtures::{INITIALIZE, INITIALIZED, Served, raw_exchange, request, result};
use rmcp_support::{MCP_SCHEMA, assert_valid};
use serde_json::{Value, json};

/// What `branch` reports.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    /// The branch.
    branch: String,
    /// Commits not yet on the remote.
    ahead: u32,
}

/// Inspect or push a branch.
#[mcp_tool(open_world = false, output = Report)]
#[serde(rename_all = "snake_case")]
enum Branch {
    #[annotate(read_only)]
    Status { branch: String },
    #[annotate(destructive)]
    Push { branch: String },
}

/// A tool whose handler drifted from its declaration.
#[mcp_tool(read_only, open_world = false, output = Report)]
struct Drifting {
    /// What the handler returns: `"wrong"`, `"text"`, `"bare"` or `"error"`.
    mode: String,
}

#[derive(Clone)]
struct Git;

impl ServerHandler for Git {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

impl HandleTool<Branch> for Git {
    async fn handle(
        &self,
        tool: Branch,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let report = match tool {
            Branch::Status { branch } => Report { branch, ahead: 2 },
            Branch::Push { branch } => Report { branch, ahead: 0 },
        };
        structured(Json(report))
    }
}

impl HandleTool<Drifting> for Git {
    async fn handle(
        &self,
        tool: Drifting,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let report = json!({"branch": "main", "ahead": 1});
        Ok(match tool.mode.as_str() {
            "wrong" => CallToolResult::structured(json!({"branch": "main", "ahead": "two"})),
            "text" => CallToolResult::success(vec![ContentBlock::text("a report, in words")]),
            "bare" => {
                let mut result = CallToolResult::structured(report);
                result.content.clear();
                result
            }
            _ => CallToolResult::error(vec![ContentBlock::text("the remote is down")]),
        })
    }
}

fn server(exposure: Exposure) -> Annotated<Git> {
    let tools = AnnotatedTools::builder()
        .exposure(exposure)
        .tool::<Branch>()
        .tool::<Drifting>()
        .build()
        .expect("valid tools");
    Annotated::new(Git, tools).expect("no tool name clashes")
}

fn declared() -> Value {
    serde_json::from_str(Branch::output_schema().expect("declared")).unwrap()
}

/// Initializes, then sends `requests` (numbered from 2) and returns their
/// results.
async fn session(exposure: Exposure, requests: &[(&str, Value)]) -> Vec<Value> {
    let lines: Vec<String> = requests
        .iter()
        .enumerate()
        .map(|(index, (method, params))| request(index as u64 + 2, method, params.clone()))
        .collect();
    let mut exchanged = vec![(INITIALIZE, true), (INITIALIZED, false)];
    exchanged.extend(lines.iter().map(|line| (line.as_str(), true)));
    let answers = raw_exchange(server(exposure), Served::Lifted, &exchanged).await;
    answers[1..].iter().map(|line| result(line)).collect()
}

fn call(name: &str, arguments: Value) -> (&'static str, Value) {
    ("tools/call", json!({"name": name, "arguments": arguments}))
}

#[tokio::test]
async fn every_exposure_lists_the_output_schema() {
    for (exposure, names) in [
        (Exposure::Resolvable, vec!["branch", "drifting"]),
        (
            Exposure::PerAction,
            vec!["branch_status", "branch_push", "drifting"],
        ),
    ] {
        let listed = &session(exposure, &[("tools/list", json!({}))]).await[0];
        let tools = listed["tools"].as_array().unwrap();
        let listed_names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(listed_names, names);
        for tool in tools {
            assert_eq!(tool["outputSchema"], declared(), "{tool}");
            assert_valid(MCP_SCHEMA, "Tool", tool);
        }
    }
}

/// The result's structured content, after checking it is the text block's
/// JSON and fits the declared schema.
fn structured_content(result: &Value) -> Value {
    assert_ne!(result["isError"], true, "{result}");
    let structured = result["structuredContent"].clone();
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), structured);
    let validator = jsonschema::validator_for(&declared()).unwrap();
    assert!(validator.is_valid(&structured), "{structured}");
    structured
}

#[tokio::test]
async fn json_results_carry_structured_content_and_its_text() {
    let results = session(
        Exposure::Auto,
        &[
            call("branch_status", json!({"branch": "main"})),
            call("drifting", json!({"mode": "bare"})),
        ],
    )
    .await;
    assert_valid(MCP_SCHEMA, "CallToolResult", &results[0]);
    assert_eq!(
        structured_content(&results[0]),
        json!({"branch": "main", "ahead": 2})
    );
    // A result with structured content and no block gets its text.
    assert_eq!(
        structured_content(&results[1]),
        json!({"branch": "main", "ahead": 1})
    );
}

/// The one text block of a tool error.
fn tool_error(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn results_that_break_the_declaration_are_tool_errors() {
    let results = session(
        Exposure::Resolvable,
        &[
            call("drifting", json!({"mode": "wrong"})),
            call("drifting", json!({"mode": "text"})),
            call("drifting", json!({"mode": "error"})),
        ],
    )
    .await;
    let wrong = tool_error(&results[0]);
    assert!(
        wrong.starts_with(
            "internal error: the tool `drifting` returned a result that breaks its declared \
             output: its structuredContent does not match the outputSchema: at `/ahead`: "
        ),
        "{wrong}"
    );
    let text = tool_error(&results[1]);
    assert!(
        text.contains("the result has no structuredContent"),
        "{text}"
    );
    // A handler's own tool error is left as it is.
    assert_eq!(tool_error(&results[2]), "the remote is down");
}

#[test]
fn structured_refuses_what_is_not_an_object() {
    let error = structured(Json(vec![1, 2])).unwrap_err();
    assert_eq!(
        error.message,
        "a structured result must be a JSON object, not array"
    );
}
