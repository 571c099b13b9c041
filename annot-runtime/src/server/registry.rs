//! Registered tools with their types erased, and everything about them that
//! can be rendered once at start-up.

use std::any::Any;
use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::builder::BuildError;
use super::negotiation::DialectSet;
use super::output::{ToolError, ToolOutput};
use super::render::{ExtensionResults, Fragments};
use crate::protocol::{Dialect, ResolvedToolAnnotations, TOOL_RESOLUTION_EXTENSION};
use crate::{Action, AnnotatedTool, Annotations, ArgumentError, BoundViolation};

/// What a handler call came to.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    /// The arguments do not fit the tool; the handler did not run.
    Invalid(ArgumentError),
    /// The handler returned.
    Returned(Result<ToolOutput, ToolError>),
    /// The handler panicked, with this message.
    Panicked(String),
}

type ErasedCall = Box<dyn Fn(&Value) -> CallOutcome + Send + Sync>;

/// A tool as registered, before rendering: every type-specific part is a
/// constant or a function pointer.
pub(crate) struct ErasedTool {
    name: &'static str,
    title: Option<&'static str>,
    description: Option<&'static str>,
    input_schema: &'static str,
    static_annotations: Annotations,
    actions: &'static [Action],
    resolve: fn(&Value) -> Result<Annotations, ArgumentError>,
    call: ErasedCall,
}

impl ErasedTool {
    pub fn new<T, F>(handler: F) -> Self
    where
        T: AnnotatedTool + 'static,
        F: Fn(T) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let call = move |arguments: &Value| match T::from_arguments(arguments) {
            Err(error) => CallOutcome::Invalid(error),
            Ok(parsed) => match catch_unwind(AssertUnwindSafe(|| handler(parsed))) {
                Ok(result) => CallOutcome::Returned(result),
                Err(payload) => CallOutcome::Panicked(panic_message(payload.as_ref())),
            },
        };
        ErasedTool {
            name: T::NAME,
            title: T::TITLE,
            description: T::DESCRIPTION,
            input_schema: T::input_schema(),
            static_annotations: T::STATIC_ANNOTATIONS,
            actions: T::ACTIONS,
            resolve: resolve_erased::<T>,
            call: Box::new(call),
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }
}

fn resolve_erased<T: AnnotatedTool>(arguments: &Value) -> Result<Annotations, ArgumentError> {
    T::from_arguments(arguments).map(|parsed| parsed.resolve())
}

pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// Why a resolution could not be answered.
#[derive(Debug)]
pub(crate) enum ResolveFailure {
    /// The arguments do not fit the tool.
    Invalid(ArgumentError),
    /// The resolver claimed more risk than the static annotations: a bug of the
    /// tool, reported as an internal error so the client keeps the static ones.
    OutsideBound(BoundViolation),
}

/// A resolution, ready to be written in any dialect.
pub(crate) struct Resolution<'a> {
    annotations: Annotations,
    json: Cow<'a, str>,
}

/// A registered tool with its wire forms rendered.
pub(crate) struct ToolEntry {
    name: &'static str,
    static_annotations: Annotations,
    /// The Tool of `tools/list`.
    listed: Box<str>,
    /// A Tool up to its `annotations` value, and from there on: a resolved
    /// Tool (dialect B) is `head + annotations + tail`.
    head: Box<str>,
    tail: Box<str>,
    fragments: Fragments,
    extension_results: ExtensionResults,
    resolve: fn(&Value) -> Result<Annotations, ArgumentError>,
    call: ErasedCall,
}

impl ToolEntry {
    /// Checks a registered tool and renders its wire forms for `dialects`.
    pub fn render(tool: ErasedTool, dialects: DialectSet) -> Result<Self, BuildError> {
        if tool.name.is_empty() {
            return Err(BuildError::EmptyToolName);
        }
        let schema = check_input_schema(tool.name, tool.input_schema)?;

        let mut fragments = Fragments::default();
        fragments.insert(tool.static_annotations);
        for action in tool.actions {
            let annotations = normalise(action.annotations, &tool.static_annotations);
            annotations
                .check_within(&tool.static_annotations)
                .map_err(|violation| BuildError::ActionOutsideBound {
                    tool: tool.name.to_owned(),
                    action: action.name.to_owned(),
                    violation,
                })?;
            fragments.insert(annotations);
        }

        let head = tool_head(&tool, schema);
        let tail = tool_tail(dialects);
        let static_json = fragments
            .get(&tool.static_annotations)
            .expect("the static annotations were rendered above");
        let listed = format!("{head}{static_json}{tail}").into_boxed_str();

        Ok(ToolEntry {
            name: tool.name,
            static_annotations: tool.static_annotations,
            listed,
            head: head.into_boxed_str(),
            tail: tail.into_boxed_str(),
            fragments,
            extension_results: ExtensionResults::new(tool.name),
            resolve: tool.resolve,
            call: tool.call,
        })
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The Tool JSON of `tools/list`.
    pub fn listed(&self) -> &str {
        &self.listed
    }

    /// Validates `arguments` and resolves them.
    pub fn resolve(&self, arguments: &Value) -> Result<Resolution<'_>, ResolveFailure> {
        let resolved = (self.resolve)(arguments).map_err(ResolveFailure::Invalid)?;
        let annotations = normalise(resolved, &self.static_annotations);
        let json = match self.fragments.get(&annotations) {
            // Every pre-rendered value was checked against the bound at start-up.
            Some(json) => Cow::Borrowed(json),
            None => {
                annotations
                    .check_within(&self.static_annotations)
                    .map_err(ResolveFailure::OutsideBound)?;
                Cow::Owned(annotations.to_string())
            }
        };
        Ok(Resolution { annotations, json })
    }

    /// Appends the result of `dialect` for `resolution` to `out`.
    pub fn write_result(&self, out: &mut Vec<u8>, dialect: Dialect, resolution: &Resolution<'_>) {
        match dialect {
            Dialect::DynamicAnnotations => {
                out.extend_from_slice(br#"{"annotations":"#);
                out.extend_from_slice(resolution.json.as_bytes());
                out.push(b'}');
            }
            Dialect::ResolveTool => {
                out.extend_from_slice(br#"{"tool":"#);
                out.extend_from_slice(self.head.as_bytes());
                out.extend_from_slice(resolution.json.as_bytes());
                out.extend_from_slice(self.tail.as_bytes());
                out.push(b'}');
            }
            Dialect::ToolResolutionExtension => {
                let hints = ResolvedToolAnnotations::from(resolution.annotations);
                out.extend_from_slice(self.extension_results.get(hints).as_bytes());
            }
        }
    }

    /// Validates `arguments` and runs the handler on them.
    pub fn call(&self, arguments: &Value) -> CallOutcome {
        (self.call)(arguments)
    }
}

/// The form a resolution is rendered and compared in: defaults applied, and the
/// tool's title kept when the resolution names none, so a client showing
/// `annotations.title` shows the same name before and after resolving.
fn normalise(resolved: Annotations, static_annotations: &Annotations) -> Annotations {
    let mut annotations = resolved.effective();
    if annotations.title.is_none() {
        annotations.title = static_annotations.title;
    }
    annotations
}

/// The input schema as it will be embedded, after checking it is a JSON object
/// whose root has `"type": "object"`.
fn check_input_schema(tool: &str, schema: &'static str) -> Result<&'static str, BuildError> {
    let invalid = |reason: String| BuildError::InvalidInputSchema {
        tool: tool.to_owned(),
        reason,
    };
    let value: Value = serde_json::from_str(schema).map_err(|error| invalid(error.to_string()))?;
    match value.get("type") {
        Some(Value::String(kind)) if kind == "object" => Ok(schema.trim()),
        _ => Err(invalid(
            "its root must have \"type\": \"object\"".to_owned(),
        )),
    }
}

/// `{"name":...,"title":...,"description":...,"inputSchema":...,"annotations":`,
/// in the field order of [`crate::Tool`].
fn tool_head(tool: &ErasedTool, schema: &str) -> String {
    let quoted = |text: &str| serde_json::to_string(text).expect("a string always serializes");
    let mut head = format!("{{\"name\":{}", quoted(tool.name));
    if let Some(title) = tool.title {
        head.push_str(&format!(",\"title\":{}", quoted(title)));
    }
    if let Some(description) = tool.description {
        head.push_str(&format!(",\"description\":{}", quoted(description)));
    }
    head.push_str(&format!(",\"inputSchema\":{schema},\"annotations\":"));
    head
}

/// The marker of every enabled dialect, then the closing brace.
fn tool_tail(dialects: DialectSet) -> String {
    let mut tail = String::new();
    if dialects.contains(Dialect::DynamicAnnotations) {
        tail.push_str(",\"dynamicAnnotations\":true");
    }
    if dialects.contains(Dialect::ResolveTool) {
        tail.push_str(",\"resolve\":true");
    }
    if dialects.contains(Dialect::ToolResolutionExtension) {
        tail.push_str(&format!(
            ",\"_meta\":{{\"{TOOL_RESOLUTION_EXTENSION}\":{{\"resolvable\":true}}}}"
        ));
    }
    tail.push('}');
    tail
}
