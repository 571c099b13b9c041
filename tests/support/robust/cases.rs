//! The bad-input table: each case is one message, sent to a session that has
//! initialized with the tool-resolution extension, and the answer it must get
//! through the server core and through the stdio binary.

use serde_json::{Value, json};

use super::request;

/// The id an error response must carry.
#[derive(Clone, Debug)]
pub enum Id {
    /// The request's id, which the server could read.
    Echo(Value),
    /// No id: the message had none the server could read. MCP's
    /// `JSONRPCErrorResponse` leaves `id` out here (its `RequestId` is a string
    /// or an integer, never JSON-RPC's `null`).
    Absent,
}

/// What a case must get back.
#[derive(Clone, Debug)]
pub enum Expect {
    /// An error response with this code and id.
    Error { code: i64, id: Id },
    /// No response at all (a notification, or a response from the client).
    Silence,
    /// A result for this id, which `check` inspects.
    Success { id: Value, check: fn(&Value) },
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: &'static str,
    pub message: Vec<u8>,
    /// The answer of `Connection::handle`.
    pub core: Expect,
    /// The answer through the stdio binary, when it differs from `core`.
    pub stdio: Option<Expect>,
}

impl Case {
    fn new(name: &'static str, message: impl Into<Vec<u8>>, core: Expect) -> Self {
        Case {
            name,
            message: message.into(),
            core,
            stdio: None,
        }
    }

    fn over_stdio(mut self, expect: Expect) -> Self {
        self.stdio = Some(expect);
        self
    }

    /// What the stdio binary must answer.
    pub fn stdio_expect(&self) -> &Expect {
        self.stdio.as_ref().unwrap_or(&self.core)
    }
}

/// Ten megabytes, more than the stdio transport's default cap of 4 MiB.
pub const HUGE: usize = 10 * 1000 * 1000;
/// Deeper than any recursion limit a JSON parser should follow.
pub const DEEP: usize = 100_000;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const MISSING_CAPABILITY: i64 = -32021;

fn error(code: i64, id: Id) -> Expect {
    Expect::Error { code, id }
}

fn echo(id: impl Into<Value>) -> Id {
    Id::Echo(id.into())
}

fn resolve(id: i64, arguments: Value) -> String {
    request(
        id,
        "tools/resolve",
        json!({"name": "manage_files", "arguments": arguments}),
    )
}

/// `{"a":{"a":…}}` nested `depth` times around `inner`.
pub fn nested_objects(depth: usize, inner: &str) -> String {
    let mut text = String::with_capacity(depth * 6 + inner.len());
    text.push_str(&"{\"a\":".repeat(depth));
    text.push_str(inner);
    text.push_str(&"}".repeat(depth));
    text
}

fn is_complete_read(result: &Value) {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["annotations"]["readOnlyHint"], true, "{result}");
}

fn is_complete_append(result: &Value) {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["annotations"]["destructiveHint"], false, "{result}");
}

fn is_empty(result: &Value) {
    assert_eq!(*result, json!({}));
}

/// Duplicate keys: serde_json keeps the last one, so `delete` wins over `read`.
fn is_complete_delete(result: &Value) {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["annotations"]["readOnlyHint"], false, "{result}");
    assert_eq!(result["annotations"]["destructiveHint"], true, "{result}");
}

/// Every case of the table.
pub fn table() -> Vec<Case> {
    let huge = "x".repeat(HUGE);
    let too_large = error(INVALID_REQUEST, Id::Absent);
    vec![
        // Not JSON.
        Case::new(
            "truncated JSON",
            r#"{"jsonrpc":"2.0","id":1,"#,
            error(PARSE_ERROR, Id::Absent),
        ),
        Case::new("plain text", "hello", error(PARSE_ERROR, Id::Absent)),
        Case::new(
            "trailing garbage",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
            error(PARSE_ERROR, Id::Absent),
        ),
        Case::new("NUL byte", &b"\0"[..], error(PARSE_ERROR, Id::Absent)),
        Case::new(
            "invalid UTF-8 in a string",
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}"
                [..],
            error(PARSE_ERROR, Id::Absent),
        ),
        Case::new(
            "invalid UTF-8 bytes alone",
            &b"\xc3\x28\xa0\xa1"[..],
            error(PARSE_ERROR, Id::Absent),
        ),
        // The envelope is read once, without decoding what the method ignores:
        // an escape no string can hold is refused where a string is read.
        Case::new(
            "lone surrogate escape where nothing reads it",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}"#,
            Expect::Success {
                id: json!(1),
                check: is_empty,
            },
        ),
        Case::new(
            "lone surrogate escape in an argument",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/resolve","params":{"name":"manage_files","arguments":{"action":"read","path":"\ud800"}}}"#,
            error(INVALID_PARAMS, echo(2)),
        ),
        Case::new(
            "byte order mark",
            &b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"[..],
            error(PARSE_ERROR, Id::Absent),
        ),
        // The envelope.
        Case::new(
            "wrong jsonrpc version",
            r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
            error(INVALID_REQUEST, echo(7)),
        ),
        Case::new(
            "missing jsonrpc",
            r#"{"id":8,"method":"ping"}"#,
            error(INVALID_REQUEST, echo(8)),
        ),
        Case::new(
            "numeric jsonrpc",
            r#"{"jsonrpc":2.0,"id":"v","method":"ping"}"#,
            error(INVALID_REQUEST, echo("v")),
        ),
        Case::new("empty object", "{}", error(INVALID_REQUEST, Id::Absent)),
        Case::new(
            "null id",
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new(
            "object id",
            r#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new(
            "array id",
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new(
            "boolean id",
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new(
            "fractional id",
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        // 2^64 does not fit an integer id; serde_json reads it as a float.
        Case::new(
            "id past u64",
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new(
            "negative id",
            r#"{"jsonrpc":"2.0","id":-5,"method":"ping"}"#,
            Expect::Success {
                id: json!(-5),
                check: is_empty,
            },
        ),
        Case::new(
            "empty string id",
            r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#,
            Expect::Success {
                id: json!(""),
                check: is_empty,
            },
        ),
        Case::new(
            "batch of two",
            format!(
                "[{},{}]",
                request(1, "ping", json!({})),
                request(2, "ping", json!({}))
            ),
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new("empty batch", "[]", error(INVALID_REQUEST, Id::Absent)),
        Case::new(
            "top-level string",
            r#""ping""#,
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new("top-level null", "null", error(INVALID_REQUEST, Id::Absent)),
        Case::new(
            "method not a string",
            r#"{"jsonrpc":"2.0","id":9,"method":5}"#,
            error(INVALID_REQUEST, echo(9)),
        ),
        Case::new(
            "params not an object",
            r#"{"jsonrpc":"2.0","id":10,"method":"ping","params":3}"#,
            error(INVALID_REQUEST, echo(10)),
        ),
        Case::new(
            "unknown method",
            request(11, "tools/explode", json!({})),
            error(METHOD_NOT_FOUND, echo(11)),
        ),
        Case::new(
            "second initialize",
            super::initialize_with_extension(12),
            error(INVALID_REQUEST, echo(12)),
        ),
        // Messages that get no answer.
        Case::new(
            "notification of an unknown method",
            r#"{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":[1,2]}}"#,
            Expect::Silence,
        ),
        Case::new(
            "request without an id is a notification",
            r#"{"jsonrpc":"2.0","method":"ping"}"#,
            Expect::Silence,
        ),
        Case::new(
            "notification with a wrong version",
            r#"{"jsonrpc":"1.0","method":"tools/resolve"}"#,
            Expect::Silence,
        ),
        Case::new(
            "a response from the client",
            r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
            Expect::Silence,
        ),
        // JSON-RPC never answers a response, malformed or not.
        Case::new(
            "a malformed response",
            r#"{"id":98,"result":{}}"#,
            Expect::Silence,
        ),
        // Tools and their arguments.
        Case::new(
            "unknown tool",
            request(
                20,
                "tools/resolve",
                json!({"name": "no_such_tool", "arguments": {}}),
            ),
            error(INVALID_PARAMS, echo(20)),
        ),
        Case::new(
            "unknown tool in tools/call",
            request(
                21,
                "tools/call",
                json!({"name": "no_such_tool", "arguments": {}}),
            ),
            error(INVALID_PARAMS, echo(21)),
        ),
        Case::new(
            "tool name not a string",
            request(22, "tools/annotations", json!({"name": 5, "arguments": {}})),
            error(INVALID_PARAMS, echo(22)),
        ),
        Case::new(
            "missing arguments",
            request(23, "tools/resolve", json!({"name": "manage_files"})),
            error(INVALID_PARAMS, echo(23)),
        ),
        Case::new(
            "arguments not an object",
            request(
                24,
                "tools/resolve",
                json!({"name": "manage_files", "arguments": ["read"]}),
            ),
            error(INVALID_PARAMS, echo(24)),
        ),
        Case::new(
            "missing required field",
            resolve(25, json!({"action": "read"})),
            error(INVALID_PARAMS, echo(25)),
        ),
        Case::new(
            "extra field",
            resolve(26, json!({"action": "read", "path": "a", "mode": "0644"})),
            error(INVALID_PARAMS, echo(26)),
        ),
        Case::new(
            "field of another action",
            resolve(27, json!({"action": "read", "path": "a", "content": "x"})),
            error(INVALID_PARAMS, echo(27)),
        ),
        Case::new(
            "wrong-typed field",
            resolve(28, json!({"action": "read", "path": 5})),
            error(INVALID_PARAMS, echo(28)),
        ),
        Case::new(
            "null field",
            resolve(29, json!({"action": "delete", "path": null})),
            error(INVALID_PARAMS, echo(29)),
        ),
        Case::new(
            "unknown action",
            resolve(30, json!({"action": "explode", "path": "a"})),
            error(INVALID_PARAMS, echo(30)),
        ),
        Case::new(
            "action in the wrong case",
            resolve(31, json!({"action": "READ", "path": "a"})),
            error(INVALID_PARAMS, echo(31)),
        ),
        Case::new(
            "action not a string",
            resolve(32, json!({"action": ["read"], "path": "a"})),
            error(INVALID_PARAMS, echo(32)),
        ),
        Case::new(
            "nested junk in a field",
            resolve(
                33,
                json!({"action": "read", "path": {"a": [null, {"b": 1.5}]}}),
            ),
            error(INVALID_PARAMS, echo(33)),
        ),
        // The client negotiated the extension but this request's capabilities leave it out.
        Case::new(
            "per-request capabilities without the extension",
            request(
                34,
                "tools/resolve",
                json!({"name": "manage_files", "arguments": {"action": "read", "path": "a"},
                "_meta": {"io.modelcontextprotocol/clientCapabilities": {"extensions": {}}}}),
            ),
            error(MISSING_CAPABILITY, echo(34)),
        ),
        // Size, depth and numbers.
        Case::new(
            "10 MB string argument",
            resolve(
                40,
                json!({"action": "append", "path": "a", "content": huge}),
            ),
            Expect::Success {
                id: json!(40),
                check: is_complete_append,
            },
        )
        .over_stdio(too_large.clone()),
        Case::new(
            "10 MB unknown field name",
            resolve(41, json!({"action": "read", "path": "a", huge.clone(): 1})),
            error(INVALID_PARAMS, echo(41)),
        )
        .over_stdio(too_large.clone()),
        Case::new(
            "10 MB string for a tool name",
            request(42, "tools/resolve", json!({"name": huge, "arguments": {}})),
            error(INVALID_PARAMS, echo(42)),
        )
        .over_stdio(too_large),
        // Depth: the envelope reader is iterative (no stack to overflow); the
        // arguments' parser stops at its recursion limit.
        Case::new(
            "100 000-deep array",
            format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)),
            error(INVALID_REQUEST, Id::Absent),
        ),
        Case::new(
            "100 000-deep arguments",
            format!(
                r#"{{"jsonrpc":"2.0","id":43,"method":"tools/resolve","params":{{"name":"manage_files","arguments":{}}}}}"#,
                nested_objects(DEEP, "1")
            ),
            error(INVALID_PARAMS, echo(43)),
        ),
        Case::new(
            "100 000 unclosed brackets",
            "[".repeat(DEEP),
            error(PARSE_ERROR, Id::Absent),
        ),
        Case::new(
            "100 000-deep notification",
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{}}}"#,
                nested_objects(DEEP, "null")
            ),
            Expect::Silence,
        ),
        Case::new(
            "number past f64",
            resolve(44, json!({"action": "read", "path": "a"}))
                .replace(r#""path":"a""#, r#""path":1e400"#),
            error(INVALID_PARAMS, echo(44)),
        ),
        Case::new(
            "huge integer for a string",
            resolve(45, json!({"action": "read", "path": "a"}))
                .replace(r#""path":"a""#, r#""path":123456789012345678901234567890"#),
            error(INVALID_PARAMS, echo(45)),
        ),
        Case::new(
            "huge integer as an action",
            resolve(46, json!({"action": "read", "path": "a"}))
                .replace(r#""action":"read""#, r#""action":-99999999999999999999999"#),
            error(INVALID_PARAMS, echo(46)),
        ),
        // Duplicate keys: serde_json keeps the last value of a repeated key.
        Case::new(
            "duplicate action key",
            r#"{"jsonrpc":"2.0","id":50,"method":"tools/resolve","params":{"name":"manage_files","arguments":{"action":"read","path":"a","action":"delete"}}}"#,
            Expect::Success {
                id: json!(50),
                check: is_complete_delete,
            },
        ),
        Case::new(
            "duplicate id key",
            r#"{"jsonrpc":"2.0","id":51,"method":"ping","id":52}"#,
            Expect::Success {
                id: json!(52),
                check: is_empty,
            },
        ),
        Case::new(
            "duplicate method key",
            r#"{"jsonrpc":"2.0","id":53,"method":"no/such","method":"ping"}"#,
            Expect::Success {
                id: json!(53),
                check: is_empty,
            },
        ),
        Case::new(
            "valid resolve after all that",
            resolve(60, json!({"action": "read", "path": "a"})),
            Expect::Success {
                id: json!(60),
                check: is_complete_read,
            },
        ),
    ]
}
