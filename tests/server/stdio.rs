//! The stdio transport's loop, over in-memory streams.

use crate::server_support;
use std::io::{self, Write};

use serde_json::{Value, json};
use server_support::{assert_mcp, tools};

fn lines(output: &[u8]) -> Vec<Value> {
    String::from_utf8(output.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn one_response_line_per_request_none_for_notifications() {
    let (server, _) = tools::server();
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "manage_files", "arguments": {"action": "replace", "path": "a", "content": "x\ny"}}}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n")
        + "\r\n\n   \n{broken\n";
    let mut output = Vec::new();
    server.serve(input.as_bytes(), &mut output).unwrap();

    let responses = lines(&output);
    assert_eq!(responses.len(), 4, "{responses:?}");
    for response in &responses {
        assert_mcp("JSONRPCResponse", response);
    }
    assert_eq!(responses[0]["id"], 1);
    assert_eq!(responses[1]["result"]["tools"][0]["name"], "manage_files");
    // The call runs beside the session: its answer and the parse error of
    // the line after it come in either order.
    let call = responses.iter().find(|response| response["id"] == 3);
    assert_eq!(call.unwrap()["result"]["content"][0]["text"], "replaced");
    let error = responses
        .iter()
        .find(|response| response.get("id").is_none());
    assert_eq!(error.unwrap()["error"]["code"], -32700);
    // A newline in a value is escaped: one response is one line.
    assert_eq!(output.iter().filter(|byte| **byte == b'\n').count(), 4);
}

#[test]
fn empty_input_is_a_clean_end() {
    let (server, _) = tools::server();
    let mut output = Vec::new();
    server.serve(&b""[..], &mut output).unwrap();
    assert!(output.is_empty());
}

/// A writer whose reader has gone away.
struct ClosedPipe;

impl Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::from(io::ErrorKind::BrokenPipe))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer that fails for another reason.
struct FullDisk;

impl Write for FullDisk {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("disk full"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_closed_output_ends_the_session_other_write_errors_surface() {
    let (server, _) = tools::server();
    let ping = &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..];
    server.serve(ping, ClosedPipe).unwrap();
    let error = server.serve(ping, FullDisk).unwrap_err();
    assert_eq!(error.to_string(), "disk full");
}
