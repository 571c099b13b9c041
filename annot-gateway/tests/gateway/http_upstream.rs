//! A Streamable HTTP upstream: annot's `rmcp_server --http`, reached by URL.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;

use crate::support::{Host, example, exported, refused_at_start, text};

/// `rmcp_server --http` on a free port over `root`; its process and URL.
fn rmcp_server(root: &std::path::Path) -> (std::process::Child, String) {
    let binary = example("annot", "rmcp_server");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let mut child = Command::new(binary)
        .args(["--http", &format!("127.0.0.1:{port}"), "--root"])
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Its first line on stdout is the endpoint, once it listens.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line.trim().to_owned())
}

#[test]
fn a_streamable_http_upstream_resolves_and_is_decided_per_call() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    let (mut server, url) = rmcp_server(&root);
    let config = directory.path().join("gateway.toml");
    std::fs::write(&config, format!("[upstream]\nurl = \"{url}\"\n")).unwrap();
    let log = directory.path().join("log.sqlite3");
    let mut host = Host::start(&[
        "--config",
        config.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--profile",
        "read-only",
        "--confirm",
        "host",
    ]);
    host.initialize(json!({}));
    let names: Vec<String> = host.tools().into_iter().map(|(name, _)| name).collect();
    assert!(names.contains(&"manage_files".to_owned()), "{names:?}");
    let read = host.call(
        "manage_files",
        json!({"action": "read", "path": "notes.txt"}),
    );
    assert_eq!(text(&read), "hello\n", "{read}");
    let delete = host.call(
        "manage_files",
        json!({"action": "delete", "path": "notes.txt"}),
    );
    assert_eq!(delete["isError"], json!(true), "{delete}");
    assert!(root.join("notes.txt").exists());
    host.finish();
    server.kill().unwrap();
    server.wait().unwrap();
    let calls = exported(&log);
    assert!(
        calls[0]["source"].as_str().unwrap().contains("resolved by"),
        "{}",
        calls[0]
    );
}

#[test]
fn an_https_url_is_refused_at_start() {
    let (code, stderr) = refused_at_start("[upstream]\nurl = \"https://example.com/mcp\"\n");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not an http:// URL"), "{stderr}");
}
