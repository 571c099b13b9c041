//! rmcp derives a tool's `inputSchema` from the argument type with schemars and
//! checks its root only at run time: `#[tool]` (rmcp-macros 3.9), the router's
//! `.parameters::<T>()` and `Tool::with_input_schema::<T>()` all call
//! `schema_for_input::<T>()` and panic on its error. An internally tagged enum,
//! the natural type of a multi-action tool, has a `oneOf` root without
//! `"type": "object"`, so a server built that way dies when it builds its
//! router. annot generates an object-rooted schema for the same shape, and a
//! hand-written tool with a bad root is a typed error at registration.

use crate::rmcp_support;
use annot::rmcp::{AnnotatedTools, HandleTool, ToolConversionError, rmcp_tool};
use annot::server::BuildError;
use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use rmcp::model::CallToolResult;
use rmcp::schemars::JsonSchema;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use rmcp_support::manage_files::ManageFiles;
use serde_json::Value;

/// What an rmcp user writes for `manage_files`.
#[allow(dead_code)] // only its schema is used
#[derive(serde::Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(tag = "action", rename_all = "snake_case")]
enum ManageFilesArguments {
    Read { path: String },
    Append { path: String, content: String },
    Delete { path: String },
}

#[test]
fn rmcp_refuses_an_internally_tagged_enum_only_at_run_time() {
    let error = rmcp::handler::server::common::schema_for_input::<ManageFilesArguments>()
        .expect_err("rmcp accepted a schema without an object root");
    assert!(error.contains("root type 'object'"), "{error}");

    // The public builder the router and `#[tool]` rely on turns that into a panic.
    let built = std::panic::catch_unwind(|| {
        rmcp::model::Tool::new("manage_files", "", serde_json::Map::new())
            .with_input_schema::<ManageFilesArguments>()
    });
    assert!(built.is_err(), "rmcp built the tool");
}

#[test]
fn annot_lists_the_same_shape_with_an_object_root() {
    let tool = rmcp_tool::<ManageFiles>().expect("a valid tool");
    assert_eq!(tool.input_schema["type"], "object");
    assert_eq!(
        tool.input_schema["properties"]["action"]["enum"],
        serde_json::json!(["read", "append", "replace", "delete"])
    );
}

/// A hand-written tool whose schema root is what schemars gives a tagged enum.
struct OneOfRoot;

impl AnnotatedTool for OneOfRoot {
    const NAME: &'static str = "one_of_root";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[];
    const STATIC_ANNOTATIONS: Annotations = Annotations::new();

    fn input_schema() -> &'static str {
        r#"{"oneOf":[{"type":"object","properties":{"action":{"const":"read"}}}]}"#
    }

    fn resolve(&self) -> Annotations {
        Annotations::new()
    }

    fn from_arguments(_: &Value) -> Result<Self, ArgumentError> {
        Ok(OneOfRoot)
    }
}

struct Server;

impl HandleTool<OneOfRoot> for Server {
    async fn handle(
        &self,
        _tool: OneOfRoot,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![]))
    }
}

#[test]
fn a_schema_without_an_object_root_is_a_typed_error() {
    let error = rmcp_tool::<OneOfRoot>().unwrap_err();
    assert_eq!(
        error,
        ToolConversionError::Invalid(BuildError::InvalidInputSchema {
            tool: "one_of_root".into(),
            reason: "its root must have \"type\": \"object\"".into()
        })
    );
    assert_eq!(
        error.to_string(),
        "the inputSchema of `one_of_root` is invalid: its root must have \"type\": \"object\""
    );
    let registered = AnnotatedTools::<Server>::builder()
        .tool::<OneOfRoot>()
        .build();
    assert!(matches!(
        registered,
        Err(ToolConversionError::Invalid(
            BuildError::InvalidInputSchema { .. }
        ))
    ));
}
