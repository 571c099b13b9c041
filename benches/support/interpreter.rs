//! The rule interpreter a server author would write without the macro: rules
//! kept in a `Vec`, arguments read through `serde_json::Value` look-ups, one
//! `Regex` per rule, the first rule that matches wins.
//!
//! Written plainly, as the alternative is meant to be measured. By itself it
//! does not validate the arguments beyond the fields its rules read, so it does
//! less work than the generated parser, which checks every field; the protocol
//! asks for the arguments to be validated against the tool's `inputSchema`
//! before resolving, which [`Validated`] adds with the `jsonschema` crate.

use annot::{AnnotatedTool, Annotations};
use jsonschema::Validator;
use regex::Regex;
use serde_json::Value;

use super::limits;

/// One rule: when `field` is a string matching `pattern`, the call has these
/// annotations.
pub struct Rule {
    pub field: String,
    pub pattern: Regex,
    pub annotations: Annotations,
}

/// A tool's rules, and the annotations when none matches (its static worst case).
pub struct Interpreter {
    pub rules: Vec<Rule>,
    pub fallback: Annotations,
}

/// Why the interpreter could not resolve.
#[derive(Debug)]
pub enum InterpreterError {
    NotAnObject,
    Invalid,
    Syntax(serde_json::Error),
}

impl Interpreter {
    /// Compiles `(field, pattern, annotations)` rules.
    pub fn new(fallback: Annotations, rules: &[(&str, &str, Annotations)]) -> Self {
        let rules = rules
            .iter()
            .map(|(field, pattern, annotations)| Rule {
                field: (*field).to_owned(),
                pattern: Regex::new(pattern).expect("the bench's rules are valid regexes"),
                annotations: *annotations,
            })
            .collect();
        Interpreter { rules, fallback }
    }

    /// The annotations of these arguments.
    pub fn resolve(&self, arguments: &Value) -> Result<Annotations, InterpreterError> {
        let object = arguments.as_object().ok_or(InterpreterError::NotAnObject)?;
        for rule in &self.rules {
            if let Some(Value::String(value)) = object.get(&rule.field)
                && rule.pattern.is_match(value)
            {
                return Ok(rule.annotations);
            }
        }
        Ok(self.fallback)
    }

    /// The annotations of arguments given as JSON text.
    pub fn resolve_str(&self, arguments: &str) -> Result<Annotations, InterpreterError> {
        let value: Value = serde_json::from_str(arguments).map_err(InterpreterError::Syntax)?;
        self.resolve(&value)
    }
}

/// An [`Interpreter`] behind a validation of the arguments against the tool's
/// `inputSchema`, as the protocol requires before resolving.
pub struct Validated {
    pub schema: Validator,
    pub rules: Interpreter,
}

impl Validated {
    /// `rules` behind the input schema of `T`.
    pub fn new<T: AnnotatedTool>(rules: Interpreter) -> Self {
        let schema: Value =
            serde_json::from_str(T::input_schema()).expect("an input schema is JSON");
        let schema = jsonschema::validator_for(&schema).expect("an input schema compiles");
        Validated { schema, rules }
    }

    /// The annotations of these arguments, if they are valid.
    pub fn resolve(&self, arguments: &Value) -> Result<Annotations, InterpreterError> {
        if !self.schema.is_valid(arguments) {
            return Err(InterpreterError::Invalid);
        }
        self.rules.resolve(arguments)
    }

    /// The annotations of arguments given as JSON text, if they are valid.
    pub fn resolve_str(&self, arguments: &str) -> Result<Annotations, InterpreterError> {
        let value: Value = serde_json::from_str(arguments).map_err(InterpreterError::Syntax)?;
        self.resolve(&value)
    }
}

/// `manage_files` as rules: one per action.
pub fn manage_files(fallback: Annotations) -> Interpreter {
    Interpreter::new(
        fallback,
        &[
            ("action", "^read$", limits::READ),
            ("action", "^append$", limits::APPEND),
            ("action", "^replace$", limits::REPLACE),
            ("action", "^delete$", limits::DELETE),
        ],
    )
}

/// `http_request` as rules: the three read-only methods share one.
pub fn http_api(fallback: Annotations) -> Interpreter {
    Interpreter::new(
        fallback,
        &[
            ("method", "^(GET|HEAD|OPTIONS)$", limits::GET),
            ("method", "^POST$", limits::POST),
            ("method", "^PUT$", limits::PUT),
            ("method", "^PATCH$", limits::PATCH),
            ("method", "^DELETE$", limits::DELETE_RESOURCE),
        ],
    )
}
