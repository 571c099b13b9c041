//! Registered tools, and everything about them that can be rendered once at
//! start-up.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::protocol::{Dialect, ResolvedToolAnnotations};
use crate::read::SplitArguments;
use crate::rules::Explanation;
use crate::rules::table::{RuleTable, table_within};
use crate::server::answers::annotation_json::normalise;
use crate::server::answers::annotation_json::{self, ExtensionResults, Fragments};
use crate::server::answers::output_schema::DeclaredOutput;
use crate::server::answers::profile::{Profile, ProfileViolation};
use crate::server::answers::tool_forms::{self, Listing, ToolParts, resolved_tool_tail};
use crate::server::negotiation::dialects::DialectSet;
use crate::server::registry::build_error::BuildError;
#[cfg(feature = "rmcp")]
use crate::server::registry::erased_tool::ResolveTree;
use crate::server::registry::erased_tool::{
    CallOutcome, ErasedCall, ErasedResolve, ErasedTool, Evaluation, FixedAction, Invocation,
};
use crate::server::registry::profile_narrowing::{Narrowed, narrow};
use crate::{Action, Annotations, ArgumentError, Authorization, Bound, BoundViolation};

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

/// A resolution's arguments, as the reader has them.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arguments<'a> {
    /// An object's JSON text, and its members when the request reader split
    /// them.
    Text(&'a str, Option<&'a SplitArguments<'a>>),
    /// The tree rmcp handed over (an object).
    #[cfg(feature = "rmcp")]
    Tree(&'a Value),
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
    name: Box<str>,
    /// The registered tool's name: `name` but for a per-action tool.
    tool: &'static str,
    /// For a per-action tool, the action its calls and resolutions reach.
    fixed: Option<FixedAction>,
    static_annotations: Annotations,
    /// The bound `static_annotations` set, made once: every resolution is
    /// checked against it, but those read from the `proven` table.
    bound: Bound,
    /// The first rule table a resolution was read from, once every
    /// resolution it can give was found within `bound`.
    proven: ProvenTable,
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
    #[cfg(feature = "rmcp")]
    resolve_tree: ResolveTree,
    call: ErasedCall,
    /// The server's profile, checked on every call and resolution.
    profile: Profile,
    /// The declared `outputSchema`, which every successful result is held to.
    output: Option<Arc<DeclaredOutput>>,
    /// Whether `tools/list` shows the tool: not when the profile left none
    /// of its actions.
    listed_at_all: bool,
}

impl Resolution {
    /// The resolved annotations, normalised against the static ones.
    #[cfg(feature = "rmcp")]
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }
}

impl ToolEntry {
    /// Checks a registered tool and renders its wire forms for `dialects`,
    /// narrowed to what `profile` leaves of it.
    pub fn render(
        mut tool: ErasedTool,
        dialects: DialectSet,
        profile: Profile,
    ) -> Result<Self, BuildError> {
        check_input_schema(&tool.name, &tool.input_schema)?;
        let output = tool
            .output_schema
            .map(|schema| DeclaredOutput::new(&tool.name, schema).map(Arc::new))
            .transpose()?;
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
        let tail = resolved_tool_tail(dialects, tool.display_template);
        let static_json = fragments
            .get(&tool.static_annotations)
            .expect("the static annotations were rendered above");
        let resolvable = can_vary(&tool, &actions);
        let listed = tool_forms::render(
            &ToolParts {
                head: &head,
                annotations: static_json,
                authorization: tool.static_authorization,
                resolvable,
                display_template: tool.display_template,
            },
            dialects,
        );

        let extension_results = ExtensionResults::new(&tool.name);
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
            tool_forms::security_schemes(Some(declared)).len()
        });
        let result_capacity = [
            r#"{"annotations":"#.len() + annotations + extra,
            r#"{"tool":"#.len() + head.len() + annotations + schemes + tail.len() + extra,
            extension_results.longest() + extra,
        ];
        Ok(ToolEntry {
            name: tool.name.into(),
            tool: tool.tool,
            fixed: tool.fixed,
            static_annotations: tool.static_annotations,
            bound: Bound::new(&tool.static_annotations),
            proven: ProvenTable::default(),
            static_authorization: tool.static_authorization,
            listed,
            resolvable,
            head: head.into_boxed_str(),
            tail: tail.into_boxed_str(),
            fragments,
            extension_results,
            result_capacity,
            resolve: tool.resolve,
            #[cfg(feature = "rmcp")]
            resolve_tree: tool.resolve_tree,
            call: tool.call,
            profile,
            output,
            listed_at_all,
        })
    }

    /// The server's profile, which every call and resolution is checked against.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The tool's declared output, if it declares one: every successful
    /// result is checked against it before it is sent.
    pub fn declared_output(&self) -> Option<&Arc<DeclaredOutput>> {
        self.output.as_ref()
    }

    /// Whether `tools/list` shows the tool (a profile may leave nothing of it).
    pub fn is_listed(&self) -> bool {
        self.listed_at_all
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The registered tool's name (the same as [`name`](Self::name) but for
    /// a per-action tool).
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// For a per-action tool, the action it stands for.
    #[cfg(feature = "rmcp")]
    pub fn fixed(&self) -> Option<FixedAction> {
        self.fixed
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

    /// Validates `arguments` and resolves them, with the explanation when
    /// `explain` is set. A per-action tool's arguments are its registered
    /// tool's with the discriminator put back.
    pub fn resolve(
        &self,
        arguments: Arguments<'_>,
        explain: bool,
    ) -> Result<Resolution, ResolveFailure> {
        let evaluation = match arguments {
            Arguments::Text(text, split) => self.evaluate_text(text, split, explain),
            #[cfg(feature = "rmcp")]
            Arguments::Tree(tree) => self.evaluate_tree(tree, explain),
        };
        self.settle(evaluation.map_err(ResolveFailure::Invalid)?)
    }

    fn evaluate_text(
        &self,
        arguments: &str,
        split: Option<&SplitArguments<'_>>,
        explain: bool,
    ) -> Result<Evaluation, ArgumentError> {
        match self.fixed {
            None => (self.resolve)(arguments, split, explain),
            Some(fixed) => {
                // The split belongs to the text without the discriminator.
                (self.resolve)(&fixed.arguments(arguments)?, None, explain)
            }
        }
    }

    #[cfg(feature = "rmcp")]
    fn evaluate_tree(&self, arguments: &Value, explain: bool) -> Result<Evaluation, ArgumentError> {
        let Some(fixed) = self.fixed else {
            return (self.resolve_tree)(arguments, explain);
        };
        let mut object = arguments.as_object().cloned().unwrap_or_default();
        if object.contains_key(fixed.discriminator) {
            return Err(fixed.discriminator_given());
        }
        object.insert(fixed.discriminator.to_owned(), fixed.action.into());
        (self.resolve_tree)(&Value::Object(object), explain)
    }

    /// Checks an evaluation of this tool's arguments against the profile,
    /// the declared authorization and the static bound, and normalises it.
    fn settle(&self, evaluation: Evaluation) -> Result<Resolution, ResolveFailure> {
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
        // Every resolution, pre-rendered or not, but one read from a table
        // all of whose resolutions were checked once.
        let proven = evaluation.table.is_some_and(|table| {
            self.proven
                .holds(table, &self.bound, self.static_authorization)
        });
        if !proven {
            self.bound
                .check(&annotations)
                .map_err(ResolveFailure::OutsideBound)?;
        }
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
            None => annotation_json::write_annotations(out, annotations),
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
                    annotation_json::write_security_schemes(out, resolution.authorization);
                }
                out.extend_from_slice(self.tail.as_bytes());
            }
            Dialect::ToolResolutionExtension => {
                // Normalised: defaults applied already.
                let hints = ResolvedToolAnnotations::of_effective(&resolution.annotations);
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

    /// Validates `arguments` (JSON text, and its members when the request
    /// reader split them) and runs the handler on them; with
    /// `invocation.trust`, the outcome carries the floor of the result's
    /// claims. A per-action tool's arguments reach it with the discriminator
    /// put back.
    pub fn call(
        &self,
        arguments: &str,
        split: Option<&SplitArguments<'_>>,
        invocation: Invocation<'_>,
    ) -> CallOutcome {
        match self.fixed {
            None => (self.call)(arguments, split, self.profile, invocation),
            Some(fixed) => match fixed.arguments(arguments) {
                Ok(with_action) => (self.call)(&with_action, None, self.profile, invocation),
                Err(error) => CallOutcome::Invalid(error),
            },
        }
    }
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

/// `{"name":...,"title":...,"description":...,"inputSchema":...,"outputSchema":...,"annotations":`,
/// in the field order of [`crate::Tool`]; `outputSchema` when declared.
fn tool_head(tool: &ErasedTool, schema: &str) -> String {
    let quoted = |text: &str| serde_json::to_string(text).expect("a string always serializes");
    let mut head = format!("{{\"name\":{}", quoted(&tool.name));
    if let Some(title) = &tool.title {
        head.push_str(&format!(",\"title\":{}", quoted(title)));
    }
    if let Some(description) = &tool.description {
        head.push_str(&format!(",\"description\":{}", quoted(description)));
    }
    head.push_str(&format!(",\"inputSchema\":{schema}"));
    if let Some(output) = tool.output_schema {
        head.push_str(&format!(",\"outputSchema\":{}", output.trim()));
    }
    head.push_str(",\"annotations\":");
    head
}

/// The rule table of a tool's resolutions, found within its bound the first
/// time one was read from it: later ones need no check of their own.
///
/// Found on the first resolution rather than when the server is built: a
/// constant's address is not its identity, so the table a tool's
/// `rule_table` names and the one its generated reader reads from may lie
/// apart, and the one proven is the one resolutions come from.
#[derive(Default)]
struct ProvenTable(AtomicUsize);

/// [`ProvenTable`] before any table was read from, and once the first one
/// read from was not within the bound (then every resolution is checked).
const UNTRIED: usize = 0;
const REFUSED: usize = 1;

impl ProvenTable {
    /// Whether every resolution `table` can give is within `bound` and
    /// `authorization`: said from memory for the table proven, found (once)
    /// for the first table.
    #[inline]
    fn holds(
        &self,
        table: &'static RuleTable,
        bound: &Bound,
        authorization: Option<Authorization>,
    ) -> bool {
        let address = core::ptr::from_ref(table) as usize;
        match self.0.load(Ordering::Relaxed) {
            proven if proven == address => true,
            UNTRIED => {
                let within = every_outcome_within(table, bound, authorization);
                let state = if within { address } else { REFUSED };
                // A race stores the same finding, or one for another table.
                let _ =
                    self.0
                        .compare_exchange(UNTRIED, state, Ordering::Relaxed, Ordering::Relaxed);
                within
            }
            _ => false,
        }
    }
}

/// Whether every resolution `table` can give is within `bound`: what
/// [`table_within`] proves of its rules (the compile-time proof of the
/// generated code, here against the bound a profile may have lowered), and
/// the resolutions it stores ready-made, each checked as it stands.
fn every_outcome_within(
    table: &RuleTable,
    bound: &Bound,
    authorization: Option<Authorization>,
) -> bool {
    table_within(table, *bound.declared(), authorization)
        && table
            .actions
            .iter()
            .all(|row| bound.check(&row.resolved).is_ok())
        && table
            .outcomes
            .iter()
            .all(|outcome| bound.check(outcome).is_ok())
}

/// An action's annotations, normalised against the tool's static ones, or
/// the error naming it when they are not within them.
fn action_within_bound(tool: &ErasedTool, action: &Action) -> Result<Annotations, BuildError> {
    let annotations = normalise(action.annotations, &tool.static_annotations);
    annotations
        .check_within(&tool.static_annotations)
        .map_err(|violation| BuildError::ActionOutsideBound {
            tool: tool.name.to_string(),
            action: action.name.to_owned(),
            violation,
        })?;
    Ok(annotations)
}
