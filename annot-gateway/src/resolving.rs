//! What the gateway answers itself: a host's resolution requests, in the
//! three dialects of `docs/PROTOCOL.md` section 3, from the same sources a
//! call is decided on.

use annot_runtime::protocol::{
    CLIENT_CAPABILITIES_META, DISPLAY_TEMPLATES_EXTENSION, TOOL_RESOLUTION_EXTENSION,
    TRUST_ANNOTATIONS_EXTENSION,
};
use annot_runtime::{Annotations, Hint};
use serde_json::{Map, Value, json};

use crate::gateway::Gateway;
use crate::message::{code, error_response, result_response};
use crate::sources::Listed;

impl Gateway {
    /// Declares the three dialects in an `initialize` result for the host.
    pub(crate) fn offer_resolution(result: &mut Value) {
        let Some(result) = result.as_object_mut() else {
            return;
        };
        let capabilities = result.entry("capabilities").or_insert_with(|| json!({}));
        let tools = &mut capabilities["tools"];
        if !tools.is_object() {
            *tools = json!({});
        }
        tools["dynamicAnnotations"] = json!(true);
        tools["resolve"] = json!(true);
        let extensions = &mut capabilities["extensions"];
        if !extensions.is_object() {
            *extensions = json!({});
        }
        extensions[TOOL_RESOLUTION_EXTENSION] = json!({});
        // Every result carries its claims, at least what its annotations imply.
        extensions[TRUST_ANNOTATIONS_EXTENSION] = json!({});
        extensions[DISPLAY_TEMPLATES_EXTENSION] = json!({});
    }

    /// Whether a listed tool's annotations can vary with its arguments: its
    /// upstream resolves it, or the configuration has rules for it.
    pub(crate) fn varies(&self, listed: &Listed) -> bool {
        if listed.action.is_some() {
            // A per-action tool's annotations are its listing's.
            return matches!(listed.rules, Ok(Some(ref rules)) if !rules.rules.rules().is_empty());
        }
        let state = self.state.lock().expect("state lock");
        matches!(listed.rules, Ok(Some(_)))
            || state.upstreams[listed.upstream]
                .support
                .dialect_for(&listed.tool)
                .is_ok()
    }

    /// Answers `tools/annotations` or `tools/resolve` from the host.
    pub(crate) async fn answer_resolution(
        &self,
        id: &Value,
        method: &str,
        params: &Value,
    ) -> Value {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return error_response(id, code::INVALID_PARAMS, "`name` is missing");
        };
        let mut arguments = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(arguments)) => arguments.clone(),
            Some(_) => {
                return error_response(id, code::INVALID_PARAMS, "`arguments` must be an object");
            }
        };
        let Some(listed) = self.listed(name).await else {
            return error_response(id, code::INVALID_PARAMS, format!("unknown tool `{name}`"));
        };
        if !self.varies(&listed) {
            return error_response(
                id,
                code::INVALID_PARAMS,
                format!(
                    "`{name}` is not resolvable: its annotations do not vary with its arguments"
                ),
            );
        }
        if let Some((field, action)) = &listed.action {
            arguments.insert(field.clone(), json!(action));
        }
        let resolved = match self.resolve(&listed, &arguments).await {
            Ok(resolved) => resolved.annotations.effective(),
            Err((error, _)) => return json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        if method == "tools/annotations" {
            return result_response(id, json!({"annotations": hints(resolved, &Hint::ALL)}));
        }
        if self.extension_taken(params) {
            return result_response(
                id,
                json!({
                    "resultType": "complete",
                    "name": name,
                    "annotations": hints(resolved, &Hint::CORE),
                }),
            );
        }
        let mut tool = serde_json::to_value(&*listed.tool).expect("tools serialize");
        tool["name"] = json!(name);
        let mut annotations = tool
            .get("annotations")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if let Value::Object(resolved) = hints(resolved, &Hint::ALL) {
            annotations.extend(resolved);
        }
        tool["annotations"] = Value::Object(annotations);
        result_response(id, json!({ "tool": tool }))
    }

    /// Whether this request is in the extension's dialect: the host took it
    /// up in `initialize`, or names it in this request's capabilities.
    fn extension_taken(&self, params: &Value) -> bool {
        let per_request = params
            .pointer("/_meta")
            .and_then(|meta| meta.get(CLIENT_CAPABILITIES_META));
        match per_request {
            Some(capabilities) => capabilities
                .get("extensions")
                .and_then(|extensions| extensions.get(TOOL_RESOLUTION_EXTENSION))
                .is_some(),
            None => self.state.lock().expect("state lock").host_resolves,
        }
    }
}

/// `annotations`' values of `which` hints as wire hints.
fn hints(annotations: Annotations, which: &[Hint]) -> Value {
    let mut object = Map::new();
    for hint in which {
        if let Some(value) = annotations.get(*hint) {
            object.insert(hint.wire_name().to_owned(), json!(value));
        }
    }
    Value::Object(object)
}
