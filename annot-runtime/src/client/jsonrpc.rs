//! A [`Requester`] over any exchange of JSON-RPC messages as bytes.

use serde_json::{Map, Value};

use super::{RequestError, Requester};
use crate::protocol::RpcError;

/// Speaks JSON-RPC 2.0 over a function that sends one message and returns the
/// bytes of the answer, if any: the client-side mirror of a server's "request
/// bytes in, response bytes out" core.
///
/// It numbers requests, checks that each response is JSON-RPC 2.0 and answers
/// the request just sent, and turns the response's `error` into
/// [`RequestError::Rpc`]; a missing or garbled response is a
/// [`RequestError::Transport`].
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::{JsonRpcRequester, Requester};
/// use serde_json::{json, Value};
///
/// // A server that answers every request with an empty result, and no
/// // notification (a message without an id).
/// let mut requester = JsonRpcRequester::new(|message: &[u8]| {
///     let request: Value = serde_json::from_slice(message).ok()?;
///     let id = request.get("id")?;
///     let response = json!({"jsonrpc": "2.0", "id": id, "result": {}});
///     Some(response.to_string().into_bytes())
/// });
/// assert_eq!(requester.request("ping", json!({})).unwrap(), json!({}));
/// requester.notify("notifications/initialized", json!({})).unwrap();
/// ```
pub struct JsonRpcRequester<F> {
    exchange: F,
    next_id: u64,
}

impl<F> JsonRpcRequester<F>
where
    F: FnMut(&[u8]) -> Option<Vec<u8>>,
{
    /// Wraps `exchange`, which sends one message and returns the response to it
    /// (`None` when none came).
    pub fn new(exchange: F) -> Self {
        JsonRpcRequester {
            exchange,
            next_id: 1,
        }
    }

    /// Sends a notification, which gets no response.
    ///
    /// # Errors
    ///
    /// [`RequestError::Transport`] when the peer answers it anyway.
    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), RequestError> {
        let message = envelope(None, method, params);
        match (self.exchange)(&message) {
            None => Ok(()),
            Some(answer) => Err(RequestError::transport(format!(
                "the notification `{method}` got an answer: {}",
                String::from_utf8_lossy(&answer)
            ))),
        }
    }
}

impl<F> Requester for JsonRpcRequester<F>
where
    F: FnMut(&[u8]) -> Option<Vec<u8>>,
{
    fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError> {
        let id = self.next_id;
        self.next_id += 1;
        let message = envelope(Some(id), method, params);
        let answer = (self.exchange)(&message)
            .ok_or_else(|| RequestError::transport(format!("no response to `{method}`")))?;
        read_response(id, &answer)
    }
}

fn envelope(id: Option<u64>, method: &str, params: Value) -> Vec<u8> {
    let mut message = Map::new();
    message.insert("jsonrpc".to_owned(), Value::from("2.0"));
    if let Some(id) = id {
        message.insert("id".to_owned(), Value::from(id));
    }
    message.insert("method".to_owned(), Value::from(method));
    message.insert("params".to_owned(), params);
    Value::Object(message).to_string().into_bytes()
}

fn read_response(id: u64, answer: &[u8]) -> Result<Value, RequestError> {
    let garbled = |what: &str| RequestError::transport(format!("the response {what}"));
    let response: Value = serde_json::from_slice(answer)
        .map_err(|error| garbled(&format!("is not JSON ({error})")))?;
    let Value::Object(mut response) = response else {
        return Err(garbled("is not a JSON object"));
    };
    if response.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(garbled("lacks `\"jsonrpc\": \"2.0\"`"));
    }
    if response.get("id") != Some(&Value::from(id)) {
        return Err(garbled(&format!(
            "answers id {}, not {id}",
            response.get("id").unwrap_or(&Value::Null)
        )));
    }
    match (response.remove("result"), response.remove("error")) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => match serde_json::from_value::<RpcError>(error) {
            Ok(error) => Err(RequestError::Rpc(error)),
            Err(error) => Err(garbled(&format!("has a malformed error ({error})"))),
        },
        _ => Err(garbled("must hold exactly one of `result` and `error`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answering(response: Value) -> JsonRpcRequester<impl FnMut(&[u8]) -> Option<Vec<u8>>> {
        JsonRpcRequester::new(move |_: &[u8]| Some(response.to_string().into_bytes()))
    }

    fn transport_error(response: Value) -> String {
        match answering(response).request("m", json!({})) {
            Err(RequestError::Transport { message }) => message,
            other => panic!("expected a transport error, got {other:?}"),
        }
    }

    #[test]
    fn sends_numbered_requests_and_reads_results() {
        let mut sent = Vec::new();
        let mut requester = JsonRpcRequester::new(|message: &[u8]| {
            let request: Value = serde_json::from_slice(message).unwrap();
            sent.push(request.clone());
            Some(
                json!({"jsonrpc": "2.0", "id": request["id"], "result": {"n": 1}})
                    .to_string()
                    .into_bytes(),
            )
        });
        assert_eq!(
            requester.request("a", json!({"x": 1})).unwrap(),
            json!({"n": 1})
        );
        assert_eq!(requester.request("b", json!({})).unwrap(), json!({"n": 1}));
        assert_eq!(
            sent,
            [
                json!({"jsonrpc": "2.0", "id": 1, "method": "a", "params": {"x": 1}}),
                json!({"jsonrpc": "2.0", "id": 2, "method": "b", "params": {}}),
            ]
        );
    }

    #[test]
    fn error_responses_become_rpc_errors() {
        let error = answering(json!({
            "jsonrpc": "2.0", "id": 1,
            "error": {"code": -32601, "message": "Method not found"}
        }))
        .request("m", json!({}))
        .unwrap_err();
        assert_eq!(
            error,
            RequestError::Rpc(RpcError::new(-32601, "Method not found"))
        );
    }

    #[test]
    fn garbled_responses_are_transport_errors() {
        assert!(transport_error(json!({"jsonrpc": "2.0", "id": 7, "result": {}})).contains("id 7"));
        assert!(transport_error(json!({"id": 1, "result": {}})).contains("jsonrpc"));
        assert!(transport_error(json!([1])).contains("not a JSON object"));
        assert!(transport_error(json!({"jsonrpc": "2.0", "id": 1})).contains("exactly one"));
        assert!(
            transport_error(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}))
                .contains("malformed error")
        );
        let mut silent = JsonRpcRequester::new(|_: &[u8]| None);
        assert_eq!(
            silent.request("m", json!({})),
            Err(RequestError::transport("no response to `m`"))
        );
        let mut garbage = JsonRpcRequester::new(|_: &[u8]| Some(b"{oops".to_vec()));
        assert!(matches!(
            garbage.request("m", json!({})),
            Err(RequestError::Transport { message }) if message.contains("not JSON")
        ));
    }

    #[test]
    fn notifications_expect_no_answer() {
        let mut quiet = JsonRpcRequester::new(|message: &[u8]| {
            let notification: Value = serde_json::from_slice(message).unwrap();
            assert_eq!(notification.get("id"), None);
            None
        });
        assert_eq!(quiet.notify("n", json!({})), Ok(()));
        let mut chatty = answering(json!({}));
        assert!(chatty.notify("n", json!({})).is_err());
    }
}
