//! What the robustness suites share: every example tool, servers of them, the
//! example stdio binary, and checks that a response is valid JSON-RPC.

#![allow(dead_code)] // Each suite uses a different part.

pub mod cases;
pub mod generate;
#[path = "../process.rs"]
mod process;
#[allow(unused_imports)] // Each suite uses a different part.
pub use process::{TempDir, example_binary};
/// The hand-written resolvers of the example tools (shared with the fuzz crate).
#[path = "../../../fuzz/src/reference.rs"]
pub mod reference;

#[path = "../../../examples/tools/github_api.rs"]
pub mod github_api;
#[path = "../../../examples/tools/http_api.rs"]
pub mod http_api;
#[path = "../../../examples/tools/manage_files.rs"]
pub mod manage_files;
#[path = "../../../examples/tools/sql.rs"]
pub mod sql;

use std::path::PathBuf;
use std::sync::OnceLock;

use annot::protocol::Dialect;
use annot::server::{Server, ToolOutput};
use annot::{AnnotatedTool, Annotations, Hint};
use jsonschema::Validator;
use serde_json::{Value, json};

/// The files of `examples/tools/` these suites cover. A new example tool must be
/// added here, to the modules above and to the servers below.
pub const COVERED_EXAMPLE_TOOLS: &[&str] =
    &["github_api.rs", "http_api.rs", "manage_files.rs", "sql.rs"];

/// A server of every example tool offering `dialects`; calls do nothing.
pub fn example_server(dialects: &[Dialect]) -> Server {
    Server::builder("annot-robust", "0.0.0")
        .dialects(dialects.iter().copied())
        .tool(|_: manage_files::ManageFiles| Ok(ToolOutput::text("ok")))
        .tool(|_: http_api::HttpApi| Ok(ToolOutput::text("ok")))
        .tool(|_: github_api::GithubApi| Ok(ToolOutput::text("ok")))
        .tool(|_: sql::Sql| Ok(ToolOutput::text("ok")))
        .build()
        .expect("the example server is consistent")
}

/// A server of every example tool whose calls answer with the `Debug` text
/// of the value the handler received: what a `tools/call` parsed, to hold
/// against what `from_arguments_str` parses ([`expected_call`]).
pub fn echo_server() -> Server {
    fn echo<T: std::fmt::Debug>(parsed: T) -> Result<ToolOutput, annot::server::ToolError> {
        Ok(ToolOutput::text(format!("{parsed:?}")))
    }
    Server::builder("annot-echo", "0.0.0")
        .tool(echo::<manage_files::ManageFiles>)
        .tool(echo::<http_api::HttpApi>)
        .tool(echo::<github_api::GithubApi>)
        .tool(echo::<sql::Sql>)
        .build()
        .expect("the echo server is consistent")
}

/// The answer of a `tools/call` of `tool` with the arguments' JSON text
/// `arguments` on `connection` (after `initialize` at 2025-11-25, where an
/// argument error is a tool error): whether it is an error, and its text.
pub fn call_answer(
    connection: &mut annot::server::Connection,
    tool: &str,
    arguments: &str,
) -> (bool, String) {
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    );
    let response = parse_response(&connection.handle(message.as_bytes()).expect("answered"));
    let result = &response["result"];
    let text = result["content"][0]["text"].as_str();
    let text = text.unwrap_or_else(|| panic!("a text result for {arguments}: {response}"));
    (result["isError"] == json!(true), text.to_owned())
}

/// What [`call_answer`] must say of `arguments` for a handler answering the
/// `Debug` text of its value ([`echo_server`]): the owned path's value, or its
/// error as the server words it.
pub fn expected_call<T: AnnotatedTool + std::fmt::Debug>(arguments: &str) -> (bool, String) {
    match T::from_arguments_str(arguments) {
        Ok(parsed) => (false, format!("{parsed:?}")),
        // A server quotes at most 256 characters of what a client sent.
        Err(error) => {
            let message = error.to_string();
            let message = match message.char_indices().nth(256) {
                None => message,
                Some((end, _)) => format!("{}…", &message[..end]),
            };
            (true, format!("invalid arguments: {message}"))
        }
    }
}

/// The same server as the stdio example binary: `manage_files` alone, every
/// dialect. Calls do nothing.
pub fn binary_like_server() -> Server {
    Server::builder("annot-manage-files", "0.0.0")
        .tool(|_: manage_files::ManageFiles| Ok(ToolOutput::text("ok")))
        .build()
        .expect("the manage_files server is consistent")
}

/// The `initialize` request of a client that takes up the tool-resolution
/// extension.
pub fn initialize_with_extension(id: i64) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {"io.modelcontextprotocol/tool-resolution": {}}},
            "clientInfo": {"name": "robust", "version": "0"}
        }
    })
    .to_string()
}

/// The resolution of valid `arguments` of `T` by its hand-written resolver.
pub fn expected<T: AnnotatedTool>(arguments: &Value) -> Annotations {
    reference::resolver(T::NAME)(arguments)
}

/// Panics unless the wire `annotations` object carries exactly the hints of
/// `expected`, compared raw, with no defaults: the ten hints (absent where it
/// has none), or with `core_only` (dialect C) the four core hints and nothing
/// else.
pub fn assert_wire_hints(
    annotations: &Value,
    expected: &Annotations,
    core_only: bool,
    context: &str,
) {
    let hints: &[Hint] = if core_only { &Hint::CORE } else { &Hint::ALL };
    for hint in hints {
        assert_eq!(
            annotations.get(hint.wire_name()),
            expected.get(*hint).map(Value::Bool).as_ref(),
            "{hint} in {annotations}: {context}"
        );
    }
    if core_only {
        assert_eq!(
            annotations.as_object().map(|o| o.len()),
            Some(4),
            "{context}"
        );
    }
}

/// A request as one line of JSON text.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}).to_string()
}

fn mcp_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/schemas/mcp-2025-11-25.schema.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("the vendored MCP schema"))
            .expect("the MCP schema is JSON")
    })
}

fn mcp_validator(definition: &str) -> Validator {
    let mut schema = mcp_schema().clone();
    schema["$ref"] = Value::String(format!("#/$defs/{definition}"));
    jsonschema::validator_for(&schema).expect("the MCP schema compiles")
}

/// Parses a response and checks it against MCP's `JSONRPCResponse`
/// (a result or an error, `jsonrpc: "2.0"`, an id that is a string or an
/// integer when present).
pub fn parse_response(bytes: &[u8]) -> Value {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| mcp_validator("JSONRPCResponse"));
    let text = std::str::from_utf8(bytes).expect("responses are UTF-8");
    assert!(!text.contains('\n'), "a response is one line");
    let value: Value = serde_json::from_str(text).expect("responses are JSON");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{value} is not a JSON-RPC response: {errors:?}"
    );
    value
}

/// `target/<profile>/examples/manage_files` (see [`example_binary`]).
pub fn manage_files_binary() -> PathBuf {
    example_binary("manage_files")
}
