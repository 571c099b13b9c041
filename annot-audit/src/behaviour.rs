//! Tier c: what calls do, judged by their resolved annotations (the static
//! ones when the server does not resolve). Each observation starts from a
//! verified clean reset: a new sandbox seeded and compared with the baseline
//! snapshot, a new server started in it (ahead of time: `warm`). A
//! violation counts only when 3 more observations from a clean reset show it.

use std::collections::BTreeMap;
use std::path::Path;

use annot_model::Annotations;
use serde_json::{Value, json};

use crate::generate::{Case, cases, tool_seed};
use crate::report::{Finding, Verdict};
use crate::resolution::{Dialect, annotations_of, resolve};
use crate::session::{Connection, Launch, Network};
use crate::snapshot::{self, Snapshot};
use crate::warm::{Fresh, Starter};
use crate::wire::Exchange;

/// How many further observations a violation needs before it is reported.
const REPRODUCTIONS: usize = 3;

/// One behaviour check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    ReadOnly,
    NonDestructive,
    Idempotent,
    ClosedWorld,
}

impl Kind {
    const ALL: [Kind; 4] = [
        Kind::ReadOnly,
        Kind::NonDestructive,
        Kind::Idempotent,
        Kind::ClosedWorld,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::ReadOnly => "behaviour.read_only",
            Kind::NonDestructive => "behaviour.non_destructive",
            Kind::Idempotent => "behaviour.idempotent",
            Kind::ClosedWorld => "behaviour.closed_world",
        }
    }

    /// Whether the (effective) annotations claim what this check tests, or why not.
    fn claimed(self, effective: &Annotations) -> Result<(), String> {
        let read_only = effective.is_read_only();
        match self {
            Kind::ReadOnly if read_only => Ok(()),
            Kind::ReadOnly => Err("readOnlyHint is not true".into()),
            Kind::NonDestructive if read_only => {
                Err("read-only (checked by behaviour.read_only)".into())
            }
            Kind::NonDestructive if effective.destructive == Some(false) => Ok(()),
            Kind::NonDestructive => Err("destructiveHint is not false".into()),
            Kind::Idempotent if read_only => {
                Err("read-only (checked by behaviour.read_only)".into())
            }
            Kind::Idempotent if effective.idempotent == Some(true) => Ok(()),
            Kind::Idempotent => Err("idempotentHint is not true".into()),
            Kind::ClosedWorld if effective.open_world == Some(false) => Ok(()),
            Kind::ClosedWorld => Err("openWorldHint is not false".into()),
        }
    }
}

/// What the tier needs.
pub struct Plan<'a> {
    pub launch: &'a Launch,
    pub sandbox: &'a Path,
    pub fixture: &'a Path,
    pub tools: &'a [Value],
    /// The dialect to resolve each tool with, if any.
    pub dialect_for: &'a dyn Fn(&Value) -> Option<Dialect>,
    pub seed: u64,
    pub calls: usize,
    pub only: Option<(&'a str, usize)>,
    /// Also observe risky claims (`idempotentHint: false`, `destructiveHint:
    /// true`) to report over-declarations.
    pub over_declarations: bool,
    pub progress: &'a indicatif::ProgressBar,
}

struct Observed {
    /// `Some(detail)` when the claim did not hold.
    broken: Option<String>,
    /// Why nothing could be seen (no network namespace).
    unobserved: Option<String>,
    evidence: Vec<Exchange>,
}

/// The file names the behaviour tier puts in string arguments: the fixture's
/// files and one new name, never a path outside the sandbox.
fn safe_strings(fixture: &Snapshot) -> Vec<String> {
    let mut strings: Vec<String> = fixture.files.keys().cloned().collect();
    strings.extend(
        fixture
            .rows
            .keys()
            .filter_map(|key| key.split("::").next().map(str::to_owned)),
    );
    strings.dedup();
    strings.push("audit-new.txt".into());
    strings
}

/// The action a call is: its enum and const fields, `name=value`.
fn action_of(tool: &Value, arguments: &Value) -> String {
    let schema = &tool["inputSchema"];
    let mut parts = Vec::new();
    if let Some(object) = arguments.as_object() {
        for (key, value) in object {
            let property = &schema["properties"][key];
            let enumerated = property.get("enum").is_some() || property.get("const").is_some();
            let branch_const = schema["oneOf"]
                .as_array()
                .or(schema["anyOf"].as_array())
                .is_some_and(|branches| {
                    branches
                        .iter()
                        .any(|branch| branch["properties"][key].get("const").is_some())
                });
            if (enumerated || branch_const) && !value.is_object() && !value.is_array() {
                parts.push(format!(
                    "{key}={}",
                    value
                        .as_str()
                        .map(str::to_owned)
                        .unwrap_or(value.to_string())
                ));
            }
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" {{{}}}", parts.join(", "))
    }
}

#[derive(Default)]
struct Group {
    cases: usize,
    violation: Option<(String, Vec<Exchange>, String)>,
    inconclusive: Option<(String, Vec<Exchange>, String)>,
    not_applicable: Option<String>,
    /// With `--over-declarations`: calls that claim `idempotentHint: false`
    /// (or `destructiveHint: true`), and how many behaved as if they had not.
    claimed_risky: usize,
    behaved_safe: usize,
}

/// Tier c.
pub fn check(plan: Plan<'_>) -> Result<Vec<Finding>, String> {
    let baseline = {
        snapshot::wipe(plan.sandbox).map_err(|e| e.to_string())?;
        snapshot::seed(plan.fixture, plan.sandbox).map_err(|e| e.to_string())?;
        Snapshot::take(plan.sandbox)?
    };
    std::thread::scope(|scope| {
        let starter = Starter::new(scope, plan.launch, plan.fixture, &baseline);
        observe_all(&plan, &starter, &baseline)
    })
}

fn observe_all(
    plan: &Plan<'_>,
    starter: &Starter<'_>,
    baseline: &Snapshot,
) -> Result<Vec<Finding>, String> {
    let strings = safe_strings(baseline);
    let mut queue: Vec<(&Value, Vec<Case>)> = Vec::new();
    for tool in plan.tools {
        let name = tool["name"].as_str().unwrap_or_default();
        if plan.only.is_some_and(|(only, _)| only != name) {
            continue;
        }
        let schema = tool
            .get("inputSchema")
            .cloned()
            .unwrap_or(json!({"type": "object"}));
        let share = plan.calls.div_ceil(plan.tools.len().max(1));
        let mut all = cases(
            &schema,
            tool_seed(plan.seed, name),
            share * 3,
            &[],
            Some(&strings),
        );
        // Spares: sets the server refuses to resolve are not called.
        if let Some((_, index)) = plan.only {
            all.retain(|case| case.index == index);
        } else {
            all.truncate(share * 3);
        }
        queue.push((tool, all));
    }
    let mut groups: BTreeMap<(Kind, String), Group> = BTreeMap::new();
    let mut done = 0;
    let longest = queue
        .iter()
        .map(|(_, cases)| cases.len())
        .max()
        .unwrap_or(0);
    for round in 0..longest {
        for (tool, tool_cases) in &queue {
            let Some(case) = tool_cases.get(round) else {
                continue;
            };
            if done >= plan.calls && plan.only.is_none() {
                break;
            }
            let name = tool["name"].as_str().unwrap_or_default();
            let subject = format!("{name}{}", action_of(tool, &case.arguments));
            let case_id = format!("{name}#{}", case.index);
            let mut server = starter.fresh()?;
            let (effective, resolution) = effective_annotations(plan, &mut server, tool, case)?;
            // Arguments the server refuses to resolve (-32602) must not be
            // called, as a client would not call them.
            if resolution.as_ref().and_then(Exchange::error_code)
                == Some(annot_runtime::protocol::error_code::INVALID_PARAMS)
            {
                continue;
            }
            done += 1;
            plan.progress.inc(1);
            // The kinds this call claims, and (with --over-declarations) the
            // risky claims to observe; one call on this fresh server serves all.
            let mut claimed = Vec::new();
            let mut risky = Vec::new();
            for kind in Kind::ALL {
                let group = groups.entry((kind, subject.clone())).or_default();
                match kind.claimed(&effective) {
                    Ok(()) => claimed.push(kind),
                    Err(why) => {
                        group.not_applicable.get_or_insert(why);
                        let over = matches!(kind, Kind::Idempotent | Kind::NonDestructive)
                            && !effective.is_read_only();
                        if plan.over_declarations && over {
                            risky.push(kind);
                        }
                    }
                }
            }
            let watched: Vec<Kind> = claimed.iter().chain(&risky).copied().collect();
            if watched.is_empty() {
                continue;
            }
            let observed = observe_on(server, starter, &watched, name, &case.arguments)?;
            for (kind, first) in observed {
                let group = groups.entry((kind, subject.clone())).or_default();
                if risky.contains(&kind) {
                    // A risky claim cannot be violated, but it can be more
                    // than the call needs: reported, never a verdict.
                    group.claimed_risky += 1;
                    if first.broken.is_none() && first.unobserved.is_none() {
                        group.behaved_safe += 1;
                    }
                    continue;
                }
                group.cases += 1;
                if let Some(reason) = first.unobserved {
                    group
                        .inconclusive
                        .get_or_insert((reason, first.evidence, case_id.clone()));
                    continue;
                }
                let Some(detail) = first.broken else { continue };
                if group.violation.is_some() {
                    // Reproduced already: the verdict is the first case's.
                    continue;
                }
                let mut evidence = resolution.clone().into_iter().collect::<Vec<_>>();
                evidence.extend(first.evidence);
                let mut seen = 0;
                for _ in 0..REPRODUCTIONS {
                    if observe(starter, kind, name, &case.arguments)?
                        .broken
                        .is_some()
                    {
                        seen += 1;
                    }
                }
                let detail = format!(
                    "arguments {}: {detail} (seen in {} of {} runs from a clean reset)",
                    case.arguments,
                    seen + 1,
                    REPRODUCTIONS + 1
                );
                if seen == REPRODUCTIONS {
                    group
                        .violation
                        .get_or_insert((detail, evidence, case_id.clone()));
                } else {
                    group.inconclusive.get_or_insert((
                        format!("not reproducible: {detail}"),
                        evidence,
                        case_id.clone(),
                    ));
                }
            }
        }
    }
    let mut findings = Vec::new();
    for ((kind, subject), group) in groups {
        let finding = if let Some((detail, evidence, case)) = group.violation {
            Finding::new(kind.name(), &subject, Verdict::Violation, detail)
                .with_evidence(evidence)
                .with_case(Some(case))
        } else if let Some((reason, evidence, case)) = group.inconclusive {
            Finding::new(kind.name(), &subject, Verdict::Inconclusive(reason), "")
                .with_evidence(evidence)
                .with_case(Some(case))
        } else if group.cases > 0 {
            Finding::new(
                kind.name(),
                &subject,
                Verdict::Pass,
                format!("held on {} exercised calls", group.cases),
            )
        } else {
            let why = group.not_applicable.unwrap_or_default();
            let observed = if group.claimed_risky > 0 {
                format!(
                    "; behaved as if it were not on {} of {} calls (an over-declaration when all)",
                    group.behaved_safe, group.claimed_risky
                )
            } else {
                String::new()
            };
            Finding::new(
                kind.name(),
                &subject,
                Verdict::NotApplicable(format!("resolved {why}{observed}")),
                "",
            )
        };
        findings.push(finding.with_cases(group.cases));
    }
    Ok(findings)
}

/// The annotations a call is judged by, resolved on the fresh server that
/// will then run it; the state it is judged from is taken after resolving.
fn effective_annotations(
    plan: &Plan<'_>,
    fresh: &mut Fresh,
    tool: &Value,
    case: &Case,
) -> Result<(Annotations, Option<Exchange>), String> {
    let declared = annotations_of(tool.get("annotations").unwrap_or(&Value::Null));
    let Some(dialect) = (plan.dialect_for)(tool) else {
        return Ok((declared.effective(), None));
    };
    let name = tool["name"].as_str().unwrap_or_default();
    let exchange = resolve(&mut fresh.connection, dialect, name, &case.arguments);
    fresh.before = Snapshot::take(fresh.sandbox())?;
    let resolved = exchange
        .result()
        .and_then(|result| dialect.annotations(&result));
    // A failed resolution falls back to the static annotations, as a client does.
    let effective = match &resolved {
        Some(resolved) => annotations_of(resolved).effective(),
        None => declared.effective(),
    };
    Ok((effective, Some(exchange)))
}

fn call(connection: &mut Connection, name: &str, arguments: &Value) -> Exchange {
    connection.request("tools/call", json!({"name": name, "arguments": arguments}))
}

/// One observation of one check from a clean reset.
fn observe(
    starter: &Starter<'_>,
    kind: Kind,
    name: &str,
    arguments: &Value,
) -> Result<Observed, String> {
    let fresh = starter.fresh()?;
    let mut all = observe_on(fresh, starter, &[kind], name, arguments)?;
    Ok(all.remove(0).1)
}

/// One call on a fresh server, judged for every kind in `kinds` at once (the
/// idempotent kind adds a second call and, from another reset, two
/// concurrent ones). The evidence of the first call is shared.
fn observe_on(
    mut fresh: Fresh,
    starter: &Starter<'_>,
    kinds: &[Kind],
    name: &str,
    arguments: &Value,
) -> Result<Vec<(Kind, Observed)>, String> {
    let counter_before = fresh.server.network_counter();
    let first = call(&mut fresh.connection, name, arguments);
    let counter_after = fresh.server.network_counter();
    let after = Snapshot::take(fresh.sandbox())?;
    let change = fresh.before.change_to(&after);
    let mut results = Vec::new();
    let found = |broken: Option<String>, evidence: Vec<Exchange>| Observed {
        broken,
        unobserved: None,
        evidence,
    };
    for kind in kinds
        .iter()
        .copied()
        .filter(|kind| *kind != Kind::Idempotent)
    {
        let evidence = vec![first.clone()];
        let observed = match kind {
            Kind::ReadOnly => found(
                (!change.is_empty()).then(|| {
                    format!(
                        "a read-only call changed the sandbox: {}",
                        change.describe()
                    )
                }),
                evidence,
            ),
            Kind::NonDestructive => found(
                change.destroys().then(|| {
                    format!(
                        "a non-destructive call removed or overwrote what existed: {}",
                        change.describe()
                    )
                }),
                evidence,
            ),
            _ => match (counter_before, counter_after) {
                (Some(before), Some(after)) => {
                    let ours = fresh.connection.transport.connections_per_request();
                    let opened = after.saturating_sub(before).saturating_sub(ours);
                    found((opened > 0).then(|| format!("a closed-world call opened {opened} connection(s) or sent datagrams (TCP ActiveOpens + UDP OutDatagrams of its namespace)")), evidence)
                }
                _ => Observed {
                    broken: None,
                    unobserved: Some(match &fresh.server.network {
                        Network::Unobserved(reason) => reason.clone(),
                        Network::Observed { .. } => {
                            "the server's network counters could not be read".into()
                        }
                    }),
                    evidence,
                },
            },
        };
        results.push((kind, observed));
    }
    if kinds.contains(&Kind::Idempotent) {
        let mut evidence = vec![first.clone()];
        let second = call(&mut fresh.connection, name, arguments);
        evidence.push(second);
        let again = Snapshot::take(fresh.sandbox())?;
        let further = after.change_to(&again);
        let broken = if !further.is_empty() {
            Some(format!(
                "a second identical call changed the sandbox further: {}",
                further.describe()
            ))
        } else {
            fresh.server.stop();
            let mut twin = starter.fresh()?;
            let both = twin.connection.concurrent(
                "tools/call",
                &[
                    json!({"name": name, "arguments": arguments}),
                    json!({"name": name, "arguments": arguments}),
                ],
            );
            evidence.extend(both);
            let together = Snapshot::take(twin.sandbox())?;
            let apart = after.change_to(&together);
            (!apart.is_empty()).then(|| {
                format!(
                    "two concurrent identical calls left a different state than one call: {}",
                    apart.describe()
                )
            })
        };
        results.push((Kind::Idempotent, found(broken, evidence)));
    }
    Ok(results)
}
