//! Structured sessions for the `server_sequence` target: messages a client
//! could send, built from generated parts, and the checks on each answer
//! against a model of the session written here (is it initialized, with which
//! version, did it negotiate the tool-resolution extension) and the oracles
//! of the tools (their `inputSchema` and hand-written resolvers).

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Number, Value, json};

use super::{ToolInfo, assert_within, check_response, readable_id, server, tools};

/// A session: the messages, in order.
#[derive(Arbitrary, Debug)]
pub struct Session {
    pub steps: Vec<Step>,
}

impl Session {
    /// The session libFuzzer makes of `data` for a target taking a
    /// `Session`: none when the bytes are too few or do not decode.
    pub fn from_bytes(data: &[u8]) -> Option<Session> {
        if data.len() < <Session as Arbitrary>::size_hint(0).0 {
            return None;
        }
        Session::arbitrary_take_rest(Unstructured::new(data)).ok()
    }
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

/// What the session has settled, as the protocol says it should be.
#[derive(Clone, Copy, Debug, Default)]
struct Model {
    initialized: bool,
    /// The version `initialize` asked for.
    version: Option<&'static str>,
    /// Whether `initialize` took the tool-resolution extension up.
    negotiated: bool,
    /// Whether `initialize` named the extension with settings it does not define.
    unsupported: bool,
}

impl Model {
    /// Invalid tool arguments are a tool error (`isError`) from 2025-11-25 on,
    /// and before `initialize`; `-32602` for a client of 2025-06-18. Versions
    /// the server does not know get its latest.
    fn argument_errors_are_tool_errors(&self) -> bool {
        // SEP-1303, from 2025-11-25 on; before `initialize` the latest rules.
        self.version.is_none_or(|version| version >= "2025-11-25")
    }
}

/// The version the server answered `initialize` with.
fn negotiated_version(initialize: &Value) -> Option<&'static str> {
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
        .into_iter()
        .find(|version| initialize["result"]["protocolVersion"] == *version)
}

/// Whether `initialize` named the extension with settings (any value but an
/// empty object, `null` included): it is then unsupported
/// (docs/PROTOCOL.md section 3).
fn names_extension_with_settings(capabilities: &Value) -> bool {
    let named = capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(annot::protocol::TOOL_RESOLUTION_EXTENSION))
        .is_some();
    named && !offers_extension(capabilities)
}

/// Whether capabilities take the tool-resolution extension up: only an empty
/// settings object does (docs/PROTOCOL.md section 3).
fn offers_extension(capabilities: &Value) -> bool {
    capabilities["extensions"][annot::protocol::TOOL_RESOLUTION_EXTENSION]
        .as_object()
        .is_some_and(Map::is_empty)
}

/// Sends every step to one connection and checks each answer.
pub fn run(session: &Session) {
    let mut connection = server().connect();
    let mut model = Model::default();
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
            Check::Initialize { version } => {
                let response = response.expect("initialize is answered");
                let value = check_response(readable_id(&message), &response);
                if model.initialized {
                    assert_eq!(
                        value["error"]["code"], -32600,
                        "a second initialize: {value}"
                    );
                } else {
                    assert!(value.get("result").is_some(), "initialize: {value}");
                    // A version the server knows is echoed; any other gets its latest.
                    let known = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
                    let expected = if known.contains(&version) {
                        version
                    } else {
                        "2025-11-25"
                    };
                    assert_eq!(value["result"]["protocolVersion"], expected, "{value}");
                    model = Model {
                        initialized: true,
                        version: negotiated_version(&value),
                        negotiated: offers_extension(&message["params"]["capabilities"]),
                        unsupported: names_extension_with_settings(
                            &message["params"]["capabilities"],
                        ),
                    };
                }
            }
            Check::Answer(expect) => {
                let response = response.expect("a request is answered");
                let value = check_response(readable_id(&message), &response);
                expect.check(&model, &value);
                // The same request again gets the same bytes.
                let again = connection.handle(&bytes).expect("answered twice");
                assert_eq!(response, again, "not deterministic: {message}");
            }
            // A raw batch, answered on a session at 2025-03-26 or earlier:
            // an array of responses, each with the id of one of its requests
            // (or none). It cannot initialize: only an initialized session
            // takes batches.
            Check::Any
                if message.is_array()
                    && response.as_ref().is_some_and(|r| r.first() == Some(&b'[')) =>
            {
                let answers: Vec<Value> = serde_json::from_slice(&response.expect("checked"))
                    .expect("a batch's answer is a JSON array");
                let ids: Vec<&Value> = message
                    .as_array()
                    .expect("checked")
                    .iter()
                    .filter_map(readable_id)
                    .collect();
                for answer in answers {
                    let bytes = serde_json::to_vec(&answer).expect("a Value serializes");
                    let expected = answer.get("id").filter(|id| ids.contains(id));
                    check_response(expected, &bytes);
                }
            }
            Check::Any => {
                if let Some(response) = response {
                    let value = check_response(readable_id(&message), &response);
                    // A raw message may be an initialize of its own.
                    if message["method"] == "initialize" && value.get("result").is_some() {
                        assert!(!model.initialized, "initialized twice: {value}");
                        model.initialized = true;
                        model.version = negotiated_version(&value);
                        model.negotiated = offers_extension(&message["params"]["capabilities"]);
                        model.unsupported =
                            names_extension_with_settings(&message["params"]["capabilities"]);
                    }
                }
            }
        }
    }
}

/// What the answer to a request about a tool must be.
struct Expect {
    tool: Option<&'static ToolInfo>,
    /// `None` when the request has no `arguments`.
    arguments: Option<Value>,
    method: Method,
    /// The per-request client capabilities of a resolution, if any.
    per_request: Option<Value>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    /// `tools/annotations` (dialect A).
    Annotations,
    /// `tools/resolve` (dialect B or C).
    Resolve,
    Call,
    /// Anything else that must get a result.
    Other,
}

enum Check {
    Silence,
    Initialize { version: &'static str },
    Answer(Box<Expect>),
    Any,
}

fn build(step: &Step, id: &Value) -> (Value, Check) {
    let answer = |method| {
        Check::Answer(Box::new(Expect {
            tool: None,
            arguments: None,
            method,
            per_request: None,
        }))
    };
    match step {
        Step::Initialize { version, extension } => {
            let version = VERSIONS[usize::from(*version) % VERSIONS.len()];
            let mut params = json!({
                "protocolVersion": version,
                "clientInfo": {"name": "fuzz", "version": "0"},
            });
            if let Some(capabilities) = extension.capabilities() {
                params["capabilities"] = capabilities;
            }
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params});
            (message, Check::Initialize { version })
        }
        Step::Initialized => (
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            Check::Silence,
        ),
        Step::Ping => (
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            answer(Method::Other),
        ),
        Step::List { cursor } => {
            let mut message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
            if let Some(cursor) = cursor {
                message["params"] = json!({"cursor": cursor.render()});
            }
            // A cursor this server never gave out is refused.
            let check = if cursor.is_some() {
                Check::Any
            } else {
                answer(Method::Other)
            };
            (message, check)
        }
        Step::Resolve {
            annotations,
            tool,
            arguments,
            meta,
        } => {
            let (method, name) = if *annotations {
                (Method::Annotations, "tools/annotations")
            } else {
                (Method::Resolve, "tools/resolve")
            };
            let tool = tool_at(*tool);
            let mut params = json!({"name": tool.map_or("no_such_tool", |tool| tool.name)});
            let arguments = render_arguments(arguments, &mut params);
            let per_request = meta.capabilities();
            if let Some(capabilities) = &per_request {
                params["_meta"] = json!({annot::protocol::CLIENT_CAPABILITIES_META: capabilities});
            }
            let message = json!({"jsonrpc": "2.0", "id": id, "method": name, "params": params});
            let expect = Expect {
                tool,
                arguments,
                method,
                per_request,
            };
            (message, Check::Answer(Box::new(expect)))
        }
        Step::Call { tool, arguments } => {
            let tool = tool_at(*tool);
            let mut params = json!({"name": tool.map_or("no_such_tool", |tool| tool.name)});
            let arguments = render_arguments(arguments, &mut params);
            let message =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
            let expect = Expect {
                tool,
                arguments,
                method: Method::Call,
                per_request: None,
            };
            (message, Check::Answer(Box::new(expect)))
        }
        Step::Notification { method } => (
            json!({"jsonrpc": "2.0", "method": method.render()}),
            Check::Any,
        ),
        Step::Raw(json) => (json.render(), Check::Any),
    }
}

/// Puts the arguments into `params`; returns them (`None` when absent, as
/// opposed to an explicit `null`).
fn render_arguments(arguments: &Arguments, params: &mut Value) -> Option<Value> {
    let rendered = match arguments {
        Arguments::Absent => return None,
        Arguments::Fields(fields) => Value::Object(render_members(fields)),
        Arguments::Other(json) => json.render(),
    };
    params["arguments"] = rendered.clone();
    Some(rendered)
}

impl Expect {
    /// Checks the answer against the model and the tool's oracles.
    fn check(&self, model: &Model, response: &Value) {
        let code = &response["error"]["code"];
        let result = response.get("result");
        if self.method == Method::Other {
            assert!(result.is_some_and(Value::is_object), "{response}");
            return;
        }
        // tools/call takes absent arguments as `{}`; a resolution needs them.
        let arguments = match (&self.arguments, self.method) {
            (None, Method::Call) => json!({}),
            (None, _) => Value::Null,
            (Some(arguments), _) => arguments.clone(),
        };
        // C's shape when the request's own capabilities, or else the
        // session's, take the extension up; own capabilities without it, or
        // a session that named it with settings, get -32021, whatever the
        // arguments. Nothing else gets -32021.
        let mut dialect_c = false;
        if self.method == Method::Resolve {
            let per_request = self.per_request.as_ref().map(offers_extension);
            // A request's own capabilities decide alone; without them, a
            // session that named the extension with settings gets -32021.
            if per_request == Some(false) || (per_request.is_none() && model.unsupported) {
                assert_eq!(*code, -32021, "{response}");
                assert_eq!(
                    response["error"]["data"]["requiredCapabilities"]["extensions"]
                        [annot::protocol::TOOL_RESOLUTION_EXTENSION],
                    json!({}),
                    "{response}"
                );
                return;
            }
            dialect_c = per_request.unwrap_or(model.negotiated);
        }
        // The capability is checked before the parameters.
        if !arguments.is_object() {
            assert_eq!(*code, -32602, "arguments {arguments}: {response}");
            return;
        }
        let Some(tool) = self.tool else {
            assert_eq!(*code, -32602, "an unknown tool: {response}");
            return;
        };
        let valid = tool.validator.is_valid(&arguments);
        assert_eq!(
            (tool.resolve)(&arguments).is_ok(),
            valid,
            "{}: the parser and the inputSchema disagree on {arguments}",
            tool.name
        );
        match (self.method, valid) {
            (Method::Call, true) => {
                let result = result.unwrap_or_else(|| panic!("a valid call: {response}"));
                assert_eq!(result["content"][0]["text"], "ok", "{response}");
                assert_ne!(
                    result.get("isError"),
                    Some(&Value::Bool(true)),
                    "{response}"
                );
            }
            (Method::Call, false) if model.argument_errors_are_tool_errors() => {
                let result = result.unwrap_or_else(|| panic!("an invalid call: {response}"));
                assert_eq!(result["isError"], true, "{response}");
            }
            (_, false) => assert_eq!(*code, -32602, "{arguments}: {response}"),
            (_, true) => {
                let result = result.unwrap_or_else(|| panic!("{arguments}: {response}"));
                check_resolution(tool, &arguments, dialect_c, result);
            }
        }
    }
}

/// A successful resolution answers what the hand-written resolver says, in
/// the shape of its dialect, within the static and the action's bound.
fn check_resolution(tool: &ToolInfo, arguments: &Value, dialect_c: bool, result: &Value) {
    let expected = (tool.reference)(arguments);
    let annotations = if dialect_c {
        // C: exactly the four core booleans.
        assert_eq!(result["resultType"], "complete", "{result}");
        assert_eq!(result["name"], tool.name, "{result}");
        let annotations = &result["annotations"];
        assert_eq!(annotations.as_object().map(Map::len), Some(4), "{result}");
        annotations
    } else if let Some(tool_object) = result.get("tool") {
        // B: the whole Tool.
        assert_eq!(tool_object["name"], tool.name, "{result}");
        &tool_object["annotations"]
    } else {
        &result["annotations"]
    };
    let hints: &[annot::Hint] = if dialect_c {
        &annot::Hint::CORE
    } else {
        &annot::Hint::ALL
    };
    for hint in hints {
        assert_eq!(
            annotations.get(hint.wire_name()),
            expected.get(*hint).map(Value::Bool).as_ref(),
            "{hint} of {} for {arguments}: {result}",
            tool.name
        );
    }
    let answered = wire_hints(annotations);
    assert_within(
        tool.name,
        Some(tool.discriminator),
        tool.actions,
        &tool.declared,
        arguments,
        &answered,
    );
}

/// The hints of a wire `annotations` object.
fn wire_hints(annotations: &Value) -> annot::Annotations {
    annot::Hint::ALL
        .into_iter()
        .fold(annot::Annotations::new(), |hints, hint| {
            hints.with(
                hint,
                annotations.get(hint.wire_name()).and_then(Value::as_bool),
            )
        })
}
