//! A tool's declared `outputSchema`: checked once when the server is built,
//! and every successful result held to it, on this server and through the
//! rmcp adapter alike.
//!
//! A result of a tool that declares an output schema must carry
//! `structuredContent` (the specification's "MUST provide structured results
//! that conform"). Whether that content conforms is checked in debug builds
//! with the `output-schema` feature, which `#[mcp_tool(output = Type)]` needs: a
//! release build trusts the handler's type, as serde trusts a `Serialize`
//! impl. A result that fails either check becomes a tool error naming the
//! tool and what is wrong, never a result a client's validator refuses.

use serde_json::{Map, Value};

use crate::server::registry::build_error::BuildError;

/// The output schema of one tool, ready to check results against.
pub(crate) struct DeclaredOutput {
    /// The tool's name, for messages.
    tool: Box<str>,
    #[cfg(all(debug_assertions, feature = "output-schema"))]
    validator: jsonschema::Validator,
}

impl DeclaredOutput {
    /// Checks `schema`, the `outputSchema` of `tool`: a JSON object whose
    /// root has `"type": "object"` (structured content is an object), and in
    /// debug builds a schema the validator compiles.
    pub(crate) fn new(tool: &str, schema: &str) -> Result<Self, BuildError> {
        let invalid = |reason: String| BuildError::InvalidOutputSchema {
            tool: tool.to_owned(),
            reason,
        };
        let value: Value =
            serde_json::from_str(schema).map_err(|error| invalid(error.to_string()))?;
        if value.get("type").and_then(Value::as_str) != Some("object") {
            return Err(invalid(
                "its root must have \"type\": \"object\", as structuredContent is an object"
                    .to_owned(),
            ));
        }
        Ok(DeclaredOutput {
            tool: tool.into(),
            #[cfg(all(debug_assertions, feature = "output-schema"))]
            validator: jsonschema::validator_for(&value)
                .map_err(|error| invalid(error.to_string()))?,
        })
    }

    /// Whether a successful result's `structured` content fits the schema;
    /// `Err` is the message of the tool error that replaces the result.
    pub(crate) fn check(&self, structured: Option<&Map<String, Value>>) -> Result<(), String> {
        let Some(structured) = structured else {
            return Err(self.mismatch(
                "the result has no structuredContent (return `ToolOutput::json`)".to_owned(),
            ));
        };
        self.check_conforms(structured)
    }

    /// [`check`](Self::check) of a `structuredContent` that may be any JSON
    /// value, as rmcp's `CallToolResult` holds it.
    #[cfg(feature = "rmcp")]
    pub(crate) fn check_value(&self, structured: Option<&Value>) -> Result<(), String> {
        match structured {
            None => self.check(None),
            Some(Value::Object(object)) => self.check(Some(object)),
            Some(other) => Err(self.mismatch(format!(
                "its structuredContent is {}, not an object",
                crate::argument_error::json_type(other)
            ))),
        }
    }

    #[cfg(all(debug_assertions, feature = "output-schema"))]
    fn check_conforms(&self, structured: &Map<String, Value>) -> Result<(), String> {
        let instance = Value::Object(structured.clone());
        let problems: Vec<String> = self
            .validator
            .iter_errors(&instance)
            .take(3)
            .map(|error| {
                let at = error.instance_path().to_string();
                let at = if at.is_empty() { "/".to_owned() } else { at };
                format!("at `{at}`: {error}")
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(self.mismatch(format!(
                "its structuredContent does not match the outputSchema: {}",
                problems.join("; ")
            )))
        }
    }

    #[cfg(not(all(debug_assertions, feature = "output-schema")))]
    fn check_conforms(&self, _: &Map<String, Value>) -> Result<(), String> {
        Ok(())
    }

    /// The tool error's message, also logged: a mismatch is the server's
    /// bug, which its operator should see, not only the model.
    fn mismatch(&self, problem: String) -> String {
        let message = format!(
            "internal error: the tool `{}` returned a result that breaks its declared output: \
             {problem}",
            self.tool
        );
        eprintln!("annot: {message}");
        message
    }
}
