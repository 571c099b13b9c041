//! A registered tool with its type erased: every type-specific part a
//! constant or a function pointer, and its calls and resolutions behind them.

use std::any::Any;
use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::read::SplitArguments;
use crate::rules::Explanation;
use crate::rules::table::{Outcome, RuleTable};
use crate::server::answers::call_context::Call;
use crate::server::answers::profile::{Profile, ProfileViolation};
use crate::server::answers::tool_output::{ToolError, ToolOutput};
use crate::server::answers::trust_claims::Floor;
use crate::server::transport::in_flight::CallControl;
use crate::{Action, AnnotatedTool, Annotations, ArgumentError, Authorization, Rule};

/// What a handler call came to.
#[derive(Debug)]
pub(crate) enum CallOutcome {
    /// The arguments do not fit the tool; the handler did not run.
    Invalid(ArgumentError),
    /// The handler returned, with the floor of its trust claims when the
    /// client negotiated the trust-annotations extension.
    Returned(Result<ToolOutput, ToolError>, Option<Floor>),
    /// The handler panicked, with this message.
    Panicked(String),
    /// The arguments resolve outside the server's profile; the handler did
    /// not run.
    Refused(ProfileViolation),
}

/// Runs a call on the arguments' JSON text (an object, and its members when
/// the request reader split them), unless its resolved annotations are
/// outside the profile. Shared by a tool and the per-action tools exposed for
/// it.
pub(crate) type ErasedCall = Arc<
    dyn Fn(&str, Option<&SplitArguments<'_>>, Profile, Invocation<'_>) -> CallOutcome + Send + Sync,
>;

/// What a call brings besides its arguments.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Invocation<'a> {
    /// The client negotiated the trust-annotations extension.
    pub trust: bool,
    /// The call runs beside its session: its cancellation flag and progress.
    pub control: Option<&'a Arc<CallControl>>,
}

/// A tool as registered, before rendering: every type-specific part is a
/// constant or a function pointer.
pub(crate) struct ErasedTool {
    /// The name it is listed and called by.
    pub(crate) name: Cow<'static, str>,
    /// The registered tool's name ([`AnnotatedTool::NAME`]).
    pub(crate) tool: &'static str,
    pub(crate) title: Option<Cow<'static, str>>,
    pub(crate) description: Option<Cow<'static, str>>,
    pub(crate) input_schema: Cow<'static, str>,
    /// The `outputSchema` (`AnnotatedTool::output_schema`), the same for
    /// each per-action tool.
    pub(crate) output_schema: Option<&'static str>,
    pub(crate) discriminator: Option<&'static str>,
    /// The call preview listed on the tool (`AnnotatedTool::DISPLAY_TEMPLATE`).
    pub(crate) display_template: Option<&'static str>,
    /// Each action's call preview (`AnnotatedTool::DISPLAY_TEMPLATES`), listed
    /// on its per-action tool.
    pub(crate) display_templates: &'static [&'static str],
    pub(crate) static_annotations: Annotations,
    pub(crate) static_authorization: Option<Authorization>,
    pub(crate) has_rules: bool,
    pub(crate) rules: &'static [Rule],
    pub(crate) rule_table: Option<&'static RuleTable>,
    pub(crate) actions: &'static [Action],
    pub(crate) narrowed_schema: fn(&[usize]) -> String,
    pub(crate) resolve: ErasedResolve,
    /// The same resolution of arguments rmcp handed over as a tree.
    #[cfg(feature = "rmcp")]
    pub(crate) resolve_tree: ResolveTree,
    pub(crate) call: ErasedCall,
    /// For a per-action tool: the action of the registered tool it stands
    /// for, whose discriminator its calls leave out.
    pub(crate) fixed: Option<FixedAction>,
}

/// The action a per-action tool stands for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FixedAction {
    /// The registered tool's name.
    pub tool: &'static str,
    /// The registered tool's discriminator.
    pub discriminator: &'static str,
    /// The action's wire name.
    pub action: &'static str,
    /// The action's row in the registered tool's `ACTIONS`.
    pub index: usize,
}

/// Resolves arguments (their JSON text, an object, and its members when the
/// request reader split them), explaining the resolution when asked.
pub(crate) type ErasedResolve =
    fn(&str, Option<&SplitArguments<'_>>, bool) -> Result<Evaluation, ArgumentError>;

/// Resolves arguments rmcp handed over as a tree (an object), explaining the
/// resolution when asked: the arguments parsed by `T::from_arguments`, the
/// value a `tools/call` hands its handler.
#[cfg(feature = "rmcp")]
pub(crate) type ResolveTree = fn(&serde_json::Value, bool) -> Result<Evaluation, ArgumentError>;

/// One call's resolution and what comes with it.
pub(crate) struct Evaluation {
    pub(crate) annotations: Annotations,
    pub(crate) authorization: Option<Authorization>,
    /// Boxed: built only when asked for, and a large value otherwise moved
    /// along with every resolution.
    pub(crate) explanation: Option<Box<Explanation>>,
    /// The rule table `annotations` were read from, on a row it has: one
    /// whose every resolution was found within the tool's bound when the
    /// server was built needs no check of its own.
    pub(crate) table: Option<&'static RuleTable>,
}

impl Evaluation {
    /// The evaluation `outcome` gives, explained when `explain` is set.
    #[inline]
    pub(crate) fn of(outcome: &Outcome, explain: bool) -> Self {
        Evaluation {
            annotations: outcome.annotations(),
            authorization: outcome.authorization(),
            explanation: explain.then(|| Box::new(outcome.explain())),
            table: outcome.parts().map(|(table, ..)| table),
        }
    }
}

impl ErasedTool {
    pub fn new<T, F>(handler: F) -> Self
    where
        T: AnnotatedTool + 'static,
        F: Fn(T) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let call = move |arguments: &str,
                         split: Option<&SplitArguments<'_>>,
                         profile,
                         invocation: Invocation<'_>| {
            let wants = Wants {
                call: false,
                trust: invocation.trust,
            };
            run_call::<T>((arguments, split), profile, wants, None, |parsed, _| {
                handler(parsed)
            })
        };
        Self::erase::<T>(Arc::new(call))
    }

    /// A tool whose handler also receives the call's [`Call`]: its resolved
    /// annotations, for guards.
    pub fn with_call<T, F>(handler: F) -> Self
    where
        T: AnnotatedTool + 'static,
        F: Fn(T, &Call) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let call = move |arguments: &str,
                         split: Option<&SplitArguments<'_>>,
                         profile,
                         invocation: Invocation<'_>| {
            let wants = Wants {
                call: true,
                trust: invocation.trust,
            };
            let control = invocation.control;
            run_call::<T>(
                (arguments, split),
                profile,
                wants,
                control,
                |parsed, call| {
                    let call = call.expect("asked for");
                    handler(parsed, call)
                },
            )
        };
        Self::erase::<T>(Arc::new(call))
    }

    fn erase<T: AnnotatedTool + 'static>(call: ErasedCall) -> Self {
        ErasedTool {
            name: Cow::Borrowed(T::NAME),
            tool: T::NAME,
            title: T::TITLE.map(Cow::Borrowed),
            description: T::DESCRIPTION.map(Cow::Borrowed),
            input_schema: Cow::Borrowed(T::input_schema()),
            output_schema: T::output_schema(),
            discriminator: T::DISCRIMINATOR,
            display_template: T::DISPLAY_TEMPLATE,
            display_templates: T::DISPLAY_TEMPLATES,
            static_annotations: T::STATIC_ANNOTATIONS,
            static_authorization: T::STATIC_AUTHORIZATION,
            has_rules: !T::RULES.is_empty(),
            rules: T::RULES,
            rule_table: T::GENERATED.rule_table,
            actions: T::ACTIONS,
            narrowed_schema: T::input_schema_for,
            resolve: resolve_erased::<T>,
            #[cfg(feature = "rmcp")]
            resolve_tree: resolve_tree::<T>,
            call,
            fixed: None,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
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

/// What a call needs besides the handler's answer.
#[derive(Clone, Copy)]
struct Wants {
    /// The handler takes the [`Call`].
    call: bool,
    /// The client negotiated the trust-annotations extension: the answer
    /// carries the floor of its claims.
    trust: bool,
}

/// Parses `arguments` for `T`, checks them against `profile` and runs
/// `handler` on them, with their [`Call`] (under `control`, when the call
/// runs beside its session) when it wants one.
fn run_call<T: AnnotatedTool>(
    (arguments, split): (&str, Option<&SplitArguments<'_>>),
    profile: Profile,
    wants: Wants,
    control: Option<&Arc<CallControl>>,
    handler: impl FnOnce(T, Option<&Call>) -> Result<ToolOutput, ToolError>,
) -> CallOutcome {
    // Read from the members the request reader split where the tool can,
    // with no `serde_json::Value` in between; what that leaves (an error
    // among them), the owned path decides, and gives the error.
    let parsed = match (T::GENERATED.from_members)(arguments, split) {
        Some(parsed) => parsed,
        None => match T::from_arguments_str(arguments) {
            Err(error) => return CallOutcome::Invalid(error),
            Ok(parsed) => parsed,
        },
    };
    // One evaluation serves the profile, the handler and the claims' floor.
    let evaluated = (wants.call || wants.trust)
        .then(|| Call::of(&parsed, profile).with_trust_negotiated(wants.trust));
    // The profile judges the value the handler would receive.
    if !profile.is_any() {
        let resolved = evaluated
            .as_ref()
            .map_or_else(|| parsed.resolve(), |call| *call.annotations());
        if let Err(violation) = profile.check(&resolved) {
            return CallOutcome::Refused(violation);
        }
    }
    let floor = evaluated
        .as_ref()
        .filter(|_| wants.trust)
        .map(|call| call.floor());
    let call = evaluated
        .filter(|_| wants.call)
        .map(|call| call.with_control(control.cloned()));
    match catch_unwind(AssertUnwindSafe(|| handler(parsed, call.as_ref()))) {
        Ok(result) => CallOutcome::Returned(result, floor),
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
    let viewed = split.and_then(|split| (T::GENERATED.evaluate_split)(arguments, split));
    let owned;
    let outcome = match &viewed {
        Some(outcome) => outcome,
        None => {
            owned = (T::GENERATED.evaluate_arguments_str)(arguments)?;
            &owned
        }
    };
    Ok(Evaluation::of(outcome, explain))
}

#[cfg(feature = "rmcp")]
fn resolve_tree<T: AnnotatedTool>(
    arguments: &serde_json::Value,
    explain: bool,
) -> Result<Evaluation, ArgumentError> {
    let outcome = (T::GENERATED.evaluate)(&T::from_arguments(arguments)?);
    Ok(Evaluation::of(&outcome, explain))
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
