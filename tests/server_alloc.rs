//! A request allocates nothing once the answer buffer a server keeps has
//! grown: `Connection::handle_into` is run under a global allocator that
//! counts the heap operations of the current thread (`Connection::handle`
//! allocates the response it returns, and nothing else). That holds for a
//! resolution too: the tool's arguments are read by the generated borrowing
//! path, and a string no rule reads is checked, not decoded, so even its
//! escapes (`"x\n"`) cost nothing. A call allocates only what its handler is
//! handed and hands back. The stdio server keeps one buffer for all its
//! answers, so serving more lines allocates nothing more.
//!
//! Debug builds also read every message with serde_json, to check the hot-path
//! reader against it, and serde_json keeps a heap stack to skip nested values
//! (a 2026-07-28 request's `clientCapabilities.extensions`). So requests with
//! nested `_meta` are held to the count only where that check is compiled out
//! (CI runs this file once more so, with
//! `CARGO_PROFILE_DEV_DEBUG_ASSERTIONS=false`); handshake requests are held to
//! it everywhere.

#[path = "../examples/tools/manage_files.rs"]
mod manage_files;

#[path = "support/alloc/mod.rs"]
mod alloc_support;
use alloc_support::heap_operations_during;
use std::hint::black_box;

use annot::server::{Connection, Server, ToolOutput};
use manage_files::ManageFiles;
use serde_json::{Value, json};

fn server() -> Server {
    Server::builder("alloc", "0.1.0")
        .tool(|_: ManageFiles| Ok(ToolOutput::text("done")))
        .build()
        .unwrap()
}

/// Answers `request` twice to warm up (a rule compiles its regex on first
/// use; a connection keeps what a client repeats from its second message;
/// the answer buffer grows), then counts the heap operations of answering it
/// again into the same buffer, cleared, as a server does.
fn operations_of(connection: &mut Connection, request: &str) -> usize {
    let mut response = Vec::new();
    assert!(connection.handle_into(request.as_bytes(), &mut response));
    response.clear();
    assert!(connection.handle_into(request.as_bytes(), &mut response));
    let text = String::from_utf8(response.clone()).unwrap();
    assert!(text.contains("\"result\""), "{text}");
    let operations = heap_operations_during(|| {
        response.clear();
        black_box(connection.handle_into(black_box(request.as_bytes()), &mut response));
    });
    assert_eq!(String::from_utf8(response).unwrap(), text);
    operations
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "alloc", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

fn extension() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
}

/// The `initialize` request of a 2025-11-25 session with `capabilities`.
fn initialize(capabilities: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "alloc", "version": "0"}
    }})
    .to_string()
}

fn initialized(server: &Server, capabilities: Value) -> Connection {
    let mut connection = server.connect();
    connection
        .handle(initialize(capabilities).as_bytes())
        .unwrap();
    connection
}

#[test]
fn a_listing_allocates_nothing() {
    let server = server();
    let mut connection = initialized(&server, json!({}));
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    assert_eq!(operations_of(&mut connection, list), 0);
    let modern = json!({"jsonrpc": "2.0", "id": "m", "method": "tools/list",
        "params": {"_meta": modern_meta(json!({}))}})
    .to_string();
    assert_eq!(operations_of(&mut server.connect(), &modern), 0);
    let modern = json!({"jsonrpc": "2.0", "id": "m", "method": "tools/list",
        "params": {"_meta": modern_meta(extension())}})
    .to_string();
    if !cfg!(debug_assertions) {
        assert_eq!(operations_of(&mut server.connect(), &modern), 0);
    }
}

/// A connection made for one request, as a stateless server makes them,
/// remembers nothing of it: the request allocates its response alone.
#[test]
fn a_connection_for_one_request_allocates_its_response_only() {
    let server = server();
    let mut params = json!({"name": "manage_files",
        "arguments": {"action": "read", "path": "notes/a.txt"}});
    params["_meta"] = modern_meta(extension());
    let modern =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/resolve", "params": params}).to_string();
    // Rules compile their patterns on first use.
    assert!(server.connect().handle(modern.as_bytes()).is_some());
    let mut response = None;
    let operations = heap_operations_during(|| {
        let mut connection = server.connect();
        response = black_box(connection.handle(black_box(modern.as_bytes())));
    });
    assert!(
        String::from_utf8(response.unwrap())
            .unwrap()
            .contains("\"result\"")
    );
    // Debug builds check every reading against serde's, which allocates.
    if !cfg!(debug_assertions) {
        assert_eq!(operations, 1);
    }
}

#[test]
fn a_resolution_allocates_nothing() {
    let server = server();
    for path in ["notes/a.txt", "/etc/hosts"] {
        for action in ["read", "append", "replace", "delete"] {
            let arguments = match action {
                "read" | "delete" => json!({"action": action, "path": path}),
                _ => json!({"action": action, "path": path, "content": "x\n"}),
            };
            let params = json!({"name": "manage_files", "arguments": arguments});
            let session = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/resolve",
                "params": params})
            .to_string();
            let mut connection = initialized(&server, extension());
            assert_eq!(operations_of(&mut connection, &session), 0, "{session}");
            let plain_params = params.clone();
            let mut params = params;
            params["_meta"] = modern_meta(extension());
            let modern = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/resolve",
                "params": params})
            .to_string();
            if !cfg!(debug_assertions) {
                assert_eq!(operations_of(&mut server.connect(), &modern), 0, "{modern}");
            }
            // Dialects A and B: the answer is reserved whole up front (B's
            // embeds the tool's input schema), and fits the buffer grown.
            let mut plain = initialized(&server, json!({}));
            for method in ["tools/annotations", "tools/resolve"] {
                let request = json!({"jsonrpc": "2.0", "id": 3, "method": method,
                    "params": plain_params})
                .to_string();
                assert_eq!(operations_of(&mut plain, &request), 0, "{request}");
            }
        }
    }
}

/// A call allocates what its handler is handed and hands back: the `String`
/// of each string argument, the handler's `ToolOutput` (its text and its
/// list of blocks); each of them allocated and freed once. No `serde_json::Value` of the arguments: they are read
/// from the members the request reader split.
#[test]
fn a_call_allocates_its_arguments_and_output_only() {
    let server = server();
    for path in ["notes/a.txt", "/etc/hosts"] {
        for action in ["read", "append", "replace", "delete"] {
            let (arguments, strings) = match action {
                "read" | "delete" => (json!({"action": action, "path": path}), 1),
                _ => (json!({"action": action, "path": path, "content": "x\n"}), 2),
            };
            let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "manage_files", "arguments": arguments}})
            .to_string();
            let mut connection = initialized(&server, json!({}));
            let operations = operations_of(&mut connection, &request);
            // Each string argument, the output's text and its block list:
            // allocated and freed. A string with an escape (`content`) is
            // decoded through serde_json's scratch buffer: allocated and
            // freed too.
            let escaped = strings - 1;
            assert_eq!(operations, 2 * (strings + 2) + 2 * escaped, "{request}");
        }
    }
}

/// The stdio server answers into one buffer kept for the session: serving
/// thirty requests allocates no more than serving three. Each answer is
/// some kilobytes (a long id, echoed), which the buffer keeps between
/// messages. The output is reserved up front so that its own growth does not
/// count.
#[test]
fn serving_more_lines_allocates_nothing_more() {
    let server = server();
    let resolve = |number: usize| {
        let id = format!("{}{number:02}", "i".repeat(3000));
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/resolve", "params": {
            "name": "manage_files",
            "arguments": {"action": "read", "path": format!("notes/{}.txt", number % 10)}
        }})
        .to_string()
    };
    let session = |requests: usize| {
        let mut input = format!("{}\n", initialize(extension()));
        for id in 1..=requests {
            input.push_str(&resolve(id));
            input.push('\n');
        }
        input
    };
    // Rules compile their patterns on first use.
    server.serve(session(1).as_bytes(), Vec::new()).unwrap();
    let operations = |input: &str| {
        let mut output = Vec::with_capacity(1 << 20);
        let operations = heap_operations_during(|| {
            server.serve(input.as_bytes(), &mut output).unwrap();
        });
        let answers = String::from_utf8(output).unwrap();
        assert_eq!(
            answers.matches("\"readOnlyHint\":true").count(),
            input.lines().count() - 1,
            "{answers}"
        );
        operations
    };
    let (three, thirty) = (session(3), session(30));
    assert_eq!(operations(&three), operations(&thirty));
}
