//! rmcp's `Json<T>` habit for annotated tools: the structured result of a
//! tool declared with `#[mcp_tool(output = Type)]`.

use ::rmcp::ErrorData;
use ::rmcp::handler::server::wrapper::Json;
use ::rmcp::model::CallToolResult;
use serde::Serialize;

/// The result of a [`HandleTool`](super::HandleTool) call of a tool declared
/// with `#[mcp_tool(output = Type)]`: the value's JSON object as
/// `structuredContent`, and the same JSON as a text block, which is what an
/// rmcp `#[tool]` returning `Json<T>` sends. The adapter lists the tool's
/// `outputSchema` from the declaration (rmcp's router derives it from the
/// return type instead), holds every successful result to it, and in debug
/// builds checks the content against it.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rmcp::structured;
/// use rmcp::handler::server::wrapper::Json;
///
/// #[derive(serde::Serialize)]
/// struct Report {
///     ahead: u32,
/// }
///
/// let result = structured(Json(Report { ahead: 2 })).unwrap();
/// assert_eq!(result.structured_content.unwrap()["ahead"], 2);
/// assert!(structured(Json(vec![1, 2])).is_err());
/// ```
///
/// # Errors
///
/// An internal error, as rmcp's `Json<T>` gives, when the value does not
/// serialize to a JSON object, which `structuredContent` must be.
pub fn structured<T: Serialize>(Json(value): Json<T>) -> Result<CallToolResult, ErrorData> {
    match serde_json::to_value(value) {
        Ok(object @ serde_json::Value::Object(_)) => Ok(CallToolResult::structured(object)),
        Ok(other) => Err(ErrorData::internal_error(
            format!(
                "a structured result must be a JSON object, not {}",
                crate::argument_error::json_type(&other)
            ),
            None,
        )),
        Err(error) => Err(ErrorData::internal_error(
            format!("the structured result does not serialize: {error}"),
            None,
        )),
    }
}
