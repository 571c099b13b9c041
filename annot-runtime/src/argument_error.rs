//! The error of arguments that do not fit a tool's input schema.

use serde_json::Value;

/// Arguments that do not fit the tool's input schema.
///
/// Every variant names where the problem is; [`ArgumentError::path`] gives it as
/// a dotted path (`items[2].name`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentError {
    /// The arguments are not a JSON object.
    #[error("arguments must be a JSON object, found {found}")]
    NotAnObject {
        /// The JSON type found instead (`"array"`, `"string"`, ...).
        found: &'static str,
    },
    /// A required field is absent.
    #[error("missing field `{field}`")]
    MissingField {
        /// The field's name.
        field: String,
    },
    /// A field the schema does not allow.
    #[error("unknown field `{field}`, expected {}", one_of(expected))]
    UnknownField {
        /// The field's name.
        field: String,
        /// The fields allowed here.
        expected: &'static [&'static str],
    },
    /// The discriminator names no action of the tool.
    #[error("unknown {field} `{found}`, expected {}", one_of(expected))]
    UnknownAction {
        /// The discriminator field.
        field: String,
        /// The value found.
        found: String,
        /// Every action.
        expected: &'static [&'static str],
    },
    /// A field holds a value of the wrong type or out of range.
    #[error("invalid value at `{path}`: {message}")]
    InvalidValue {
        /// Where, as a dotted path.
        path: String,
        /// What was expected, in serde's words.
        message: String,
    },
    /// The arguments are not JSON at all.
    #[error("arguments are not valid JSON: {message}")]
    Syntax {
        /// What the parser said, with line and column.
        message: String,
    },
}

impl ArgumentError {
    /// Where the problem is, as a dotted path; `None` when it concerns the whole
    /// argument object.
    pub fn path(&self) -> Option<&str> {
        match self {
            ArgumentError::NotAnObject { .. } | ArgumentError::Syntax { .. } => None,
            ArgumentError::MissingField { field }
            | ArgumentError::UnknownField { field, .. }
            | ArgumentError::UnknownAction { field, .. } => Some(field),
            ArgumentError::InvalidValue { path, .. } => Some(path),
        }
    }

    /// A JSON parse error of the whole argument text.
    pub fn syntax(error: serde_json::Error) -> Self {
        ArgumentError::Syntax {
            message: error.to_string(),
        }
    }
}

fn one_of(expected: &[&str]) -> String {
    match expected {
        [] => "nothing".to_owned(),
        [one] => format!("`{one}`"),
        _ => {
            let quoted: Vec<String> = expected.iter().map(|name| format!("`{name}`")).collect();
            format!("one of {}", quoted.join(", "))
        }
    }
}

/// The JSON type name of a value, for error messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
