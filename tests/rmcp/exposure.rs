//! Per-action exposure on the rmcp adapter (`AnnotatedToolsBuilder::exposure`),
//! over rmcp's stdio transport: what each mode lists beside rmcp's own tool,
//! `Auto` per session capabilities, calls by both name forms reaching the
//! typed handler, a per-action call naming the discriminator refused, and a
//! per-action tool resolved by its own name, and each listed tool's
//! display-templates call preview.

use crate::rmcp_support;
use annot::rmcp::{Annotated, AnnotatedTools};
use annot::server::Exposure;
use rmcp_support::fixtures::{
    INITIALIZED, Server, raw_session_with, request, result, server_with, tool,
};
use rmcp_support::manage_files::ManageFiles;
use rmcp_support::{MCP_SCHEMA, assert_valid};
use serde_json::{Value, json};

fn server(exposure: Exposure) -> Annotated<Server> {
    server_with(|builder| builder.exposure(exposure))
}

fn initialize(capabilities: Value) -> String {
    request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "raw", "version": "0"}
        }),
    )
}

fn names(list: &Value) -> Vec<&str> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

const PER_ACTION: &[&str] = &[
    "fetch_get",
    "fetch_post",
    "manage_files_read",
    "manage_files_append",
    "manage_files_replace",
    "manage_files_delete",
    "echo",
];
const RESOLVABLE: &[&str] = &["fetch", "manage_files", "echo"];

fn extension() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
}

#[tokio::test]
async fn each_mode_lists_its_form_beside_rmcps_own_tools() {
    let cases: [(Exposure, Value, &[&str]); 5] = [
        (Exposure::Resolvable, json!({}), RESOLVABLE),
        (Exposure::PerAction, json!({}), PER_ACTION),
        (Exposure::PerAction, extension(), PER_ACTION),
        (Exposure::Auto, json!({}), PER_ACTION),
        (Exposure::Auto, extension(), RESOLVABLE),
    ];
    for (exposure, capabilities, expected) in cases {
        let messages = [
            initialize(capabilities.clone()),
            INITIALIZED.to_owned(),
            request(2, "tools/list", json!({})),
        ];
        let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
        let responses = raw_session_with(server(exposure), true, &messages).await;
        let list = result(&responses[1].1);
        assert_valid(MCP_SCHEMA, "ListToolsResult", &list);
        assert_eq!(names(&list), expected, "{exposure} {capabilities}");
        if expected == PER_ACTION {
            let post = tool(&list, "fetch_post");
            assert_eq!(post["description"], "GET or POST a URL.");
            assert_eq!(post["inputSchema"]["properties"], json!({}));
            assert_eq!(post["annotations"]["destructiveHint"], false);
            assert_eq!(post["annotations"]["sensitiveDataHint"], true, "lifted");
            let read = tool(&list, "manage_files_read");
            assert_eq!(read["annotations"]["readOnlyHint"], true);
            assert!(read["inputSchema"]["properties"].get("action").is_none());
        }
    }
}

#[tokio::test]
async fn calls_by_either_name_reach_the_typed_handler() {
    let messages = [
        initialize(json!({})),
        INITIALIZED.to_owned(),
        request(
            2,
            "tools/call",
            json!({"name": "fetch_post", "arguments": {}}),
        ),
        request(
            3,
            "tools/call",
            json!({"name": "fetch", "arguments": {"method": "post"}}),
        ),
        request(
            4,
            "tools/call",
            json!({"name": "fetch_get", "arguments": {"method": "post"}}),
        ),
        request(
            5,
            "tools/resolve",
            json!({"name": "manage_files_read", "arguments": {"path": "notes.txt"}}),
        ),
        request(
            6,
            "tools/annotations",
            json!({"name": "manage_files_read", "arguments": {"path": "/etc/shadow"}}),
        ),
        request(7, "tools/call", json!({"name": "echo", "arguments": {}})),
    ];
    let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
    let responses = raw_session_with(server(Exposure::Auto), true, &messages).await;
    let by_action = result(&responses[1].1);
    let by_tool = result(&responses[2].1);
    assert_eq!(by_action["content"][0]["text"], "Post", "{by_action}");
    assert_eq!(by_action, by_tool);
    // 2025-11-25: invalid arguments are a tool error the model reads.
    let refused = result(&responses[3].1);
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("leave `method` out"), "{text}");
    let resolved = result(&responses[4].1);
    assert_eq!(resolved["tool"]["name"], "manage_files_read", "{resolved}");
    assert_eq!(resolved["tool"]["annotations"]["readOnlyHint"], true);
    assert_eq!(
        resolved["tool"]["annotations"]["privilegedAccessHint"],
        false
    );
    let system = result(&responses[5].1);
    assert_eq!(
        system["annotations"]["privilegedAccessHint"], true,
        "{system}"
    );
    assert_eq!(result(&responses[6].1)["content"][0]["text"], "echo");
}

#[tokio::test]
async fn a_name_the_mode_does_not_list_is_unknown() {
    for (exposure, name, arguments) in [
        (Exposure::PerAction, "fetch", json!({"method": "get"})),
        (Exposure::Resolvable, "fetch_get", json!({})),
    ] {
        let messages = [
            initialize(json!({})),
            INITIALIZED.to_owned(),
            request(
                2,
                "tools/call",
                json!({"name": name, "arguments": arguments}),
            ),
        ];
        let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
        let responses = raw_session_with(server(exposure), true, &messages).await;
        let response: Value = serde_json::from_str(&responses[1].1).unwrap();
        assert_eq!(response["error"]["code"], -32602, "{exposure}: {response}");
    }
}

/// The display-templates call preview of a listed Tool.
fn display_template(tool: &Value) -> &Value {
    &tool["_meta"]["io.modelcontextprotocol/display-templates"]["template"]
}

/// What `manage_files` declares in examples/tools/manage_files.rs, by hand:
/// the tool's template over the discriminator, then each action's own.
const MANAGE_FILES_TEMPLATES: [(&str, &str); 5] = [
    ("manage_files", "{action} {path}"),
    ("manage_files_read", "read {path}"),
    ("manage_files_append", "append to {path}"),
    ("manage_files_replace", "replace {path}"),
    ("manage_files_delete", "delete {path}"),
];

#[tokio::test]
async fn the_listing_carries_each_tools_display_template() {
    for (exposure, capabilities) in [
        (Exposure::Resolvable, json!({})),
        (Exposure::PerAction, json!({})),
        (Exposure::Auto, json!({})),
        (Exposure::Auto, extension()),
    ] {
        let messages = [
            initialize(capabilities.clone()),
            INITIALIZED.to_owned(),
            request(2, "tools/list", json!({})),
        ];
        let messages: Vec<&str> = messages.iter().map(String::as_str).collect();
        let responses = raw_session_with(server(exposure), true, &messages).await;
        let list = result(&responses[1].1);
        let listed = names(&list);
        let mut checked = 0;
        for (name, expected) in MANAGE_FILES_TEMPLATES {
            if listed.contains(&name) {
                let template = display_template(tool(&list, name));
                assert_eq!(template, expected, "{exposure} {capabilities}: {name}");
                checked += 1;
            }
        }
        let expected_count = if listed.contains(&"manage_files") {
            1
        } else {
            4
        };
        assert_eq!(
            checked, expected_count,
            "{exposure} {capabilities}: {listed:?}"
        );
        // rmcp's own tool declares none.
        assert!(tool(&list, "echo").get("_meta").is_none(), "{list}");
    }
}

/// rmcp's typed `Tool`, as a server built on rmcp's router gets it from
/// `AnnotatedTools::get`, holds the same `_meta`.
#[test]
fn rmcps_typed_tool_holds_the_display_template() {
    for exposure in [Exposure::Resolvable, Exposure::PerAction, Exposure::Auto] {
        let tools = AnnotatedTools::<Server>::builder()
            .exposure(exposure)
            .tool::<ManageFiles>()
            .build()
            .expect("valid tools");
        for (name, expected) in MANAGE_FILES_TEMPLATES {
            let listed = match exposure {
                Exposure::Resolvable => name == "manage_files",
                Exposure::PerAction => name != "manage_files",
                _ => true,
            };
            match tools.get(name) {
                Some(typed) => {
                    let typed = serde_json::to_value(typed).unwrap();
                    assert_eq!(display_template(&typed), expected, "{exposure}: {name}");
                }
                None => assert!(!listed, "{exposure}: {name} is missing"),
            }
        }
    }
}
