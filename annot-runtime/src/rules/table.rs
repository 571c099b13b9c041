//! The compiled form of a tool's rules: constant tables built by `const`
//! evaluation, and the [`Outcome`] of one call, which reads them.
//!
//! # Representation
//!
//! Generated code decides at run time only what depends on the arguments:
//! the index of the call's action and, for each rule that applies to it,
//! whether its predicate holds, fails or is undecided. Those are two bit
//! masks over the tool's rules (`fired`, `undecided`; bit `k` is rule `k`),
//! hence the limit of [`MAX_RULES`] rules per tool, which the macro enforces
//! with an error on the first rule too many.
//!
//! Everything else is a constant [`RuleTable`]: per action its base (see
//! [`action_base`](annot_model::action_base)), authorization and the
//! resolution when no rule fires; per hint the masks of the rules that name
//! it and of those that set it to its risky value ([`HintMasks`]). A hint's
//! value is then a few bit operations whatever the number of rules:
//! `fired & named` says whether the decided rules replace the base, and
//! `fired & risky` which value their join is; the same with `undecided`
//! gives the value joined on top. A full table of every outcome would grow
//! as 3^n per action; the masks stay constant-time per hint at any `n`.

use annot_model::Hint;

use super::{Authorization, Rule, Tri};
use crate::Annotations;

/// The most rules one tool can have: a rule is one bit of a `u64` mask.
pub const MAX_RULES: usize = 64;

/// The rules of a tool that name one hint, and those that set it to its
/// risky value ([`Hint::risky_value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HintMasks {
    /// Bit `k`: rule `k` names the hint.
    pub named: u64,
    /// Bit `k`: rule `k` sets the hint to its risky value.
    pub risky: u64,
}

/// One action's constant row.
#[derive(Clone, Copy, Debug)]
pub struct ActionRow {
    /// The action's wire name.
    pub name: &'static str,
    /// Its own annotations, before the tool's defaults (for explanations).
    pub declared: Annotations,
    /// Its own authorization.
    pub declared_authorization: Option<Authorization>,
    /// What a call starts from ([`action_base`](annot_model::action_base)).
    pub base: Annotations,
    /// The authorization a call starts from: its own, else the tool's.
    pub base_authorization: Option<Authorization>,
    /// The resolution of a call on which no rule fires.
    pub resolved: Annotations,
    /// The rules that may fire on this action.
    pub applicable: u64,
    /// The rules that fire on every call of this action (a test of the
    /// discriminator alone).
    pub certain: u64,
}

impl ActionRow {
    /// The row of an action declaring `declared`, under the tool's defaults;
    /// `fires[k]` says whether rule `k` can fire on it.
    pub const fn new(
        name: &'static str,
        declared: Annotations,
        declared_authorization: Option<Authorization>,
        defaults: Annotations,
        default_authorization: Option<Authorization>,
        fires: &[Tri],
    ) -> Self {
        let base = annot_model::action_base(declared, defaults);
        let base_authorization = match declared_authorization {
            Some(own) => Some(own),
            None => default_authorization,
        };
        let mut applicable = 0;
        let mut certain = 0;
        let mut rule = 0;
        while rule < fires.len() {
            match fires[rule] {
                Tri::Never => {}
                Tri::Maybe => applicable |= 1 << rule,
                Tri::Always => {
                    applicable |= 1 << rule;
                    certain |= 1 << rule;
                }
            }
            rule += 1;
        }
        ActionRow {
            name,
            declared,
            declared_authorization,
            base,
            base_authorization,
            resolved: base.effective(),
            applicable,
            certain,
        }
    }
}

/// The value of `hint` once the rules of `fired` held: the join of theirs if
/// any names it (the risky value if any of them sets it, else the safe one),
/// else `base`.
#[inline(always)]
const fn decided(masks: HintMasks, fired: u64, hint: Hint, base: Option<bool>) -> Option<bool> {
    if fired & masks.named == 0 {
        return base;
    }
    Some(rules_value(masks, fired, hint))
}

/// `value` joined with the value of the rules of `rules` if any names
/// `hint` (rules that may fire, or are undecided, can only add risk).
const fn joined_with_rules(
    masks: HintMasks,
    rules: u64,
    hint: Hint,
    value: Option<bool>,
) -> Option<bool> {
    if rules & masks.named == 0 {
        return value;
    }
    hint.join(value, Some(rules_value(masks, rules, hint)))
}

/// What the rules of `rules` that name `hint` give it together: its risky
/// value if any of them sets that, else its safe one.
#[inline(always)]
const fn rules_value(masks: HintMasks, rules: u64, hint: Hint) -> bool {
    (rules & masks.risky != 0) == hint.risky_value()
}

/// Every constant a tool's resolution reads: generated as one `const`.
#[derive(Clone, Copy, Debug)]
pub struct RuleTable {
    /// The rules, in declaration order (at most `MAX_RULES`).
    pub rules: &'static [Rule],
    /// The tool's defaults.
    pub defaults: Annotations,
    /// The tool's default authorization.
    pub default_authorization: Option<Authorization>,
    /// One row per action, in declaration order.
    pub actions: &'static [ActionRow],
    /// Per hint, in [`Hint::ALL`] order.
    pub hints: [HintMasks; 10],
    /// The rules that name an authorization.
    pub authorization_rules: u64,
    /// When non-zero, the tool has this many rules and [`outcomes`](Self::outcomes)
    /// holds, for each action `a` and each set `f` of them that held with
    /// none undecided, the resolution at `a << outcome_bits | f`.
    pub outcome_bits: u32,
    /// The full table of outcomes (see [`outcome_bits`](Self::outcome_bits)).
    pub outcomes: &'static [Annotations],
}

/// The most rules for which a tool gets a full table of outcomes, and the
/// most entries that table may have: beyond, the masks alone.
pub const FULL_TABLE_RULES: usize = 4;
/// See [`FULL_TABLE_RULES`].
pub const FULL_TABLE_ENTRIES: usize = 1024;

/// How many bits index the full table of a tool of `rules` rules and
/// `actions` actions: the number of rules when the table is small enough,
/// else 0 (no table).
pub const fn outcome_bits(rules: usize, actions: usize) -> u32 {
    if rules == 0 || rules > FULL_TABLE_RULES || actions << rules > FULL_TABLE_ENTRIES {
        0
    } else {
        rules as u32
    }
}

/// The full table of outcomes of `table` indexed by `bits` bits of rules
/// (`N` is `table.actions.len() << bits`).
pub const fn full_outcomes<const N: usize>(table: &RuleTable, bits: u32) -> [Annotations; N] {
    let mut outcomes = [Annotations::new(); N];
    let mut index = 0;
    while index < N {
        let action = index >> bits;
        let fired = (index as u64) & ((1 << bits) - 1);
        let row = &table.actions[action];
        outcomes[index] = table
            .combine(row.base, fired & row.applicable, 0)
            .effective();
        index += 1;
    }
    outcomes
}

impl RuleTable {
    /// The table of `actions` under `rules`.
    pub const fn new(
        rules: &'static [Rule],
        defaults: Annotations,
        default_authorization: Option<Authorization>,
        actions: &'static [ActionRow],
    ) -> Self {
        assert!(rules.len() <= MAX_RULES, "at most 64 rules per tool");
        let mut hints = [HintMasks { named: 0, risky: 0 }; 10];
        let mut authorization_rules = 0;
        let mut rule = 0;
        while rule < rules.len() {
            let mut index = 0;
            while index < Hint::ALL.len() {
                let hint = Hint::ALL[index];
                if let Some(value) = rules[rule].hints.get(hint) {
                    hints[index].named |= 1 << rule;
                    if value == hint.risky_value() {
                        hints[index].risky |= 1 << rule;
                    }
                }
                index += 1;
            }
            if rules[rule].authorization.is_some() {
                authorization_rules |= 1 << rule;
            }
            rule += 1;
        }
        RuleTable {
            rules,
            defaults,
            default_authorization,
            actions,
            hints,
            authorization_rules,
            outcome_bits: 0,
            outcomes: &[],
        }
    }

    /// This table with its full table of outcomes (see
    /// [`full_outcomes`]).
    pub const fn with_outcomes(mut self, bits: u32, outcomes: &'static [Annotations]) -> Self {
        assert!(
            outcomes.len() == self.actions.len() << bits,
            "one outcome per entry"
        );
        self.outcome_bits = bits;
        self.outcomes = outcomes;
        self
    }

    /// The annotations of a call of `action` on which the rules of `fired`
    /// held and those of `undecided` were undecided (before
    /// [`Annotations::effective`]): see the [module](super) documentation.
    const fn combine(&self, base: Annotations, fired: u64, undecided: u64) -> Annotations {
        if undecided == 0 {
            return self.combine_decided(base, fired);
        }
        self.combine_hint_by_hint(base, fired, undecided)
    }

    /// [`combine`](Self::combine), hint by hint: any rules undecided.
    pub(super) const fn combine_hint_by_hint(
        &self,
        base: Annotations,
        fired: u64,
        undecided: u64,
    ) -> Annotations {
        let mut resolved = base;
        let mut index = 0;
        while index < Hint::ALL.len() {
            let hint = Hint::ALL[index];
            let masks = self.hints[index];
            let decided = decided(masks, fired, hint, base.get(hint));
            let value = joined_with_rules(masks, undecided, hint, decided);
            resolved = resolved.with(hint, value);
            index += 1;
        }
        resolved
    }

    /// [`combine`](Self::combine) with no rule undecided, the case of every
    /// value but an undecided path: each hint set field by field, without a
    /// loop over the hints (which cost a branch a hint, and mispredicted
    /// ones where the rules that fire vary from call to call).
    pub(super) const fn combine_decided(&self, base: Annotations, fired: u64) -> Annotations {
        let masks = &self.hints;
        Annotations {
            title: base.title,
            read_only: decided(masks[0], fired, Hint::ALL[0], base.read_only),
            destructive: decided(masks[1], fired, Hint::ALL[1], base.destructive),
            idempotent: decided(masks[2], fired, Hint::ALL[2], base.idempotent),
            open_world: decided(masks[3], fired, Hint::ALL[3], base.open_world),
            ai_processing: decided(masks[4], fired, Hint::ALL[4], base.ai_processing),
            slow_execution: decided(masks[5], fired, Hint::ALL[5], base.slow_execution),
            resource_intensive: decided(masks[6], fired, Hint::ALL[6], base.resource_intensive),
            sensitive_data: decided(masks[7], fired, Hint::ALL[7], base.sensitive_data),
            privileged_access: decided(masks[8], fired, Hint::ALL[8], base.privileged_access),
            reversible: decided(masks[9], fired, Hint::ALL[9], base.reversible),
        }
    }

    /// The most authorization a call of action `action` can need: its own
    /// (unless a rule certain to fire replaces it), joined with that of every
    /// rule that can fire on it.
    pub const fn action_authorization(&self, action: usize) -> Option<Authorization> {
        let row = &self.actions[action];
        let own = if row.certain & self.authorization_rules != 0 {
            None
        } else {
            row.base_authorization
        };
        Authorization::join_optional(own, self.rules_authorization(row.applicable))
    }

    /// The joined authorization of the rules of `mask`, if one names any.
    const fn rules_authorization(&self, mask: u64) -> Option<Authorization> {
        let mut bits = mask & self.authorization_rules;
        let mut joined = None;
        while bits != 0 {
            let rule = bits.trailing_zeros() as usize;
            joined = Authorization::join_optional(joined, self.rules[rule].authorization);
            bits &= bits - 1;
        }
        joined
    }
}

/// The outcome of one call: which action, and which rules held or were
/// undecided. `Copy` and allocation-free; the annotations, the authorization
/// and the explanation are read from it when asked for, so one evaluation
/// answers all three. Returned by the evaluation `#[mcp_tool]` generates
/// (`Generated::evaluate`).
#[derive(Clone, Copy, Debug)]
pub struct Outcome(Repr);

#[derive(Clone, Copy, Debug)]
enum Repr {
    Compiled {
        table: &'static RuleTable,
        action: usize,
        fired: u64,
        undecided: u64,
    },
    Opaque {
        annotations: Annotations,
        authorization: Option<Authorization>,
    },
}

impl Outcome {
    /// A call of row `action` of `table` on which the rules of `fired` held
    /// and those of `undecided` were undecided. Rules that do not apply to
    /// the action are ignored; an action past the table's end resolves to
    /// [`Annotations::worst`].
    #[inline]
    pub const fn compiled(
        table: &'static RuleTable,
        action: usize,
        fired: u64,
        undecided: u64,
    ) -> Self {
        Outcome(Repr::Compiled {
            table,
            action,
            fired,
            undecided,
        })
    }

    /// The outcome of a tool that only gives its resolution (a hand-written
    /// [`AnnotatedTool`](crate::AnnotatedTool)).
    pub const fn opaque(annotations: Annotations, authorization: Option<Authorization>) -> Self {
        Outcome(Repr::Opaque {
            annotations,
            authorization,
        })
    }

    /// The row and the masks restricted to the rules that apply to it.
    #[inline]
    const fn row(&self) -> Option<(&'static RuleTable, &'static ActionRow, u64, u64)> {
        match self.0 {
            Repr::Compiled {
                table,
                action,
                fired,
                undecided,
            } => {
                if action < table.actions.len() {
                    let row = &table.actions[action];
                    let undecided = undecided & row.applicable & !fired;
                    Some((table, row, fired & row.applicable, undecided))
                } else {
                    None
                }
            }
            Repr::Opaque { .. } => None,
        }
    }

    /// The effective annotations of the call.
    #[inline]
    pub const fn annotations(&self) -> Annotations {
        let (table, action) = match self.0 {
            Repr::Opaque { annotations, .. } => return annotations.effective(),
            Repr::Compiled { table, action, .. } => (table, action),
        };
        match self.row() {
            Some((_, row, 0, 0)) => row.resolved,
            Some((table, _, fired, 0))
                if table.outcome_bits != 0 && fired >> table.outcome_bits == 0 =>
            {
                table.outcomes[action << table.outcome_bits | fired as usize]
            }
            Some((_, row, fired, undecided)) => {
                table.combine(row.base, fired, undecided).effective()
            }
            None => Annotations::worst().effective(),
        }
    }

    /// The authorization the call needs, if the tool declares any.
    // Inlined where the server reads it: returned through memory, a tag
    // written alone was read back whole, and the read stalled.
    #[inline]
    pub const fn authorization(&self) -> Option<Authorization> {
        if let Repr::Opaque { authorization, .. } = self.0 {
            return authorization;
        }
        match self.row() {
            Some((table, row, fired, undecided)) => {
                let decided = match table.rules_authorization(fired) {
                    Some(fired) => Some(fired),
                    None => row.base_authorization,
                };
                Authorization::join_optional(decided, table.rules_authorization(undecided))
            }
            None => None,
        }
    }

    /// The action's row, and the rules that held and that were undecided;
    /// `None` for an opaque outcome or an action past the table's end.
    pub const fn parts(&self) -> Option<(&'static RuleTable, &'static ActionRow, u64, u64)> {
        self.row()
    }

    /// The rules that count as having fired on this call, one bit each (bit
    /// `k` is rule `k`): those that held and those that were undecided,
    /// among the rules that apply to the call's action, since silence never
    /// lowers risk. What a rule's `results(...)` claims is read from it.
    ///
    /// Every bit for an action past the table's end (nothing is known of
    /// it, so every rule may have fired); none for an opaque outcome, which
    /// has no rules.
    #[inline]
    pub const fn rules_in_play(&self) -> u64 {
        match self.0 {
            Repr::Opaque { .. } => 0,
            Repr::Compiled { .. } => match self.row() {
                Some((_, _, fired, undecided)) => fired | undecided,
                None => u64::MAX,
            },
        }
    }
}

/// Whether `needed` asks for no more than `allowed` (one table of scopes).
const fn authorization_within(
    needed: Option<Authorization>,
    allowed: Option<Authorization>,
) -> bool {
    match (needed, allowed) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(Authorization::NoAuth), Some(_)) => true,
        (Some(Authorization::OAuth2(_)), Some(Authorization::NoAuth)) => false,
        (Some(Authorization::OAuth2(needed)), Some(Authorization::OAuth2(allowed))) => {
            needed.bits() & !allowed.bits() == 0
        }
    }
}

/// Whether every outcome `table` can produce is within `bound` and
/// `bound_authorization`: for each action and hint, the riskiest value any
/// combination of its applicable rules can give (the base's unless a rule
/// certain to fire names the hint, and every applicable rule's) is within
/// the bound. Generated code asserts it in a `const`, so a table outside
/// the tool's `STATIC_ANNOTATIONS` does not build.
pub const fn table_within(
    table: &RuleTable,
    bound: Annotations,
    bound_authorization: Option<Authorization>,
) -> bool {
    let bound = bound.effective();
    let mut action = 0;
    while action < table.actions.len() {
        let row = &table.actions[action];
        // The worst reachable value of each hint, before `effective`.
        let mut worst = row.base;
        let mut index = 0;
        while index < Hint::ALL.len() {
            let hint = Hint::ALL[index];
            let masks = table.hints[index];
            let value = if row.certain & masks.named != 0 {
                Some(!hint.risky_value())
            } else {
                row.base.get(hint)
            };
            let value = joined_with_rules(masks, row.applicable, hint, value);
            worst = worst.with(hint, value);
            index += 1;
        }
        if !worst.effective().is_within(&bound) {
            return false;
        }
        if !authorization_within(table.action_authorization(action), bound_authorization) {
            return false;
        }
        action += 1;
    }
    true
}
