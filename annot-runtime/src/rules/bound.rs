//! Three-valued logic ([`Tri`]) and the static bounds of actions under
//! rules: what the code `#[mcp_tool]` generates computes in `const`
//! context, and the step-by-step [`Resolver`] the tests hold the tables to.

use annot_model::join_named;

use super::{Authorization, Rule};
use crate::{Annotations, Hint};

/// Three-valued truth: whether a rule can fire on an action, as far as the
/// discriminator tells (the logic the static bound is computed in), and at
/// run time whether a predicate holds, fails or is undecided (`Maybe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tri {
    /// It never fires on this action.
    Never,
    /// It fires or not depending on the other arguments.
    Maybe,
    /// It fires on every call of this action.
    Always,
}

impl Tri {
    /// `Always` for `true`, `Never` for `false`.
    pub const fn from_bool(value: bool) -> Tri {
        if value { Tri::Always } else { Tri::Never }
    }

    /// Conjunction.
    pub const fn all(parts: &[Tri]) -> Tri {
        let mut result = Tri::Always;
        let mut index = 0;
        while index < parts.len() {
            result = match (result, parts[index]) {
                (Tri::Never, _) | (_, Tri::Never) => Tri::Never,
                (Tri::Always, Tri::Always) => Tri::Always,
                _ => Tri::Maybe,
            };
            index += 1;
        }
        result
    }

    /// Disjunction.
    pub const fn any(parts: &[Tri]) -> Tri {
        let mut result = Tri::Never;
        let mut index = 0;
        while index < parts.len() {
            result = match (result, parts[index]) {
                (Tri::Always, _) | (_, Tri::Always) => Tri::Always,
                (Tri::Never, Tri::Never) => Tri::Never,
                _ => Tri::Maybe,
            };
            index += 1;
        }
        result
    }

    /// Negation.
    pub const fn not(self) -> Tri {
        match self {
            Tri::Never => Tri::Always,
            Tri::Maybe => Tri::Maybe,
            Tri::Always => Tri::Never,
        }
    }

    /// Whether the action named `action` is one of `names`.
    pub const fn action_in(action: &str, names: &[&str]) -> Tri {
        if contains(names, action) {
            Tri::Always
        } else {
            Tri::Never
        }
    }
}

/// Whether `names` holds `name`, in `const` context.
pub const fn contains(names: &[&str], name: &str) -> bool {
    let mut index = 0;
    while index < names.len() {
        if str_eq(names[index], name) {
            return true;
        }
        index += 1;
    }
    false
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

/// The resolution of one call, rule by rule: its action's base, and the
/// joined values of the rules fired so far, decided and undecided apart.
/// `Copy`, so resolving never allocates.
///
/// The semantics spelled out step by step. Generated code does not use it:
/// it reads the constant [`RuleTable`](super::table::RuleTable) of its tool
/// through an [`Outcome`](super::table::Outcome),
/// which the tests check against this, outcome for outcome.
#[derive(Clone, Copy, Debug)]
pub struct Resolver {
    base: Annotations,
    base_authorization: Option<Authorization>,
    fired: Annotations,
    fired_authorization: Option<Authorization>,
    undecided: Annotations,
    undecided_authorization: Option<Authorization>,
}

impl Resolver {
    /// Starts from an action's annotations (with the tool's defaults, before
    /// [`Annotations::effective`]) and authorization.
    pub const fn new(base: Annotations, authorization: Option<Authorization>) -> Self {
        Resolver {
            base,
            base_authorization: authorization,
            fired: Annotations::new(),
            fired_authorization: None,
            undecided: Annotations::new(),
            undecided_authorization: None,
        }
    }

    /// Records that `rule` fires.
    pub const fn fire(&mut self, rule: &Rule) {
        self.fired = join_named(self.fired, rule.hints);
        self.fired_authorization =
            Authorization::join_optional(self.fired_authorization, rule.authorization);
    }

    /// Records that `rule`'s predicate is undecided on this call: its hints
    /// will be joined with the call's value instead of replacing it.
    pub const fn fire_undecided(&mut self, rule: &Rule) {
        self.undecided = join_named(self.undecided, rule.hints);
        self.undecided_authorization =
            Authorization::join_optional(self.undecided_authorization, rule.authorization);
    }

    /// Records `rule` as its predicate evaluated: fires on [`Tri::Always`],
    /// undecided on [`Tri::Maybe`], nothing on [`Tri::Never`].
    pub const fn apply(&mut self, rule: &Rule, truth: Tri) {
        match truth {
            Tri::Always => self.fire(rule),
            Tri::Maybe => self.fire_undecided(rule),
            Tri::Never => {}
        }
    }

    /// The effective annotations of the call ([`annot_model::resolve`]).
    pub const fn annotations(&self) -> Annotations {
        annot_model::resolve(self.base, self.fired, self.undecided)
    }

    /// The authorization the call needs, if the tool declares any.
    pub const fn authorization(&self) -> Option<Authorization> {
        let decided = match self.fired_authorization {
            Some(fired) => Some(fired),
            None => self.base_authorization,
        };
        Authorization::join_optional(decided, self.undecided_authorization)
    }

    /// The action's base the call started from (see [`action_base`]).
    pub const fn base(&self) -> Annotations {
        self.base
    }
}

/// The worst case of an action under `rules`: for each hint, the join of the
/// action's value and of every rule that can fire on it (`fires[k]` for
/// `rules[k]`), leaving the action's value out when a rule naming the hint
/// always fires. Title kept, [`Annotations::effective`] applied.
pub const fn bound_annotations(base: Annotations, rules: &[Rule], fires: &[Tri]) -> Annotations {
    assert!(rules.len() == fires.len(), "one Tri per rule");
    let mut bound = base;
    let mut index = 0;
    while index < Hint::ALL.len() {
        let hint = Hint::ALL[index];
        let mut replaced = false;
        let mut rule = 0;
        while rule < rules.len() {
            if matches!(fires[rule], Tri::Always) && rules[rule].hints.get(hint).is_some() {
                replaced = true;
            }
            rule += 1;
        }
        let mut value = base.get(hint);
        let mut seen = !replaced;
        rule = 0;
        while rule < rules.len() {
            if let (Some(set), false) = (
                rules[rule].hints.get(hint),
                matches!(fires[rule], Tri::Never),
            ) {
                value = if seen {
                    hint.join(value, Some(set))
                } else {
                    Some(set)
                };
                seen = true;
            }
            rule += 1;
        }
        bound = bound.with(hint, value);
        index += 1;
    }
    bound.effective()
}

/// The worst-case authorization of an action under `rules` (see
/// [`bound_annotations`]).
pub const fn bound_authorization(
    base: Option<Authorization>,
    rules: &[Rule],
    fires: &[Tri],
) -> Option<Authorization> {
    assert!(rules.len() == fires.len(), "one Tri per rule");
    let mut replaced = false;
    let mut rule = 0;
    while rule < rules.len() {
        if matches!(fires[rule], Tri::Always) && rules[rule].authorization.is_some() {
            replaced = true;
        }
        rule += 1;
    }
    let mut bound = if replaced { None } else { base };
    rule = 0;
    while rule < rules.len() {
        if !matches!(fires[rule], Tri::Never) {
            bound = Authorization::join_optional(bound, rules[rule].authorization);
        }
        rule += 1;
    }
    bound
}

/// The join of the authorizations of every action: what `tools/list` declares.
pub const fn static_authorization(all: &[Option<Authorization>]) -> Option<Authorization> {
    let mut joined = None;
    let mut index = 0;
    while index < all.len() {
        joined = Authorization::join_optional(joined, all[index]);
        index += 1;
    }
    joined
}
