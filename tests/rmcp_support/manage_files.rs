//! A hand-written `AnnotatedTool` with the shape `#[mcp_tool]` gives the
//! `manage_files` tool of SEP-1862: four actions whose risk differs.
//!
//! | action    | readOnlyHint | destructiveHint | idempotentHint |
//! |-----------|--------------|-----------------|----------------|
//! | `read`    | true         | false           | true           |
//! | `append`  | false        | false           | false          |
//! | `replace` | false        | true            | true           |
//! | `delete`  | false        | true            | true           |
//!
//! Every action is closed-world; `append` is reversible.

use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use serde::Deserialize;
use serde_json::Value;

/// Read, append, replace, or delete file contents.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum ManageFiles {
    /// Return the contents of the file.
    Read {
        /// Path of the file, relative to the server's root.
        path: String,
    },
    /// Add text at the end of the file, creating it if needed.
    Append {
        /// Path of the file, relative to the server's root.
        path: String,
        /// Text to add.
        content: String,
    },
    /// Replace the whole contents of the file.
    Replace {
        /// Path of the file, relative to the server's root.
        path: String,
        /// The new contents.
        content: String,
    },
    /// Delete the file.
    Delete {
        /// Path of the file, relative to the server's root.
        path: String,
    },
}

const READ: Annotations = Annotations::new()
    .title("Read a file")
    .read_only(true)
    .open_world(false)
    .effective();
const APPEND: Annotations = Annotations::new()
    .title("Append to a file")
    .destructive(false)
    .reversible(true)
    .open_world(false)
    .effective();
const REPLACE: Annotations = Annotations::new()
    .title("Replace a file")
    .destructive(true)
    .idempotent(true)
    .open_world(false)
    .effective();
const DELETE: Annotations = Annotations::new()
    .title("Delete a file")
    .destructive(true)
    .idempotent(true)
    .open_world(false)
    .effective();

const SCHEMA: &str = r#"{"type":"object","properties":{"action":{"type":"string","enum":["read","append","replace","delete"]},"path":{"type":"string","description":"Path of the file, relative to the server's root."},"content":{"type":"string","description":"Text to add, or the new contents."}},"required":["action","path"],"additionalProperties":false}"#;

impl AnnotatedTool for ManageFiles {
    const NAME: &'static str = "manage_files";
    const TITLE: Option<&'static str> = Some("Manage files");
    const DESCRIPTION: Option<&'static str> =
        Some("Read, append, replace, or delete file contents.");
    const DISCRIMINATOR: &'static str = "action";
    const ACTIONS: &'static [Action] = &[
        Action {
            name: "read",
            annotations: READ,
        },
        Action {
            name: "append",
            annotations: APPEND,
        },
        Action {
            name: "replace",
            annotations: REPLACE,
        },
        Action {
            name: "delete",
            annotations: DELETE,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations =
        Annotations::join_all(&[READ, APPEND, REPLACE, DELETE]).title("Manage files");

    fn input_schema() -> &'static str {
        SCHEMA
    }

    fn resolve(&self) -> Annotations {
        match self {
            ManageFiles::Read { .. } => READ,
            ManageFiles::Append { .. } => APPEND,
            ManageFiles::Replace { .. } => REPLACE,
            ManageFiles::Delete { .. } => DELETE,
        }
    }

    fn from_arguments(arguments: &Value) -> Result<Self, ArgumentError> {
        if !arguments.is_object() {
            return Err(ArgumentError::NotAnObject {
                found: match arguments {
                    Value::Array(_) => "array",
                    Value::String(_) => "string",
                    Value::Number(_) => "number",
                    Value::Bool(_) => "boolean",
                    _ => "null",
                },
            });
        }
        ManageFiles::deserialize(arguments).map_err(|error| ArgumentError::InvalidValue {
            path: String::new(),
            message: error.to_string(),
        })
    }
}
