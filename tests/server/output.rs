//! Structured output on the built-in server: a tool declared with
//! `#[mcp_tool(output = Type)]` lists its `outputSchema` in every exposure
//! and era, its results carry `structuredContent` with the same JSON as
//! text, and a result that breaks the declaration is a tool error.

use crate::server_support;
use annot::server::{BuildError, Exposure, Server, ToolError, ToolOutput};
use annot::{AnnotatedTool, mcp_tool};
use serde_json::{Value, json};
use server_support::{Client, ModernClient, extension_capabilities};

/// What `branch` reports.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    /// The branch.
    branch: String,
    /// Commits not yet on the remote.
    ahead: u32,
    /// Set when the remote refused something.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Inspect or push a branch.
#[mcp_tool(open_world = false, output = Report)]
#[serde(rename_all = "snake_case")]
enum Branch {
    #[annotate(read_only)]
    Status { branch: String },
    #[annotate(destructive)]
    Push { branch: String },
}

fn branch(call: Branch) -> Result<ToolOutput, ToolError> {
    let report = match call {
        Branch::Status { branch } => Report {
            branch,
            ahead: 2,
            note: None,
        },
        Branch::Push { branch } => Report {
            branch,
            ahead: 0,
            note: Some("pushed".into()),
        },
    };
    ToolOutput::json(&report)
}

/// A tool whose handler drifted from its declaration.
#[mcp_tool(read_only, open_world = false, output = Report)]
struct Drifting {
    /// What the handler returns: `"wrong"`, `"text"` or `"error"`.
    mode: String,
}

fn drifting(call: Drifting) -> Result<ToolOutput, ToolError> {
    match call.mode.as_str() {
        "wrong" => ToolOutput::json(&json!({"branch": "main", "ahead": "two"})),
        "text" => Ok(ToolOutput::text("a report, in words")),
        _ => Err(ToolError::new("the remote is down")),
    }
}

fn server(exposure: Exposure) -> Server {
    Server::builder("annot-test", "1.2.3")
        .exposure(exposure)
        .tool(branch)
        .tool(drifting)
        .build()
        .expect("valid tools")
}

fn declared() -> Value {
    serde_json::from_str(Branch::output_schema().expect("declared")).unwrap()
}

fn listed_tools(result: &Value) -> Vec<Value> {
    result["tools"].as_array().expect("a tool list").clone()
}

/// Every listed tool of `Branch` (the resolvable one or its per-action ones)
/// carries the declared schema; the names listed, sorted.
fn assert_branch_tools_declare(tools: &[Value]) -> Vec<String> {
    let mut names = Vec::new();
    for tool in tools.iter().filter(|tool| tool["name"] != "drifting") {
        assert_eq!(tool["outputSchema"], declared(), "{tool}");
        names.push(tool["name"].as_str().unwrap().to_owned());
    }
    names.sort();
    names
}

#[test]
fn the_schema_is_the_types_own() {
    let schema = declared();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["branch", "ahead"]));
    // The range of a `u32`, without schemars' `"format": "uint32"`, which no
    // JSON Schema validator knows.
    assert_eq!(
        schema["properties"]["ahead"],
        json!({"description": "Commits not yet on the remote.", "type": "integer", "minimum": 0})
    );
    // Written portably: an optional field is `anyOf`, not a type array.
    assert_eq!(
        schema["properties"]["note"]["anyOf"],
        json!([{"type": "string"}, {"type": "null"}])
    );
    assert!(schema.get("$schema").is_none(), "{schema}");
    // A tool that declares nothing has none.
    #[mcp_tool(read_only, open_world = false)]
    struct Plain {}
    assert_eq!(Plain::output_schema(), None);
}

#[test]
fn every_exposure_and_era_lists_the_output_schema() {
    let resolvable = vec!["branch".to_owned()];
    let per_action = vec!["branch_push".to_owned(), "branch_status".to_owned()];
    for (exposure, legacy, extension) in [
        (Exposure::Resolvable, &resolvable, &resolvable),
        (Exposure::PerAction, &per_action, &per_action),
        (Exposure::Auto, &per_action, &resolvable),
    ] {
        let server = server(exposure);
        let mut plain = Client::initialized(&server, json!({}));
        let listed = plain.result("tools/list", json!({}));
        assert_eq!(&assert_branch_tools_declare(&listed_tools(&listed)), legacy);

        let mut resolving = Client::initialized(&server, extension_capabilities());
        let listed = resolving.result("tools/list", json!({}));
        assert_eq!(
            &assert_branch_tools_declare(&listed_tools(&listed)),
            extension
        );

        let mut modern = ModernClient::new(&server);
        let listed = modern.result("tools/list", json!({}), json!({}));
        assert_eq!(&assert_branch_tools_declare(&listed_tools(&listed)), legacy);
        let listed = modern.result("tools/list", json!({}), extension_capabilities());
        assert_eq!(
            &assert_branch_tools_declare(&listed_tools(&listed)),
            extension
        );
    }
}

/// The result's structured content, after checking it is the text block's
/// JSON and fits the declared schema.
fn structured(result: &Value) -> Value {
    assert!(result.get("isError").is_none(), "{result}");
    let structured = result["structuredContent"].clone();
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), structured);
    let validator = jsonschema::validator_for(&declared()).unwrap();
    assert!(validator.is_valid(&structured), "{structured}");
    structured
}

#[test]
fn results_carry_structured_content_and_its_text() {
    let server = server(Exposure::Auto);
    let mut client = Client::initialized(&server, extension_capabilities());
    let status = json!({"name": "branch", "arguments": {"action": "status", "branch": "main"}});
    let result = client.result("tools/call", status);
    assert_eq!(structured(&result), json!({"branch": "main", "ahead": 2}));

    // A per-action tool's result, to a client that lists those.
    let mut plain = Client::initialized(&server, json!({}));
    let push = json!({"name": "branch_push", "arguments": {"branch": "agent/x"}});
    let result = plain.result("tools/call", push);
    assert_eq!(
        structured(&result),
        json!({"branch": "agent/x", "ahead": 0, "note": "pushed"})
    );

    // And in the 2026-07-28 era.
    let mut modern = ModernClient::new(&server);
    let status = json!({"name": "branch_status", "arguments": {"branch": "dev"}});
    let result = modern.result("tools/call", status, json!({}));
    assert_eq!(structured(&result), json!({"branch": "dev", "ahead": 2}));
}

fn call_drifting(mode: &str) -> Value {
    let server = server(Exposure::Resolvable);
    let mut client = Client::initialized(&server, json!({}));
    client.result(
        "tools/call",
        json!({"name": "drifting", "arguments": {"mode": mode}}),
    )
}

/// The one text block of a tool error.
fn tool_error(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert_eq!(result["content"].as_array().unwrap().len(), 1, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn content_the_schema_refuses_is_a_tool_error() {
    let message = tool_error(&call_drifting("wrong"));
    assert!(
        message.starts_with(
            "internal error: the tool `drifting` returned a result that breaks its declared \
             output: its structuredContent does not match the outputSchema: at `/ahead`: "
        ),
        "{message}"
    );
    assert!(
        message.contains("\"two\" is not of type \"integer\""),
        "{message}"
    );
}

#[test]
fn a_result_without_structured_content_is_a_tool_error() {
    let message = tool_error(&call_drifting("text"));
    assert!(
        message.contains("the result has no structuredContent"),
        "{message}"
    );
}

#[test]
fn a_handlers_own_error_stays_its_own() {
    assert_eq!(tool_error(&call_drifting("error")), "the remote is down");
}

#[test]
fn an_output_type_that_is_not_an_object_is_refused_at_build() {
    #[mcp_tool(read_only, open_world = false, output = Vec<String>)]
    struct Names {}
    let built = Server::builder("annot-test", "1.2.3")
        .tool(|_: Names| ToolOutput::json(&json!({})))
        .build();
    let Err(BuildError::InvalidOutputSchema { tool, reason }) = built else {
        panic!("built: {:?}", built.map(|_| ()));
    };
    assert_eq!(tool, "names");
    assert!(reason.contains("\"type\": \"object\""), "{reason}");
}

#[test]
fn json_refuses_what_is_not_an_object() {
    let error = ToolOutput::json(&[1, 2]).unwrap_err();
    assert_eq!(
        error.message(),
        "internal error: a structured result must be a JSON object, not array"
    );
}
