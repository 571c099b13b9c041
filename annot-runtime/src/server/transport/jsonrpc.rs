//! The JSON-RPC 2.0 envelope: telling requests from notifications, and writing
//! responses around pre-rendered results.
//!
//! The envelope is read without building a tree: `id`, `method` and `params`
//! stay borrowed slices of the message, and a response splices the id's own
//! text between pre-rendered fragments. Only a message the borrowing reader
//! refuses (bad JSON, not an object, a repeated member) is read again into a
//! `serde_json::Value`, to say exactly what is wrong with it.

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{RpcError, error_code};
use crate::read::{self, Envelope, Json, ParamsSlot, ReadMemo};

/// One incoming message, classified.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// A request: it gets exactly one response.
    Request {
        /// A string or an integer, as written: echoed in the response.
        id: Json<'a>,
        method: Cow<'a, str>,
        /// Read in the same pass: absent (or `null`), an object's fields, or
        /// an array (refused later, with `-32602`).
        params: &'a ParamsSlot<'a>,
    },
    /// A notification: it never gets a response.
    Notification { method: Cow<'a, str> },
    /// A response from the client to a request of ours, well-formed or not.
    /// This server sends no requests, so there is nothing to match it with; it
    /// is dropped.
    Response,
}

/// Why a message is not a request this server can route, and the id to answer
/// with, if one could be read.
#[derive(Debug)]
pub(crate) struct Rejected {
    pub id: Option<Box<str>>,
    pub error: RpcError,
    /// The message is a JSON object that repeats a member: serde_json reads
    /// it (the last value wins), and [`canonical`] gives it back without the
    /// repetition.
    pub repeated: bool,
}

impl Rejected {
    fn invalid(id: Option<Json<'_>>, message: impl Into<String>) -> Self {
        Rejected {
            id: id.map(|id| id.get().into()),
            error: RpcError::new(error_code::INVALID_REQUEST, message),
            repeated: false,
        }
    }
}

/// A message whose members repeat somewhere, written again as serde_json
/// reads it: the last value of a repeated member wins. `None` when the bytes
/// are not a JSON object.
pub(crate) fn canonical(bytes: &[u8]) -> Option<Vec<u8>> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value @ Value::Object(_)) => serde_json::to_vec(&value).ok(),
        _ => None,
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
        repeated: false,
    }
}

/// Parses and classifies one message, its envelope read into `envelope`
/// (the caller's, empty: what the message is read into stays where it is,
/// and every later step borrows it).
pub(crate) fn parse<'a>(
    bytes: &'a [u8],
    envelope: &'a mut Envelope<'a>,
    memo: &mut ReadMemo,
) -> Result<Incoming<'a>, Rejected> {
    let is_object = bytes.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{');
    // A JSON array would otherwise be read as the envelope's members in order.
    // UTF-8 is checked once for the whole message, so that no borrowed part
    // is checked again.
    let text = match core::str::from_utf8(bytes) {
        Ok(text) if is_object => text,
        _ => return Err(explain(bytes)),
    };
    if read::envelope(text, envelope, memo).is_none() {
        // Not JSON-RPC's shape: serde_json says what it is.
        return Err(explain(bytes));
    }
    classify(envelope)
}

fn classify<'a>(envelope: &'a Envelope<'a>) -> Result<Incoming<'a>, Rejected> {
    // JSON-RPC never answers a response, not even a malformed one (whatever
    // its id): the peer would have no request to match the answer with.
    if envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some()) {
        return Ok(Incoming::Response);
    }
    let id = envelope.id.map(check_id).transpose()?;
    let method = match (envelope.method, id) {
        (None, id) => return Err(Rejected::invalid(id, "missing `method`")),
        (Some(method), id) => match envelope
            .plain_method
            .map(Cow::Borrowed)
            .or_else(|| read::string(method))
        {
            Some(method) => method,
            None => {
                return Err(Rejected::invalid(
                    id,
                    format!(
                        "`method` must be a string, found {}",
                        read::type_name(method)
                    ),
                ));
            }
        },
    };
    // A notification never gets a response, whatever is wrong with it.
    let Some(id) = id else {
        return Ok(Incoming::Notification { method });
    };
    if envelope.jsonrpc.map(Json::get) != Some("\"2.0\"") {
        return Err(Rejected::invalid(Some(id), "`jsonrpc` must be \"2.0\""));
    }
    // `"params": null` is read as no params: some clients send it, and nothing
    // is lost by not refusing it. An array is refused by the method, with
    // -32602.
    let params = &envelope.params;
    if let ParamsSlot::Other(found) = *params
        && found != "array"
    {
        return Err(Rejected::invalid(
            Some(id),
            format!("`params` must be an object, found {found}"),
        ));
    }
    Ok(Incoming::Request { id, method, params })
}

/// Checks `id`: a string or an integer (MCP's `RequestId`).
///
/// A string that escapes a lone surrogate (`"\ud800"`) is refused: the id is
/// echoed byte for byte, and no client that decodes strings could read it
/// back to match the answer with its request.
fn check_id(id: Json<'_>) -> Result<Json<'_>, Rejected> {
    let text = id.get();
    if text.starts_with('"') {
        return if crate::json_text::escapes_lone_surrogate(text) {
            Err(Rejected::invalid(
                None,
                "`id` must be a string without lone surrogate escapes",
            ))
        } else {
            Ok(id)
        };
    }
    if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
        Ok(id)
    } else {
        Err(Rejected::invalid(
            None,
            format!(
                "`id` must be a string or an integer, found {}",
                read::type_name(id)
            ),
        ))
    }
}

/// What is wrong with a message the borrowing reader refused.
fn explain(bytes: &[u8]) -> Rejected {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => return parse_error(&format!("parse error: {error}")),
    };
    match value {
        Value::Object(_) => Rejected {
            repeated: true,
            ..Rejected::invalid(None, "the message repeats a member")
        },
        other => Rejected::invalid(
            None,
            format!(
                "a message must be a JSON object, found {}",
                type_name(&other)
            ),
        ),
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

/// Starts a success response in `out`: `{"jsonrpc":"2.0","id":<id>,"result":`,
/// with room for `capacity` more bytes. The caller appends the result JSON,
/// then calls [`finish`].
pub(crate) fn start_result(out: &mut Vec<u8>, id: Json<'_>, capacity: usize) {
    let id = id.get().as_bytes();
    out.reserve(capacity + id.len() + 32);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id);
    out.extend_from_slice(br#","result":"#);
}

/// Closes a response begun with [`start_result`].
pub(crate) fn finish(out: &mut Vec<u8>) {
    out.push(b'}');
}

/// A complete success response around a pre-rendered result, appended to `out`.
pub(crate) fn result(out: &mut Vec<u8>, id: Json<'_>, result: &str) {
    start_result(out, id, result.len() + 1);
    out.extend_from_slice(result.as_bytes());
    finish(out);
}

/// A complete error response, appended to `out`. Without an id (the message
/// had none this server could read), `id` is left out: MCP's
/// `JSONRPCErrorResponse` makes it optional and does not allow JSON-RPC's
/// `null`.
pub(crate) fn error(out: &mut Vec<u8>, id: Option<Json<'_>>, error: &RpcError) {
    out.reserve(96 + error.message.len());
    out.extend_from_slice(br#"{"jsonrpc":"2.0","#);
    if let Some(id) = id {
        out.extend_from_slice(br#""id":"#);
        out.extend_from_slice(id.get().as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(br#""error":"#);
    serde_json::to_writer(&mut *out, error).expect("an RpcError always serializes");
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Result<Incoming<'_>, Rejected> {
        let envelope = Box::leak(Box::default());
        super::parse(bytes, envelope, &mut ReadMemo::default())
    }

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
        assert_eq!(bad_version.id.as_deref(), Some("7"));
        let repeated = rejected(r#"{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}"#);
        assert_eq!(repeated.error.code, error_code::INVALID_REQUEST);
        let bad_params = rejected(r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":3}"#);
        assert!(bad_params.error.message.contains("`params`"));
    }

    #[test]
    fn writes_responses_after_what_the_buffer_holds() {
        let id = Json::checked("\"x\"");
        let mut out = b"kept".to_vec();
        result(&mut out, id, "{}");
        assert_eq!(
            out,
            br#"kept{"jsonrpc":"2.0","id":"x","result":{}}"#.to_vec()
        );
        let mut written = Vec::new();
        error(&mut written, None, &RpcError::new(-32700, "bad"));
        assert_eq!(
            written,
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}"#.to_vec()
        );
    }
}
