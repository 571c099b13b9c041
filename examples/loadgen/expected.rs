//! The load generator's request mix and what `manage_files` must answer to
//! each, written out by hand from the tool's table (examples/tools/manage_files.rs),
//! not computed by the code under test.

use serde_json::{Value, json};

/// The file every `read` call reads: the run script writes it into the
/// servers' shared root before the run.
pub const SHARED_FILE: &str = "shared.txt";
/// Its content.
pub const SHARED_CONTENT: &str = "annot scale-out\n";

/// One request of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    List,
    /// `tools/resolve` of one action, on a plain path or a system path.
    Resolve {
        action: &'static str,
        system_path: bool,
    },
    /// `tools/call` of `read` on [`SHARED_FILE`].
    CallRead,
    /// `tools/call` of `replace` on the worker's own file, always with the
    /// same content: repeating it changes nothing.
    CallReplace,
    /// `tools/call` of a name no tool has: `-32602`.
    CallUnknown,
}

const ACTIONS: [&str; 4] = ["read", "append", "replace", "delete"];

impl Kind {
    /// The request number `index` of the run: a fixed rotation, so every run of
    /// N requests sends the same mix.
    pub fn of(index: usize) -> Kind {
        match index % 8 {
            0 => Kind::List,
            1 | 3 | 5 => {
                let case = index / 8 % 8;
                Kind::Resolve {
                    action: ACTIONS[case % 4],
                    system_path: case >= 4,
                }
            }
            2 | 6 => Kind::CallRead,
            4 => Kind::CallReplace,
            _ => Kind::CallUnknown,
        }
    }

    /// The method and its params (without `_meta`).
    pub fn request(self, worker: usize) -> (&'static str, Value) {
        match self {
            Kind::List => ("tools/list", json!({})),
            Kind::Resolve {
                action,
                system_path,
            } => {
                let path = if system_path {
                    "/etc/passwd"
                } else {
                    "notes.txt"
                };
                let mut arguments = json!({"action": action, "path": path});
                if matches!(action, "append" | "replace") {
                    arguments["content"] = json!("x");
                }
                (
                    "tools/resolve",
                    json!({"name": "manage_files", "arguments": arguments}),
                )
            }
            Kind::CallRead => (
                "tools/call",
                json!({"name": "manage_files",
                       "arguments": {"action": "read", "path": SHARED_FILE}}),
            ),
            Kind::CallReplace => (
                "tools/call",
                json!({"name": "manage_files", "arguments": {
                    "action": "replace",
                    "path": format!("worker-{worker}.txt"),
                    "content": format!("worker {worker}\n"),
                }}),
            ),
            Kind::CallUnknown => (
                "tools/call",
                json!({"name": "no_such_tool", "arguments": {}}),
            ),
        }
    }
}

/// The four core hints `tools/resolve` states for an action (the extension's
/// shape carries these; the system-path rule raises only SEP-1984 hints).
fn resolved(action: &str) -> Value {
    let (read_only, destructive, idempotent) = match action {
        "read" => (true, false, true),
        "append" => (false, false, false),
        "replace" | "delete" => (false, true, true),
        other => unreachable!("no action {other}"),
    };
    json!({
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": false,
    })
}

/// The worst case over the actions and the system-path rule, as `tools/list`
/// advertises it.
fn listed_annotations() -> Value {
    json!({
        "title": "Manage files",
        "readOnlyHint": false,
        "destructiveHint": true,
        "idempotentHint": false,
        "openWorldHint": false,
        "privilegedAccessHint": true,
        "sensitiveDataHint": true,
    })
}

/// Whether `answer` (a whole JSON-RPC response) is right for `kind`.
pub fn check_answer(kind: Kind, worker: usize, answer: &Value) -> Result<(), String> {
    let result = &answer["result"];
    let fail = |what: &str| Err(format!("{what}: {answer}"));
    match kind {
        Kind::List => {
            // examples/rmcp_server lists `manage_files`, then `stat_file`.
            let tools = result["tools"].as_array();
            let [tool, stat_file] = tools.map(Vec::as_slice).unwrap_or_default() else {
                return fail("not exactly two tools listed");
            };
            if tool["name"] != "manage_files" || tool["annotations"] != listed_annotations() {
                return fail("manage_files not listed with its worst-case annotations");
            }
            if stat_file["name"] != "stat_file" || stat_file["annotations"]["readOnlyHint"] != true
            {
                return fail("stat_file not listed as read-only");
            }
        }
        Kind::Resolve { action, .. } => {
            if result["resultType"] != "complete"
                || result["name"] != "manage_files"
                || result["annotations"] != resolved(action)
            {
                return fail(&format!("not the resolution of `{action}`"));
            }
        }
        Kind::CallRead => {
            if result["isError"] != false || result["content"][0]["text"] != SHARED_CONTENT {
                return fail("not the shared file's content");
            }
        }
        Kind::CallReplace => {
            let content = format!("worker {worker}\n");
            let text = format!("wrote {} bytes to worker-{worker}.txt", content.len());
            if result["isError"] != false || result["content"][0]["text"] != text.as_str() {
                return fail("not the replace's report");
            }
        }
        Kind::CallUnknown => {
            if answer["error"]["code"] != -32602
                || answer["error"]["message"] != "unknown tool `no_such_tool`"
            {
                return fail("not -32602 unknown tool");
            }
        }
    }
    Ok(())
}
