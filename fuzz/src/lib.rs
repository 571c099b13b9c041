//! What the fuzz targets share: the example tools, a server of all of them,
//! and the oracles every answer is checked against. A target panics (and
//! libFuzzer saves the input) when one of them fails.
//!
//! `cargo test` compiles this file too (`tests/robust/fuzz_inputs.rs`, through
//! `#[path]`) and replays every committed input through the same checks, so
//! modules are named by path and siblings through `super::`, never `crate::`.

#[path = "../../examples/tools/github_api.rs"]
pub mod github_api;
#[path = "../../examples/tools/http_api.rs"]
pub mod http_api;
#[path = "../../examples/tools/manage_files.rs"]
pub mod manage_files;
#[path = "reference.rs"]
pub mod reference;
#[path = "sequence.rs"]
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
    /// The `jsonschema` crate's validator of the tool's `inputSchema`: the
    /// oracle of which arguments the parser must accept.
    pub validator: jsonschema::Validator,
    /// `from_arguments`, then `resolve`.
    pub resolve: fn(&Value) -> Result<Annotations, ArgumentError>,
    /// The hand-written resolver of `reference.rs`: the oracle of what
    /// `resolve` must answer.
    pub reference: fn(&Value) -> Annotations,
}

fn info<T: AnnotatedTool>() -> ToolInfo {
    // The exact schema: the one that states what the parser accepts.
    let schema: Value = serde_json::from_str(T::exact_input_schema()).expect("inputSchema is JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("inputSchema compiles");
    ToolInfo {
        name: T::NAME,
        discriminator: T::DISCRIMINATOR.expect("the fuzzed example tools have actions"),
        declared: T::STATIC_ANNOTATIONS,
        actions: T::ACTIONS,
        schema,
        validator,
        resolve: |arguments| T::from_arguments(arguments).map(|tool| tool.resolve()),
        reference: reference::resolver(T::NAME),
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

/// The tool called `name`.
pub fn tool(name: &str) -> &'static ToolInfo {
    tools()
        .iter()
        .find(|tool| tool.name == name)
        .unwrap_or_else(|| panic!("{name} is not in tools()"))
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

/// What the JSON entry point of a tool made of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not UTF-8: no text to parse.
    NotText,
    /// Not JSON: a syntax error.
    NotJson,
    /// JSON the schema and the parser both refuse.
    Refused,
    /// Arguments the schema and the parser both accept.
    Accepted,
}

/// The `tool_json_<tool>` oracle. The parser (`from_arguments_str`) must:
/// answer text that is not JSON with a syntax error, and only such text;
/// accept exactly the JSON values the `inputSchema` accepts (the `jsonschema`
/// crate decides); and resolve what it accepts to what the hand-written
/// resolver says, within the static and the action's bound.
pub fn check_tool_json<T: AnnotatedTool + std::fmt::Debug>(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else {
        return Verdict::NotText;
    };
    let parsed = T::from_arguments_str(text);
    // The borrowing path accepts nothing the parser refuses, and where it
    // answers, it answers as the parsed value does.
    let view = (T::GENERATED.evaluate_view)(text);
    match (&view, &parsed) {
        (Some(outcome), Ok(tool)) => {
            assert_eq!(
                outcome.annotations(),
                tool.resolve(),
                "{}: view of {text}",
                T::NAME
            );
            assert_eq!(outcome.authorization(), tool.resolve_authorization());
            assert_eq!(outcome.explain(), tool.explain());
        }
        (Some(outcome), Err(error)) => panic!(
            "{}: the borrowing path accepts {text:?} ({:?}), the parser says {error}",
            T::NAME,
            outcome.annotations()
        ),
        (None, _) => {}
    }
    let evaluated = (T::GENERATED.evaluate_arguments_str)(text);
    assert_eq!(evaluated.is_ok(), parsed.is_ok(), "{}: {text:?}", T::NAME);
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(error) => {
            match parsed {
                Err(ArgumentError::Syntax { .. }) => {}
                other => panic!(
                    "{}: text serde_json refuses ({error}) got {other:?}",
                    T::NAME
                ),
            }
            return Verdict::NotJson;
        }
    };
    let info = tool(T::NAME);
    let schema_accepts = info.validator.is_valid(&value);
    let tool = match parsed {
        Ok(tool) if schema_accepts => tool,
        Err(error) if !schema_accepts => {
            assert!(
                !matches!(error, ArgumentError::Syntax { .. }),
                "{}: a syntax error for JSON {value}: {error}",
                T::NAME
            );
            return Verdict::Refused;
        }
        Ok(tool) => panic!(
            "{}: the parser accepts {value} as {tool:?}, the schema does not",
            T::NAME
        ),
        Err(error) => panic!(
            "{}: the schema accepts {value}, the parser says {error}",
            T::NAME
        ),
    };
    let resolved = tool.resolve();
    assert_eq!(
        resolved,
        (info.reference)(&value),
        "{}: resolve() and the hand-written resolver disagree on {value}",
        T::NAME
    );
    assert_within(
        T::NAME,
        T::DISCRIMINATOR,
        T::ACTIONS,
        &T::STATIC_ANNOTATIONS,
        &value,
        &resolved,
    );
    Verdict::Accepted
}

/// The `server_bytes` oracle: each line of `data` is one message to the same
/// connection. Every answer is valid JSON-RPC that echoes a readable id and
/// is no internal error, only notifications and responses go unanswered, and
/// the connection still answers a ping at the end. A second connection
/// answers the same messages into one buffer it keeps (`handle_into`, as the
/// stdio server does), byte for byte as the first.
pub fn check_server_bytes(data: &[u8]) {
    let server = server();
    let mut connection = server.connect();
    let mut kept = server.connect();
    let mut buffer = Vec::new();
    for message in data.split(|byte| *byte == b'\n') {
        let response = connection.handle(message);
        buffer.clear();
        let answered = kept.handle_into(message, &mut buffer);
        assert_eq!(
            answered.then_some(buffer.as_slice()),
            response.as_deref(),
            "handle_into and handle answer alike"
        );
        match response {
            // A batch (2024-11-05 and 2025-03-26 sessions) gets an array of
            // responses, each of MCP's shape.
            Some(response) if response.first() == Some(&b'[') => {
                let answers: Vec<&serde_json::value::RawValue> = serde_json::from_slice(&response)
                    .unwrap_or_else(|error| panic!("a batch answer is not an array ({error})"));
                // Each answer carries the id of one of the batch's requests.
                let requests: Vec<&serde_json::value::RawValue> =
                    serde_json::from_slice(message).unwrap_or_default();
                let ids: Vec<Value> = requests
                    .iter()
                    .filter_map(|request| readable_id_of_members(request.get().as_bytes()))
                    .collect();
                for answer in answers {
                    let expected = serde_json::from_str::<Value>(answer.get())
                        .ok()
                        .and_then(|answer| answer.get("id").cloned())
                        .filter(|id| ids.contains(id));
                    check_response(expected.as_ref(), answer.get().as_bytes());
                }
            }
            // The server echoes an id byte for byte, except one with a lone
            // surrogate (`"\ud800"`), which no client could read back: that
            // request is refused, and the error carries no id.
            Some(response) if has_unreadable_string_id(message) => {
                let answer = check_response(None, &response);
                assert!(
                    answer.get("id").is_none() && answer.get("error").is_some(),
                    "an id with a lone surrogate is refused without an id: {answer}"
                );
            }
            Some(response) => {
                let expected_id = match serde_json::from_slice::<Value>(message) {
                    // Read from the id's text: `-0` is an integer there, as
                    // the server reads it, though a `Value` holds it as `-0.0`.
                    Ok(_) => readable_id_of_members(message),
                    // The server reads only the members it needs, so a
                    // request whose other members a `Value` cannot hold is
                    // still answered with its id.
                    // Unless it refuses the message whole (a parse error
                    // without an id), as it may when a member it reads, such as
                    // an earlier repeated `id`, is out of range.
                    Err(_) if parse_error_without_id(&response) => None,
                    Err(_) => readable_id_of_members(message),
                };
                check_response(expected_id.as_ref(), &response);
            }
            None => assert!(
                may_go_unanswered(message),
                "no answer to {}",
                String::from_utf8_lossy(message)
            ),
        }
    }
    let ping = connection.handle(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    assert_eq!(
        ping.as_deref(),
        Some(&br#"{"jsonrpc":"2.0","id":"last","result":{}}"#[..])
    );
}

/// Panics unless `resolved` is within the tool's static annotations and
/// within the declared worst case of the action the arguments name.
pub fn assert_within(
    tool: &str,
    discriminator: Option<&str>,
    actions: &[Action],
    declared: &Annotations,
    arguments: &Value,
    resolved: &Annotations,
) {
    if let Err(violation) = resolved.check_within(declared) {
        panic!("{tool}: {arguments} resolves outside the static bound: {violation}");
    }
    // A single-action tool has no discriminator: its one action is the bound.
    let name = match discriminator {
        Some(field) => arguments[field]
            .as_str()
            .expect("a parsed action is a string"),
        None => actions.first().expect("a tool has an action").name,
    };
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
/// an integer code other than `-32603` and a string message. A request whose
/// id could be read (`expected_id`) gets that id back; otherwise the id, if any, is a string or
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
            // The server answers a panic, or a resolution outside the static
            // bound, with -32603. No example tool can legitimately do either.
            assert_ne!(
                error.get("code"),
                Some(&Value::from(-32603)),
                "an internal error: {value}"
            );
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

/// For a message whose values a `Value` cannot hold (`1e400`, a lone
/// surrogate) but that is a well-formed object: whether it has an `id`, a
/// string `method`, and a `result` or `error`. The server reads only the
/// members it needs, so such a message is still a notification or a
/// client's response.
fn members_only(message: &[u8]) -> Option<(bool, bool, bool)> {
    use serde_json::value::RawValue;
    let members: std::collections::BTreeMap<String, &RawValue> =
        serde_json::from_slice(message).ok()?;
    let method = members
        .get("method")
        .is_some_and(|method| method.get().starts_with('"'));
    let reply = members.contains_key("result") || members.contains_key("error");
    Some((members.contains_key("id"), method, reply))
}

/// Whether a message is an object whose `id` (its last, as serde_json reads
/// it) is a string no `String` can hold: it escapes a lone surrogate.
fn has_unreadable_string_id(message: &[u8]) -> bool {
    use serde_json::value::RawValue;
    let Ok(members) =
        serde_json::from_slice::<std::collections::BTreeMap<String, &RawValue>>(message)
    else {
        return false;
    };
    members.get("id").is_some_and(|id| {
        id.get().starts_with('"') && serde_json::from_str::<String>(id.get()).is_err()
    })
}

/// Whether a response is a -32700 error without an id.
fn parse_error_without_id(response: &[u8]) -> bool {
    serde_json::from_slice::<Value>(response)
        .is_ok_and(|value| value.get("id").is_none() && value["error"]["code"] == -32700)
}

/// [`readable_id`] of a message read member by member, its id judged from its
/// text as the server judges it (`-0` is an integer, which a `Value` holds as
/// `-0.0`); also for messages whose other members a `Value` cannot hold
/// (`1e400`, a lone surrogate).
fn readable_id_of_members(message: &[u8]) -> Option<Value> {
    use serde_json::value::RawValue;
    let members: std::collections::BTreeMap<String, &RawValue> =
        serde_json::from_slice(message).ok()?;
    let request = members.get("jsonrpc").map(|version| version.get()) == Some("\"2.0\"")
        && members
            .get("method")
            .is_some_and(|method| method.get().starts_with('"'));
    let text = members.get("id")?.get();
    let id: Value = serde_json::from_str(text).ok()?;
    // A string, or an integer as written (`-0` is one; `1.0` is not).
    let scalar = id.is_string() || text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok();
    (request && scalar).then_some(id)
}

/// Whether a message may go unanswered: a notification (a string `method`, no
/// `id`), or a response from the client (`result` or `error`, no `method`).
pub fn may_go_unanswered(message: &[u8]) -> bool {
    let Ok(Value::Object(object)) = serde_json::from_slice::<Value>(message) else {
        return members_only(message).is_some_and(|(id, method, reply)| {
            let notification = !id && method;
            notification || (!method && reply)
        });
    };
    let notification =
        !object.contains_key("id") && object.get("method").is_some_and(Value::is_string);
    let response = !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"));
    notification || response
}
