//! Tier b: argument-specific resolutions, in each dialect the server speaks.
//! For every generated set: the resolution stays within the static bound,
//! the same set resolves the same way (twice on one connection, once on
//! another), invalid sets get -32602 and never a result, the extension's
//! answers validate against its JSON Schema, and carry no `_meta` of an
//! extension that was not negotiated.

use std::sync::OnceLock;

use annot_model::{Annotations, Bound, Hint};
use annot_runtime::protocol::{
    METHOD_ANNOTATIONS, METHOD_RESOLVE, SERVER_INFO_META, TOOL_RESOLUTION_EXTENSION, error_code,
};
use serde_json::{Value, json};

use crate::generate::{Case, cases, tool_seed};
use crate::report::{Finding, Verdict};
use crate::session::Connection;
use crate::wire::Exchange;

/// The extension's schema, copied from the extension's draft (2026-08,
/// `tool-resolution.schema.json` of the tool-resolution extension, the file
/// the project keeps as the official shape of dialect C).
const EXTENSION_SCHEMA: &str = include_str!("../fixtures/tool-resolution.schema.json");

/// The three dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `tools/annotations`.
    Annotations,
    /// `tools/resolve`, SEP-1862's `{tool}`.
    ResolveTool,
    /// `tools/resolve` of the tool-resolution extension.
    Extension,
}

impl Dialect {
    pub fn label(self) -> &'static str {
        match self {
            Dialect::Annotations => "tools/annotations",
            Dialect::ResolveTool => "tools/resolve (SEP-1862)",
            Dialect::Extension => "tool-resolution extension",
        }
    }

    fn method(self) -> &'static str {
        match self {
            Dialect::Annotations => METHOD_ANNOTATIONS,
            Dialect::ResolveTool | Dialect::Extension => METHOD_RESOLVE,
        }
    }

    /// The resolved annotations in a result of this dialect.
    pub fn annotations(self, result: &Value) -> Option<Value> {
        let found = match self {
            Dialect::Annotations | Dialect::Extension => result.get("annotations"),
            Dialect::ResolveTool => result.get("tool").and_then(|tool| tool.get("annotations")),
        };
        found.filter(|value| value.is_object()).cloned()
    }
}

/// Hints as `annot_model` reads them; anything but a JSON boolean is absent
/// (no claim), so it counts at the specification's risky default.
pub fn annotations_of(value: &Value) -> Annotations {
    let mut annotations = Annotations::new();
    for hint in Hint::ALL {
        if let Some(Value::Bool(flag)) = value.get(hint.wire_name()) {
            annotations = annotations.with(hint, Some(*flag));
        }
    }
    annotations
}

/// One resolution request and what it gave.
pub fn resolve(
    connection: &mut Connection,
    dialect: Dialect,
    tool: &str,
    arguments: &Value,
) -> Exchange {
    connection.request(
        dialect.method(),
        json!({"name": tool, "arguments": arguments}),
    )
}

fn extension_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let mut schema: Value =
            serde_json::from_str(EXTENSION_SCHEMA).expect("the bundled schema is JSON");
        schema["$ref"] = json!("#/$defs/ResolveToolResultResponse");
        jsonschema::validator_for(&schema).expect("the bundled schema compiles")
    })
}

/// What the tier needs for one dialect.
pub struct Plan<'a> {
    pub dialect: Dialect,
    pub first: &'a mut Connection,
    pub second: &'a mut Connection,
    /// Tools as listed on `first`.
    pub tools: &'a [Value],
    pub seed: u64,
    pub count: usize,
    pub extra: &'a dyn Fn(&str) -> Vec<Value>,
    /// Only this case (`--replay`).
    pub only: Option<(&'a str, usize)>,
    pub progress: &'a indicatif::ProgressBar,
}

/// One failure of one check: its case and the exchanges.
struct Failure {
    case: usize,
    detail: String,
    evidence: Vec<Exchange>,
}

#[derive(Default)]
struct Tally {
    cases: usize,
    failure: Option<Failure>,
    inconclusive: Option<String>,
}

impl Tally {
    fn fail(&mut self, case: &Case, detail: String, evidence: Vec<Exchange>) {
        if self.failure.is_none() {
            let detail = format!("{detail} [{} set]", case.origin);
            self.failure = Some(Failure {
                case: case.index,
                detail,
                evidence,
            });
        }
    }
}

/// Tier b for one dialect over every tool marked for it.
pub fn check(plan: Plan<'_>, marked: impl Fn(&Value) -> bool) -> Vec<Finding> {
    let mut findings = Vec::new();
    for tool in plan.tools.iter().filter(|tool| marked(tool)) {
        let name = tool["name"].as_str().unwrap_or_default();
        if plan.only.is_some_and(|(only, _)| only != name) {
            continue;
        }
        let schema = tool
            .get("inputSchema")
            .cloned()
            .unwrap_or(json!({"type": "object"}));
        let bound = Bound::new(&annotations_of(
            tool.get("annotations").unwrap_or(&Value::Null),
        ));
        let mut all = cases(
            &schema,
            tool_seed(plan.seed, name),
            plan.count,
            &(plan.extra)(name),
            None,
        );
        if let Some((_, index)) = plan.only {
            all.retain(|case| case.index == index);
        }
        let mut within = Tally::default();
        let mut same = Tally::default();
        let mut rejected = Tally::default();
        let mut shaped = Tally::default();
        let mut negotiated = Tally::default();
        let mut unanswered = 0;
        for case in &all {
            plan.progress.inc(1);
            let first = resolve(plan.first, plan.dialect, name, &case.arguments);
            if !case.valid {
                rejected.cases += 1;
                match (first.error_code(), first.result()) {
                    (Some(error_code::INVALID_PARAMS), _) => {}
                    (_, Some(_)) => rejected.fail(
                        case,
                        format!(
                            "invalid arguments {} got a result, not -32602",
                            case.arguments
                        ),
                        vec![first],
                    ),
                    (Some(code), None) => rejected.fail(
                        case,
                        format!(
                            "invalid arguments {} got error {code}, not -32602",
                            case.arguments
                        ),
                        vec![first],
                    ),
                    (None, None) => rejected.fail(
                        case,
                        format!(
                            "invalid arguments {} got {}",
                            case.arguments,
                            first.outcome()
                        ),
                        vec![first],
                    ),
                }
                continue;
            }
            let Some(result) = first.result() else {
                unanswered += 1;
                continue;
            };
            let again = resolve(plan.first, plan.dialect, name, &case.arguments);
            let other = resolve(plan.second, plan.dialect, name, &case.arguments);
            let Some(resolved) = plan.dialect.annotations(&result) else {
                within.cases += 1;
                within.fail(
                    case,
                    "the result carries no annotations object".into(),
                    vec![first.clone()],
                );
                continue;
            };
            within.cases += 1;
            if let Err(violation) = bound.check(&annotations_of(&resolved)) {
                within.fail(
                    case,
                    format!("arguments {}: {violation}", case.arguments),
                    vec![first.clone()],
                );
            }
            same.cases += 1;
            let of =
                |exchange: &Exchange| exchange.result().and_then(|r| plan.dialect.annotations(&r));
            if of(&again).as_ref() != Some(&resolved) {
                same.fail(case, format!("arguments {}: a second request on the same connection resolved differently", case.arguments), vec![first.clone(), again.clone()]);
            } else if of(&other).as_ref() != Some(&resolved) {
                same.fail(
                    case,
                    format!(
                        "arguments {}: another connection resolved differently",
                        case.arguments
                    ),
                    vec![first.clone(), other.clone()],
                );
            }
            if plan.dialect == Dialect::Extension {
                shaped.cases += 1;
                let response = first.parsed().unwrap_or(Value::Null);
                let errors: Vec<String> = extension_validator()
                    .iter_errors(&response)
                    .take(3)
                    .map(|error| format!("{error} at {}", error.instance_path()))
                    .collect();
                if !errors.is_empty() {
                    shaped.fail(case, errors.join("; "), vec![first.clone()]);
                }
                negotiated.cases += 1;
                let foreign: Vec<String> = result
                    .get("_meta")
                    .and_then(Value::as_object)
                    .map(|meta| {
                        meta.keys()
                            .filter(|key| {
                                *key != SERVER_INFO_META && *key != TOOL_RESOLUTION_EXTENSION
                            })
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                if !foreign.is_empty() {
                    negotiated.fail(
                        case,
                        format!(
                            "result `_meta` carries {} that the auditor did not negotiate",
                            foreign.join(", ")
                        ),
                        vec![first.clone()],
                    );
                }
            }
        }
        if unanswered > 0 && within.cases == 0 {
            within.inconclusive = Some(format!(
                "none of the {unanswered} valid sets got a resolution"
            ));
        }
        let subject = format!("{name} [{}]", plan.dialect.label());
        let mut push = |check: &'static str, tally: Tally, pass: &str| {
            findings.push(conclude(check, &subject, name, tally, pass));
        };
        let bound_pass = if unanswered > 0 {
            format!(
                "every resolution within the static bound; {unanswered} more sets valid by the advertised schema were refused with an error"
            )
        } else {
            "every resolution within the static bound".to_owned()
        };
        push("resolve.within_bound", within, &bound_pass);
        push(
            "resolve.deterministic",
            same,
            "same answer twice on one connection and on another",
        );
        push(
            "resolve.invalid_rejected",
            rejected,
            "every invalid set got -32602",
        );
        if plan.dialect == Dialect::Extension {
            push(
                "resolve.answer_schema",
                shaped,
                "every answer validates against the extension's schema",
            );
            push(
                "resolve.meta_negotiated",
                negotiated,
                "no result `_meta` of an extension not negotiated",
            );
        }
    }
    findings
}

fn conclude(check: &'static str, subject: &str, tool: &str, tally: Tally, pass: &str) -> Finding {
    if let Some(failure) = tally.failure {
        return Finding::new(check, subject, Verdict::Violation, failure.detail)
            .with_evidence(failure.evidence)
            .with_cases(tally.cases)
            .with_case(Some(format!("{tool}#{}", failure.case)));
    }
    if let Some(reason) = tally.inconclusive {
        return Finding::new(check, subject, Verdict::Inconclusive(reason), "")
            .with_cases(tally.cases);
    }
    if tally.cases == 0 {
        return Finding::new(
            check,
            subject,
            Verdict::NotApplicable("no case of this kind was generated".into()),
            "",
        );
    }
    Finding::new(
        check,
        subject,
        Verdict::Pass,
        format!("{pass} ({} sets)", tally.cases),
    )
    .with_cases(tally.cases)
}
