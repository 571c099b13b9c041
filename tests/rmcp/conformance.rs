//! What the official conformance suite found in the rmcp adapter, pinned on the
//! wire: a `tools/call` of an unknown name is `-32602` "unknown tool" (as from
//! the built-in server), not rmcp's default `-32601 tools/call`; and prompts,
//! resources and completion requests of a server that does not declare those
//! capabilities are `-32601`, not rmcp's default empty lists. A server that
//! declares prompts still has its own answer. Over Streamable HTTP, the same
//! answers from examples/rmcp_server.rs, and its `--tag` on legacy session ids
//! (what a load balancer routes on, docs/scaling.md). tests/interop/conformance.sh
//! runs the suite itself against the example.

use crate::rmcp_support;
use annot::rmcp::{Annotated, AnnotatedTools, HandleTool};
use rmcp::model::{
    CallToolResult, ContentBlock, ListPromptsResult, PaginatedRequestParams, Prompt,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use rmcp_support::fixtures::{INITIALIZE, INITIALIZED, raw_session, raw_session_with, result};
use rmcp_support::manage_files::ManageFiles;
use rmcp_support::{Sandbox, example_binary};
use serde_json::{Value, json};

/// A server as a new user writes one: tools only, no `call_tool` of its own
/// (rmcp's default stays), and with `prompts` declared when asked.
#[derive(Clone)]
struct ToolsOnly {
    declares_prompts: bool,
}

impl ServerHandler for ToolsOnly {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.declares_prompts {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(capabilities)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Say hello."),
            None,
        )]))
    }
}

impl HandleTool<ManageFiles> for ToolsOnly {
    async fn handle(
        &self,
        tool: ManageFiles,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{tool:?}"
        ))]))
    }
}

fn server(declares_prompts: bool) -> Annotated<ToolsOnly> {
    let tools = AnnotatedTools::builder()
        .tool::<ManageFiles>()
        .build()
        .expect("valid tools");
    Annotated::new(ToolsOnly { declares_prompts }, tools).expect("no name clash")
}

fn error(line: &str) -> Value {
    let message: Value = serde_json::from_str(line).unwrap();
    assert!(
        message["result"].is_null(),
        "an error, not a result: {line}"
    );
    message["error"].clone()
}

const CALL_UNKNOWN: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#;
const CALL_READ: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"manage_files","arguments":{"action":"read","path":"a.txt"}}}"#;
const PROMPTS: &str = r#"{"jsonrpc":"2.0","id":4,"method":"prompts/list"}"#;
const GET_PROMPT: &str =
    r#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet"}}"#;
const RESOURCES: &str = r#"{"jsonrpc":"2.0","id":6,"method":"resources/list"}"#;
const TEMPLATES: &str = r#"{"jsonrpc":"2.0","id":7,"method":"resources/templates/list"}"#;
const READ_RESOURCE: &str =
    r#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"file:///a"}}"#;
const COMPLETE: &str = r#"{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a","value":"b"}}}"#;

#[tokio::test]
async fn an_unknown_tool_is_invalid_params_and_a_known_one_still_runs() {
    let responses = raw_session_with(
        server(false),
        true,
        &[INITIALIZE, INITIALIZED, CALL_UNKNOWN, CALL_READ],
    )
    .await;
    assert_eq!(
        error(&responses[1].1),
        json!({
            "code": -32602,
            "message": "unknown tool `no_such_tool`",
            "data": {"name": "no_such_tool"}
        })
    );
    let called = result(&responses[2].1);
    assert_eq!(called["isError"], json!(false), "{called}");
    assert_eq!(
        called["content"][0]["text"],
        json!(r#"Read { path: "a.txt" }"#)
    );
}

#[tokio::test]
async fn a_router_of_your_own_keeps_its_unknown_tool_answer() {
    // The fixture server routes its own tools with rmcp's ToolRouter, whose
    // answer for a name it lacks is already -32602; the adapter passes it on.
    let responses = raw_session(true, &[INITIALIZE, INITIALIZED, CALL_UNKNOWN]).await;
    assert_eq!(error(&responses[1].1)["code"], json!(-32602));
}

#[tokio::test]
async fn undeclared_capabilities_are_method_not_found() {
    let requests = [
        INITIALIZE,
        INITIALIZED,
        PROMPTS,
        GET_PROMPT,
        RESOURCES,
        TEMPLATES,
        READ_RESOURCE,
        COMPLETE,
    ];
    let responses = raw_session_with(server(false), true, &requests).await;
    let initialized: Value = result(&responses[0].1);
    let capabilities = initialized["capabilities"].as_object().unwrap();
    for undeclared in ["prompts", "resources", "completions", "logging"] {
        assert!(!capabilities.contains_key(undeclared), "{initialized}");
    }
    let methods = [
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "completion/complete",
    ];
    for ((_, line), method) in responses[1..].iter().zip(methods) {
        assert_eq!(
            error(line),
            json!({"code": -32601, "message": method}),
            "{method}"
        );
    }
}

#[tokio::test]
async fn a_declared_capability_reaches_the_handler() {
    let responses = raw_session_with(server(true), true, &[INITIALIZE, INITIALIZED, PROMPTS]).await;
    assert!(result(&responses[0].1)["capabilities"]["prompts"].is_object());
    assert_eq!(
        result(&responses[1].1)["prompts"],
        json!([{"name": "greet", "description": "Say hello."}])
    );
}

/// The example over HTTP with `--tag b7`, killed on drop.
struct HttpExample {
    child: std::process::Child,
    url: String,
    _sandbox: Sandbox,
}

impl HttpExample {
    fn start(tag: &str) -> Self {
        use std::io::BufRead;
        let sandbox = Sandbox::new("rmcp-conformance-http");
        let mut child = std::process::Command::new(example_binary())
            .args(["--http", "127.0.0.1:0", "--tag", tag, "--root"])
            .arg(&sandbox.path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn the example");
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("the example prints its URL");
        HttpExample {
            child,
            url: url.trim().to_owned(),
            _sandbox: sandbox,
        }
    }

    /// POSTs `message`; the status, the session id header and the JSON-RPC
    /// answer (from a JSON or an event-stream body).
    async fn post(
        &self,
        session: Option<&str>,
        headers: &[(&str, &str)],
        message: Value,
    ) -> (u16, Option<String>, Value) {
        let mut request = reqwest::Client::new()
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = tokio::time::timeout(std::time::Duration::from_secs(30), request.send())
            .await
            .expect("answered in time")
            .expect("an HTTP answer");
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|value| value.to_str().unwrap().to_owned());
        let body = response.text().await.unwrap();
        let answer = body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .chain([body.as_str()])
            .filter_map(|text| serde_json::from_str::<Value>(text.trim()).ok())
            .find(|message| message.get("result").is_some() || message.get("error").is_some())
            .unwrap_or(Value::Null);
        (status, session, answer)
    }
}

impl Drop for HttpExample {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const META_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_the_example_answers_alike_in_both_eras() {
    let example = HttpExample::start("b7");
    let meta: Value = serde_json::from_str(META_2026).unwrap();
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "no_such_tool"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "no_such_tool", "arguments": {}, "_meta": meta}});
    let (status, session, answer) = example.post(None, &modern, call).await;
    assert_eq!((status, session), (200, None), "stateless: {answer}");
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert_eq!(
        answer["error"]["message"],
        json!("unknown tool `no_such_tool`")
    );

    let prompts = json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/list",
        "params": {"_meta": meta}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "prompts/list"),
    ];
    let (_, _, answer) = example.post(None, &headers, prompts).await;
    assert_eq!(
        answer["error"],
        json!({"code": -32601, "message": "prompts/list"})
    );

    // A legacy session: its id names the process, and only this one holds it.
    let initialize: Value = serde_json::from_str(INITIALIZE).unwrap();
    let (status, session, answer) = example.post(None, &[], initialize).await;
    assert_eq!(status, 200, "{answer}");
    let session = session.expect("a session id");
    let (tag, rest) = session.split_once('.').expect("TAG.ID");
    assert_eq!(tag, "b7");
    assert!(!rest.is_empty() && !rest.contains('.'), "{session}");
    let initialized: Value = serde_json::from_str(INITIALIZED).unwrap();
    let (status, _, _) = example.post(Some(&session), &[], initialized).await;
    assert_eq!(status, 202);
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "no_such_tool", "arguments": {}}});
    let (status, _, answer) = example.post(Some(&session), &[], call.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    // The same id under another process's tag is a session this one lacks:
    // the specification's 404, which sends the client back to `initialize`.
    let elsewhere = format!("b8.{rest}");
    let (status, _, _) = example.post(Some(&elsewhere), &[], call).await;
    assert_eq!(status, 404);
}
