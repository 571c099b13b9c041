//! The JSON-RPC 2.0 envelope: telling requests from notifications, and writing
//! responses around pre-rendered results.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::{RpcError, error_code};

/// One incoming message, classified.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request: it gets exactly one response.
    Request {
        /// A string or an integer, echoed in the response.
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification: it never gets a response.
    Notification { method: String },
    /// A response from the client to a request of ours, well-formed or not.
    /// This server sends no requests, so there is nothing to match it with; it
    /// is dropped.
    Response,
}

/// Why a message is not a request this server can route, and the id to answer
/// with, if one could be read.
#[derive(Debug)]
pub(crate) struct Rejected {
    pub id: Option<Value>,
    pub error: RpcError,
}

impl Rejected {
    fn invalid(id: Option<Value>, message: impl Into<String>) -> Self {
        Rejected {
            id,
            error: RpcError::new(error_code::INVALID_REQUEST, message),
        }
    }
}

/// The messages of a JSON-RPC batch (a top-level array), or `None` when the
/// bytes are not an array. Each element comes back as its own JSON text.
pub(crate) fn batch(bytes: &[u8]) -> Option<Result<Vec<&RawValue>, Rejected>> {
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace())?;
    if *first != b'[' {
        return None;
    }
    let text = match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => return Some(Err(parse_error("the message is not UTF-8"))),
    };
    Some(match serde_json::from_str::<Vec<&RawValue>>(text) {
        Err(error) => Err(parse_error(&format!("parse error: {error}"))),
        Ok(messages) if messages.is_empty() => Err(Rejected::invalid(
            None,
            "an empty batch is not a valid request",
        )),
        Ok(messages) => Ok(messages),
    })
}

fn parse_error(message: &str) -> Rejected {
    Rejected {
        id: None,
        error: RpcError::new(error_code::PARSE_ERROR, message),
    }
}

/// Parses and classifies one message.
pub(crate) fn parse(bytes: &[u8]) -> Result<Incoming, Rejected> {
    let value: Value = serde_json::from_slice(bytes).map_err(|error| Rejected {
        id: None,
        error: RpcError::new(error_code::PARSE_ERROR, format!("parse error: {error}")),
    })?;
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(Rejected::invalid(
                None,
                "batch requests are not supported: send one message per line",
            ));
        }
        other => {
            return Err(Rejected::invalid(
                None,
                format!(
                    "a message must be a JSON object, found {}",
                    type_name(&other)
                ),
            ));
        }
    };
    // JSON-RPC never answers a response, not even a malformed one (whatever
    // its id): the peer would have no request to match the answer with.
    if !object.contains_key("method")
        && (object.contains_key("result") || object.contains_key("error"))
    {
        return Ok(Incoming::Response);
    }
    let id = take_id(&mut object)?;
    let method = object.remove("method");
    let version_ok = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");

    let (method, id) = match (method, id) {
        // A notification never gets a response, whatever is wrong with it.
        (Some(Value::String(method)), None) => return Ok(Incoming::Notification { method }),
        (Some(Value::String(method)), Some(id)) => (method, id),
        (None, id) => return Err(Rejected::invalid(id, "missing `method`")),
        (Some(other), id) => {
            return Err(Rejected::invalid(
                id,
                format!("`method` must be a string, found {}", type_name(&other)),
            ));
        }
    };
    if !version_ok {
        return Err(Rejected::invalid(Some(id), "`jsonrpc` must be \"2.0\""));
    }
    // `"params": null` is read as no params: some clients send it, and nothing
    // is lost by not refusing it.
    let params = object.remove("params").filter(|params| !params.is_null());
    if let Some(other) = params.as_ref().filter(|p| !p.is_object() && !p.is_array()) {
        return Err(Rejected::invalid(
            Some(id),
            format!("`params` must be an object, found {}", type_name(other)),
        ));
    }
    Ok(Incoming::Request { id, method, params })
}

/// Removes and checks `id`: absent, a string, or an integer (MCP's `RequestId`).
fn take_id(object: &mut Map<String, Value>) -> Result<Option<Value>, Rejected> {
    match object.remove("id") {
        None => Ok(None),
        Some(id @ Value::String(_)) => Ok(Some(id)),
        Some(Value::Number(number)) if number.is_i64() || number.is_u64() => {
            Ok(Some(Value::Number(number)))
        }
        Some(other) => Err(Rejected::invalid(
            None,
            format!(
                "`id` must be a string or an integer, found {}",
                type_name(&other)
            ),
        )),
    }
}

/// The JSON type of a value, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_f64() => "a non-integer number",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Starts a success response: `{"jsonrpc":"2.0","id":<id>,"result":`. The caller
/// appends the result JSON, then calls [`finish`].
pub(crate) fn start_result(id: &Value, capacity: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity + 48);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    write_id(&mut out, id);
    out.extend_from_slice(br#","result":"#);
    out
}

/// Closes a response begun with [`start_result`].
pub(crate) fn finish(mut out: Vec<u8>) -> Vec<u8> {
    out.push(b'}');
    out
}

/// A complete success response around a pre-rendered result.
pub(crate) fn result(id: &Value, result: &str) -> Vec<u8> {
    let mut out = start_result(id, result.len());
    out.extend_from_slice(result.as_bytes());
    finish(out)
}

/// A complete error response. Without an id (the message had none this server
/// could read), `id` is left out: MCP's `JSONRPCErrorResponse` makes it
/// optional and does not allow JSON-RPC's `null`.
pub(crate) fn error(id: Option<&Value>, error: &RpcError) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + error.message.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","#);
    if let Some(id) = id {
        out.extend_from_slice(br#""id":"#);
        write_id(&mut out, id);
        out.push(b',');
    }
    out.extend_from_slice(br#""error":"#);
    serde_json::to_writer(&mut out, error).expect("an RpcError always serializes");
    out.push(b'}');
    out
}

fn write_id(out: &mut Vec<u8>, id: &Value) {
    serde_json::to_writer(out, id).expect("an id always serializes");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(bytes: &str) -> Rejected {
        parse(bytes.as_bytes()).unwrap_err()
    }

    #[test]
    fn classifies_requests_notifications_and_responses() {
        let request = parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert!(matches!(request, Incoming::Request { ref method, .. } if method == "ping"));
        let note = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(note, Incoming::Notification { .. }));
        let response = parse(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#).unwrap();
        assert!(matches!(response, Incoming::Response));
    }

    #[test]
    fn names_what_is_wrong() {
        assert_eq!(rejected("{").error.code, error_code::PARSE_ERROR);
        assert_eq!(rejected("[]").error.code, error_code::INVALID_REQUEST);
        let bad_id = rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#);
        assert!(bad_id.error.message.contains("non-integer"), "{bad_id:?}");
        assert!(bad_id.id.is_none());
        let bad_version = rejected(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#);
        assert_eq!(bad_version.id, Some(Value::from(7)));
        let bad_params = rejected(r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":3}"#);
        assert!(bad_params.error.message.contains("`params`"));
    }

    #[test]
    fn writes_responses() {
        let id = Value::from("x");
        assert_eq!(
            result(&id, "{}"),
            br#"{"jsonrpc":"2.0","id":"x","result":{}}"#.to_vec()
        );
        let written = error(None, &RpcError::new(-32700, "bad"));
        assert_eq!(
            written,
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}"#.to_vec()
        );
    }
}
