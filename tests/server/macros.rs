//! The `#[mcp_tool]` examples served end to end: what the macro generates is
//! what the server lists, resolves and calls.

#[path = "../../examples/tools/http_api.rs"]
mod http_api;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
#[path = "../../fuzz/src/reference.rs"]
#[allow(dead_code)]
mod reference;
use crate::server_support;
use std::sync::{Arc, Mutex};

use annot::server::{Server, ToolOutput};
use annot::{AnnotatedTool, Annotations, ToolAnnotations};
use http_api::HttpApi;
use manage_files::ManageFiles;
use serde_json::{Value, json};
use server_support::{Client, assert_extension, assert_mcp, extension_capabilities};

fn server(calls: Arc<Mutex<Vec<String>>>) -> Server {
    let seen = Arc::clone(&calls);
    Server::builder("examples", "0")
        .tool::<ManageFiles>(move |call| {
            seen.lock().unwrap().push(format!("{call:?}"));
            Ok(ToolOutput::text("done"))
        })
        .tool(move |call: HttpApi| {
            calls.lock().unwrap().push(format!("{call:?}"));
            Ok(ToolOutput::text("sent"))
        })
        .build()
        .unwrap()
}

#[test]
fn the_listed_tool_is_the_generated_one() {
    let server = server(Arc::default());
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result("tools/list", json!({}));
    assert_mcp("ListToolsResult", &result);
    let listed = &result["tools"][0];
    assert_eq!(listed["name"], ManageFiles::NAME);
    assert_eq!(
        listed["inputSchema"],
        serde_json::from_str::<Value>(ManageFiles::input_schema()).unwrap()
    );
    let annotations: ToolAnnotations =
        serde_json::from_value(listed["annotations"].clone()).unwrap();
    let static_hints = Annotations {
        title: None,
        ..ManageFiles::STATIC_ANNOTATIONS
    };
    assert_eq!(annotations.hints(), static_hints);
    assert_eq!(result["tools"][1]["name"], "http_request");
}

/// Every action of every example, resolved in all three dialects, agrees with
/// the generated resolver and stays within the static annotations.
#[test]
fn every_action_resolves_alike_in_every_dialect() {
    let server = server(Arc::default());
    let mut plain = Client::initialized(&server, json!({}));
    let mut extension = Client::initialized(&server, extension_capabilities());
    // The expected answers come from the hand-written resolvers, not from
    // the `resolve()` the server itself calls.
    let cases: Vec<(&str, Value, Annotations, Annotations)> = [
        json!({"action": "read", "path": "a"}),
        json!({"action": "read", "path": "/home/../etc/shadow"}),
        json!({"action": "append", "path": "a", "content": "x"}),
        json!({"action": "delete", "path": "a"}),
    ]
    .map(|arguments| {
        let expected = reference::manage_files(&arguments);
        (
            "manage_files",
            arguments,
            expected,
            ManageFiles::STATIC_ANNOTATIONS,
        )
    })
    .into_iter()
    .chain(
        ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"].map(|method| {
            let arguments = json!({"method": method, "path": "/repos"});
            let expected = reference::http_api(&arguments);
            (
                "http_request",
                arguments,
                expected,
                HttpApi::STATIC_ANNOTATIONS,
            )
        }),
    )
    .collect();

    for (name, arguments, expected, declared) in cases {
        let params = json!({"name": name, "arguments": arguments});
        let expected = expected.effective();
        let a = plain.result("tools/annotations", params.clone());
        assert_mcp("ToolAnnotations", &a["annotations"]);
        let a: ToolAnnotations = serde_json::from_value(a["annotations"].clone()).unwrap();
        assert_eq!(
            a.hints(),
            Annotations {
                title: None,
                ..expected
            },
            "{params}"
        );

        let b = plain.result("tools/resolve", params.clone());
        assert_mcp("Tool", &b["tool"]);
        let b: ToolAnnotations = serde_json::from_value(b["tool"]["annotations"].clone()).unwrap();
        assert_eq!(b, a, "{params}");

        let c = extension.result("tools/resolve", params.clone());
        assert_extension("ResolveToolResult", &c);
        let effective = [
            expected.read_only,
            expected.destructive,
            expected.idempotent,
            expected.open_world,
        ];
        let c_hints = &c["annotations"];
        assert_eq!(
            [
                c_hints["readOnlyHint"].as_bool(),
                c_hints["destructiveHint"].as_bool(),
                c_hints["idempotentHint"].as_bool(),
                c_hints["openWorldHint"].as_bool(),
            ],
            effective,
            "{params}"
        );
        a.hints().check_within(&declared).unwrap();
    }
}

#[test]
fn sep_1984_hints_reach_dialects_a_and_b_only() {
    let server = server(Arc::default());
    let mut plain = Client::initialized(&server, json!({}));
    let params = json!({"name": "http_request", "arguments": {"method": "DELETE", "path": "/x"}});
    let a = plain.result("tools/annotations", params.clone());
    assert_eq!(a["annotations"]["reversibleHint"], false);
    let b = plain.result("tools/resolve", params.clone());
    assert_eq!(b["tool"]["annotations"]["reversibleHint"], false);
    let mut extension = Client::initialized(&server, extension_capabilities());
    let c = extension.result("tools/resolve", params);
    assert!(c["annotations"].get("reversibleHint").is_none());
}

#[test]
fn calls_get_the_generated_type() {
    let calls = Arc::default();
    let server = server(Arc::clone(&calls));
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "replace", "path": "a", "content": "b"}}),
    );
    assert_eq!(result["content"][0]["text"], "done");
    let result = client.result(
        "tools/call",
        json!({"name": "http_request", "arguments": {"method": "GET", "path": "/", "timeout_seconds": 5}}),
    );
    assert_eq!(result["content"][0]["text"], "sent");
    let calls = calls.lock().unwrap();
    assert_eq!(
        calls[0],
        format!(
            "{:?}",
            ManageFiles::Replace {
                path: "a".into(),
                content: "b".into()
            }
        )
    );
    assert!(calls[1].contains("timeout_seconds: 5"), "{}", calls[1]);

    // What the generated parser refuses, the server refuses before the handler.
    let error = client.error(
        "tools/resolve",
        json!({"name": "http_request", "arguments": {"method": "BREW", "path": "/"}}),
    );
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["path"], "method");
    assert_eq!(calls.len(), 2);
}
