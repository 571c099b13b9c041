//! An MCP server written without annot, as most are: one multi-action tool,
//! `notes`, whose static annotations must state its worst case (delete), and
//! no resolution. What a gateway's configuration rules are for.
//!
//! ```sh
//! cargo run -p annot-gateway --example plain_server -- ./notes
//! cargo run -p annot-gateway --example plain_server -- --misbehave silent ./notes
//! ```
//!
//! `--description TEXT` changes the tool's description (a changed
//! definition, for pinning). `--misbehave MODE` breaks the protocol on purpose on `tools/call`, to test
//! what stands in front of it: `garbage` (a line that is not JSON, then the
//! answer), `oversize` (a 17 MiB line instead of the answer), `silent` (no
//! answer), `die` (exits), `bound` (declares `tools/resolve` and answers it
//! with more risk than its static annotations admit), `elicit` (asks the
//! client a question before answering, and puts the answer in the result),
//! `progress` (three `notifications/progress` for a request with a progress
//! token, written with its answer at once).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn main() {
    let mut misbehave = String::new();
    let mut description = "Read, append to or delete a note.".to_owned();
    let mut directory = None;
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--misbehave" => misbehave = arguments.next().unwrap_or_default(),
            "--description" => description = arguments.next().unwrap_or_default(),
            _ => directory = Some(PathBuf::from(argument)),
        }
    }
    let Some(directory) = directory else {
        eprintln!("usage: plain_server [--misbehave MODE] DIRECTORY");
        std::process::exit(2);
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut lines = stdin.lock().lines();
    while let Some(Ok(line)) = lines.next() {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            continue;
        };
        let params = &message["params"];
        // `progress`: three progress notifications, then the answer, in one write.
        let mut before = String::new();
        if let Some(token) = params.pointer("/_meta/progressToken")
            && misbehave == "progress"
        {
            for step in 1..=3 {
                let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": step, "total": 3}});
                before.push_str(&format!("{progress}\n"));
            }
        }
        let result = match method {
            "initialize" => Ok(initialize(params, &misbehave)),
            "tools/list" => {
                let mut tool = notes_tool(&description);
                if misbehave == "bound" {
                    tool["resolve"] = json!(true);
                }
                Ok(json!({"tools": [tool]}))
            }
            "tools/resolve" if misbehave == "bound" => Ok(json!({"tool": {
                "name": "notes",
                "inputSchema": notes_tool(&description)["inputSchema"],
                // Static: closed world. This answer claims the open world.
                "annotations": {"readOnlyHint": true, "openWorldHint": true},
            }})),
            "tools/call" => match misbehave.as_str() {
                "garbage" => {
                    writeln!(stdout, "this is not JSON {{").unwrap();
                    Ok(call(&directory, params))
                }
                "oversize" => {
                    let padding = "x".repeat(17 << 20);
                    Ok(json!({"content": [{"type": "text", "text": padding}]}))
                }
                "silent" => continue,
                "die" => std::process::exit(3),
                "elicit" => {
                    let question = json!({"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create",
                        "params": {"message": "Which colour?", "requestedSchema": {"type": "object",
                        "properties": {"colour": {"type": "string"}}}}});
                    writeln!(stdout, "{question}").unwrap();
                    stdout.flush().unwrap();
                    let answer = lines.next().and_then(Result::ok).unwrap_or_default();
                    let answer: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
                    Ok(json!({"content": [{"type": "text",
                        "text": format!("answered {}", answer["result"]["content"]["colour"])}]}))
                }
                _ => Ok(call(&directory, params)),
            },
            "ping" => Ok(json!({})),
            _ => Err(json!({"code": -32601, "message": format!("no method `{method}`")})),
        };
        let response = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let text = format!("{before}{response}\n");
        stdout.write_all(text.as_bytes()).unwrap();
        stdout.flush().unwrap();
    }
}

fn initialize(params: &Value, misbehave: &str) -> Value {
    let mut tools = json!({});
    if misbehave == "bound" {
        tools["resolve"] = json!(true);
    }
    json!({
        "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-11-25"),
        "capabilities": {"tools": tools},
        "serverInfo": {"name": "plain-notes", "version": "1.0.0"},
    })
}

fn notes_tool(description: &str) -> Value {
    json!({
        "name": "notes",
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["read", "append", "delete"]},
                "name": {"type": "string"},
                "text": {"type": "string"},
            },
            "required": ["action", "name"],
        },
        "annotations": {
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
        },
    })
}

fn call(directory: &Path, params: &Value) -> Value {
    let arguments = &params["arguments"];
    let name = arguments["name"].as_str().unwrap_or_default();
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return failure(format!("`{name}` is not a note's name"));
    }
    let path = directory.join(name);
    let outcome = match arguments["action"].as_str() {
        Some("read") => std::fs::read_to_string(&path),
        Some("append") => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| {
                file.write_all(arguments["text"].as_str().unwrap_or("").as_bytes())
            })
            .map(|()| "appended".to_owned()),
        Some("delete") => std::fs::remove_file(&path).map(|()| "deleted".to_owned()),
        other => return failure(format!("unknown action {other:?}")),
    };
    match outcome {
        Ok(text) => json!({"content": [{"type": "text", "text": text}]}),
        Err(error) => failure(error.to_string()),
    }
}

fn failure(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}
