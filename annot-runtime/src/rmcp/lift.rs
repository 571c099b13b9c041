//! Moving what rmcp's types cannot hold from `_meta[LIFT_META]` to its place.

use ::rmcp::model::{CustomResult, JsonRpcMessage, MetaObject, ServerJsonRpcMessage, ServerResult};
use serde_json::{Map, Value};

use super::LIFT_META;

/// Lifts the carried fields of one JSON-RPC result in place: the result's own
/// `_meta[`[`LIFT_META`]`]` (capabilities of `initialize` and `server/discover`)
/// and that of every element of its `tools` array (`tools/list`). Each carried
/// object is deep-merged into the object that carries it, and the key is removed
/// (with `_meta` itself when nothing else is left in it).
///
/// Returns whether anything was lifted. Results without the key are left as
/// they are, so lifting is safe on every message.
pub fn lift_result(result: &mut Value) -> bool {
    let Some(object) = result.as_object_mut() else {
        return false;
    };
    let mut lifted = lift_object(object);
    if let Some(Value::Array(tools)) = object.get_mut("tools") {
        for tool in tools {
            if let Some(tool) = tool.as_object_mut() {
                lifted |= lift_object(tool);
            }
        }
    }
    lifted
}

/// Lifts an outgoing rmcp message: a response whose result carries
/// `_meta[`[`LIFT_META`]`]` is re-encoded, lifted, and sent as a
/// [`CustomResult`], which rmcp writes out verbatim. Every other message is
/// returned unchanged, without being serialized.
pub fn lift_server_message(message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    match message {
        JsonRpcMessage::Response(mut response) if carries_lift(&response.result) => {
            // Serializing rmcp's own result types cannot fail (string keys, no
            // non-finite floats); if it ever did, rmcp's transport would report
            // the same error when it writes the message, so it is sent as it is.
            if let Ok(mut value) = serde_json::to_value(&response.result) {
                lift_result(&mut value);
                response.result = ServerResult::CustomResult(CustomResult(value));
            }
            JsonRpcMessage::Response(response)
        }
        other => other,
    }
}

fn carries_lift(result: &ServerResult) -> bool {
    fn has(meta: &Option<MetaObject>) -> bool {
        meta.as_ref()
            .is_some_and(|meta| meta.contains_key(LIFT_META))
    }
    match result {
        ServerResult::InitializeResult(result) => has(&result.meta),
        ServerResult::DiscoverResult(result) => has(&result.meta),
        ServerResult::ListToolsResult(result) => result.tools.iter().any(|tool| has(&tool.meta)),
        _ => false,
    }
}

fn lift_object(object: &mut Map<String, Value>) -> bool {
    let Some(Value::Object(meta)) = object.get_mut("_meta") else {
        return false;
    };
    let Some(carried) = meta.remove(LIFT_META) else {
        return false;
    };
    if meta.is_empty() {
        object.remove("_meta");
    }
    if let Value::Object(carried) = carried {
        deep_merge(object, carried);
    }
    true
}

/// Objects merge key by key; any other value of `source` replaces the target's.
fn deep_merge(target: &mut Map<String, Value>, source: Map<String, Value>) {
    for (key, value) in source {
        match (target.get_mut(&key), value) {
            (Some(Value::Object(target)), Value::Object(source)) => deep_merge(target, source),
            (_, value) => {
                target.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::rmcp::model::{
        InitializeResult, ListToolsResult, RequestId, ServerCapabilities, Tool as RmcpTool,
    };
    use serde_json::json;

    #[test]
    fn capabilities_are_merged_not_replaced() {
        let mut result = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "extensions": {"x/y": {}}},
            "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "s"},
                LIFT_META: {"capabilities": {"tools": {"resolve": true}}}
            }
        });
        assert!(lift_result(&mut result));
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": true, "resolve": true}, "extensions": {"x/y": {}}})
        );
        assert_eq!(
            result["_meta"],
            json!({"io.modelcontextprotocol/serverInfo": {"name": "s"}})
        );
    }

    #[test]
    fn results_without_the_key_are_untouched() {
        let original = json!({"tools": [{"name": "a", "_meta": {"k": 1}}], "nextCursor": "2"});
        let mut result = original.clone();
        assert!(!lift_result(&mut result));
        assert_eq!(result, original);
        assert!(!lift_result(&mut json!([1, 2])));
    }

    #[test]
    fn only_carrying_responses_are_re_encoded() {
        let plain = ServerJsonRpcMessage::response(
            ServerResult::ListToolsResult(ListToolsResult::with_all_items(vec![])),
            RequestId::Number(1),
        );
        let JsonRpcMessage::Response(response) = lift_server_message(plain) else {
            panic!("still a response");
        };
        assert!(matches!(response.result, ServerResult::ListToolsResult(_)));

        let mut meta = MetaObject::new();
        meta.insert(
            LIFT_META.into(),
            json!({"capabilities": {"tools": {"dynamicAnnotations": true}}}),
        );
        let mut info = InitializeResult::new(ServerCapabilities::default());
        info.meta = Some(meta);
        let message = ServerJsonRpcMessage::response(
            ServerResult::InitializeResult(info),
            RequestId::Number(2),
        );
        let wire = serde_json::to_value(lift_server_message(message)).unwrap();
        assert_eq!(
            wire["result"]["capabilities"]["tools"]["dynamicAnnotations"],
            json!(true)
        );
        assert!(wire["result"].get("_meta").is_none(), "{wire}");
    }

    #[test]
    fn lifts_every_carrying_tool_of_a_list() {
        let mut carrying = RmcpTool::new("a", "d", Map::new());
        let mut meta = MetaObject::new();
        meta.insert(LIFT_META.into(), json!({"resolve": true}));
        carrying.meta = Some(meta);
        let plain = RmcpTool::new("b", "d", Map::new());
        let message = ServerJsonRpcMessage::response(
            ServerResult::ListToolsResult(ListToolsResult::with_all_items(vec![carrying, plain])),
            RequestId::Number(3),
        );
        let wire = serde_json::to_value(lift_server_message(message)).unwrap();
        assert_eq!(wire["result"]["tools"][0]["resolve"], json!(true));
        assert!(wire["result"]["tools"][1].get("resolve").is_none());
    }
}
