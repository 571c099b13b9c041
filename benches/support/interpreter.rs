//! The rule interpreter a competent server author would write without the
//! macro: the action looked up by string equality in a table (one decisive
//! entry, the first that matches), then the value rules of each field, all
//! patterns of one field in one `RegexSet` so one pass over the value answers
//! them all; each firing rule sets its hints over the action's, then the
//! specification's defaults apply.
//!
//! By itself it does not validate the arguments beyond the fields it reads, so
//! it does less work than the generated parser, which checks every field; the
//! protocol asks for the arguments to be validated against the tool's
//! `inputSchema` before resolving, which [`Validated`] adds with the
//! `jsonschema` crate.

use annot::{AnnotatedTool, Annotations, Hint};
use jsonschema::Validator;
use regex::RegexSet;
use serde_json::{Map, Value};

use super::limits;

/// The value rules of one field: when the field is a string matching
/// `patterns[i]`, the call has the hints set in `sets[i]`.
pub struct FieldRules {
    pub field: String,
    pub patterns: RegexSet,
    pub sets: Vec<Annotations>,
}

/// A tool's actions and value rules, over its tool-level defaults.
pub struct Interpreter {
    pub defaults: Annotations,
    /// The field naming the action.
    pub discriminator: String,
    /// Each action's name and the hints (and title) it sets.
    pub actions: Vec<(String, Annotations)>,
    pub rules: Vec<FieldRules>,
}

/// Why the interpreter could not resolve.
#[derive(Debug)]
pub enum InterpreterError {
    NotAnObject,
    /// The discriminator is missing, not a string, or no action's name.
    UnknownAction,
    Invalid,
    Syntax(serde_json::Error),
}

/// `base` with every hint (and the title) that `sets` sets.
fn set(mut base: Annotations, sets: &Annotations) -> Annotations {
    if sets.title.is_some() {
        base.title = sets.title;
    }
    for hint in Hint::ALL {
        if let Some(value) = sets.get(hint) {
            base = base.with(hint, Some(value));
        }
    }
    base
}

impl Interpreter {
    /// Compiles the actions and the `(field, [(pattern, sets)])` rules.
    pub fn new(
        defaults: Annotations,
        discriminator: &str,
        actions: &[(&str, Annotations)],
        rules: &[(&str, &[(&str, Annotations)])],
    ) -> Self {
        let rules = rules
            .iter()
            .map(|(field, patterns)| FieldRules {
                field: (*field).to_owned(),
                patterns: RegexSet::new(patterns.iter().map(|(pattern, _)| *pattern))
                    .expect("the bench's rules are valid regexes"),
                sets: patterns.iter().map(|(_, sets)| *sets).collect(),
            })
            .collect();
        Interpreter {
            defaults,
            discriminator: discriminator.to_owned(),
            actions: actions
                .iter()
                .map(|(name, sets)| ((*name).to_owned(), set(defaults, sets)))
                .collect(),
            rules,
        }
    }

    /// The annotations of these arguments.
    pub fn resolve(&self, arguments: &Value) -> Result<Annotations, InterpreterError> {
        let object = arguments.as_object().ok_or(InterpreterError::NotAnObject)?;
        let Some(Value::String(name)) = object.get(&self.discriminator) else {
            return Err(InterpreterError::UnknownAction);
        };
        let (_, mut annotations) = *self
            .actions
            .iter()
            .find(|(action, _)| action == name)
            .ok_or(InterpreterError::UnknownAction)?;
        for rules in &self.rules {
            annotations = rules.apply(object, annotations);
        }
        Ok(annotations.effective())
    }

    /// The annotations of arguments given as JSON text.
    pub fn resolve_str(&self, arguments: &str) -> Result<Annotations, InterpreterError> {
        let value: Value = serde_json::from_str(arguments).map_err(InterpreterError::Syntax)?;
        self.resolve(&value)
    }
}

impl FieldRules {
    /// `annotations` with the hints of every rule that fires on this field.
    pub fn apply(&self, object: &Map<String, Value>, annotations: Annotations) -> Annotations {
        let Some(Value::String(value)) = object.get(&self.field) else {
            return annotations;
        };
        if self.sets.len() == 1 {
            // One pattern: a plain match, no set of results to build.
            return if self.patterns.is_match(value) {
                set(annotations, &self.sets[0])
            } else {
                annotations
            };
        }
        self.patterns
            .matches(value)
            .into_iter()
            .fold(annotations, |annotations, index| {
                set(annotations, &self.sets[index])
            })
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

/// `manage_files`: four actions and its system-path rule.
pub fn manage_files() -> Interpreter {
    let hints = Annotations::new;
    Interpreter::new(
        hints()
            .open_world(false)
            .privileged_access(false)
            .sensitive_data(false),
        "action",
        &[
            ("read", hints().title("Read a file").read_only(true)),
            (
                "append",
                hints().title("Append to a file").destructive(false),
            ),
            (
                "replace",
                hints()
                    .title("Replace a file")
                    .destructive(true)
                    .idempotent(true),
            ),
            (
                "delete",
                hints()
                    .title("Delete a file")
                    .destructive(true)
                    .idempotent(true),
            ),
        ],
        &[(
            "path",
            &[(
                limits::SYSTEM_PATH,
                hints().privileged_access(true).sensitive_data(true),
            )],
        )],
    )
}

/// `http_request`: one entry per method, no value rules.
pub fn http_api() -> Interpreter {
    let hints = Annotations::new;
    let read = hints().read_only(true);
    Interpreter::new(
        hints().open_world(true),
        "method",
        &[
            ("GET", read),
            ("HEAD", read),
            ("OPTIONS", read),
            ("POST", hints().destructive(false).idempotent(false)),
            ("PUT", hints().destructive(true).idempotent(true)),
            ("PATCH", hints().destructive(true).idempotent(false)),
            (
                "DELETE",
                hints().destructive(true).idempotent(true).reversible(false),
            ),
        ],
        &[],
    )
}

/// A tool with the `read` and `ping` actions (read-only, closed world) and
/// these patterns on `path`, each marking the call as touching sensitive data:
/// the tools of `benches/rules.rs` as an interpreter.
pub fn path_patterns(patterns: &[&str]) -> Interpreter {
    let hints = Annotations::new;
    let sensitive = hints().sensitive_data(true);
    let rules: Vec<(&str, Annotations)> = patterns
        .iter()
        .map(|pattern| (*pattern, sensitive))
        .collect();
    Interpreter::new(
        hints().open_world(false),
        "action",
        &[
            ("Read", hints().read_only(true)),
            ("Ping", hints().read_only(true)),
        ],
        &[("path", &rules)],
    )
}
