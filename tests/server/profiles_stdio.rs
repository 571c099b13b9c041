//! `cargo run --example manage_files -- --read-only <dir>` as a child process
//! over stdio: it lists one read-only action, reads, and refuses writes with
//! a message naming the profile and the hint, leaving the files alone.

use crate::robust_support;
use std::io::Write;
use std::process::{Command, Stdio};

use robust_support::{TempDir, manage_files_binary, parse_response, request};
use serde_json::{Value, json};

/// Runs the binary with `flags` on `dir`, sends `messages`, closes stdin;
/// the responses, the exit status's success and stderr.
fn session(flags: &[&str], dir: &TempDir, messages: &[String]) -> (Vec<Value>, bool, String) {
    let mut child = Command::new(manage_files_binary())
        .args(flags)
        .arg(&dir.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the example");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for message in messages {
            // A server refusing its flags exits without reading (the pipe
            // breaks): what it printed is checked by the caller.
            if writeln!(stdin, "{message}").is_err() {
                break;
            }
        }
    }
    let output = child.wait_with_output().expect("the example exits");
    let mut responses: Vec<Value> = output
        .stdout
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(parse_response)
        .collect();
    // Calls run beside the session, their answers in the order they finish:
    // in the order of the requests here.
    responses.sort_by_key(|response| response["id"].as_i64());
    (
        responses,
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn call(id: i64, arguments: Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": "manage_files", "arguments": arguments}),
    )
}

#[test]
fn read_only_lists_one_read_only_action_and_refuses_writes() {
    let dir = TempDir::new("profile-read-only");
    std::fs::write(dir.path.join("notes.txt"), "hello\n").unwrap();
    let messages = [
        request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "profiles", "version": "0"}}),
        ),
        request(2, "tools/list", json!({})),
        call(3, json!({"action": "read", "path": "notes.txt"})),
        call(
            4,
            json!({"action": "append", "path": "notes.txt", "content": "more"}),
        ),
        call(5, json!({"action": "delete", "path": "notes.txt"})),
        request(
            6,
            "tools/resolve",
            json!({"name": "manage_files",
                   "arguments": {"action": "replace", "path": "notes.txt", "content": ""}}),
        ),
    ];
    let (responses, success, stderr) = session(&["--read-only"], &dir, &messages);
    assert!(success, "{stderr}");
    assert!(
        stderr.contains("(profile: read_only, exposure: resolvable)"),
        "{stderr}"
    );
    assert_eq!(responses.len(), 6, "{responses:?}");

    let tools = responses[1]["result"]["tools"].as_array().unwrap();
    // `manage_files`, narrowed to its read, and the read-only `stat_file`.
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["manage_files", "stat_file"]);
    let tool = &tools[0];
    assert_eq!(
        tool["inputSchema"]["properties"]["action"]["enum"],
        json!(["read"])
    );
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["annotations"]["destructiveHint"], false);

    assert_eq!(
        responses[2]["result"]["content"][0]["text"], "hello\n",
        "{}",
        responses[2]
    );
    for (response, hint) in [(&responses[3], "false"), (&responses[4], "false")] {
        assert_eq!(response["result"]["isError"], true, "{response}");
        assert_eq!(
            response["result"]["content"][0]["text"],
            format!(
                "refused: this call of `manage_files` is outside the server's profile \
                 `read_only`: readOnlyHint is {hint}, and read_only needs true"
            )
        );
    }
    assert_eq!(responses[5]["error"]["code"], -32602, "{}", responses[5]);
    // Nothing was appended, deleted or replaced.
    assert_eq!(
        std::fs::read_to_string(dir.path.join("notes.txt")).unwrap(),
        "hello\n"
    );
}

#[test]
fn flags_combine_and_unknown_ones_are_refused() {
    let dir = TempDir::new("profile-flags");
    let messages = [request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "profiles", "version": "0"}}),
    )];
    let (_, success, stderr) = session(
        &["--no-destructive", "--no-privileged", "--closed-world"],
        &dir,
        &messages,
    );
    assert!(success, "{stderr}");
    assert!(
        stderr
            .contains("(profile: no_destructive+closed_world+no_privileged, exposure: resolvable)"),
        "{stderr}"
    );
    let (responses, success, stderr) = session(&["--read-mostly"], &dir, &messages);
    assert!(!success);
    assert!(responses.is_empty());
    assert!(stderr.contains("unknown flag `--read-mostly`"), "{stderr}");
    assert!(stderr.contains("[--read-only]"), "{stderr}");
}
