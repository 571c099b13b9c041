//! Why a call resolved as it did: for each hint, what decided its value.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::table::Outcome;
use super::{Authorization, Rule};
use crate::{Annotations, Hint};

/// What decided the value of one hint (or of the authorization) of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The action's own annotations (its `#[annotate(...)]`, or for an action
    /// enum of an annotated struct, that enum's annotations and defaults).
    Action,
    /// A default of `#[mcp_tool(...)]` for actions that leave the hint unset.
    ToolDefault,
    /// Nobody set it: the specification's default for a core hint, no claim
    /// for a SEP-1984 hint, no declaration for the authorization.
    SpecificationDefault,
    /// Implied by `readOnlyHint: true`: a read-only call is not destructive,
    /// is idempotent, and has nothing to reverse.
    ReadOnly,
    /// These rules fired and named the hint; the value is the join of theirs.
    Rules(Vec<&'static Rule>),
    /// The tool's own `resolve` decided, with no finer account (a tool that
    /// implements [`AnnotatedTool`](crate::AnnotatedTool) by hand).
    Resolver,
}

impl Source {
    /// The name of the source on the wire (`"action"`, `"rules"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Source::Action => "action",
            Source::ToolDefault => "toolDefault",
            Source::SpecificationDefault => "specificationDefault",
            Source::ReadOnly => "readOnly",
            Source::Rules(_) => "rules",
            Source::Resolver => "resolver",
        }
    }
}

/// One hint of a call: its effective value and what decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HintExplanation {
    /// The hint.
    pub hint: Hint,
    /// Its effective value (`None`: a SEP-1984 hint nobody claims).
    pub value: Option<bool>,
    /// What decided it.
    pub source: Source,
}

/// Why a call resolved as it did: returned by
/// [`AnnotatedTool::explain`](crate::AnnotatedTool::explain).
///
/// On the wire it is the value of `_meta["dev.annot/resolution"]` of a
/// resolution result, when the client asks for it: `{"action": "delete",
/// "hints": {"destructiveHint": {"value": true, "source": "rules", "rules":
/// [2]}, ...}, "authorization": {...}, "rules": [{"index": 2, "rule":
/// "when(...) => (...)"}]}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The action of the call, when the tool has actions.
    pub action: Option<&'static str>,
    /// The effective annotations of the call, as `resolve` returns them.
    pub annotations: Annotations,
    /// One entry per hint, in [`Hint::ALL`] order.
    pub hints: Vec<HintExplanation>,
    /// The authorization of the call and what decided it, when the tool
    /// declares authorization.
    pub authorization: Option<(Authorization, Source)>,
    /// Every rule that fired, in declaration order, the undecided ones
    /// included (their hints join the call's, see the
    /// [module](super) documentation).
    pub fired: Vec<&'static Rule>,
    /// The rules of [`fired`](Self::fired) whose predicate was undecided
    /// (a path without a safe normal form): on the wire, their entry of
    /// `rules` says `"undecided": true`.
    pub undecided: Vec<&'static Rule>,
}

impl Explanation {
    /// The explanation of a tool that gives no finer account than its
    /// resolution: every hint decided by [`Source::Resolver`].
    pub fn opaque(annotations: Annotations, authorization: Option<Authorization>) -> Self {
        let annotations = annotations.effective();
        Explanation {
            action: None,
            annotations,
            hints: Hint::ALL
                .iter()
                .map(|&hint| HintExplanation {
                    hint,
                    value: annotations.get(hint),
                    source: Source::Resolver,
                })
                .collect(),
            authorization: authorization.map(|authorization| (authorization, Source::Resolver)),
            fired: Vec::new(),
            undecided: Vec::new(),
        }
    }

    /// The explanation of one hint.
    pub fn hint(&self, hint: Hint) -> &HintExplanation {
        self.hints
            .iter()
            .find(|explained| explained.hint == hint)
            .expect("an explanation covers every hint")
    }

    /// The source of one hint.
    pub fn source(&self, hint: Hint) -> &Source {
        &self.hint(hint).source
    }
}

/// The rules of `mask`, in declaration order.
fn rules_of(rules: &'static [Rule], mask: u64) -> Vec<&'static Rule> {
    rules
        .iter()
        .enumerate()
        .filter(|(index, _)| *index < 64 && mask & (1 << index) != 0)
        .map(|(_, rule)| rule)
        .collect()
}

impl Outcome {
    /// Why the call resolved as it did: for each hint, whether the action, a
    /// tool default, the specification's default or which rules decided it.
    /// Rendered from the outcome's masks when asked for; evaluating a call
    /// builds nothing of it.
    pub fn explain(&self) -> Explanation {
        let Some((table, row, fired, undecided)) = self.parts() else {
            return Explanation::opaque(self.annotations(), self.authorization());
        };
        let annotations = self.annotations();
        let read_only = annotations.is_read_only();
        let hints = Hint::ALL
            .iter()
            .enumerate()
            .map(|(index, &hint)| {
                let deciding = (fired | undecided) & table.hints[index].named;
                let source = if read_only && hint.only_meaningful_when_writing() {
                    Source::ReadOnly
                } else if deciding != 0 {
                    Source::Rules(rules_of(table.rules, deciding))
                } else if row.declared.get(hint).is_some()
                    && !(hint.only_meaningful_when_writing() && row.base.is_read_only())
                {
                    // A read-only action's write-only hints give way to the
                    // defaults when a rule turns `read_only` off (`action_base`).
                    Source::Action
                } else if table.defaults.get(hint).is_some() {
                    Source::ToolDefault
                } else {
                    Source::SpecificationDefault
                };
                HintExplanation {
                    hint,
                    value: annotations.get(hint),
                    source,
                }
            })
            .collect();
        let authorization = self.authorization().map(|authorization| {
            let deciding = (fired | undecided) & table.authorization_rules;
            let source = if deciding != 0 {
                Source::Rules(rules_of(table.rules, deciding))
            } else if row.declared_authorization.is_some() {
                Source::Action
            } else {
                Source::ToolDefault
            };
            (authorization, source)
        });
        Explanation {
            action: Some(row.name),
            annotations,
            hints,
            authorization,
            fired: rules_of(table.rules, fired | undecided),
            undecided: rules_of(table.rules, undecided),
        }
    }
}

/// `{"source": ..., "rules": [indices]?}` plus the value entry.
fn serialize_source<M: SerializeMap>(map: &mut M, source: &Source) -> Result<(), M::Error> {
    map.serialize_entry("source", source.name())?;
    if let Source::Rules(rules) = source {
        let indices: Vec<usize> = rules.iter().map(|rule| rule.index).collect();
        map.serialize_entry("rules", &indices)?;
    }
    Ok(())
}

struct HintEntry<'a>(&'a HintExplanation);

impl Serialize for HintEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("value", &self.0.value)?;
        serialize_source(&mut map, &self.0.source)?;
        map.end()
    }
}

struct Hints<'a>(&'a [HintExplanation]);

impl Serialize for Hints<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for explained in self.0 {
            map.serialize_entry(explained.hint.wire_name(), &HintEntry(explained))?;
        }
        map.end()
    }
}

struct AuthorizationEntry<'a>(&'a Authorization, &'a Source);

impl Serialize for AuthorizationEntry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("securitySchemes", self.0)?;
        serialize_source(&mut map, self.1)?;
        map.end()
    }
}

struct RuleEntry(&'static Rule, bool);

impl Serialize for RuleEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("index", &self.0.index)?;
        map.serialize_entry("rule", self.0.source)?;
        if self.1 {
            map.serialize_entry("undecided", &true)?;
        }
        map.end()
    }
}

/// The wire form, under `_meta["dev.annot/resolution"]`.
impl Serialize for Explanation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(action) = self.action {
            map.serialize_entry("action", action)?;
        }
        map.serialize_entry("hints", &Hints(&self.hints))?;
        if let Some((authorization, source)) = &self.authorization {
            map.serialize_entry("authorization", &AuthorizationEntry(authorization, source))?;
        }
        let fired: Vec<RuleEntry> = self
            .fired
            .iter()
            .map(|rule| RuleEntry(rule, self.undecided.contains(rule)))
            .collect();
        map.serialize_entry("rules", &fired)?;
        map.end()
    }
}
