//! `resolving`: an rmcp server whose byte stream answers the annotated tools'
//! resolutions before rmcp reads them. Every answer must be the one the same
//! server gives through `lifted`, byte for byte, whether the line was answered
//! in front of rmcp or handed to it: the same lines are sent both ways, one at
//! a time, and what comes back is compared.

use crate::rmcp_support;
use rmcp_support::fixtures::{INITIALIZED, LIST, Served, raw_exchange, result, server};
use serde_json::{Value, json};

/// `initialize` taking the tool-resolution extension up (dialect C), or not
/// (dialect B: the whole tool).
fn initialize(id: u64, extension: bool) -> String {
    let capabilities = if extension {
        json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
    } else {
        json!({})
    };
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "0"}
    }})
    .to_string()
}

fn resolve(id: Value, method: &str, arguments: Value, meta: Value) -> String {
    let mut params = json!({"name": "manage_files", "arguments": arguments});
    if !meta.is_null() {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// Lines a client may send after `initialize`, each with whether it gets an
/// answer: the plain resolutions answered in front of rmcp, and every
/// variation that is rmcp's to read; at the end a second `initialize` that
/// declares the opposite of `extension`, and resolutions after it.
fn session_lines(extension: bool) -> Vec<(String, bool)> {
    let read = json!({"action": "read", "path": "notes.txt"});
    let delete = json!({"action": "delete", "path": "/etc/passwd"});
    let progress = json!({"progressToken": 7});
    let huge = json!({"action": "append", "path": "a.txt", "content": "x".repeat(70_000)});
    let mut lines = vec![
        (INITIALIZED.to_owned(), false),
        (LIST.to_owned(), true),
        (resolve(json!(3), "tools/resolve", read.clone(), Value::Null), true),
        (resolve(json!(4), "tools/resolve", delete.clone(), progress.clone()), true),
        (resolve(json!("r-5"), "tools/resolve", read.clone(), progress), true),
        (resolve(json!(6), "tools/annotations", delete.clone(), Value::Null), true),
        (resolve(json!(7), "tools/resolve", json!({"action": "shred", "path": "a"}), Value::Null), true),
        (resolve(json!(8), "tools/resolve", json!("not an object"), Value::Null), true),
        (resolve(json!(9), "tools/resolve", read.clone(), json!({
            "io.modelcontextprotocol/clientCapabilities":
                {"extensions": {"io.modelcontextprotocol/tool-resolution": {}}},
            "dev.annot/resolution": {"explain": true}
        })), true),
        (resolve(json!(10), "tools/resolve", read.clone(), json!(5)), true),
        (resolve(json!(29), "tools/resolve", read.clone(), json!({})), true),
        (resolve(json!(11), "tools/resolve", huge, Value::Null), true),
        (resolve(json!(12.5), "tools/resolve", read.clone(), Value::Null), true),
        (resolve(Value::Null, "tools/resolve", read.clone(), Value::Null), true),
        (json!({"jsonrpc": "2.0", "id": 13, "method": "tools/resolve",
                "params": {"name": "nope", "arguments": {}}}).to_string(), true),
        (json!({"jsonrpc": "2.0", "id": 14, "method": "tools/resolve",
                "params": {"_meta": {"progressToken": 1}}}).to_string(), true),
        (json!({"jsonrpc": "2.0", "id": 15, "method": "tools/resolve"}).to_string(), true),
        (json!({"jsonrpc": "2.0", "id": 16, "method": "tools/resolve", "extra": 1,
                "params": {"name": "manage_files", "arguments": read}}).to_string(), true),
        (json!({"jsonrpc": "1.0", "id": 17, "method": "tools/resolve",
                "params": {"name": "manage_files", "arguments": read}}).to_string(), true),
        (r#"{"jsonrpc":"2.0","id":18,"method":"tools\/resolve","params":{"name":"manage_files","arguments":{"action":"read","path":"a"}}}"#.to_owned(), true),
        (json!({"jsonrpc": "2.0", "method": "tools/resolve",
                "params": {"name": "manage_files", "arguments": read}}).to_string(), false),
        (r#"{"jsonrpc":"2.0","id":19,"method":"tools/resolve","params":{"#.to_owned(), false),
        (json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
                "params": {"name": "manage_files", "arguments": read}}).to_string(), true),
        (resolve(json!(21), "tools/resolve", delete, Value::Null), true),
    ];
    // Requests naming their own protocol version, which rmcp checks.
    let read = json!({"action": "read", "path": "notes.txt"});
    for (id, version) in [(23, "1999-01-01"), (24, "2026-07-28"), (25, "2025-11-25")] {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": version});
        lines.push((
            resolve(json!(id), "tools/resolve", read.clone(), meta),
            true,
        ));
    }
    lines.push((initialize(26, !extension), true));
    lines.push((
        resolve(json!(27), "tools/resolve", read.clone(), Value::Null),
        true,
    ));
    lines.push((
        resolve(json!(28), "tools/annotations", read, Value::Null),
        true,
    ));
    // A resolution of a tool with SEP-1984 hints, lifted on the way out.
    lines.push((
        json!({"jsonrpc": "2.0", "id": 22, "method": "tools/resolve",
               "params": {"name": "fetch", "arguments": {"method": "GET"}}})
        .to_string(),
        true,
    ));
    lines
}

async fn exchange(served: Served, lines: &[(String, bool)]) -> Vec<String> {
    let lines: Vec<(&str, bool)> = lines
        .iter()
        .map(|(line, answered)| (line.as_str(), *answered))
        .collect();
    raw_exchange(server(), served, &lines).await
}

async fn both_ways(lines: &[(String, bool)]) -> Vec<String> {
    let lifted = exchange(Served::Lifted, lines).await;
    let resolving = exchange(Served::Resolving, lines).await;
    assert_eq!(lifted.len(), resolving.len());
    for (lifted, resolving) in lifted.iter().zip(&resolving) {
        assert_eq!(resolving, lifted);
    }
    resolving
}

/// The answer of `answers` to the request `id`.
fn answer_to(answers: &[String], id: u64) -> Value {
    answers
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|answer| answer["id"] == id)
        .unwrap_or_else(|| panic!("no answer {id}"))
}

#[tokio::test]
async fn every_answer_is_the_lifted_servers_with_the_extension() {
    let mut lines = vec![(initialize(1, true), true)];
    lines.extend(session_lines(true));
    let answers = both_ways(&lines).await;
    // Read independently of the other path: a read is read-only, a delete of
    // a system file destructive, an unknown tool an invalid-params error.
    let resolved = |id: u64| answer_to(&answers, id);
    assert_eq!(resolved(3)["result"]["annotations"]["readOnlyHint"], true);
    assert_eq!(
        resolved(4)["result"]["annotations"]["destructiveHint"],
        true
    );
    assert_eq!(resolved(4)["result"]["annotations"]["readOnlyHint"], false);
    assert_eq!(resolved(13)["error"]["code"], -32602);
    assert_eq!(
        resolved(21)["result"]["annotations"]["destructiveHint"],
        true
    );
}

#[tokio::test]
async fn every_answer_is_the_lifted_servers_in_dialect_b() {
    let mut lines = vec![(initialize(1, false), true)];
    lines.extend(session_lines(false));
    let answers = both_ways(&lines).await;
    let whole_tool = answer_to(&answers, 22);
    // Dialect B answers with the whole tool, its SEP-1984 hints lifted.
    assert!(
        !whole_tool.to_string().contains("dev.annot/lift"),
        "{whole_tool}"
    );
    assert_eq!(result(&answers[0])["protocolVersion"], "2025-11-25");
}

/// A 2026-07-28 client sends no `initialize`: rmcp serves it throughout.
#[tokio::test]
async fn a_session_without_initialize_is_rmcps_throughout() {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tool-resolution": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    });
    let read = json!({"action": "read", "path": "notes.txt"});
    let lines = vec![
        (
            resolve(json!(1), "tools/resolve", read.clone(), meta.clone()),
            true,
        ),
        (
            resolve(json!(2), "tools/resolve", read.clone(), Value::Null),
            true,
        ),
        (resolve(json!(3), "tools/resolve", read.clone(), meta), true),
        (initialize(4, true), true),
        (
            resolve(json!(5), "tools/resolve", read.clone(), Value::Null),
            true,
        ),
        (
            resolve(json!(6), "tools/resolve", read, json!({"progressToken": 1})),
            true,
        ),
    ];
    let answers = both_ways(&lines).await;
    let first: Value = serde_json::from_str(&answers[0]).unwrap();
    assert_eq!(
        first["result"]["annotations"]["readOnlyHint"], true,
        "{first}"
    );
}

/// A client that writes its last request and closes its end at once still
/// gets the answer, as rmcp answers what it read before the end.
#[tokio::test]
async fn a_resolution_just_before_the_end_is_answered() {
    use annot::rmcp::resolving;
    use rmcp::ServiceExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let (server_side, mut client) = tokio::io::duplex(1 << 16);
    let served = tokio::spawn(async move {
        let server = server();
        let (read, write) = tokio::io::split(server_side);
        let transport = resolving(&server, read, write);
        let running = server.serve(transport).await.expect("initialize");
        running.waiting().await.expect("serve");
    });
    let read = json!({"action": "read", "path": "notes.txt"});
    let lines = [
        initialize(1, true),
        INITIALIZED.to_owned(),
        resolve(json!(2), "tools/resolve", read.clone(), Value::Null),
        resolve(json!(3), "tools/resolve", read, Value::Null),
    ];
    client.write_all(lines.join("\n").as_bytes()).await.unwrap();
    client.write_all(b"\n").await.unwrap();
    client.shutdown().await.unwrap();
    let mut answers = String::new();
    let read_all = client.read_to_string(&mut answers);
    tokio::time::timeout(std::time::Duration::from_secs(20), read_all)
        .await
        .expect("the server ends")
        .unwrap();
    served.await.expect("served");
    let answers: Vec<String> = answers.lines().map(str::to_owned).collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    for id in [2, 3] {
        assert_eq!(
            answer_to(&answers, id)["result"]["annotations"]["readOnlyHint"],
            true
        );
    }
}
