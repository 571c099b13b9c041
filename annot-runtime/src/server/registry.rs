//! Registered tools with their types erased, and everything about them that
//! can be rendered once at start-up.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use super::builder::BuildError;
use super::call::Call;
use super::listing::{self, Listing, ToolParts, resolved_tool_tail};
use super::narrow::{Narrowed, narrow};
use super::negotiation::DialectSet;
use super::output::{ToolError, ToolOutput};
use super::profile::{Profile, ProfileViolation};
use super::render::{self, ExtensionResults, Fragments};
use crate::private::SplitArguments;
use crate::protocol::{Dialect, ResolvedToolAnnotations};
use crate::rules::{Explanation, RuleTable};
use crate::{
    Action, AnnotatedTool, Annotations, ArgumentError, Authorization, Bound, BoundViolation, Rule,
};

/// What a handler call came to.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    /// The arguments do not fit the tool; the handler did not run.
    Invalid(ArgumentError),
    /// The handler returned.
    Returned(Result<ToolOutput, ToolError>),
    /// The handler panicked, with this message.
    Panicked(String),
    /// The arguments resolve outside the server's profile; the handler did
    /// not run.
    Refused(ProfileViolation),
}

/// Runs a call on the arguments' JSON text (an object), unless its resolved
/// annotations are outside the profile.
type ErasedCall = Box<dyn Fn(&str, Profile) -> CallOutcome + Send + Sync>;

/// A tool as registered, before rendering: every type-specific part is a
/// constant or a function pointer.
pub(crate) struct ErasedTool {
    name: &'static str,
    title: Option<&'static str>,
    description: Option<&'static str>,
    pub(super) input_schema: &'static str,
    pub(super) static_annotations: Annotations,
    pub(super) static_authorization: Option<Authorization>,
    has_rules: bool,
    pub(super) rules: &'static [Rule],
    pub(super) rule_table: Option<&'static RuleTable>,
    pub(super) actions: &'static [Action],
    pub(super) narrowed_schema: fn(&[usize]) -> String,
    resolve: ErasedResolve,
    call: ErasedCall,
}

/// Resolves arguments (their JSON text, an object, and its members when the
/// request reader split them), explaining the resolution when asked.
type ErasedResolve =
    fn(&str, Option<&SplitArguments<'_>>, bool) -> Result<Evaluation, ArgumentError>;

/// One call's resolution and what comes with it.
pub(crate) struct Evaluation {
    annotations: Annotations,
    authorization: Option<Authorization>,
    /// Boxed: built only when asked for, and a large value otherwise moved
    /// along with every resolution.
    explanation: Option<Box<Explanation>>,
}

impl ErasedTool {
    pub fn new<T, F>(handler: F) -> Self
    where
        T: AnnotatedTool + 'static,
        F: Fn(T) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let call = move |arguments: &str, profile: Profile| {
            run_call::<T>(arguments, profile, false, |parsed, _| handler(parsed))
        };
        Self::erase::<T>(Box::new(call))
    }

    /// A tool whose handler also receives the call's [`Call`]: its resolved
    /// annotations, for guards.
    pub fn with_call<T, F>(handler: F) -> Self
    where
        T: AnnotatedTool + 'static,
        F: Fn(T, &Call) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let call = move |arguments: &str, profile: Profile| {
            run_call::<T>(arguments, profile, true, |parsed, call| {
                let call = call.expect("asked for");
                handler(parsed, call)
            })
        };
        Self::erase::<T>(Box::new(call))
    }

    fn erase<T: AnnotatedTool + 'static>(call: ErasedCall) -> Self {
        ErasedTool {
            name: T::NAME,
            title: T::TITLE,
            description: T::DESCRIPTION,
            input_schema: T::input_schema(),
            static_annotations: T::STATIC_ANNOTATIONS,
            static_authorization: T::STATIC_AUTHORIZATION,
            has_rules: !T::RULES.is_empty(),
            rules: T::RULES,
            rule_table: T::RULE_TABLE,
            actions: T::ACTIONS,
            narrowed_schema: T::input_schema_for,
            resolve: resolve_erased::<T>,
            call,
        }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether the tool has rules on argument values.
    pub fn has_rules(&self) -> bool {
        self.has_rules
    }

    /// Whether the tool declares authorization.
    pub fn has_authorization(&self) -> bool {
        self.static_authorization.is_some()
    }
}

/// Parses `arguments` for `T`, checks them against `profile` and runs
/// `handler` on them, with their [`Call`] when `with_call` is set.
fn run_call<T: AnnotatedTool>(
    arguments: &str,
    profile: Profile,
    with_call: bool,
    handler: impl FnOnce(T, Option<&Call>) -> Result<ToolOutput, ToolError>,
) -> CallOutcome {
    // The arguments go to the tool's parser as text: one entry point,
    // `from_arguments_str`, which a generated borrowing parser can take
    // over without a `serde_json::Value` in between.
    let parsed = match T::from_arguments_str(arguments) {
        Err(error) => return CallOutcome::Invalid(error),
        Ok(parsed) => parsed,
    };
    // One evaluation serves both the profile and the handler.
    let call = with_call.then(|| Call::of(&parsed, profile));
    // The profile judges the value the handler would receive.
    if !profile.is_any() {
        let resolved = call.map_or_else(|| parsed.resolve(), |call| *call.annotations());
        if let Err(violation) = profile.check(&resolved) {
            return CallOutcome::Refused(violation);
        }
    }
    match catch_unwind(AssertUnwindSafe(|| handler(parsed, call.as_ref()))) {
        Ok(result) => CallOutcome::Returned(result),
        Err(payload) => CallOutcome::Panicked(panic_message(payload.as_ref())),
    }
}

fn resolve_erased<T: AnnotatedTool>(
    arguments: &str,
    split: Option<&SplitArguments<'_>>,
    explain: bool,
) -> Result<Evaluation, ArgumentError> {
    // One evaluation, read straight from the request's own reading where the
    // tool can: every predicate runs once, whatever is read from it. What
    // the borrowing path leaves, the owned path decides.
    // Read where it was returned, not moved: profiles showed the copy of the
    // whole outcome, just after the callee wrote it field by field, stalling.
    let viewed = split.and_then(|split| T::evaluate_split(arguments, split));
    let owned;
    let outcome = match &viewed {
        Some(outcome) => outcome,
        None => {
            owned = T::evaluate_arguments_str(arguments)?;
            &owned
        }
    };
    Ok(Evaluation {
        annotations: outcome.annotations(),
        authorization: outcome.authorization(),
        explanation: explain.then(|| Box::new(outcome.explain())),
    })
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
    /// The resolver needs more authorization than the tool declares.
    AuthorizationOutsideBound,
    /// The arguments resolve outside the server's profile.
    OutsideProfile(ProfileViolation),
}

/// A resolution, ready to be written in any dialect.
pub(crate) struct Resolution {
    annotations: Annotations,
    /// The authorization the call needs, if the tool declares any.
    pub authorization: Option<Authorization>,
    /// The explanation, when it was asked for.
    pub explanation: Option<Box<Explanation>>,
}

/// A registered tool with its wire forms rendered.
pub(crate) struct ToolEntry {
    name: &'static str,
    static_annotations: Annotations,
    /// The bound `static_annotations` set, made once: every resolution is
    /// checked against it.
    bound: Bound,
    static_authorization: Option<Authorization>,
    /// The Tool of `tools/list`, one form per [`Listing`].
    listed: [Box<str>; 4],
    /// Whether the annotations can vary with the arguments: only such a tool
    /// is marked, and only such a tool is resolved.
    resolvable: bool,
    /// A Tool up to its `annotations` value, and from there on: a resolved
    /// Tool (dialect B) is `head + annotations + tail`.
    head: Box<str>,
    tail: Box<str>,
    fragments: Fragments,
    extension_results: ExtensionResults,
    /// The length of the longest result of each dialect (A, B, C) without
    /// `_meta`, from the pre-rendered parts: what a response reserves.
    result_capacity: [usize; 3],
    resolve: ErasedResolve,
    call: ErasedCall,
    /// The server's profile, checked on every call and resolution.
    profile: Profile,
    /// Whether `tools/list` shows the tool: not when the profile left none
    /// of its actions.
    listed_at_all: bool,
}

impl ToolEntry {
    /// Checks a registered tool and renders its wire forms for `dialects`,
    /// narrowed to what `profile` leaves of it.
    pub fn render(
        mut tool: ErasedTool,
        dialects: DialectSet,
        profile: Profile,
    ) -> Result<Self, BuildError> {
        if tool.name.is_empty() {
            return Err(BuildError::EmptyToolName);
        }
        check_input_schema(tool.name, tool.input_schema)?;
        for action in tool.actions {
            action_within_bound(&tool, action)?;
        }
        let Narrowed {
            actions,
            schema,
            listed: listed_at_all,
        } = narrow(&mut tool, profile);

        let mut fragments = Fragments::default();
        fragments.insert(tool.static_annotations);
        for action in &actions {
            // Against the bound narrowing left: the kept actions' join.
            fragments.insert(action_within_bound(&tool, action)?);
        }

        let head = tool_head(&tool, &schema);
        let tail = resolved_tool_tail(dialects);
        let static_json = fragments
            .get(&tool.static_annotations)
            .expect("the static annotations were rendered above");
        let resolvable = can_vary(&tool, &actions);
        let listed = listing::render(
            &ToolParts {
                head: &head,
                annotations: static_json,
                authorization: tool.static_authorization,
                resolvable,
            },
            dialects,
        );

        let extension_results = ExtensionResults::new(tool.name);
        // Each dialect's result with the longest annotations, with
        // `resultType`, its closing brace and the response's on top.
        // A rule-based resolution can combine hints no action declares: the
        // longest it can render has every hint, each `false`.
        let every_hint = crate::Hint::ALL
            .iter()
            .fold(tool.static_annotations, |all, hint| {
                all.with(*hint, Some(false))
            });
        let annotations = fragments.longest().max(every_hint.to_string().len());
        let extra = r#","resultType":"complete"}}"#.len();
        let schemes = tool.static_authorization.map_or(0, |declared| {
            listing::security_schemes(Some(declared)).len()
        });
        let result_capacity = [
            r#"{"annotations":"#.len() + annotations + extra,
            r#"{"tool":"#.len() + head.len() + annotations + schemes + tail.len() + extra,
            extension_results.longest() + extra,
        ];
        Ok(ToolEntry {
            name: tool.name,
            static_annotations: tool.static_annotations,
            bound: Bound::new(&tool.static_annotations),
            static_authorization: tool.static_authorization,
            listed,
            resolvable,
            head: head.into_boxed_str(),
            tail: tail.into_boxed_str(),
            fragments,
            extension_results,
            result_capacity,
            resolve: tool.resolve,
            call: tool.call,
            profile,
            listed_at_all,
        })
    }

    /// The server's profile, which every call and resolution is checked against.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Whether `tools/list` shows the tool (a profile may leave nothing of it).
    pub fn is_listed(&self) -> bool {
        self.listed_at_all
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The Tool JSON of `tools/list` for one kind of client.
    pub fn listed(&self, listing: Listing) -> &str {
        &self.listed[listing.index()]
    }

    /// Whether the tool is marked resolvable: its annotations can vary with
    /// its arguments.
    pub fn resolvable(&self) -> bool {
        self.resolvable
    }

    /// The bytes a result of `dialect` takes, but for its `_meta`: enough
    /// for every result the tool can give, so that writing one never grows
    /// the buffer.
    pub fn result_capacity(&self, dialect: Dialect) -> usize {
        self.result_capacity[match dialect {
            Dialect::DynamicAnnotations => 0,
            Dialect::ResolveTool => 1,
            Dialect::ToolResolutionExtension => 2,
        }]
    }

    /// Validates `arguments` (`split` into their members by the request
    /// reader, when it did) and resolves them, with the explanation when
    /// `explain` is set.
    pub fn resolve(
        &self,
        arguments: &str,
        split: Option<&SplitArguments<'_>>,
        explain: bool,
    ) -> Result<Resolution, ResolveFailure> {
        let evaluation =
            (self.resolve)(arguments, split, explain).map_err(ResolveFailure::Invalid)?;
        // Before the bound: a dropped action is outside the narrowed bound too,
        // and the profile is what the client should hear about.
        self.profile
            .check(&evaluation.annotations)
            .map_err(ResolveFailure::OutsideProfile)?;
        if let (Some(needed), Some(declared)) =
            (evaluation.authorization, self.static_authorization)
            && !needed.is_within(&declared)
        {
            return Err(ResolveFailure::AuthorizationOutsideBound);
        }
        let annotations = normalise(evaluation.annotations, &self.static_annotations);
        // Every resolution, pre-rendered or not: comparing ten hints costs
        // less than looking the rendered value up, which only the dialects
        // that show it do.
        self.bound
            .check(&annotations)
            .map_err(ResolveFailure::OutsideBound)?;
        Ok(Resolution {
            annotations,
            authorization: evaluation.authorization.or(self.static_authorization),
            explanation: evaluation.explanation,
        })
    }

    /// Appends the annotations' JSON to `out`: pre-rendered when the value
    /// was seen at start-up, else rendered here.
    fn write_annotations(&self, out: &mut Vec<u8>, annotations: &Annotations) {
        match self.fragments.get(annotations) {
            Some(json) => out.extend_from_slice(json.as_bytes()),
            // Straight into the response, which has room for it.
            None => render::write_annotations(out, annotations),
        }
    }

    /// Appends the result of `dialect` for `resolution` to `out`, with `meta`
    /// (a JSON object's text) as the result's `_meta`, and with
    /// `"resultType":"complete"` when `result_type` is set (dialect C's
    /// results always carry it).
    pub fn write_result(
        &self,
        out: &mut Vec<u8>,
        dialect: Dialect,
        resolution: &Resolution,
        meta: Option<&str>,
        result_type: bool,
    ) {
        match dialect {
            Dialect::DynamicAnnotations => {
                out.extend_from_slice(br#"{"annotations":"#);
                self.write_annotations(out, &resolution.annotations);
            }
            Dialect::ResolveTool => {
                out.extend_from_slice(br#"{"tool":"#);
                out.extend_from_slice(self.head.as_bytes());
                self.write_annotations(out, &resolution.annotations);
                if self.static_authorization.is_some() {
                    listing::write_security_schemes(out, resolution.authorization);
                }
                out.extend_from_slice(self.tail.as_bytes());
            }
            Dialect::ToolResolutionExtension => {
                let hints = ResolvedToolAnnotations::from(resolution.annotations);
                let result = self.extension_results.get(hints);
                // Every rendered result is an object: reopen it for `_meta`.
                out.extend_from_slice(&result.as_bytes()[..result.len() - 1]);
            }
        }
        if result_type && dialect != Dialect::ToolResolutionExtension {
            out.extend_from_slice(br#","resultType":"complete""#);
        }
        if let Some(meta) = meta {
            out.extend_from_slice(br#","_meta":"#);
            out.extend_from_slice(meta.as_bytes());
        }
        out.push(b'}');
    }

    /// Validates `arguments` (JSON text) and runs the handler on them.
    pub fn call(&self, arguments: &str) -> CallOutcome {
        (self.call)(arguments, self.profile)
    }
}

/// The form a resolution is rendered and compared in: defaults applied, and the
/// tool's title kept when the resolution names none, so a client showing
/// `annotations.title` shows the same name before and after resolving.
pub(super) fn normalise(resolved: Annotations, static_annotations: &Annotations) -> Annotations {
    let mut annotations = resolved.effective();
    if annotations.title.is_none() {
        annotations.title = static_annotations.title;
    }
    annotations
}

/// Whether a tool's annotations can vary with its arguments: it has rules on
/// argument values, or its actions resolve to at least two different values.
/// A tool with a single action, or whose actions all resolve alike, always
/// resolves to the same annotations, so it is not marked (and a resolution
/// request for it gets `-32602`, as for an unknown tool).
fn can_vary(tool: &ErasedTool, actions: &[Action]) -> bool {
    let hints = |action: &Action| Annotations {
        title: None,
        ..normalise(action.annotations, &tool.static_annotations)
    };
    tool.has_rules
        || actions
            .split_first()
            .is_some_and(|(first, rest)| rest.iter().any(|action| hints(action) != hints(first)))
}

/// The input schema as it will be embedded, after checking it is a JSON object
/// whose root has `"type": "object"`.
fn check_input_schema(tool: &str, schema: &str) -> Result<(), BuildError> {
    let invalid = |reason: String| BuildError::InvalidInputSchema {
        tool: tool.to_owned(),
        reason,
    };
    let value: Value = serde_json::from_str(schema).map_err(|error| invalid(error.to_string()))?;
    match value.get("type") {
        Some(Value::String(kind)) if kind == "object" => Ok(()),
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

/// An action's annotations, normalised against the tool's static ones, or
/// the error naming it when they are not within them.
fn action_within_bound(tool: &ErasedTool, action: &Action) -> Result<Annotations, BuildError> {
    let annotations = normalise(action.annotations, &tool.static_annotations);
    annotations
        .check_within(&tool.static_annotations)
        .map_err(|violation| BuildError::ActionOutsideBound {
            tool: tool.name.to_owned(),
            action: action.name.to_owned(),
            violation,
        })?;
    Ok(annotations)
}
