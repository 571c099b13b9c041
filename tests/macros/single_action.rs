//! Single-action tools: `#[mcp_tool]` on a plain struct of arguments, with
//! tool-level hints and rules, an `inputSchema` of exactly its fields, and
//! served end to end by the built-in server.

use crate::server_support;
use annot::server::{Server, ToolOutput};
use annot::{AnnotatedTool, Annotations, mcp_tool};
use serde_json::{Value, json};
use server_support::{Client, assert_mcp};

/// Run one SQL statement.
#[mcp_tool(
    open_world = false,
    destructive,
    when(sql is sql(generic, read)) => (read_only),
)]
#[derive(Debug)]
struct RunQuery {
    /// The statement.
    sql: String,
    /// Rows at most.
    limit: Option<u32>,
}

/// Say hello: a tool without arguments.
#[mcp_tool(read_only, open_world = false)]
#[derive(Debug)]
struct Hello;

fn query(sql: &str) -> Annotations {
    RunQuery::from_arguments(&json!({ "sql": sql }))
        .unwrap()
        .resolve()
}

#[test]
fn a_single_action_has_no_discriminator_and_one_action() {
    assert_eq!(RunQuery::NAME, "run_query");
    assert_eq!(RunQuery::DISCRIMINATOR, None);
    assert_eq!(RunQuery::ACTIONS.len(), 1);
    assert_eq!(RunQuery::ACTIONS[0].name, "run_query");
    // The worst case: a write (the rule may not fire), destructive, closed.
    let worst = RunQuery::STATIC_ANNOTATIONS;
    assert_eq!(
        (
            worst.read_only,
            worst.destructive,
            worst.idempotent,
            worst.open_world
        ),
        (Some(false), Some(true), Some(false), Some(false))
    );
    assert_eq!(Hello::DISCRIMINATOR, None);
    assert!(Hello::STATIC_ANNOTATIONS.is_read_only());
}

#[test]
fn rules_and_tool_hints_decide_each_call() {
    let select = query("  SELECT * FROM t");
    assert_eq!(
        (select.read_only, select.destructive, select.idempotent),
        (Some(true), Some(false), Some(true))
    );
    let drop = query("DROP TABLE t");
    assert_eq!(
        (drop.read_only, drop.destructive),
        (Some(false), Some(true))
    );
    for resolved in [select, drop] {
        assert!(resolved.is_within(&RunQuery::STATIC_ANNOTATIONS));
    }
    let explained = RunQuery::from_arguments(&json!({"sql": "select count(*) from t"}))
        .unwrap()
        .explain();
    assert_eq!(explained.fired.len(), 1);
    assert_eq!(explained.action, Some("run_query"));
}

#[test]
fn the_schema_is_exactly_the_fields() {
    let schema: Value = serde_json::from_str(RunQuery::input_schema()).unwrap();
    assert_eq!(schema["type"], "object");
    let properties = schema["properties"].as_object().unwrap();
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["limit", "sql"]);
    assert_eq!(schema["required"], json!(["sql"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let hello: Value = serde_json::from_str(Hello::input_schema()).unwrap();
    assert_eq!(hello["properties"], json!({}));
    // The parser agrees: no action field, nothing else.
    assert!(RunQuery::from_arguments(&json!({"sql": "x", "action": "run"})).is_err());
    assert!(RunQuery::from_arguments(&json!({})).is_err());
    assert!(Hello::from_arguments(&json!({})).is_ok());
    assert!(Hello::from_arguments(&json!({"x": 1})).is_err());
}

#[test]
fn the_server_lists_and_calls_a_single_action_tool() {
    let server = Server::builder("single", "0")
        .tool(|call: RunQuery| {
            Ok(ToolOutput::text(format!(
                "ran {} {:?}",
                call.sql, call.limit
            )))
        })
        .tool(|_: Hello| Ok(ToolOutput::text("hello")))
        .build()
        .unwrap();
    let mut client = Client::initialized(&server, json!({}));
    let listed = client.result("tools/list", json!({}));
    assert_mcp("ListToolsResult", &listed);
    let run = &listed["tools"][0];
    assert_eq!(run["name"], "run_query");
    assert_eq!(run["annotations"]["readOnlyHint"], false);
    assert_eq!(run["inputSchema"]["required"], json!(["sql"]));
    let called = client.result(
        "tools/call",
        json!({"name": "run_query", "arguments": {"sql": "select 1"}}),
    );
    assert_mcp("CallToolResult", &called);
    assert_eq!(called["content"][0]["text"], "ran select 1 None");
    let hello = client.result("tools/call", json!({"name": "hello", "arguments": {}}));
    assert_eq!(hello["content"][0]["text"], "hello");
}

/// Record what a user did: `action` is an argument here, not a discriminator,
/// and a rule may test it like any other field.
#[mcp_tool(
    single,
    read_only = false,
    destructive = false,
    idempotent = false,
    open_world = false,
    when(action == "erase") => (destructive),
)]
#[derive(Debug)]
struct AuditEntry {
    /// What the user did.
    action: String,
    /// Who did it.
    user: String,
}

/// The same opt-out written `single = true`, with a renamed field of the
/// discriminator's name.
#[mcp_tool(single = true, read_only, open_world = false)]
#[serde(rename_all = "camelCase")]
#[derive(Debug)]
struct LookupAction {
    /// An argument named `action` on the wire.
    #[serde(rename = "action")]
    action_name: String,
    max_rows: Option<u8>,
}

#[test]
fn single_keeps_a_field_named_action_an_argument() {
    assert_eq!(AuditEntry::DISCRIMINATOR, None);
    assert_eq!(AuditEntry::ACTIONS.len(), 1);
    assert_eq!(AuditEntry::ACTIONS[0].name, "audit_entry");
    let entry = AuditEntry::from_arguments(&json!({"action": "login", "user": "ann"})).unwrap();
    assert_eq!(
        (entry.action.as_str(), entry.user.as_str()),
        ("login", "ann")
    );
    // Without `single` the struct would need an `#[mcp_actions]` type for
    // `action`; with it, any string is an argument, and both are required.
    assert!(AuditEntry::from_arguments(&json!({"action": "login"})).is_err());
    assert!(AuditEntry::from_arguments(&json!({"user": "ann"})).is_err());
    assert!(AuditEntry::from_arguments(&json!({"action": 1, "user": "ann"})).is_err());

    let schema: Value = serde_json::from_str(AuditEntry::input_schema()).unwrap();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "description": "What the user did."},
                "user": {"type": "string", "description": "Who did it."},
            },
            "required": ["action", "user"],
            "additionalProperties": false,
        })
    );
    assert_eq!(AuditEntry::input_schema(), AuditEntry::exact_input_schema());

    let lookup = LookupAction::from_arguments(&json!({"action": "x", "maxRows": 3})).unwrap();
    assert_eq!(
        (lookup.action_name.as_str(), lookup.max_rows),
        ("x", Some(3))
    );
    assert_eq!(LookupAction::DISCRIMINATOR, None);
    assert!(LookupAction::STATIC_ANNOTATIONS.is_read_only());
}

#[test]
fn a_rule_on_the_action_argument_decides_each_call() {
    let resolve = |action: &str| {
        AuditEntry::from_arguments(&json!({"action": action, "user": "ann"}))
            .unwrap()
            .resolve()
    };
    // Literal expectations: the tool's hints, and `erase` destructive.
    let login = resolve("login");
    assert_eq!(
        (
            login.read_only,
            login.destructive,
            login.idempotent,
            login.open_world
        ),
        (Some(false), Some(false), Some(false), Some(false))
    );
    let erase = resolve("erase");
    assert_eq!(
        (
            erase.read_only,
            erase.destructive,
            erase.idempotent,
            erase.open_world
        ),
        (Some(false), Some(true), Some(false), Some(false))
    );
    let worst = AuditEntry::STATIC_ANNOTATIONS;
    assert_eq!(
        (
            worst.read_only,
            worst.destructive,
            worst.idempotent,
            worst.open_world
        ),
        (Some(false), Some(true), Some(false), Some(false))
    );
}

#[test]
fn the_server_serves_a_tool_with_an_action_argument() {
    let server = Server::builder("single", "0")
        .tool(|entry: AuditEntry| {
            Ok(ToolOutput::text(format!(
                "{} did {}",
                entry.user, entry.action
            )))
        })
        .build()
        .unwrap();
    let mut client = Client::initialized(&server, json!({}));
    let listed = client.result("tools/list", json!({}));
    assert_mcp("ListToolsResult", &listed);
    assert_eq!(listed["tools"][0]["name"], "audit_entry");
    assert_eq!(listed["tools"][0]["annotations"]["destructiveHint"], true);
    let called = client.result(
        "tools/call",
        json!({"name": "audit_entry", "arguments": {"action": "login", "user": "ann"}}),
    );
    assert_mcp("CallToolResult", &called);
    assert_eq!(called["content"][0]["text"], "ann did login");
}
