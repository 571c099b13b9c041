//! The handler-context API: a handler registered with `tool_with_call` (and
//! one served through the rmcp adapter, by `resolved_call`) sees the resolved
//! annotations of exactly its arguments under the server's profile, the same
//! values `tools/resolve` answers, and never runs for a call the profile
//! refuses.

use crate::rmcp_support;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use annot::rmcp::{Annotated, AnnotatedTools, HandleTool, resolved_call};
use annot::server::{Call, Profile, Server, ToolOutput};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use rmcp_support::fixtures::{INITIALIZE, INITIALIZED, raw_session_with, result};
use rmcp_support::manage_files::ManageFiles;
use serde_json::{Value, json};

/// Arguments, and the hints their call must carry, by hand from the table
/// of `examples/tools/manage_files.rs`: readOnly, destructive, idempotent,
/// openWorld, sensitiveData, privilegedAccess.
fn table() -> Vec<(Value, [bool; 6])> {
    vec![
        (
            json!({"action": "read", "path": "notes.txt"}),
            [true, false, true, false, false, false],
        ),
        (
            json!({"action": "append", "path": "log", "content": "x"}),
            [false, false, false, false, false, false],
        ),
        (
            json!({"action": "replace", "path": "a", "content": ""}),
            [false, true, true, false, false, false],
        ),
        (
            json!({"action": "delete", "path": "a"}),
            [false, true, true, false, false, false],
        ),
        (
            json!({"action": "read", "path": "/etc/shadow"}),
            [true, false, true, false, true, true],
        ),
        (
            json!({"action": "delete", "path": "//root/x"}),
            [false, true, true, false, true, true],
        ),
    ]
}

const HINTS: [&str; 6] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "sensitiveDataHint",
    "privilegedAccessHint",
];

fn hints_of(annotations: &Value) -> [bool; 6] {
    HINTS.map(|hint| {
        annotations[hint]
            .as_bool()
            .unwrap_or_else(|| panic!("{hint} missing in {annotations}"))
    })
}

/// The handler answers with the annotations its `Call` holds.
fn echoing_server(profile: Profile, ran: &Arc<AtomicUsize>) -> Server {
    let ran = Arc::clone(ran);
    Server::builder("echo", "0")
        .profile(profile)
        .tool_with_call(move |_: ManageFiles, call: &Call| {
            ran.fetch_add(1, Ordering::SeqCst);
            assert_eq!(call.tool(), "manage_files");
            Ok(ToolOutput::text(call.annotations().to_string()))
        })
        .build()
        .expect("a consistent server")
}

fn request(connection: &mut annot::server::Connection, method: &str, params: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = connection
        .handle(message.to_string().as_bytes())
        .expect("a response");
    serde_json::from_slice(&response).expect("JSON")
}

#[test]
fn the_handler_sees_the_resolution_of_its_own_arguments() {
    let ran = Arc::new(AtomicUsize::new(0));
    let server = echoing_server(Profile::any(), &ran);
    let mut connection = server.connect();
    for (arguments, expected) in table() {
        let params = json!({"name": "manage_files", "arguments": arguments});
        let called = request(&mut connection, "tools/call", params.clone());
        let text = called["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{called}"));
        let seen: Value = serde_json::from_str(text).unwrap();
        assert_eq!(hints_of(&seen), expected, "{arguments}");
        // The same value `tools/annotations` answers for these arguments.
        let resolved = request(&mut connection, "tools/annotations", params);
        assert_eq!(
            hints_of(&resolved["result"]["annotations"]),
            expected,
            "{arguments}"
        );
    }
    assert_eq!(ran.load(Ordering::SeqCst), table().len());
}

#[test]
fn a_call_outside_the_profile_never_reaches_the_handler() {
    let ran = Arc::new(AtomicUsize::new(0));
    let server = echoing_server(Profile::no_destructive(), &ran);
    let mut connection = server.connect();
    for (arguments, expected) in table() {
        let params = json!({"name": "manage_files", "arguments": arguments});
        let before = ran.load(Ordering::SeqCst);
        let called = request(&mut connection, "tools/call", params);
        let text = called["result"]["content"][0]["text"].as_str().unwrap();
        let destructive = expected[1];
        if destructive {
            assert_eq!(called["result"]["isError"], true, "{called}");
            assert!(text.contains("destructiveHint"), "{text}");
            assert_eq!(ran.load(Ordering::SeqCst), before, "{arguments}");
        } else {
            let seen: Value = serde_json::from_str(text).unwrap();
            assert_eq!(hints_of(&seen), expected, "{arguments}");
            assert_eq!(ran.load(Ordering::SeqCst), before + 1, "{arguments}");
        }
    }
}

#[test]
fn the_same_value_outside_a_server() {
    for (arguments, expected) in table() {
        let tool: ManageFiles = annot::AnnotatedTool::from_arguments(&arguments).unwrap();
        let call = Call::of(&tool, Profile::read_only());
        let seen: Value = serde_json::from_str(&call.annotations().to_string()).unwrap();
        assert_eq!(hints_of(&seen), expected, "{arguments}");
        assert_eq!(call.profile(), Profile::read_only());
    }
}

/// An rmcp server whose `manage_files` handler answers with the resolved
/// call the adapter handed it.
#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {}

impl HandleTool<ManageFiles> for Echo {
    async fn handle(
        &self,
        _tool: ManageFiles,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(call) = resolved_call(&context) else {
            return Ok(CallToolResult::error(vec![ContentBlock::text("no call")]));
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(
            call.annotations().to_string(),
        )]))
    }
}

#[tokio::test]
async fn the_rmcp_handler_sees_the_resolution_too() {
    let tools = AnnotatedTools::builder()
        .profile(Profile::no_destructive())
        .tool::<ManageFiles>()
        .build()
        .expect("valid tools");
    let mut messages = vec![INITIALIZE.to_owned(), INITIALIZED.to_owned()];
    for (index, (arguments, _)) in table().into_iter().enumerate() {
        messages.push(
            json!({
                "jsonrpc": "2.0",
                "id": 10 + index,
                "method": "tools/call",
                "params": {"name": "manage_files", "arguments": arguments}
            })
            .to_string(),
        );
    }
    let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
    let responses = raw_session_with(
        Annotated::new(Echo, tools).expect("no name clash"),
        true,
        &messages,
    )
    .await;
    for ((_, line), (arguments, expected)) in responses[1..].iter().zip(table()) {
        let called = result(line);
        let text = called["content"][0]["text"].as_str().unwrap();
        if expected[1] {
            assert_eq!(called["isError"], true, "{arguments}: {called}");
            assert!(text.contains("destructiveHint"), "{text}");
        } else {
            let seen: Value = serde_json::from_str(text).unwrap();
            assert_eq!(hints_of(&seen), expected, "{arguments}");
        }
    }
}
