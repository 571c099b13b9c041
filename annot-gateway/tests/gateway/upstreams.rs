//! Several upstreams behind one gateway: names never shadow each other,
//! each call reaches its own upstream, and the lethal trifecta is tracked
//! across all of them.

use serde_json::json;

use crate::stores::{TestStore, on_each_store};
use crate::support::{Host, example, exported, text};

/// Two `plain_server`s: `private` holds sensitive notes; `web` reads and
/// posts to the open world.
fn config(private: &str, web: &str, server: &str) -> String {
    format!(
        r#"
[upstreams.private]
command = "{server}"
args = ["{private}"]

[upstreams.private.tools.notes]
discriminator = "action"
override = true
actions.read.annotations = {{ read_only = true, sensitive_data = true }}
actions.append.annotations = {{ read_only = false, destructive = false }}
actions.delete.annotations = {{ read_only = false, destructive = true }}

[upstreams.web]
command = "{server}"
args = ["{web}"]

[upstreams.web.tools.notes]
discriminator = "action"
override = true
actions.read.annotations = {{ read_only = true, open_world = true }}
actions.append.annotations = {{ read_only = false, destructive = false, open_world = true }}
actions.delete.annotations = {{ read_only = false, destructive = true, open_world = true }}
"#
    )
}

/// The two upstreams' directories and the configuration, under `directory`.
pub fn configured(directory: &tempfile::TempDir) -> std::path::PathBuf {
    let root = directory.path();
    for (name, note) in [("private", "salary: 1\n"), ("web", "a page\n")] {
        std::fs::create_dir(root.join(name)).unwrap();
        std::fs::write(root.join(name).join("todo"), note).unwrap();
    }
    let server = example("plain_server");
    let text = config(
        root.join("private").to_str().unwrap(),
        root.join("web").to_str().unwrap(),
        server.to_str().unwrap(),
    );
    std::fs::write(root.join("gateway.toml"), text).unwrap();
    root.join("gateway.toml")
}

/// A gateway with `config` on `store`, with `options`, initialized.
pub fn gateway(config: &std::path::Path, store: &str, options: &[&str]) -> Host {
    let mut args = vec![
        "--config",
        config.to_str().unwrap(),
        "--store",
        store,
        "--exposure",
        "resolvable",
        "--confirm",
        "host",
    ];
    args.extend_from_slice(options);
    let mut host = Host::start(&args);
    host.initialize(json!({}));
    host
}

fn started(directory: &tempfile::TempDir) -> Host {
    let config = configured(directory);
    let log = directory.path().join("log.sqlite3");
    gateway(&config, log.to_str().unwrap(), &[])
}

#[test]
fn each_upstream_keeps_its_names_and_gets_its_own_calls() {
    let directory = tempfile::tempdir().unwrap();
    let mut host = started(&directory);
    let names: Vec<String> = host.tools().into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["private__notes", "web__notes"]);
    let private = host.call("private__notes", json!({"action": "read", "name": "todo"}));
    assert_eq!(text(&private), "salary: 1\n");
    // Results carry trust-annotations claims, at least what their hints imply.
    let claims = |result: &serde_json::Value| {
        result["_meta"]["io.modelcontextprotocol/trust-annotations"].clone()
    };
    assert_eq!(claims(&private), json!({"sensitive": true}), "{private}");
    let web = host.call("web__notes", json!({"action": "read", "name": "todo"}));
    assert_eq!(text(&web), "a page\n");
    assert_eq!(claims(&web), json!({"untrusted": true}), "{web}");
    let bare = host.request("tools/call", json!({"name": "notes", "arguments": {}}));
    assert_eq!(bare["error"]["code"], json!(-32602), "{bare}");
    let unroutable = host.request("prompts/get", json!({"name": "nobody__hello"}));
    assert_eq!(unroutable["error"]["code"], json!(-32602), "{unroutable}");
}

on_each_store!(the_trifecta_is_refused_across_two_upstreams);

fn the_trifecta_is_refused_across_two_upstreams(store: &TestStore) {
    let directory = tempfile::tempdir().unwrap();
    let mut host = gateway(&configured(&directory), &store.url, &[]);
    // Private data from one upstream, untrusted content from the other.
    host.call("private__notes", json!({"action": "read", "name": "todo"}));
    host.call("web__notes", json!({"action": "read", "name": "todo"}));
    let before = std::fs::read(directory.path().join("web/todo")).unwrap();
    let post = host.call(
        "web__notes",
        json!({"action": "append", "name": "todo", "text": "salary: 1"}),
    );
    assert_eq!(post["isError"], json!(true), "{post}");
    let message = text(&post);
    assert!(
        message.contains("private__notes") && message.contains("web__notes"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(directory.path().join("web/todo")).unwrap(),
        before
    );
    host.finish();
    let calls = exported(&store.url);
    let upstreams: Vec<&str> = calls
        .iter()
        .map(|call| call["upstream"].as_str().unwrap())
        .collect();
    assert_eq!(upstreams, ["private", "web", "web"]);
    assert_eq!(calls[2]["decision"], json!("deny"));
}

#[test]
fn without_the_private_read_the_same_post_goes_through() {
    let directory = tempfile::tempdir().unwrap();
    let mut host = started(&directory);
    host.call("web__notes", json!({"action": "read", "name": "todo"}));
    let post = host.call(
        "web__notes",
        json!({"action": "append", "name": "todo", "text": "hi"}),
    );
    assert_eq!(text(&post), "appended", "{post}");
}
