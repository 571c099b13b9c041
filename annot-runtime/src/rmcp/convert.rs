//! From an annotated tool to `rmcp::model::Tool`.

use ::rmcp::model::{MetaObject, Tool as RmcpTool};
use serde_json::{Map, Value, json};

use super::LIFT_META;
use crate::protocol::TOOL_RESOLUTION_EXTENSION;
use crate::tool::json_type;
use crate::{AnnotatedTool, Tool, ToolAnnotations};

/// A tool that cannot be served through rmcp.
///
/// `#[mcp_tool]` always produces a valid schema; these errors concern
/// hand-written [`AnnotatedTool`] implementations and registration mistakes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolConversionError {
    /// `input_schema()` is not JSON.
    #[error("inputSchema of tool `{tool}` is not valid JSON: {message}")]
    SchemaSyntax {
        /// The tool's name.
        tool: String,
        /// What the parser said, with line and column.
        message: String,
    },
    /// The schema's root is not an object schema, which MCP requires (and which
    /// rmcp's own tool router enforces with a panic at run time).
    #[error(
        "inputSchema of tool `{tool}` must have \"type\": \"object\" at its root, found {found}"
    )]
    SchemaRoot {
        /// The tool's name.
        tool: String,
        /// What the root holds instead (`an array`, `no "type"`, `"type": "string"`).
        found: String,
    },
    /// Two registered tools share a name.
    #[error("tool `{tool}` is registered twice")]
    DuplicateTool {
        /// The name registered twice.
        tool: String,
    },
    /// rmcp refused the tool's JSON.
    #[error("rmcp cannot represent tool `{tool}`: {message}")]
    Rmcp {
        /// The tool's name.
        tool: String,
        /// What serde said.
        message: String,
    },
}

/// Converts an annotated tool into the `Tool` rmcp lists.
///
/// The result carries the static worst-case annotations (title and core hints
/// in rmcp's `annotations`), the `inputSchema`, the dialect C marker
/// `_meta["io.modelcontextprotocol/tool-resolution"]`, and under
/// `_meta[`[`LIFT_META`]`]` everything rmcp's `Tool` has no field for: the
/// SEP-1984 hints and the dialect A and B markers (`dynamicAnnotations`,
/// `resolve`). [`lifted`](super::lifted) and [`LiftHttp`](super::LiftHttp) move
/// those to their place on the wire.
///
/// ```
/// # use annot_runtime::{Action, AnnotatedTool, Annotations, ArgumentError};
/// # struct Files;
/// # impl AnnotatedTool for Files {
/// #     const NAME: &'static str = "files";
/// #     const TITLE: Option<&'static str> = Some("Files");
/// #     const DESCRIPTION: Option<&'static str> = None;
/// #     const DISCRIMINATOR: &'static str = "action";
/// #     const ACTIONS: &'static [Action] = &[];
/// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().sensitive_data(true);
/// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
/// #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
/// #     fn from_arguments(_: &serde_json::Value) -> Result<Self, ArgumentError> { Ok(Files) }
/// # }
/// use annot_runtime::rmcp::{LIFT_META, rmcp_tool};
///
/// let tool = rmcp_tool::<Files>().unwrap();
/// assert_eq!(tool.name, "files");
/// assert_eq!(tool.input_schema["type"], "object");
/// let carried = &tool.meta.as_ref().unwrap()[LIFT_META];
/// assert_eq!(carried["annotations"]["sensitiveDataHint"], true);
/// assert_eq!(carried["resolve"], true);
/// ```
pub fn rmcp_tool<T: AnnotatedTool>() -> Result<RmcpTool, ToolConversionError> {
    project(&wire_tool::<T>()?)
}

/// The Tool of `T` exactly as annot puts it on the wire: static annotations with
/// every hint, and the markers of all three dialects.
pub(crate) fn wire_tool<T: AnnotatedTool>() -> Result<Tool, ToolConversionError> {
    let input_schema: Value = serde_json::from_str(T::input_schema()).map_err(|error| {
        ToolConversionError::SchemaSyntax {
            tool: T::NAME.to_owned(),
            message: error.to_string(),
        }
    })?;
    check_schema_root(T::NAME, &input_schema)?;
    let mut meta = Map::new();
    meta.insert(
        TOOL_RESOLUTION_EXTENSION.to_owned(),
        json!({"resolvable": true}),
    );
    Ok(Tool {
        name: T::NAME.to_owned(),
        title: T::TITLE.map(str::to_owned),
        description: T::DESCRIPTION.map(str::to_owned),
        input_schema,
        annotations: Some(ToolAnnotations::from(T::STATIC_ANNOTATIONS)),
        dynamic_annotations: Some(true),
        resolve: Some(true),
        meta: Some(meta),
        extra: Map::new(),
    })
}

/// rmcp's view of a wire Tool, carrying what it drops under `_meta[LIFT_META]`,
/// so that lifting the result gives back exactly `tool`.
pub(crate) fn project(tool: &Tool) -> Result<RmcpTool, ToolConversionError> {
    let rmcp_error = |error: serde_json::Error| ToolConversionError::Rmcp {
        tool: tool.name.clone(),
        message: error.to_string(),
    };
    let full = serde_json::to_value(tool).map_err(rmcp_error)?;
    let mut projected: RmcpTool = serde_json::from_value(full.clone()).map_err(rmcp_error)?;
    let kept = serde_json::to_value(&projected).map_err(rmcp_error)?;
    if let Some(carried) = missing_from(&full, &kept) {
        projected
            .meta
            .get_or_insert_with(MetaObject::new)
            .insert(LIFT_META.to_owned(), carried);
    }
    Ok(projected)
}

/// What `full` holds that `kept` lacks or holds differently; objects compared
/// key by key, anything else as a whole.
fn missing_from(full: &Value, kept: &Value) -> Option<Value> {
    match (full, kept) {
        (Value::Object(full), Value::Object(kept)) => {
            let missing: Map<String, Value> = full
                .iter()
                .filter_map(|(key, value)| {
                    let missing = match kept.get(key) {
                        None => Some(value.clone()),
                        Some(kept) => missing_from(value, kept),
                    };
                    missing.map(|missing| (key.clone(), missing))
                })
                .collect();
            (!missing.is_empty()).then_some(Value::Object(missing))
        }
        _ if full == kept => None,
        _ => Some(full.clone()),
    }
}

fn check_schema_root(tool: &str, schema: &Value) -> Result<(), ToolConversionError> {
    let found = match schema {
        Value::Object(object) => match object.get("type") {
            Some(Value::String(kind)) if kind == "object" => return Ok(()),
            Some(other) => format!("\"type\": {other}"),
            None => "no \"type\"".to_owned(),
        },
        other => format!("a JSON {}", json_type(other)),
    };
    Err(ToolConversionError::SchemaRoot {
        tool: tool.to_owned(),
        found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rmcp::lift_result;

    #[test]
    fn schema_roots_other_than_object_are_named() {
        let error = |schema: Value| check_schema_root("t", &schema).unwrap_err().to_string();
        assert!(error(json!({"oneOf": []})).ends_with("found no \"type\""));
        assert!(error(json!({"type": "array"})).ends_with("found \"type\": \"array\""));
        assert!(error(json!(true)).ends_with("found a JSON boolean"));
        assert!(check_schema_root("t", &json!({"type": "object"})).is_ok());
    }

    #[test]
    fn projection_then_lift_gives_back_the_wire_tool() {
        let tool = Tool {
            name: "t".into(),
            title: Some("T".into()),
            description: None,
            input_schema: json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            annotations: Some(ToolAnnotations::from(
                crate::Annotations::new()
                    .read_only(false)
                    .reversible(false)
                    .privileged_access(true),
            )),
            dynamic_annotations: Some(true),
            resolve: Some(true),
            meta: None,
            extra: Map::new(),
        };
        let projected = project(&tool).unwrap();
        let carried = &projected.meta.as_ref().unwrap()[LIFT_META];
        assert_eq!(
            carried,
            &json!({
                "annotations": {"reversibleHint": false, "privilegedAccessHint": true},
                "dynamicAnnotations": true,
                "resolve": true
            })
        );
        let mut listed = json!({"tools": [projected]});
        assert!(lift_result(&mut listed));
        assert_eq!(listed["tools"][0], serde_json::to_value(&tool).unwrap());
    }

    #[test]
    fn nothing_is_carried_when_rmcp_keeps_everything() {
        let tool = Tool {
            name: "plain".into(),
            input_schema: json!({"type": "object"}),
            ..Tool::default()
        };
        assert_eq!(project(&tool).unwrap().meta, None);
    }
}
