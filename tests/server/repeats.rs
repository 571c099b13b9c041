//! What a connection remembers of the messages it read: the last two tool
//! requests' envelopes around their ids and arguments, and the last `_meta`.
//! Clients repeat both; every request must still be answered by its own
//! bytes, so one long connection answers each message, byte for byte, as a
//! fresh connection answers it alone.

use crate::server_support;
use annot::server::{Connection, Server};
use server_support::{extension_capabilities, tools};

/// A connection after `initialize` (with the tool-resolution extension, so
/// that `tools/resolve` answers in the extension's shape). Not
/// `Client::initialized`, which checks each answer against the MCP schema:
/// for the thousand fresh connections of this file that took 30 s.
fn initialized(server: &Server) -> Connection {
    let mut connection = server.connect();
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": extension_capabilities(),
            "clientInfo": {"name": "test", "version": "0"}}
    });
    assert!(
        connection
            .handle(initialize.to_string().as_bytes())
            .is_some()
    );
    connection
}

/// Tool requests as clients write them. `{id}` and `{arguments}` mark the
/// values a client changes from one request to the next.
const ENVELOPES: [&str; 8] = [
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/resolve","params":{"name":"manage_files","arguments":{arguments}}}"#,
    // Members in the order a pydantic model writes them.
    r#"{"method":"tools/resolve","params":{"name":"manage_files","arguments":{arguments}},"jsonrpc":"2.0","id":{id}}"#,
    // The tool's name and the method after both values.
    r#"{"id":{id},"params":{"arguments":{arguments},"name":"manage_files"},"method":"tools/resolve","jsonrpc":"2.0"}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/annotations","params":{"name":"manage_files","arguments":{arguments}}}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/resolve","params":{"name":"manage_files","arguments":{arguments},"_meta":{"dev.annot/resolution":{"explain":true}}}}"#,
    r#" { "jsonrpc" : "2.0" , "id" : {id} , "method" : "tools/resolve" , "params" : { "name" : "manage_files" , "arguments" : {arguments} } } "#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/resolve","params":{"name":"no_such_tool","arguments":{arguments}}}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"counter","arguments":{arguments}}}"#,
];
const IDS: [&str; 6] = ["1", "42", "123456789012", r#""a-7""#, "1.5", "null"];
const ARGUMENTS: [&str; 8] = [
    r#"{"action":"read","path":"notes/a.txt"}"#,
    r#"{"action":"delete","path":"/etc/hosts"}"#,
    r#"{"action":"append","path":"notes/a.txt","content":"x\n"}"#,
    r#"{"by":3}"#,
    r#"{"bump":true,"by":2}"#,
    r#"{"action":"rename"}"#,
    "[]",
    r#"{"action":"read","path":"#,
];

#[test]
fn a_long_connection_answers_each_tool_request_as_a_fresh_one_does() {
    let (server, _) = tools::server();
    let mut messages = Vec::new();
    for envelope in ENVELOPES {
        for arguments in ARGUMENTS {
            for id in IDS {
                messages.push(
                    envelope
                        .replace("{id}", id)
                        .replace("{arguments}", arguments),
                );
            }
        }
    }
    // In order (each envelope many times running), then each message after
    // one of another envelope.
    let interleaved = messages
        .iter()
        .zip(messages.iter().rev())
        .flat_map(|(a, b)| [a, b]);
    let mut long = initialized(&server);
    for message in messages.iter().chain(interleaved) {
        let fresh = initialized(&server).handle(message.as_bytes());
        let answered = long.handle(message.as_bytes());
        assert_eq!(
            answered.as_deref().map(String::from_utf8_lossy),
            fresh.as_deref().map(String::from_utf8_lossy),
            "{message}"
        );
    }
}

/// A connection remembers the last `_meta` it read, which clients repeat with
/// every request; each request must still be answered by its own. Every
/// `_meta` after every other (and after itself), altered early or late in
/// its text, by one byte of a name or a value, by whitespace, by a key more,
/// gets, byte for byte, on one long connection the answers a fresh
/// connection gives each request.
#[test]
fn a_long_connection_answers_each_meta_as_a_fresh_one_does() {
    const EXTENSION: &str = r#"{"extensions":{"io.modelcontextprotocol/tool-resolution":{}}}"#;
    let meta = |version: &str, capabilities: &str| {
        format!(
            r#"{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientInfo":{{"name":"test","version":"0"}},"io.modelcontextprotocol/clientCapabilities":{capabilities}}}"#
        )
    };
    let metas = [
        meta("2026-07-28", EXTENSION),
        meta("2026-07-28", "{}"),
        // The extension's settings differ in the last bytes only.
        meta(
            "2026-07-28",
            r#"{"extensions":{"io.modelcontextprotocol/tool-resolution":{"a":1}}}"#,
        ),
        meta(
            "2026-07-28",
            r#"{"extensions":{"io.modelcontextprotocol/tool-resolution":[]}}"#,
        ),
        meta("2099-01-01", EXTENSION),
        meta("2026-07-29", EXTENSION),
        // Another extension, of a name as long.
        meta("2026-07-28", &EXTENSION.replace("resolution", "resolutiox")),
        meta("2026-07-28", EXTENSION).replace(',', " , "),
        meta("2026-07-28", EXTENSION).replace(
            "{\"io.",
            "{\"dev.annot/resolution\":{\"explain\":true},\"io.",
        ),
        r#"{"io.modelcontextprotocol/clientCapabilities":{}}"#.to_owned(),
        "{}".to_owned(),
    ];
    let calls = [
        (
            "tools/resolve",
            r#""name":"manage_files","arguments":{"action":"read","path":"a"}"#,
        ),
        (
            "tools/resolve",
            r#""name":"manage_files","arguments":{"action":"delete","path":"/etc/hosts"}"#,
        ),
        ("tools/list", r#""cursor":null"#),
        ("server/discover", r#""x":0"#),
    ];
    let (server, _) = tools::server();
    let mut long = server.connect();
    let mut id = 0;
    for (method, fields) in calls {
        for before in &metas {
            for meta in [before, &metas[0]].into_iter().chain(&metas) {
                id += 1;
                let message = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{fields},"_meta":{meta}}}}}"#
                );
                let fresh = server.connect().handle(message.as_bytes());
                let answered = long.handle(message.as_bytes());
                assert_eq!(
                    answered.as_deref().map(String::from_utf8_lossy),
                    fresh.as_deref().map(String::from_utf8_lossy),
                    "{message}"
                );
            }
        }
    }
}
