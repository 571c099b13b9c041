//! `--exposure resolvable|per-action|auto` on the example servers, run as a
//! user runs them: each lists the form the flag names to a client speaking
//! JSON lines over stdio, `--exposure auto` gives a client without tool
//! resolution the per-action tools and one that negotiated it the resolvable
//! tool, and a bad value is a usage error (exit status 2) naming the modes.

use crate::rmcp_support;
use std::io::Write;
use std::process::{Command, Stdio};

use rmcp_support::{Sandbox, example};
use serde_json::{Value, json};

/// The `tools/list` names `binary` run with `arguments` gives a client that
/// initializes at 2025-11-25 with `capabilities`.
fn listed(binary: &str, arguments: &[&str], capabilities: Value) -> Vec<String> {
    let mut child = Command::new(example(binary))
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example starts");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "test", "version": "0"}
    }});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{initialize}\n{list}").unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{binary} {arguments:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let response: Value = serde_json::from_str(text.lines().nth(1).expect("two answers")).unwrap();
    response["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{response}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn extension() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
}

#[test]
fn manage_files_auto_lists_per_negotiation() {
    let sandbox = Sandbox::new("exposure-example");
    let directory = sandbox.path.to_str().unwrap();
    let auto = ["--exposure", "auto", directory];
    assert_eq!(
        listed("manage_files", &auto, json!({})),
        [
            "manage_files_read",
            "manage_files_append",
            "manage_files_replace",
            "manage_files_delete",
            "stat_file"
        ]
    );
    assert_eq!(
        listed("manage_files", &auto, extension()),
        ["manage_files", "stat_file"]
    );
    // The default, and the flag's other spelling, with a profile beside it.
    assert_eq!(
        listed("manage_files", &[directory], json!({})),
        ["manage_files", "stat_file"]
    );
    assert_eq!(
        listed(
            "manage_files",
            &["--read-only", "--exposure=per-action", directory],
            extension()
        ),
        ["manage_files_read", "stat_file"]
    );
}

#[test]
fn the_other_examples_take_the_flag() {
    let sandbox = Sandbox::new("exposure-sql");
    let database = sandbox.path.join("app.db");
    assert_eq!(
        listed(
            "sql",
            &["--exposure", "per-action", database.to_str().unwrap()],
            json!({})
        ),
        ["sql_run", "sql_explain"]
    );
    assert_eq!(
        listed("github_api", &["--exposure", "per-action"], json!({})),
        [
            "github_api_GET",
            "github_api_HEAD",
            "github_api_OPTIONS",
            "github_api_POST",
            "github_api_PUT",
            "github_api_PATCH",
            "github_api_DELETE"
        ]
    );
    assert_eq!(
        listed(
            "http_api",
            &["--exposure", "auto", "http://127.0.0.1:9/"],
            extension()
        ),
        ["http_request"]
    );
}

#[test]
fn a_bad_exposure_is_a_usage_error() {
    let sandbox = Sandbox::new("exposure-usage");
    let directory = sandbox.path.to_str().unwrap();
    let database = sandbox.path.join("app.db");
    let cases: [(&str, Vec<&str>); 6] = [
        ("manage_files", vec!["--exposure", "both", directory]),
        ("manage_files", vec![directory, "--exposure"]),
        ("github_api", vec!["--exposure=sometimes"]),
        ("http_api", vec!["--exposure", "all", "http://127.0.0.1:9/"]),
        (
            "sql",
            vec!["--exposure", "PerAction", database.to_str().unwrap()],
        ),
        ("rmcp_server", vec!["--stdio", "--exposure", "x"]),
    ];
    for (binary, arguments) in cases {
        let output = Command::new(example(binary))
            .args(&arguments)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{binary} {arguments:?}");
        if binary != "rmcp_server" {
            // rmcp_server's `main` returns its error: status 1.
            assert_eq!(output.status.code(), Some(2), "{binary} {arguments:?}");
        }
        assert!(
            stderr.contains("resolvable, per-action, auto"),
            "{binary} {arguments:?}: {stderr}"
        );
        assert!(
            stderr.contains("usage:") || stderr.contains("--exposure"),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "{binary}: nothing on stdout");
    }
    assert!(!database.exists(), "sql opened no database");
}
