//! Call previews of the `io.modelcontextprotocol/display-templates` extension,
//! server side: what `#[mcp_tool]` declares or derives, what `tools/list`
//! carries, and that the client's renderer turns what the server emits into
//! the line a person reads. Every expectation is written out by hand.

use crate::examples_support;
use crate::server_support;
#[allow(dead_code)]
#[path = "../../examples/tools/github_api.rs"]
mod github_api;
#[allow(dead_code)]
#[path = "../../examples/tools/http_api.rs"]
mod http_api;
#[allow(dead_code)]
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
#[allow(dead_code)]
#[path = "../../examples/tools/sql.rs"]
mod sql;

use annot::client::display::preview;
use annot::server::{Server, ToolOutput};
use annot::{AnnotatedTool, mcp_tool};
use serde_json::{Map, Value, json};
use server_support::Client;

/// Run one SQL statement.
#[mcp_tool(open_world = false, destructive, display = "run {sql} on {{db}}")]
#[allow(dead_code)] // read by the generated parser only
struct RunQuery {
    sql: String,
}

/// Nothing declared: the preview is derived from the title and the fields.
#[mcp_tool(title = "Copy a file", open_world = false, destructive = false)]
#[allow(dead_code)]
struct CopyFile {
    from: String,
    #[serde(rename = "to")]
    destination: String,
}

/// No title, no fields: the tool's name.
#[mcp_tool(read_only, open_world = false)]
struct Ping;

/// An enum without declared previews.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Notes {
    #[annotate(read_only, title = "Read a note")]
    Read { id: u32 },
    #[annotate(destructive)]
    Delete { id: u32, reason: Option<String> },
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().expect("an object").clone()
}

/// The listed Tool of `name` on a server.
fn listed(server: &Server, name: &str) -> Value {
    let mut client = Client::initialized(server, json!({}));
    let tools = client.result("tools/list", json!({}))["tools"].clone();
    tools
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed: {tools}"))
        .clone()
}

fn template(tool: &Value) -> &Value {
    &tool["_meta"]["io.modelcontextprotocol/display-templates"]["template"]
}

#[test]
fn declared_and_derived_templates() {
    assert_eq!(RunQuery::DISPLAY_TEMPLATE, Some("run {sql} on {{db}}"));
    assert_eq!(RunQuery::DISPLAY_TEMPLATES, ["run {sql} on {{db}}"]);
    // Wire names, as the client substitutes them.
    assert_eq!(
        CopyFile::DISPLAY_TEMPLATE,
        Some("Copy a file: from={from}, to={to}")
    );
    assert_eq!(Ping::DISPLAY_TEMPLATES, ["ping"]);
    assert_eq!(
        Notes::DISPLAY_TEMPLATES,
        ["Read a note {id}", "delete: id={id}, reason={reason}"]
    );
    // Over the discriminator and the fields every action takes.
    assert_eq!(Notes::DISPLAY_TEMPLATE, Some("{action} {id}"));
}

#[test]
fn a_single_action_tool_lists_its_template_and_the_client_renders_it() {
    let server = Server::builder("t", "0")
        .tool(|_: RunQuery| Ok(ToolOutput::text("ran")))
        .tool(|_: CopyFile| Ok(ToolOutput::text("copied")))
        .build()
        .expect("a server");
    let run = listed(&server, "run_query");
    assert_eq!(template(&run), "run {sql} on {{db}}");
    server_support::assert_mcp("Tool", &run);
    assert_eq!(
        preview(&run, &arguments(json!({"sql": "select 1"}))).as_deref(),
        Some("run select 1 on {db}")
    );
    let copy = listed(&server, "copy_file");
    assert_eq!(
        preview(&copy, &arguments(json!({"from": "a.txt", "to": "b.txt"}))).as_deref(),
        Some("Copy a file: from=a.txt, to=b.txt")
    );
}

/// The listing of every example tool carries the template written on it,
/// and the renderer gives the line below for each example call.
#[test]
fn every_example_tool_lists_a_template_the_client_renders() {
    assert_eq!(
        examples_support::example_tool_files(),
        ["github_api.rs", "http_api.rs", "manage_files.rs", "sql.rs"]
    );
    let server = Server::builder("examples", "0")
        .tool(|_: manage_files::ManageFiles| Ok(ToolOutput::text("")))
        .tool(|_: github_api::GithubApi| Ok(ToolOutput::text("")))
        .tool(|_: http_api::HttpApi| Ok(ToolOutput::text("")))
        .tool(|_: sql::Sql| Ok(ToolOutput::text("")))
        .build()
        .expect("a server");
    let cases: [(&str, &str, Value, &str); 9] = [
        (
            "manage_files",
            "{action} {path}",
            json!({"action": "delete", "path": "notes.txt"}),
            "delete notes.txt",
        ),
        (
            "manage_files",
            "{action} {path}",
            json!({"action": "append", "path": "log.md", "content": "hi"}),
            "append log.md",
        ),
        (
            "manage_files",
            "{action} {path}",
            json!({"action": "read"}),
            "read ...",
        ),
        (
            "github_api",
            "{method} {path}",
            json!({"method": "DELETE", "path": "/repos/octo/hello"}),
            "DELETE /repos/octo/hello",
        ),
        (
            "github_api",
            "{method} {path}",
            json!({"method": "GET", "path": "/repos/octo/hello", "public": true}),
            "GET /repos/octo/hello",
        ),
        (
            "http_request",
            "{method} {path}",
            json!({"method": "PUT", "path": "/items/7", "body": "{}"}),
            "PUT /items/7",
        ),
        (
            "sql",
            "{action} SQL: {statement}",
            json!({"action": "run", "statement": "DROP TABLE t"}),
            "run SQL: DROP TABLE t",
        ),
        (
            "sql",
            "{action} SQL: {statement}",
            json!({"action": "explain", "statement": "SELECT 1"}),
            "explain SQL: SELECT 1",
        ),
        (
            "sql",
            "{action} SQL: {statement}",
            json!({"action": "run", "statement": "a\u{1b}[2Jb"}),
            "run SQL: a\\u{1b}[2Jb",
        ),
    ];
    for (tool, expected_template, call, expected) in cases {
        let listed = listed(&server, tool);
        assert_eq!(template(&listed), expected_template, "{tool}");
        server_support::assert_mcp("Tool", &listed);
        assert_eq!(
            preview(&listed, &arguments(call.clone())).as_deref(),
            Some(expected),
            "{tool} {call}"
        );
    }
}

/// Each action's own template, as a per-action tool lists it: rendered
/// against that action's arguments (no discriminator).
#[test]
fn every_example_action_has_its_own_template() {
    let per_action = |templates: &[&str], name: &str| -> Value {
        json!({"name": name, "inputSchema": {"type": "object"},
               "_meta": {"io.modelcontextprotocol/display-templates": {"template": templates[0]}}})
    };
    let files = manage_files::ManageFiles::DISPLAY_TEMPLATES;
    assert_eq!(
        files,
        [
            "read {path}",
            "append to {path}",
            "replace {path}",
            "delete {path}"
        ]
    );
    let rendered: Vec<Option<String>> = files
        .iter()
        .map(|template| {
            preview(
                &per_action(&[template], "t"),
                &arguments(json!({"path": "notes.txt", "content": "x"})),
            )
        })
        .collect();
    assert_eq!(
        rendered,
        [
            Some("read notes.txt".to_owned()),
            Some("append to notes.txt".to_owned()),
            Some("replace notes.txt".to_owned()),
            Some("delete notes.txt".to_owned()),
        ]
    );
    assert_eq!(
        sql::Sql::DISPLAY_TEMPLATES,
        ["run SQL: {statement}", "explain SQL: {statement}"]
    );
    // The struct shape: every action takes the tool's template.
    assert_eq!(
        github_api::GithubApi::DISPLAY_TEMPLATES.len(),
        github_api::GithubApi::ACTIONS.len()
    );
    assert!(
        github_api::GithubApi::DISPLAY_TEMPLATES
            .iter()
            .all(|template| *template == "{method} {path}")
    );
    assert_eq!(http_api::HttpApi::DISPLAY_TEMPLATES, ["{method} {path}"; 7]);
}

/// A hand-written impl that names no template lists none.
#[test]
fn a_tool_without_a_template_lists_none() {
    use annot::{Action, Annotations, ArgumentError};
    struct Plain;
    impl AnnotatedTool for Plain {
        const NAME: &'static str = "plain";
        const TITLE: Option<&'static str> = None;
        const DESCRIPTION: Option<&'static str> = None;
        const DISCRIMINATOR: Option<&'static str> = None;
        const ACTIONS: &'static [Action] = &[];
        const STATIC_ANNOTATIONS: Annotations = Annotations::new().read_only(true);
        fn input_schema() -> &'static str {
            r#"{"type":"object"}"#
        }
        fn resolve(&self) -> Annotations {
            Self::STATIC_ANNOTATIONS
        }
        fn from_arguments(_: &Value) -> Result<Self, ArgumentError> {
            Ok(Plain)
        }
    }
    let server = Server::builder("t", "0")
        .tool(|_: Plain| Ok(ToolOutput::text("")))
        .build()
        .expect("a server");
    let plain = listed(&server, "plain");
    assert!(plain.get("_meta").is_none(), "{plain}");
    assert_eq!(preview(&plain, &Map::new()), None);
}

/// A handler's line for the person watching rides on the result's first
/// content block, beside the model's text, valid by the MCP schema.
#[test]
fn a_handler_sets_the_result_display_text() {
    let server = Server::builder("t", "0")
        .tool(|query: RunQuery| {
            Ok(ToolOutput::text(r#"{"rows":1}"#)
                .with_display_text(format!("ran {} and got 1 row", query.sql)))
        })
        .tool(|_: Ping| Ok(ToolOutput::text("pong")))
        .build()
        .expect("a server");
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/call",
        json!({"name": "run_query", "arguments": {"sql": "select 1"}}),
    );
    server_support::assert_mcp("CallToolResult", &result);
    assert_eq!(
        result["content"],
        json!([{
            "type": "text",
            "text": "{\"rows\":1}",
            "_meta": {"io.modelcontextprotocol/display-templates": {"text": "ran select 1 and got 1 row"}}
        }])
    );
    // Without one, the block is as before.
    let pong = client.result("tools/call", json!({"name": "ping", "arguments": {}}));
    assert_eq!(pong["content"], json!([{"type": "text", "text": "pong"}]));
}

/// Listed per action, each tool carries its action's own template, which the
/// client renders against that action's arguments (no discriminator).
#[test]
fn per_action_tools_list_their_action_s_template() {
    let server = Server::builder("files", "0")
        .exposure(annot::server::Exposure::PerAction)
        .tool(|_: manage_files::ManageFiles| Ok(ToolOutput::text("")))
        .build()
        .expect("a server");
    let cases = [
        ("manage_files_read", "read {path}", "read notes.txt"),
        (
            "manage_files_append",
            "append to {path}",
            "append to notes.txt",
        ),
        (
            "manage_files_replace",
            "replace {path}",
            "replace notes.txt",
        ),
        ("manage_files_delete", "delete {path}", "delete notes.txt"),
    ];
    for (name, expected_template, expected) in cases {
        let tool = listed(&server, name);
        assert_eq!(template(&tool), expected_template, "{name}");
        server_support::assert_mcp("Tool", &tool);
        let call = arguments(json!({"path": "notes.txt", "content": "x"}));
        assert_eq!(preview(&tool, &call).as_deref(), Some(expected), "{name}");
    }
}

/// SEP-1862's `{ tool }` is the complete definition a client may put in
/// place of the listed one: it keeps the listing's call preview, and renders
/// the same line.
#[test]
fn a_resolved_tool_carries_the_call_preview_of_its_listing() {
    let server = Server::builder("t", "0")
        .tool(|_: Notes| Ok(ToolOutput::text("done")))
        .build()
        .unwrap();
    let mut client = Client::initialized(&server, json!({}));
    // (tool, arguments, the listed `_meta`, the preview), by hand.
    let cases = [
        (
            "notes",
            json!({"action": "delete", "id": 4}),
            json!({"io.modelcontextprotocol/display-templates": {"template": "{action} {id}"}}),
            "delete 4",
        ),
        (
            "notes",
            json!({"action": "read", "id": 9}),
            json!({"io.modelcontextprotocol/display-templates": {"template": "{action} {id}"}}),
            "read 9",
        ),
    ];
    for (name, call, meta, expected) in cases {
        assert_eq!(listed(&server, name)["_meta"], meta, "{name}");
        let resolved = client.result(
            "tools/resolve",
            json!({"name": name, "arguments": call.clone()}),
        );
        let tool = &resolved["tool"];
        server_support::assert_mcp("Tool", tool);
        assert_eq!(tool["_meta"], meta, "{name}: {resolved}");
        assert_eq!(
            preview(tool, &arguments(call.clone())).as_deref(),
            Some(expected),
            "{name} {call}"
        );
    }
}
