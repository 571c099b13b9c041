//! The rule interpreter a server author would write without the macro: rules
//! kept in a `Vec`, arguments read through `serde_json::Value` look-ups, one
//! `Regex` per rule; every rule that matches sets its hints, in order, over
//! the tool's defaults.
//!
//! Written plainly, as the alternative is meant to be measured. By itself it
//! does not validate the arguments beyond the fields its rules read, so it does
//! less work than the generated parser, which checks every field; the protocol
//! asks for the arguments to be validated against the tool's `inputSchema`
//! before resolving, which [`Validated`] adds with the `jsonschema` crate.

use annot::{AnnotatedTool, Annotations, Hint};
use jsonschema::Validator;
use regex::Regex;
use serde_json::Value;

use super::limits;

/// One rule: when `field` is a string matching `pattern`, the call has the
/// hints (and title) set in `sets`.
pub struct Rule {
    pub field: String,
    pub pattern: Regex,
    pub sets: Annotations,
}

/// A tool's rules, over its tool-level defaults.
pub struct Interpreter {
    pub defaults: Annotations,
    pub rules: Vec<Rule>,
}

/// Why the interpreter could not resolve.
#[derive(Debug)]
pub enum InterpreterError {
    NotAnObject,
    Invalid,
    Syntax(serde_json::Error),
}

impl Interpreter {
    /// Compiles `(field, pattern, sets)` rules.
    pub fn new(defaults: Annotations, rules: &[(&str, &str, Annotations)]) -> Self {
        let rules = rules
            .iter()
            .map(|(field, pattern, sets)| Rule {
                field: (*field).to_owned(),
                pattern: Regex::new(pattern).expect("the bench's rules are valid regexes"),
                sets: *sets,
            })
            .collect();
        Interpreter { defaults, rules }
    }

    /// The annotations of these arguments.
    pub fn resolve(&self, arguments: &Value) -> Result<Annotations, InterpreterError> {
        let object = arguments.as_object().ok_or(InterpreterError::NotAnObject)?;
        let mut annotations = self.defaults;
        for rule in &self.rules {
            if let Some(Value::String(value)) = object.get(&rule.field)
                && rule.pattern.is_match(value)
            {
                if rule.sets.title.is_some() {
                    annotations.title = rule.sets.title;
                }
                for hint in Hint::ALL {
                    if let Some(value) = rule.sets.get(hint) {
                        annotations = annotations.with(hint, Some(value));
                    }
                }
            }
        }
        Ok(annotations.effective())
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
    /// `rules` behind the exact input schema of `T` (the one that refuses what
    /// the parser refuses).
    pub fn new<T: AnnotatedTool>(rules: Interpreter) -> Self {
        let schema: Value =
            serde_json::from_str(T::exact_input_schema()).expect("an input schema is JSON");
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

/// `manage_files` as rules: one per action, and its system-path rule.
pub fn manage_files() -> Interpreter {
    let hints = Annotations::new;
    Interpreter::new(
        hints().open_world(false),
        &[
            (
                "action",
                "^read$",
                hints().title("Read a file").read_only(true),
            ),
            (
                "action",
                "^append$",
                hints().title("Append to a file").destructive(false),
            ),
            (
                "action",
                "^replace$",
                hints()
                    .title("Replace a file")
                    .destructive(true)
                    .idempotent(true),
            ),
            (
                "action",
                "^delete$",
                hints()
                    .title("Delete a file")
                    .destructive(true)
                    .idempotent(true),
            ),
            (
                "path",
                limits::SYSTEM_PATH,
                hints().privileged_access(true).sensitive_data(true),
            ),
        ],
    )
}

/// `http_request` as rules: the three read-only methods share one.
pub fn http_api() -> Interpreter {
    let hints = Annotations::new;
    Interpreter::new(
        hints().open_world(true),
        &[
            ("method", "^(GET|HEAD|OPTIONS)$", hints().read_only(true)),
            (
                "method",
                "^POST$",
                hints().destructive(false).idempotent(false),
            ),
            (
                "method",
                "^PUT$",
                hints().destructive(true).idempotent(true),
            ),
            (
                "method",
                "^PATCH$",
                hints().destructive(true).idempotent(false),
            ),
            (
                "method",
                "^DELETE$",
                hints().destructive(true).idempotent(true).reversible(false),
            ),
        ],
    )
}
