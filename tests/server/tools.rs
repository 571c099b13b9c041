//! `tools/list` and `tools/call`, and the checks `build` makes.

use crate::server_support;
use annot::protocol::{Dialect, error_code};
use annot::server::{BuildError, Server, ToolOutput};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError, Tool};
use serde_json::{Value, json};
use server_support::tools::{self, Counter, Files, ManageFiles};
use server_support::{Client, assert_extension, assert_mcp, extension_capabilities};

#[test]
fn tools_list_shows_the_worst_case_and_every_marker() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result("tools/list", json!({}));
    assert_mcp("ListToolsResult", &result);
    assert!(result.get("nextCursor").is_none());
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["manage_files", "counter", "liar"]);
    assert_eq!(
        server.tool_names().collect::<Vec<_>>(),
        ["manage_files", "counter", "liar"]
    );

    let listed = &result["tools"][0];
    assert_eq!(
        *listed,
        json!({
            "name": "manage_files",
            "title": "Manage files",
            "description": "Read, append, replace, or delete file contents",
            "inputSchema": serde_json::from_str::<Value>(ManageFiles::input_schema()).unwrap(),
            "annotations": {
                "title": "Manage files",
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": false
            },
            "dynamicAnnotations": true,
            "resolve": true
        })
    );
    // The wire type of the crate reads it back with every marker.
    let tool: Tool = serde_json::from_value(listed.clone()).unwrap();
    assert_eq!(tool.resolve, Some(true));
    assert_eq!(tool.dynamic_annotations, Some(true));
    assert_eq!(
        tool.annotations.unwrap().hints(),
        ManageFiles::STATIC_ANNOTATIONS
            .effective()
            .with_title_removed()
    );
}

trait WithoutTitle {
    fn with_title_removed(self) -> Self;
}

impl WithoutTitle for Annotations {
    fn with_title_removed(mut self) -> Self {
        self.title = None;
        self
    }
}

#[test]
fn tools_list_marks_only_the_enabled_dialects() {
    let only_c = tools::builder(Files::default())
        .dialects([Dialect::ToolResolutionExtension])
        .build()
        .unwrap();
    let result =
        Client::initialized(&only_c, extension_capabilities()).result("tools/list", json!({}));
    for tool in result["tools"].as_array().unwrap() {
        assert!(tool.get("resolve").is_none() && tool.get("dynamicAnnotations").is_none());
        // With no other marker the listed tool is exactly the extension's shape.
        assert_extension("ResolvableTool", tool);
    }
    // A session that did not advertise the extension sees no marker at all.
    let result = Client::initialized(&only_c, json!({})).result("tools/list", json!({}));
    for tool in result["tools"].as_array().unwrap() {
        assert!(tool.get("_meta").is_none(), "{tool}");
    }

    let none = tools::builder(Files::default())
        .dialects([])
        .build()
        .unwrap();
    let result = Client::initialized(&none, json!({})).result("tools/list", json!({}));
    let tool = &result["tools"][0];
    assert!(tool.get("resolve").is_none() && tool.get("_meta").is_none());
    assert!(tool.get("dynamicAnnotations").is_none());
}

#[test]
fn tools_list_pages_with_opaque_cursors() {
    let server = tools::builder(Files::default())
        .page_size(2)
        .build()
        .unwrap();
    let mut client = Client::initialized(&server, json!({}));
    let first = client.result("tools/list", json!({}));
    assert_mcp("ListToolsResult", &first);
    assert_eq!(first["tools"].as_array().unwrap().len(), 2);
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();

    let second = client.result("tools/list", json!({"cursor": cursor}));
    assert_mcp("ListToolsResult", &second);
    assert_eq!(second["tools"][0]["name"], "liar");
    assert!(second.get("nextCursor").is_none());

    // Deterministic: the same request gives the same bytes.
    let again = client.result("tools/list", json!({"cursor": cursor}));
    assert_eq!(again, second);

    for bad in [json!("nope"), json!(""), json!(format!("{cursor}0"))] {
        let error = client.error("tools/list", json!({"cursor": bad}));
        assert_eq!(error["code"], error_code::INVALID_PARAMS, "{bad}");
    }
    let error = client.error("tools/list", json!({"cursor": 1}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    assert_eq!(error["data"]["path"], "cursor");

    // A cursor of another server's tool set is refused.
    let other = Server::builder("other", "1")
        .tool(|_: Counter| Ok(ToolOutput::text("")))
        .page_size(2)
        .build()
        .unwrap();
    let error =
        Client::initialized(&other, json!({})).error("tools/list", json!({"cursor": cursor}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
}

#[test]
fn a_server_without_tools_lists_none() {
    let server = Server::builder("empty", "0").build().unwrap();
    // `"params": null` counts as no params.
    let result = Client::initialized(&server, json!({})).result("tools/list", json!(null));
    assert_eq!(result, json!({"tools": []}));
}

#[test]
fn tools_call_runs_the_handler_on_validated_arguments() {
    let (server, files) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let call = |client: &mut Client, arguments: Value| {
        let result = client.result(
            "tools/call",
            json!({"name": "manage_files", "arguments": arguments}),
        );
        assert_mcp("CallToolResult", &result);
        result
    };
    let result = call(
        &mut client,
        json!({"action": "append", "path": "a.txt", "content": "hi"}),
    );
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "appended 2 bytes"}]})
    );
    call(
        &mut client,
        json!({"action": "append", "path": "a.txt", "content": "!"}),
    );
    let result = call(&mut client, json!({"action": "read", "path": "a.txt"}));
    assert_eq!(result["content"][0]["text"], "hi!");
    assert_eq!(files.lock().unwrap()["a.txt"], "hi!");

    call(&mut client, json!({"action": "delete", "path": "a.txt"}));
    assert!(files.lock().unwrap().is_empty());
}

#[test]
fn a_tool_failure_is_an_is_error_result() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "read", "path": "missing"}}),
    );
    assert_mcp("CallToolResult", &result);
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "no such file: missing"}], "isError": true})
    );
}

#[test]
fn a_panicking_handler_is_reported_and_the_server_lives_on() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/call",
        json!({"name": "liar", "arguments": {"panic": true}}),
    );
    assert_mcp("CallToolResult", &result);
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("internal error"), "{text}");
    assert!(
        !text.contains("on purpose"),
        "panic details stay in the log: {text}"
    );

    let result = client.result("tools/call", json!({"name": "liar", "arguments": {}}));
    assert_eq!(result["content"][0]["text"], "all is well");
}

#[test]
fn a_panic_outside_the_handler_is_an_internal_error() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    for method in ["tools/call", "tools/annotations", "tools/resolve"] {
        let error = client.error(
            method,
            json!({"name": "liar", "arguments": {"explode": true}}),
        );
        assert_eq!(error["code"], error_code::INTERNAL_ERROR, "{method}");
    }
    assert_eq!(client.result("ping", json!({})), json!({}));
}

#[test]
fn invalid_call_arguments_follow_the_negotiated_version() {
    let (server, _) = tools::server();
    let bad = json!({"name": "manage_files", "arguments": {"action": "append", "path": "a"}});

    // 2025-11-25 (SEP-1303): the model sees the problem as a tool error.
    let mut latest = Client::initialized(&server, json!({}));
    let result = latest.result("tools/call", bad.clone());
    assert_mcp("CallToolResult", &result);
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "invalid arguments: missing field `content`"
    );

    // Earlier versions: -32602 with the field's path.
    let mut older = Client::new(&server);
    older.initialize("2025-06-18", json!({}));
    let error = older.error("tools/call", bad);
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    assert_eq!(error["data"]["path"], "content");
    assert_eq!(error["data"]["name"], "manage_files");

    let error = older.error(
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "shred", "path": "a"}}),
    );
    assert_eq!(error["data"]["path"], "action");
    assert!(error["message"].as_str().unwrap().contains("`shred`"));
}

#[test]
fn tools_call_refuses_unknown_tools_and_malformed_params() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let error = client.error("tools/call", json!({"name": "rm_rf", "arguments": {}}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    assert_eq!(error["data"]["name"], "rm_rf");

    let error = client.error("tools/call", json!({"arguments": {}}));
    assert_eq!(error["data"]["path"], "name");
    let error = client.error("tools/call", json!({"name": "counter", "arguments": [1]}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    assert_eq!(error["data"]["path"], "arguments");

    // Absent arguments are an empty object.
    let result = client.result("tools/call", json!({"name": "liar"}));
    assert_eq!(result["content"][0]["text"], "all is well");

    // A long unknown name is not echoed whole.
    let long = "x".repeat(10_000);
    let error = client.error("tools/call", json!({"name": long}));
    assert!(error["message"].as_str().unwrap().len() < 200);
}

struct Unchecked;

impl AnnotatedTool for Unchecked {
    const NAME: &'static str = "unchecked";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[Action {
        name: "write",
        annotations: Annotations::new().read_only(false),
    }];
    const STATIC_ANNOTATIONS: Annotations = Annotations::new().read_only(true);

    fn input_schema() -> &'static str {
        r#"{"type":"array"}"#
    }

    fn resolve(&self) -> Annotations {
        Self::STATIC_ANNOTATIONS
    }

    fn from_arguments(_: &Value) -> Result<Self, ArgumentError> {
        Ok(Unchecked)
    }
}

struct Overreach;

impl AnnotatedTool for Overreach {
    const NAME: &'static str = "overreach";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[Action {
        name: "wipe",
        annotations: Annotations::new().destructive(true),
    }];
    const STATIC_ANNOTATIONS: Annotations = Annotations::new().destructive(false);

    fn input_schema() -> &'static str {
        r#"{"type":"object"}"#
    }

    fn resolve(&self) -> Annotations {
        Self::STATIC_ANNOTATIONS
    }

    fn from_arguments(_: &Value) -> Result<Self, ArgumentError> {
        Ok(Overreach)
    }
}

#[test]
fn build_refuses_inconsistent_servers() {
    let handler = |_: Counter| Ok(ToolOutput::text(""));
    let duplicate = Server::builder("s", "1")
        .tool(handler)
        .tool(handler)
        .build()
        .unwrap_err();
    assert_eq!(
        duplicate,
        BuildError::DuplicateTool {
            name: "counter".into()
        }
    );

    let zero = Server::builder("s", "1").page_size(0).build().unwrap_err();
    assert_eq!(zero, BuildError::ZeroPageSize);

    let schema = Server::builder("s", "1")
        .tool(|_: Unchecked| Ok(ToolOutput::text("")))
        .build()
        .unwrap_err();
    assert!(
        matches!(schema, BuildError::InvalidInputSchema { ref tool, .. } if tool == "unchecked"),
        "{schema}"
    );

    let bound = Server::builder("s", "1")
        .tool(|_: Overreach| Ok(ToolOutput::text("")))
        .build()
        .unwrap_err();
    let BuildError::ActionOutsideBound {
        tool,
        action,
        violation,
    } = bound
    else {
        panic!("{bound}");
    };
    assert_eq!((tool.as_str(), action.as_str()), ("overreach", "wipe"));
    assert_eq!(violation.hint, annot::Hint::Destructive);
}

#[test]
fn servers_and_connections_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Server>();
    send_sync::<annot::server::Connection>();

    let (server, _) = tools::server();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let server = server.clone();
            std::thread::spawn(move || {
                let mut client = Client::initialized(&server, json!({}));
                client.result("tools/list", json!({}))
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap()["tools"][0]["name"], "manage_files");
    }
}
