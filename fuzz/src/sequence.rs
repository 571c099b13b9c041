//! Structured sessions for the `server_sequence` target: messages a client
//! could send, built from generated parts, and the checks on each answer.

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use serde_json::{Map, Number, Value, json};

use crate::{ToolInfo, assert_within, check_response, resolved_annotations, server, tools};

/// A session: the messages, in order.
#[derive(Arbitrary, Debug)]
pub struct Session {
    pub steps: Vec<Step>,
}

/// One message from the client.
#[derive(Arbitrary, Debug)]
pub enum Step {
    Initialize {
        version: u8,
        extension: Extension,
    },
    Initialized,
    Ping,
    List {
        cursor: Option<Json>,
    },
    /// `tools/annotations` (`annotations == true`) or `tools/resolve`.
    Resolve {
        annotations: bool,
        tool: u8,
        arguments: Arguments,
        meta: Extension,
    },
    Call {
        tool: u8,
        arguments: Arguments,
    },
    Notification {
        method: Json,
    },
    /// Any JSON as a whole message.
    Raw(Json),
}

/// What a client says about the tool-resolution extension.
#[derive(Arbitrary, Debug)]
pub enum Extension {
    Absent,
    Empty,
    Settings(Json),
    /// Per-request capabilities that leave the extension out.
    Other,
}

/// Tool arguments: mostly an object of known and unknown fields.
#[derive(Arbitrary, Debug)]
pub enum Arguments {
    Absent,
    Fields(Vec<(Key, Json)>),
    Other(Json),
}

#[derive(Arbitrary, Debug)]
pub enum Key {
    Known(u8),
    Other(String),
}

/// Any JSON value, with strings the tools know (action and field names) and
/// integral floats easy to reach.
#[derive(Arbitrary, Debug)]
pub enum Json {
    Null,
    Bool(bool),
    Integer(i64),
    Unsigned(u64),
    Float(f64),
    IntegralFloat(i32),
    Text(String),
    Known(u8),
    Array(Vec<Json>),
    Object(Vec<(Key, Json)>),
}

/// Action names, discriminators and field names of every example tool.
fn known_strings() -> &'static [String] {
    static KNOWN: OnceLock<Vec<String>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut known = Vec::new();
        for tool in tools() {
            known.push(tool.name.to_owned());
            known.push(tool.discriminator.to_owned());
            known.extend(tool.actions.iter().map(|action| action.name.to_owned()));
            if let Some(properties) = tool.schema["properties"].as_object() {
                known.extend(properties.keys().cloned());
            }
        }
        known.sort();
        known.dedup();
        known
    })
}

fn known(index: u8) -> Value {
    let known = known_strings();
    Value::from(known[usize::from(index) % known.len()].clone())
}

impl Key {
    fn render(&self) -> String {
        match self {
            Key::Known(index) => known(*index).as_str().unwrap_or_default().to_owned(),
            Key::Other(text) => text.clone(),
        }
    }
}

impl Json {
    fn render(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(value) => Value::Bool(*value),
            Json::Integer(value) => Value::from(*value),
            Json::Unsigned(value) => Value::from(*value),
            Json::Float(value) => Number::from_f64(*value).map_or(Value::Null, Value::Number),
            Json::IntegralFloat(value) => {
                Value::Number(Number::from_f64(f64::from(*value)).expect("a finite float"))
            }
            Json::Text(text) => Value::from(text.clone()),
            Json::Known(index) => known(*index),
            Json::Array(items) => Value::Array(items.iter().map(Json::render).collect()),
            Json::Object(members) => Value::Object(render_members(members)),
        }
    }
}

fn render_members(members: &[(Key, Json)]) -> Map<String, Value> {
    members
        .iter()
        .map(|(key, value)| (key.render(), value.render()))
        .collect()
}

impl Extension {
    /// The `extensions` object of client capabilities, if any.
    fn capabilities(&self) -> Option<Value> {
        match self {
            Extension::Absent => None,
            Extension::Empty => {
                Some(json!({"extensions": {annot::protocol::TOOL_RESOLUTION_EXTENSION: {}}}))
            }
            Extension::Settings(settings) => Some(
                json!({"extensions": {annot::protocol::TOOL_RESOLUTION_EXTENSION: settings.render()}}),
            ),
            Extension::Other => Some(json!({"extensions": {"com.example/other": {}}})),
        }
    }
}

/// The tool a step names: one of the examples, or (past their count) a name
/// no tool has.
fn tool_at(index: u8) -> Option<&'static ToolInfo> {
    let tools = tools();
    tools.get(usize::from(index) % (tools.len() + 1))
}

const VERSIONS: [&str; 4] = ["2025-06-18", "2025-11-25", "2024-11-05", "1999-01-01"];

/// Sends every step to one connection and checks each answer.
pub fn run(session: &Session) {
    let mut connection = server().connect();
    for (number, step) in session.steps.iter().enumerate() {
        let id = if number % 2 == 0 {
            Value::from(number)
        } else {
            Value::from(format!("r{number}"))
        };
        let (message, check) = build(step, &id);
        let bytes = serde_json::to_vec(&message).expect("a message serializes");
        let response = connection.handle(&bytes);
        match check {
            Check::Silence => assert!(response.is_none(), "a notification was answered"),
            Check::Answer {
                tool,
                arguments,
                kind,
            } => {
                let response = response.expect("a request is answered");
                let expected_id = crate::readable_id(&message);
                let value = check_response(expected_id, &response);
                if let Some(tool) = tool {
                    check_tool_answer(tool, &arguments, kind, &value);
                }
                if kind != Kind::Initialize {
                    // The same request again gets the same bytes.
                    let again = connection.handle(&bytes).expect("answered twice");
                    assert_eq!(response, again, "not deterministic: {message}");
                }
            }
            Check::Any => {
                if let Some(response) = response {
                    check_response(crate::readable_id(&message), &response);
                }
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Initialize,
    Resolve,
    Call,
    Other,
}

enum Check {
    Silence,
    Answer {
        tool: Option<&'static ToolInfo>,
        arguments: Value,
        kind: Kind,
    },
    Any,
}

fn build(step: &Step, id: &Value) -> (Value, Check) {
    let answer = |kind| Check::Answer {
        tool: None,
        arguments: Value::Null,
        kind,
    };
    match step {
        Step::Initialize { version, extension } => {
            let mut params = json!({
                "protocolVersion": VERSIONS[usize::from(*version) % VERSIONS.len()],
                "clientInfo": {"name": "fuzz", "version": "0"},
            });
            if let Some(capabilities) = extension.capabilities() {
                params["capabilities"] = capabilities;
            }
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params});
            (message, answer(Kind::Initialize))
        }
        Step::Initialized => (
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            Check::Silence,
        ),
        Step::Ping => (
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            answer(Kind::Other),
        ),
        Step::List { cursor } => {
            let mut message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
            if let Some(cursor) = cursor {
                message["params"] = json!({"cursor": cursor.render()});
            }
            (message, answer(Kind::Other))
        }
        Step::Resolve {
            annotations,
            tool,
            arguments,
            meta,
        } => {
            let method = if *annotations {
                "tools/annotations"
            } else {
                "tools/resolve"
            };
            let tool = tool_at(*tool);
            let mut params = json!({"name": tool.map_or("no_such_tool", |tool| tool.name)});
            let arguments = render_arguments(arguments, &mut params);
            if let Some(capabilities) = meta.capabilities() {
                params["_meta"] = json!({annot::protocol::CLIENT_CAPABILITIES_META: capabilities});
            }
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            (
                message,
                Check::Answer {
                    tool,
                    arguments,
                    kind: Kind::Resolve,
                },
            )
        }
        Step::Call { tool, arguments } => {
            let tool = tool_at(*tool);
            let mut params = json!({"name": tool.map_or("no_such_tool", |tool| tool.name)});
            let arguments = render_arguments(arguments, &mut params);
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
            (
                message,
                Check::Answer {
                    tool,
                    arguments,
                    kind: Kind::Call,
                },
            )
        }
        Step::Notification { method } => (
            json!({"jsonrpc": "2.0", "method": method.render()}),
            Check::Any,
        ),
        Step::Raw(json) => (json.render(), Check::Any),
    }
}

/// Puts the arguments into `params`; returns them (`null` when absent).
fn render_arguments(arguments: &Arguments, params: &mut Value) -> Value {
    let rendered = match arguments {
        Arguments::Absent => return Value::Null,
        Arguments::Fields(fields) => Value::Object(render_members(fields)),
        Arguments::Other(json) => json.render(),
    };
    params["arguments"] = rendered.clone();
    rendered
}

/// Checks a resolution or call of an example tool against the tool itself:
/// arguments the parser accepts resolve (within the bound) and run; others get
/// `-32602` or an `isError` result.
fn check_tool_answer(tool: &ToolInfo, arguments: &Value, kind: Kind, response: &Value) {
    // Absent arguments of tools/call are an empty object; of a resolution, an error.
    let accepted = match (arguments, kind) {
        (Value::Null, Kind::Call) => (tool.resolve)(&json!({})).ok(),
        (Value::Object(_), _) => (tool.resolve)(arguments).ok(),
        _ => None,
    };
    let result = response.get("result");
    match (kind, accepted, result) {
        (Kind::Resolve, Some(expected), Some(result)) => {
            let answered = resolved_annotations(result);
            assert_eq!(answered.effective(), expected.effective(), "{response}");
            assert_within(
                tool.name,
                tool.discriminator,
                tool.actions,
                &tool.declared,
                arguments,
                &answered,
            );
        }
        (Kind::Resolve, None, None) => {
            let code = &response["error"]["code"];
            assert!(
                code == -32602 || code == -32021,
                "{arguments} got {response}"
            );
        }
        (Kind::Call, Some(_), Some(result)) => {
            assert_ne!(
                result.get("isError"),
                Some(&Value::Bool(true)),
                "{response}"
            )
        }
        (Kind::Call, None, Some(result)) => {
            assert_eq!(
                result.get("isError"),
                Some(&Value::Bool(true)),
                "{response}"
            )
        }
        (Kind::Call, None, None) => assert_eq!(response["error"]["code"], -32602, "{response}"),
        // A negotiated client whose request leaves the extension out gets -32021.
        (Kind::Resolve, Some(_), None) => {
            assert_eq!(
                response["error"]["code"], -32021,
                "{arguments} got {response}"
            )
        }
        _ => panic!("{arguments} ({}) got {response}", accepted.is_some()),
    }
}
