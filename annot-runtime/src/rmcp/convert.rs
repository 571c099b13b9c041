//! From an annotated tool to `rmcp::model::Tool`.

use ::rmcp::model::{MetaObject, Tool as RmcpTool};
use serde_json::{Map, Value};

use super::LIFT_META;
use crate::AnnotatedTool;
use crate::server::rmcp_bridge::{Listing, listed_tools};
use crate::server::{BuildError, Server, ToolError, ToolOutput};

/// A tool that cannot be served through rmcp.
///
/// `#[mcp_tool]` always produces a valid tool; these errors concern
/// hand-written [`AnnotatedTool`] implementations and registration mistakes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolConversionError {
    /// What the built-in server refuses too: an `inputSchema` whose root is not
    /// `"type": "object"` (which rmcp's own tool router turns into a panic at
    /// run time), an action outside the static annotations, a duplicate name
    /// or one outside MCP's tool-name rules.
    #[error(transparent)]
    Invalid(#[from] BuildError),
    /// rmcp's `Tool` cannot hold the tool's JSON.
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
/// The result is the built-in server's listing of the tool, in rmcp's type:
/// the static worst-case annotations (title and core hints in rmcp's
/// `annotations`), the `inputSchema`, the dialect C marker
/// `_meta["io.modelcontextprotocol/tool-resolution"]`, and under
/// `_meta[`[`LIFT_META`]`]` everything rmcp's `Tool` has no field for: the
/// SEP-1984 hints and the dialect A and B markers (`dynamicAnnotations`,
/// `resolve`). [`lifted`](super::lifted) and `LiftHttp` (feature `rmcp-http`) move
/// those to their place on the wire.
///
/// ```
/// # use annot_runtime as annot;
/// # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
/// # struct Files;
/// # impl AnnotatedTool for Files {
/// #     const NAME: &'static str = "files";
/// #     const TITLE: Option<&'static str> = Some("Files");
/// #     const DESCRIPTION: Option<&'static str> = None;
/// #     const DISCRIMINATOR: Option<&'static str> = Some("action");
/// #     // Two actions that resolve differently: only such a tool is marked.
/// #     const ACTIONS: &'static [Action] = &[
/// #         Action { name: "read", annotations: Annotations::new().read_only(true).sensitive_data(true) },
/// #         Action { name: "write", annotations: Annotations::new().sensitive_data(true) },
/// #     ];
/// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().sensitive_data(true);
/// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
/// #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
/// #     fn from_arguments(_: &serde_json::Value) -> Result<Self, ArgumentError> { Ok(Files) }
/// # }
/// use annot::rmcp::{LIFT_META, rmcp_tool};
///
/// let tool = rmcp_tool::<Files>().unwrap();
/// assert_eq!(tool.name, "files");
/// assert_eq!(tool.input_schema["type"], "object");
/// let carried = &tool.meta.as_ref().unwrap()[LIFT_META];
/// assert_eq!(carried["annotations"]["sensitiveDataHint"], true);
/// assert_eq!(carried["resolve"], true);
/// ```
pub fn rmcp_tool<T: AnnotatedTool + 'static>() -> Result<RmcpTool, ToolConversionError> {
    let server = Server::builder(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .tool(runs_through_rmcp::<T>)
        .build()?;
    let (name, json) = listed_tools(&server, Listing::All)
        .next()
        .expect("a server built with one tool lists it");
    listing(name, json)
}

/// The name of the built-in server an rmcp adapter renders its tools with; it
/// never reaches the wire (rmcp answers `initialize` with your handler's info).
pub(crate) const SERVER_NAME: &str = "annot-rmcp";

/// The built-in server's handler of a tool that rmcp runs: never called, since
/// `tools/call` goes to your [`HandleTool`](super::HandleTool) implementation.
pub(crate) fn runs_through_rmcp<T>(_: T) -> Result<ToolOutput, ToolError> {
    Err(ToolError::new(
        "this tool is served through rmcp, which runs its calls",
    ))
}

/// rmcp's view of one tool of the built-in server's listing.
pub(crate) fn listing(name: &str, json: &str) -> Result<RmcpTool, ToolConversionError> {
    let rmcp_error = |error: serde_json::Error| ToolConversionError::Rmcp {
        tool: name.to_owned(),
        message: error.to_string(),
    };
    let full: Value = serde_json::from_str(json).map_err(rmcp_error)?;
    project(&full).map_err(rmcp_error)
}

/// rmcp's view of a wire Tool, carrying what it drops under `_meta[LIFT_META]`,
/// so that lifting the result gives back exactly `full`.
fn project(full: &Value) -> Result<RmcpTool, serde_json::Error> {
    let mut projected: RmcpTool = serde_json::from_value(full.clone())?;
    let kept = serde_json::to_value(&projected)?;
    if let Some(carried) = missing_from(full, &kept) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rmcp::lift_result;
    use serde_json::json;

    #[test]
    fn projection_then_lift_gives_back_the_wire_tool() {
        let tool = json!({
            "name": "t",
            "title": "T",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
            "annotations": {
                "readOnlyHint": false,
                "reversibleHint": false,
                "privilegedAccessHint": true
            },
            "dynamicAnnotations": true,
            "resolve": true
        });
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
        assert_eq!(listed["tools"][0], tool);
    }

    #[test]
    fn nothing_is_carried_when_rmcp_keeps_everything() {
        let tool = json!({"name": "plain", "inputSchema": {"type": "object"}});
        assert_eq!(project(&tool).unwrap().meta, None);
    }
}
