//! The answers to `tools/resolve` and `tools/annotations`, and the choice between
//! dialects B and C, from plain JSON inputs.

use serde_json::{Map, Value, json};

use crate::protocol::{
    AnnotationsResult, CLIENT_CAPABILITIES_META, Dialect, ExtensionResolveResult,
    ResolveToolResult, RpcError, TOOL_RESOLUTION_EXTENSION, error_code,
};
use crate::{Annotations, ArgumentError, Tool, ToolAnnotations};

/// Chooses the shape of a `tools/resolve` answer (PROTOCOL.md section 3): C when
/// the client declared the tool-resolution extension with empty settings for
/// this request (per-request capabilities in `_meta`) or, without per-request
/// capabilities, for the session; B otherwise. A client that negotiated the
/// extension for its session but sends per-request capabilities without it gets
/// `-32021`.
pub(crate) fn resolve_dialect(
    session_capabilities: Option<&Value>,
    request_meta: &Map<String, Value>,
) -> Result<Dialect, RpcError> {
    let session = session_capabilities.is_some_and(declares_tool_resolution);
    match request_meta.get(CLIENT_CAPABILITIES_META) {
        Some(per_request) if declares_tool_resolution(per_request) => {
            Ok(Dialect::ToolResolutionExtension)
        }
        Some(_) if session => Err(RpcError::new(
            error_code::MISSING_CAPABILITY,
            "tools/resolve needs the io.modelcontextprotocol/tool-resolution extension \
             in this request's client capabilities",
        )
        .with_data(json!({
            "requiredCapabilities": {"extensions": {TOOL_RESOLUTION_EXTENSION: {}}}
        }))),
        Some(_) => Ok(Dialect::ResolveTool),
        None if session => Ok(Dialect::ToolResolutionExtension),
        None => Ok(Dialect::ResolveTool),
    }
}

/// Whether client capabilities declare the extension; a non-empty settings
/// object asks for settings this server does not know, so it does not count.
fn declares_tool_resolution(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(TOOL_RESOLUTION_EXTENSION))
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty)
}

/// The `{ name, arguments }` of a resolution request (its `_meta` already taken
/// out by rmcp).
pub(crate) fn resolve_params<'a>(
    method: &str,
    params: Option<&'a Value>,
) -> Result<(&'a str, &'a Value), RpcError> {
    let invalid = |message: String| RpcError::new(error_code::INVALID_PARAMS, message);
    let Some(Value::Object(params)) = params else {
        return Err(invalid(format!(
            "{method} needs params {{ name, arguments }}"
        )));
    };
    let name = match params.get("name") {
        Some(Value::String(name)) => name.as_str(),
        Some(_) => return Err(invalid(format!("{method}: `name` must be a string"))),
        None => return Err(invalid(format!("{method}: missing `name`"))),
    };
    let arguments = params
        .get("arguments")
        .ok_or_else(|| invalid(format!("{method}: missing `arguments` of tool `{name}`")))?;
    Ok((name, arguments))
}

/// `-32602` for a tool this server does not resolve.
pub(crate) fn unknown_tool(name: &str) -> RpcError {
    RpcError::new(
        error_code::INVALID_PARAMS,
        format!("unknown or unresolvable tool `{name}`"),
    )
    .with_data(json!({"name": name}))
}

/// `-32602` for arguments that do not fit the tool's schema, naming where.
pub(crate) fn invalid_arguments(tool: &str, error: &ArgumentError) -> RpcError {
    let mut data = Map::new();
    data.insert("tool".into(), tool.into());
    if let Some(path) = error.path() {
        data.insert("path".into(), path.into());
    }
    RpcError::new(
        error_code::INVALID_PARAMS,
        format!("invalid arguments for tool `{tool}`: {error}"),
    )
    .with_data(Value::Object(data))
}

/// The result of `dialect` for `tool` resolved to `resolved`.
pub(crate) fn answer(
    dialect: Dialect,
    tool: &Tool,
    resolved: Annotations,
) -> Result<Value, RpcError> {
    let refined = || {
        let mut annotations = ToolAnnotations::from(resolved);
        if annotations.title.is_none() {
            annotations.title = tool.annotations.as_ref().and_then(|a| a.title.clone());
        }
        annotations
    };
    let result = match dialect {
        Dialect::DynamicAnnotations => serde_json::to_value(AnnotationsResult {
            annotations: refined(),
        }),
        Dialect::ResolveTool => serde_json::to_value(ResolveToolResult {
            tool: Tool {
                annotations: Some(refined()),
                ..tool.clone()
            },
        }),
        Dialect::ToolResolutionExtension => serde_json::to_value(ExtensionResolveResult {
            result_type: "complete".to_owned(),
            name: tool.name.clone(),
            annotations: resolved.into(),
            meta: None,
        }),
    };
    result.map_err(|error| RpcError::new(error_code::INTERNAL_ERROR, error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(capabilities: Value) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert(CLIENT_CAPABILITIES_META.into(), capabilities);
        meta
    }

    #[test]
    fn negotiation_follows_section_three() {
        let declared = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
        let with_settings = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {"v": 2}}});
        let other = json!({"extensions": {"x/y": {}}});
        let none = Map::new();

        assert_eq!(resolve_dialect(None, &none), Ok(Dialect::ResolveTool));
        assert_eq!(
            resolve_dialect(Some(&declared), &none),
            Ok(Dialect::ToolResolutionExtension)
        );
        assert_eq!(
            resolve_dialect(None, &meta(declared.clone())),
            Ok(Dialect::ToolResolutionExtension)
        );
        assert_eq!(
            resolve_dialect(Some(&with_settings), &none),
            Ok(Dialect::ResolveTool)
        );
        assert_eq!(
            resolve_dialect(None, &meta(other.clone())),
            Ok(Dialect::ResolveTool)
        );
        let error = resolve_dialect(Some(&declared), &meta(other)).unwrap_err();
        assert_eq!(error.code, error_code::MISSING_CAPABILITY);
        assert_eq!(
            error.data.unwrap()["requiredCapabilities"]["extensions"][TOOL_RESOLUTION_EXTENSION],
            json!({})
        );
    }

    #[test]
    fn params_errors_say_what_is_missing() {
        let message = |params: Option<Value>| {
            resolve_params("tools/resolve", params.as_ref())
                .unwrap_err()
                .message
        };
        assert!(message(None).contains("needs params"));
        assert!(message(Some(json!({"arguments": {}}))).contains("missing `name`"));
        assert!(message(Some(json!({"name": 3}))).contains("must be a string"));
        assert!(message(Some(json!({"name": "t"}))).contains("missing `arguments`"));
        let params = json!({"name": "t", "arguments": {"a": 1}});
        assert_eq!(
            resolve_params("tools/resolve", Some(&params)).unwrap(),
            ("t", &json!({"a": 1}))
        );
    }
}
