//! `tools/call` reads a tool's arguments from the members the request reader
//! split (`AnnotatedTool::from_members`), not through a `serde_json::Value`:
//! here it must answer every argument text exactly as the owned path
//! (`from_arguments_str`) reads it, with the same value or the same error.
//!
//! A hand-written table of tricky texts (escapes, repeated and unknown
//! members, numbers that are almost integers, defaults, renames, a skipped
//! field, more members than a request's reader splits) goes through a real
//! server, whose handler answers with the `Debug` text of the value it got.
//! The example tools get the same check over generated arguments in
//! `tests/robust/properties.rs`.

use crate::robust_support;
use annot::AnnotatedTool;
use annot::mcp_tool;
use annot::server::{Connection, Server, ToolOutput};
use robust_support::{call_answer, expected_call, manage_files};
use serde_json::json;
use std::collections::HashMap;

fn seven() -> u16 {
    7
}

/// Every kind of field the generated reader has a way of reading.
#[mcp_tool(open_world = false, title = "Tricky")]
#[serde(rename_all = "snake_case")]
#[derive(Debug, PartialEq)]
enum Tricky {
    #[annotate(read_only)]
    Read {
        path: String,
        #[serde(default)]
        limit: u8,
        ratio: Option<f64>,
        tags: Option<Vec<String>>,
        note: Option<String>,
        offset: Option<i64>,
    },
    #[annotate(destructive)]
    Write {
        #[serde(rename = "file")]
        path: String,
        content: String,
        #[serde(skip)]
        cache: u32,
        extra: Option<serde_json::Value>,
        #[serde(default = "seven")]
        retries: u16,
        letter: Option<char>,
        sizes: Option<Vec<u8>>,
        weight: f64,
    },
    #[annotate(read_only)]
    Count {
        numbers: HashMap<String, Vec<i32>>,
        boxed: Box<u32>,
        flag: bool,
    },
    #[annotate(read_only)]
    Ping,
}

fn server() -> Server {
    Server::builder("call-members", "0.0.0")
        .tool(|parsed: Tricky| Ok(ToolOutput::text(format!("{parsed:?}"))))
        .tool(|parsed: manage_files::ManageFiles| Ok(ToolOutput::text(format!("{parsed:?}"))))
        .build()
        .expect("the server is consistent")
}

fn initialized(server: &Server) -> Connection {
    let mut connection = server.connect();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "call-members", "version": "0"}
    }});
    connection.handle(initialize.to_string().as_bytes());
    connection
}

/// Argument texts of `tricky`, each with whether it is valid: the expected
/// verdict is written here, independently of either reader.
const TRICKY: &[(&str, bool)] = &[
    (r#"{"action":"read","path":"a.txt"}"#, true),
    (r#"{"path":"a.txt","action":"read"}"#, true),
    (
        r#"{"action":"read","path":"a\"b\\c\u00e9\ud83d\ude00"}"#,
        true,
    ),
    (r#"{"action":"re\u0061d","path":"a.txt"}"#, true),
    (r#"{"\u0061ction":"read","p\u0061th":"a.txt"}"#, true),
    (r#"{"action":"read","path":"a","limit":255}"#, true),
    (r#"{"action":"read","path":"a","limit":256}"#, false),
    (r#"{"action":"read","path":"a","limit":-1}"#, false),
    (r#"{"action":"read","path":"a","limit":100.0}"#, true),
    (r#"{"action":"read","path":"a","limit":1e2}"#, true),
    (
        r#"{"action":"read","path":"a","limit":100.00000000000001}"#,
        false,
    ),
    (r#"{"action":"read","path":"a","limit":-0}"#, true),
    (r#"{"action":"read","path":"a","limit":null}"#, false),
    (
        r#"{"action":"read","path":"a","offset":-9223372036854775808}"#,
        true,
    ),
    (
        r#"{"action":"read","path":"a","offset":9223372036854775808}"#,
        false,
    ),
    (
        r#"{"action":"read","path":"a","offset":3.0,"ratio":3.0}"#,
        true,
    ),
    // An inexact number in one member does not make another one's exact
    // integer inexact.
    (
        r#"{"action":"read","path":"a","ratio":100.00000000000001,"limit":100.0}"#,
        true,
    ),
    (r#"{"action":"read","path":"a","ratio":1e400}"#, false),
    (
        r#"{"action":"read","path":"a","ratio":null,"note":null,"tags":null}"#,
        true,
    ),
    (
        r#"{"action":"read","path":"a","note":"n\u0000","tags":["x","y\n"]}"#,
        true,
    ),
    (r#"{"action":"read","path":"a","note":"\ud800"}"#, false),
    (r#"{"action":"read","path":"a","tags":["x",1]}"#, false),
    (r#"{"action":"read","path":"a","path":"b"}"#, true),
    (r#"{"action":"read","action":"read","path":"b"}"#, true),
    (r#"{"action":"read","path":"a","file":"b"}"#, false),
    (r#"{"action":"read","path":"a","cache":1}"#, false),
    (r#"{"action":"read"}"#, false),
    (r#"{"action":"read","path":7}"#, false),
    (r#"{"action":"reads","path":"a"}"#, false),
    (r#"{"action":7,"path":"a"}"#, false),
    (r#"{"path":"a"}"#, false),
    (r#"{}"#, false),
    (r#"{"action":"ping"}"#, true),
    (r#"{"action":"ping","extra":1}"#, false),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1}"#,
        true,
    ),
    (
        r#"{"action":"write","path":"f","content":"c","weight":1}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"cache":3}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":2.5,"retries":0}"#,
        true,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"retries":65536}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"extra":{"a":[1.0,2,"3"],"b":null}}"#,
        true,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"extra":{"a":1,"a":2}}"#,
        true,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"letter":"é"}"#,
        true,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"letter":"ab"}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"sizes":[1.0,255]}"#,
        true,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"sizes":[1.5]}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"sizes":[100.00000000000001]}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":"1"}"#,
        false,
    ),
    // Nine members: more than the request reader splits, so the generated
    // reader reads the text itself.
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"extra":[],"retries":2,"letter":"x","sizes":[],"cache":null}"#,
        false,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"extra":[],"retries":2,"letter":"x","sizes":[]}"#,
        true,
    ),
    (
        r#"{"action":"write","file":"f","content":"c","weight":1,"extra":[],"retries":2,"letter":"x","sizes":[1],"sizes":[2]}"#,
        true,
    ),
    (
        r#"{"action":"count","numbers":{"a":[1,-2.0]},"boxed":4.0,"flag":true}"#,
        true,
    ),
    (
        r#"{"action":"count","numbers":{"a":[1],"a":[2]},"boxed":4,"flag":false}"#,
        true,
    ),
    (
        r#"{"action":"count","numbers":{"a":[2147483648]},"boxed":4,"flag":false}"#,
        false,
    ),
    (
        r#"{"action":"count","numbers":{},"boxed":-4,"flag":false}"#,
        false,
    ),
    (
        r#"{"action":"count","numbers":{},"boxed":4,"flag":1}"#,
        false,
    ),
    (
        r#"{"action":"count","numbers":{},"boxed":4,"flag":true,"flag":false}"#,
        true,
    ),
    (" { \"action\" : \"ping\" } ", true),
];

/// Each text through the server's `tools/call` answers as the owned path
/// reads it: the same value, or the same error.
#[test]
fn calls_read_arguments_as_the_owned_path_does() {
    let server = server();
    let mut connection = initialized(&server);
    for &(text, valid) in TRICKY {
        assert_eq!(
            Tricky::from_arguments_str(text).is_ok(),
            valid,
            "the table's verdict on {text}"
        );
        let expected = expected_call::<Tricky>(text);
        assert_eq!(
            call_answer(&mut connection, "tricky", text),
            expected,
            "{text}"
        );
        // The reader from the text alone (no split) gives the same value,
        // or leaves the arguments to the owned path.
        if let Some(parsed) = (Tricky::GENERATED.from_members)(text, None) {
            assert_eq!(Ok(parsed), Tricky::from_arguments_str(text), "{text}");
        }
    }
}

/// The common shapes are read by the generated reader, not left to the
/// owned path: what `from_members` takes, and what it leaves.
#[test]
fn the_members_reader_takes_the_common_shapes() {
    for text in [
        r#"{"action":"read","path":"a","limit":3,"tags":["x"],"note":"n\n"}"#,
        r#"{"action":"write","file":"f","content":"c","weight":1,"extra":{"a":1}}"#,
        r#"{"action":"count","numbers":{"a":[1]},"boxed":4,"flag":true}"#,
        r#"{"action":"ping"}"#,
    ] {
        assert!(
            (Tricky::GENERATED.from_members)(text, None).is_some(),
            "{text}"
        );
    }
    for text in [
        r#"{"action":"read","path":"a","path":"b"}"#,
        r#"{"action":"read","path":"a","limit":256}"#,
        r#"{"action":"read","path":"a","cache":1}"#,
        r#"{"action":"read"}"#,
    ] {
        assert!(
            (Tricky::GENERATED.from_members)(text, None).is_none(),
            "{text}"
        );
    }
}

/// The same through an example tool, and through a 2026-07-28 request, whose
/// `_meta` the request reader reads in the same pass.
#[test]
fn example_and_modern_calls_read_arguments_as_the_owned_path_does() {
    let server = server();
    let mut connection = initialized(&server);
    let texts = [
        r#"{"action":"append","path":"notes/a.txt","content":"x\n"}"#,
        r#"{"action":"delete","path":"/etc/hosts"}"#,
        r#"{"action":"delete","path":"/etc/hosts","content":"x"}"#,
        r#"{"action":"read","path":"a","path":"b"}"#,
        r#"{"action":"read","path":"\u0061"}"#,
    ];
    for text in texts {
        let expected = expected_call::<manage_files::ManageFiles>(text);
        assert_eq!(
            call_answer(&mut connection, "manage_files", text),
            expected,
            "{text}"
        );
        let arguments: serde_json::Value = serde_json::from_str(text).unwrap();
        let modern = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "manage_files", "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }});
        let response = server
            .connect()
            .handle(modern.to_string().as_bytes())
            .expect("answered");
        let response: serde_json::Value = serde_json::from_slice(&response).unwrap();
        let result = &response["result"];
        // Re-serialized, a repeated member is gone: compare with the text sent.
        let sent = modern["params"]["arguments"].to_string();
        let (is_error, text) = expected_call::<manage_files::ManageFiles>(&sent);
        assert_eq!(result["content"][0]["text"], json!(text), "{response}");
        assert_eq!(result["isError"] == json!(true), is_error, "{response}");
    }
}
