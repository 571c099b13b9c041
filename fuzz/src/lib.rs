//! What the fuzz targets share: the example tools, a server of all of them,
//! and the invariants every answer must keep. A target panics (and libFuzzer
//! saves the input) when one of them breaks.

#[path = "../../examples/tools/github_api.rs"]
pub mod github_api;
#[path = "../../examples/tools/http_api.rs"]
pub mod http_api;
#[path = "../../examples/tools/manage_files.rs"]
pub mod manage_files;
pub mod sequence;
#[path = "../../examples/tools/sql.rs"]
pub mod sql;

use std::sync::OnceLock;

use annot::server::{Server, ToolOutput};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use serde_json::Value;

/// One example tool, with its types erased.
pub struct ToolInfo {
    pub name: &'static str,
    pub discriminator: &'static str,
    pub declared: Annotations,
    pub actions: &'static [Action],
    pub schema: Value,
    /// `from_arguments`, then `resolve`.
    pub resolve: fn(&Value) -> Result<Annotations, ArgumentError>,
}

fn info<T: AnnotatedTool>() -> ToolInfo {
    ToolInfo {
        name: T::NAME,
        discriminator: T::DISCRIMINATOR.expect("the fuzzed example tools have actions"),
        declared: T::STATIC_ANNOTATIONS,
        actions: T::ACTIONS,
        schema: serde_json::from_str(T::input_schema()).expect("inputSchema is JSON"),
        resolve: |arguments| T::from_arguments(arguments).map(|tool| tool.resolve()),
    }
}

/// Every example tool. Add each new file of `examples/tools/` here.
pub fn tools() -> &'static [ToolInfo] {
    static TOOLS: OnceLock<Vec<ToolInfo>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        vec![
            info::<manage_files::ManageFiles>(),
            info::<http_api::HttpApi>(),
            info::<github_api::GithubApi>(),
            info::<sql::Sql>(),
        ]
    })
}

/// A server of every example tool; calls do nothing and succeed.
pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        Server::builder("annot-fuzz", "0.0.0")
            .tool(|_: manage_files::ManageFiles| Ok(ToolOutput::text("ok")))
            .tool(|_: http_api::HttpApi| Ok(ToolOutput::text("ok")))
            .tool(|_: github_api::GithubApi| Ok(ToolOutput::text("ok")))
            .tool(|_: sql::Sql| Ok(ToolOutput::text("ok")))
            .build()
            .expect("the fuzz server is consistent")
    })
}

/// The JSON entry point of one tool: `from_arguments_str`, `from_arguments`
/// and `resolve` agree with each other and with serde_json, and every
/// resolution stays within the static annotations and its action's bound.
pub fn check_tool_json<T: AnnotatedTool>(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = T::from_arguments_str(text);
    let value = serde_json::from_str::<Value>(text);
    match (&parsed, &value) {
        (Ok(_), Err(error)) => {
            panic!("from_arguments_str accepted text serde_json refuses: {error}")
        }
        (Err(ArgumentError::Syntax { message }), Ok(_)) => {
            panic!("a syntax error for valid JSON: {message}")
        }
        (Err(error), _) => assert!(!error.to_string().is_empty()),
        (Ok(_), Ok(_)) => {}
    }
    let Ok(value) = value else { return };
    let from_value = T::from_arguments(&value).map(|tool| tool.resolve());
    let from_text = parsed.map(|tool| tool.resolve());
    assert_eq!(
        from_text, from_value,
        "text and value entry points disagree"
    );
    if let Ok(resolved) = from_value {
        assert_within(
            T::NAME,
            T::DISCRIMINATOR,
            T::ACTIONS,
            &T::STATIC_ANNOTATIONS,
            &value,
            &resolved,
        );
        let again = T::from_arguments(&value).expect("parses twice").resolve();
        assert_eq!(resolved, again, "resolve is not deterministic");
    }
}

/// Panics unless `resolved` is within the tool's static annotations and
/// within the declared worst case of the action the arguments name.
pub fn assert_within(
    tool: &str,
    discriminator: &str,
    actions: &[Action],
    declared: &Annotations,
    arguments: &Value,
    resolved: &Annotations,
) {
    if let Err(violation) = resolved.check_within(declared) {
        panic!("{tool}: {arguments} resolves outside the static bound: {violation}");
    }
    let name = arguments[discriminator]
        .as_str()
        .expect("a parsed action is a string");
    let action = actions
        .iter()
        .find(|action| action.name == name)
        .unwrap_or_else(|| panic!("{tool}: {name} parsed but is no action"));
    if let Err(violation) = resolved.check_within(&action.annotations) {
        panic!("{tool}: {arguments} resolves outside its action's bound: {violation}");
    }
}

/// Checks one response is a JSON-RPC 2.0 response of MCP's shape: an object
/// with `jsonrpc: "2.0"` and exactly one of `result` and `error`; an error has
/// an integer code and a string message. A request whose id could be read
/// (`expected_id`) gets that id back; otherwise the id, if any, is a string or
/// an integer. Returns the response.
pub fn check_response(expected_id: Option<&Value>, response: &[u8]) -> Value {
    let value: Value = serde_json::from_slice(response).unwrap_or_else(|error| {
        panic!(
            "response is not JSON ({error}): {}",
            String::from_utf8_lossy(response)
        )
    });
    let object = value.as_object().expect("a response is an object");
    assert_eq!(object.get("jsonrpc"), Some(&Value::from("2.0")), "{value}");
    for key in object.keys() {
        assert!(
            ["jsonrpc", "id", "result", "error"].contains(&key.as_str()),
            "{value}"
        );
    }
    let id = object.get("id");
    match (object.get("result"), object.get("error")) {
        (Some(result), None) => {
            assert!(result.is_object(), "a result is an object: {value}");
            assert!(id.is_some() && id == expected_id, "result id: {value}");
        }
        (None, Some(error)) => {
            let error = error.as_object().expect("an error is an object");
            assert!(error.get("code").is_some_and(Value::is_i64), "{value}");
            assert!(
                error.get("message").is_some_and(Value::is_string),
                "{value}"
            );
            for key in error.keys() {
                assert!(
                    ["code", "message", "data"].contains(&key.as_str()),
                    "{value}"
                );
            }
            match (expected_id, id) {
                (Some(expected), Some(id)) => assert_eq!(expected, id, "{value}"),
                (Some(_), None) => panic!("the id was readable but not echoed: {value}"),
                (None, Some(id)) => assert!(id.is_string() || id.is_i64() || id.is_u64()),
                (None, None) => {}
            }
        }
        _ => panic!("neither result nor error, or both: {value}"),
    }
    value
}

/// The id a server must echo: that of a well-formed request.
pub fn readable_id(message: &Value) -> Option<&Value> {
    let object = message.as_object()?;
    let id = object.get("id")?;
    let scalar = id.is_string() || id.is_i64() || id.is_u64();
    let request = object.get("method").is_some_and(Value::is_string)
        && object.get("jsonrpc") == Some(&Value::from("2.0"));
    (scalar && request).then_some(id)
}

/// Whether a message may go unanswered: a notification (a string `method`, no
/// `id`), or a response from the client (`result` or `error`, no `method`).
pub fn may_go_unanswered(message: &[u8]) -> bool {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(message) else {
        return false;
    };
    let notification =
        !object.contains_key("id") && object.get("method").is_some_and(Value::is_string);
    let response = !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"));
    notification || response
}

/// The annotations a successful resolution answered with, in any dialect.
pub fn resolved_annotations(result: &Value) -> Annotations {
    let annotations = result
        .get("annotations")
        .or_else(|| result.get("tool").and_then(|tool| tool.get("annotations")))
        .unwrap_or_else(|| panic!("no annotations in {result}"));
    let wire: annot::ToolAnnotations =
        serde_json::from_value(annotations.clone()).expect("annotations of the wire shape");
    wire.hints()
}
