use annot_model::{action_base, fill_defaults};

use super::bound::*;
use super::table::*;
use super::*;
use crate::Hint;

const TABLE: &[&str] = &["repo", "delete_repo"];
const REPO: Authorization = Authorization::OAuth2(Scopes::new(TABLE, 0b01));
const DELETE_REPO: Authorization = Authorization::OAuth2(Scopes::new(TABLE, 0b10));

const RULES: &[Rule] = &[
    Rule {
        index: 0,
        source: "when(path matches \"^/etc\") => (privileged_access, sensitive_data)",
        hints: Annotations::new()
            .privileged_access(true)
            .sensitive_data(true),
        authorization: None,
    },
    Rule {
        index: 1,
        source: "when(path matches \"^/tmp\") => (destructive = false)",
        hints: Annotations::new().destructive(false),
        authorization: Some(Authorization::NoAuth),
    },
    Rule {
        index: 2,
        source: "when(path matches \"^/var\") => (destructive)",
        hints: Annotations::new().destructive(true),
        authorization: Some(DELETE_REPO),
    },
];

const DELETE: Annotations = Annotations::new().destructive(true).idempotent(true);

#[test]
fn firing_rules_join_and_order_does_not_matter() {
    let mut forward = Resolver::new(DELETE, Some(REPO));
    forward.fire(&RULES[1]);
    forward.fire(&RULES[2]);
    let mut backward = Resolver::new(DELETE, Some(REPO));
    backward.fire(&RULES[2]);
    backward.fire(&RULES[1]);
    assert_eq!(forward.annotations(), backward.annotations());
    assert_eq!(forward.annotations().destructive, Some(true));
    assert_eq!(forward.authorization(), Some(DELETE_REPO));
    assert_eq!(forward.authorization(), backward.authorization());
}

#[test]
fn a_firing_rule_replaces_the_actions_value() {
    let mut resolver = Resolver::new(DELETE, Some(REPO));
    assert_eq!(resolver.annotations(), DELETE.effective());
    assert_eq!(resolver.authorization(), Some(REPO));
    resolver.fire(&RULES[1]);
    assert_eq!(resolver.annotations().destructive, Some(false));
    assert_eq!(resolver.annotations().idempotent, Some(true));
    assert_eq!(resolver.authorization(), Some(Authorization::NoAuth));
}

#[test]
fn bound_joins_every_rule_that_may_fire() {
    let maybe = [Tri::Maybe; 3];
    let bound = bound_annotations(DELETE, RULES, &maybe);
    assert_eq!(bound.destructive, Some(true));
    assert_eq!(bound.privileged_access, Some(true));
    assert_eq!(
        bound_authorization(Some(REPO), RULES, &maybe),
        Some(Authorization::OAuth2(Scopes::new(TABLE, 0b11)))
    );
    let never = [Tri::Never; 3];
    assert_eq!(bound_annotations(DELETE, RULES, &never), DELETE.effective());
    assert_eq!(bound_authorization(Some(REPO), RULES, &never), Some(REPO));
}

#[test]
fn a_rule_that_always_fires_replaces_the_base_in_the_bound() {
    let fires = [Tri::Never, Tri::Always, Tri::Never];
    let bound = bound_annotations(DELETE, RULES, &fires);
    assert_eq!(bound.destructive, Some(false));
    assert_eq!(
        bound_authorization(Some(REPO), RULES, &fires),
        Some(Authorization::NoAuth)
    );
}

/// Every subset of firing rules resolves within the bound, for every
/// combination of what the discriminator says.
#[test]
fn every_resolution_is_within_its_bound() {
    let tris = [Tri::Never, Tri::Maybe, Tri::Always];
    let bases = [
        DELETE,
        Annotations::new().read_only(true),
        Annotations::new(),
        Annotations::new().destructive(false).reversible(true),
    ];
    for base in bases {
        for a in tris {
            for b in tris {
                for c in tris {
                    let fires = [a, b, c];
                    let bound = bound_annotations(base, RULES, &fires);
                    let bound_auth = bound_authorization(Some(REPO), RULES, &fires).unwrap();
                    for subset in 0..8u8 {
                        let fired = |k: usize| subset & (1 << k) != 0;
                        let possible = (0..3).all(|k| match fires[k] {
                            Tri::Never => !fired(k),
                            Tri::Always => fired(k),
                            Tri::Maybe => true,
                        });
                        if !possible {
                            continue;
                        }
                        let mut resolver = Resolver::new(base, Some(REPO));
                        for (k, rule) in RULES.iter().enumerate() {
                            if fired(k) {
                                resolver.fire(rule);
                            }
                        }
                        let resolved = resolver.annotations();
                        assert!(resolved.is_within(&bound), "{resolved} outside {bound}");
                        assert!(resolver.authorization().unwrap().is_within(&bound_auth));
                    }
                }
            }
        }
    }
}

#[test]
fn three_valued_logic() {
    use Tri::*;
    assert_eq!(Tri::all(&[Always, Maybe]), Maybe);
    assert_eq!(Tri::all(&[Always, Never, Maybe]), Never);
    assert_eq!(Tri::all(&[]), Always);
    assert_eq!(Tri::any(&[Never, Maybe]), Maybe);
    assert_eq!(Tri::any(&[Never, Always]), Always);
    assert_eq!(Tri::any(&[]), Never);
    assert_eq!(Maybe.not(), Maybe);
    assert_eq!(Tri::action_in("DELETE", &["GET", "DELETE"]), Always);
    assert_eq!(Tri::action_in("DELET", &["GET", "DELETE"]), Never);
    // Every part certain, or none possible, in more than one part.
    assert_eq!(Tri::all(&[Always, Always, Always]), Always);
    assert_eq!(Tri::any(&[Never, Never, Never]), Never);
    assert_eq!(Tri::any(&[Never, Maybe, Never]), Maybe);
    // Names of one length compare byte by byte.
    assert_eq!(Tri::action_in("DELETE", &["GET", "REMOVE"]), Never);
    assert_eq!(Tri::action_in("REMOVE", &["GET", "REMOVE"]), Always);
}

/// `apply` records a rule as its predicate came out.
#[test]
fn apply_fires_on_always_joins_on_maybe_and_skips_never() {
    let rule = &RULES[2]; // destructive, `delete_repo`
    let base = Annotations::new().destructive(false);
    let mut by_hand = Resolver::new(base, Some(REPO));
    let mut applied = by_hand;
    applied.apply(rule, Tri::Never);
    assert_eq!(applied.annotations(), by_hand.annotations());
    assert_eq!(applied.authorization(), Some(REPO));
    applied.apply(rule, Tri::Maybe);
    by_hand.fire_undecided(rule);
    assert_eq!(applied.annotations(), by_hand.annotations());
    assert_eq!(applied.annotations().destructive, Some(true));
    let mut fired = Resolver::new(base, Some(REPO));
    fired.apply(rule, Tri::Always);
    assert_eq!(fired.annotations().destructive, Some(true));
    assert_eq!(fired.authorization(), Some(DELETE_REPO));
}

/// What `tools/list` declares: every action's authorization joined, the
/// first and the last included; none when no action declares any.
#[test]
fn static_authorization_joins_every_action() {
    assert_eq!(static_authorization(&[]), None);
    assert_eq!(static_authorization(&[None, None]), None);
    assert_eq!(
        static_authorization(&[Some(REPO), None, Some(DELETE_REPO)]),
        Some(Authorization::OAuth2(Scopes::new(TABLE, 0b11)))
    );
    assert_eq!(
        static_authorization(&[Some(Authorization::NoAuth), Some(DELETE_REPO)]),
        Some(DELETE_REPO)
    );
    assert_eq!(
        static_authorization(&[None, Some(Authorization::NoAuth)]),
        Some(Authorization::NoAuth)
    );
}

/// A row of an action declaring `declared` under `defaults` (`repo` by
/// default) on which rule `k` fires as `fires[k]` says.
const fn fired_as(
    name: &'static str,
    declared: Annotations,
    defaults: Annotations,
    fires: [Tri; 3],
) -> ActionRow {
    ActionRow::new(name, declared, None, defaults, Some(REPO), &fires)
}

/// A table of one action declaring `declared` under `defaults`, every rule
/// applicable.
const fn one_action(declared: Annotations, defaults: Annotations, name: &'static str) -> ActionRow {
    fired_as(name, declared, defaults, [Tri::Maybe; 3])
}

const DELETE_DEFAULTS: Annotations = Annotations::new().open_world(false).destructive(false);
const DELETE_ROWS: [ActionRow; 1] = [one_action(DELETE, DELETE_DEFAULTS, "delete")];
static DELETE_TABLE: RuleTable = RuleTable::new(RULES, DELETE_DEFAULTS, Some(REPO), &DELETE_ROWS);

#[test]
fn explanations_name_what_decided_each_hint() {
    let outcome = Outcome::compiled(&DELETE_TABLE, 0, 0b101, 0);
    let mut resolver = Resolver::new(fill_defaults(DELETE, DELETE_DEFAULTS), Some(REPO));
    resolver.fire(&RULES[0]);
    resolver.fire(&RULES[2]);
    let explanation = outcome.explain();
    assert_eq!(explanation.annotations, resolver.annotations());
    assert_eq!(outcome.authorization(), resolver.authorization());
    assert_eq!(explanation.source(Hint::Idempotent), &Source::Action);
    assert_eq!(explanation.source(Hint::OpenWorld), &Source::ToolDefault);
    assert_eq!(
        explanation.source(Hint::ReadOnly),
        &Source::SpecificationDefault
    );
    assert_eq!(
        explanation.source(Hint::Destructive),
        &Source::Rules(vec![&RULES[2]])
    );
    assert_eq!(
        explanation.source(Hint::SensitiveData),
        &Source::Rules(vec![&RULES[0]])
    );
    assert_eq!(
        explanation.authorization,
        Some((DELETE_REPO, Source::Rules(vec![&RULES[2]])))
    );
    assert!(explanation.undecided.is_empty());
    let json = serde_json::to_value(&explanation).unwrap();
    assert_eq!(json["action"], "delete");
    assert_eq!(
        json["hints"]["destructiveHint"],
        serde_json::json!({"value": true, "source": "rules", "rules": [2]})
    );
    assert_eq!(
        json["hints"]["aiProcessingHint"],
        serde_json::json!({"value": null, "source": "specificationDefault"})
    );
    assert_eq!(
        json["authorization"]["securitySchemes"],
        serde_json::json!([{"type": "oauth2", "scopes": ["delete_repo"]}])
    );
    assert_eq!(json["rules"][1]["index"], 2);
    assert_eq!(json["rules"][1]["rule"], RULES[2].source);
    assert_eq!(json["rules"][1].get("undecided"), None);
}

#[test]
fn explanations_mark_undecided_rules() {
    // Rule 1 held, rule 2 was undecided: both are listed, only 2 is marked.
    let outcome = Outcome::compiled(&DELETE_TABLE, 0, 0b010, 0b100);
    let explanation = outcome.explain();
    assert_eq!(
        explanation
            .fired
            .iter()
            .map(|rule| rule.index)
            .collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(explanation.undecided, vec![&RULES[2]]);
    // Undecided, rule 2 (destructive) joins rule 1's `destructive = false`.
    assert_eq!(explanation.annotations.destructive, Some(true));
    assert_eq!(
        explanation.source(Hint::Destructive),
        &Source::Rules(vec![&RULES[1], &RULES[2]])
    );
    let json = serde_json::to_value(&explanation).unwrap();
    assert_eq!(
        json["rules"],
        serde_json::json!([
            {"index": 1, "rule": RULES[1].source},
            {"index": 2, "rule": RULES[2].source, "undecided": true},
        ])
    );
}

/// For every action base and every assignment of held / failed / undecided
/// to the three rules, the table gives what the step-by-step `Resolver`
/// gives.
#[test]
fn tables_agree_with_the_resolver() {
    const BASES: [Annotations; 4] = [
        DELETE,
        Annotations::new().read_only(true),
        Annotations::new(),
        Annotations::new().destructive(false).reversible(true),
    ];
    const DEFAULTS: Annotations = Annotations::new().idempotent(true);
    const ROWS: [ActionRow; 4] = [
        one_action(BASES[0], DEFAULTS, "a"),
        one_action(BASES[1], DEFAULTS, "b"),
        one_action(BASES[2], DEFAULTS, "c"),
        one_action(BASES[3], DEFAULTS, "d"),
    ];
    const MASKS: RuleTable = RuleTable::new(RULES, DEFAULTS, Some(REPO), &ROWS);
    const BITS: u32 = outcome_bits(RULES.len(), ROWS.len());
    const OUTCOMES: [Annotations; 4 << BITS] = full_outcomes(&MASKS, BITS);
    static FULL: RuleTable = MASKS.with_outcomes(BITS, &OUTCOMES);
    static TABLE: RuleTable = MASKS;
    assert_eq!(BITS, 3, "three rules, four actions: a full table");
    for (action, declared) in BASES.iter().enumerate() {
        for assignment in 0..27u32 {
            let mut resolver = Resolver::new(action_base(*declared, DEFAULTS), Some(REPO));
            let (mut fired, mut undecided) = (0u64, 0u64);
            for (k, rule) in RULES.iter().enumerate() {
                match assignment / 3u32.pow(k as u32) % 3 {
                    0 => {}
                    1 => {
                        resolver.fire(rule);
                        fired |= 1 << k;
                    }
                    _ => {
                        resolver.fire_undecided(rule);
                        undecided |= 1 << k;
                    }
                }
            }
            let outcome = Outcome::compiled(&TABLE, action, fired, undecided);
            assert_eq!(
                outcome.annotations(),
                resolver.annotations(),
                "{action} {assignment}"
            );
            let full = Outcome::compiled(&FULL, action, fired, undecided);
            assert_eq!(
                full.annotations(),
                resolver.annotations(),
                "{action} {assignment}"
            );
            assert_eq!(outcome.authorization(), resolver.authorization());
            assert_eq!(outcome.explain().annotations, resolver.annotations());
        }
    }
    // Past the table's end: every hint at its risky value.
    let past = Outcome::compiled(&TABLE, 4, 0, 0);
    assert_eq!(past.annotations(), Annotations::worst().effective());
}

#[test]
fn the_bound_check_sees_every_reachable_value() {
    let bound = bound_annotations(
        action_base(DELETE, DELETE_DEFAULTS),
        RULES,
        &[Tri::Maybe; 3],
    );
    let auth = bound_authorization(Some(REPO), RULES, &[Tri::Maybe; 3]);
    assert!(table_within(&DELETE_TABLE, bound, auth));
    // Rule 0 raises `privileged_access`: a bound without it is refused.
    assert!(!table_within(
        &DELETE_TABLE,
        bound.privileged_access(false),
        auth
    ));
    // Rule 2 needs `delete_repo`.
    assert!(!table_within(&DELETE_TABLE, bound, Some(REPO)));
    assert!(!table_within(&DELETE_TABLE, bound, None));
    // Evaluated in `const` context, as generated code does.
    const WITHIN: bool = table_within(
        &DELETE_TABLE_CONST,
        Annotations::worst(),
        Some(Authorization::OAuth2(Scopes::new(TABLE, 0b11))),
    );
    const DELETE_TABLE_CONST: RuleTable =
        RuleTable::new(RULES, DELETE_DEFAULTS, Some(REPO), &DELETE_ROWS);
    const { assert!(WITHIN, "every hint at its risky value bounds everything") };
}

/// The bound check looks past the base: a rule that may fire raises the
/// bound a hint needs, and a rule certain to fire replaces the base's value
/// (and its authorization) before the others join it.
#[test]
fn the_bound_check_joins_the_rules_over_the_base() {
    const READ: Annotations = Annotations::new()
        .read_only(true)
        .open_world(false)
        .privileged_access(false)
        .sensitive_data(false);
    // Rule 0 (privileged_access, sensitive_data) may fire on a read.
    const MAY_ROWS: [ActionRow; 1] = [fired_as(
        "read",
        READ,
        Annotations::new(),
        [Tri::Maybe, Tri::Never, Tri::Never],
    )];
    static MAY: RuleTable = RuleTable::new(RULES, Annotations::new(), Some(REPO), &MAY_ROWS);
    let raised = READ.privileged_access(true).sensitive_data(true);
    assert!(table_within(&MAY, raised, Some(REPO)));
    assert!(!table_within(&MAY, READ, Some(REPO)), "rule 0 ignored");
    assert!(!table_within(
        &MAY,
        raised.sensitive_data(false),
        Some(REPO)
    ));
    assert_eq!(MAY.action_authorization(0), Some(REPO));

    // Rule 1 (destructive = false, no authorization) fires on every call.
    const CERTAIN_ROWS: [ActionRow; 1] = [fired_as(
        "clean",
        DELETE,
        Annotations::new(),
        [Tri::Never, Tri::Always, Tri::Never],
    )];
    static CERTAIN: RuleTable =
        RuleTable::new(RULES, Annotations::new(), Some(REPO), &CERTAIN_ROWS);
    let lowered = DELETE.destructive(false);
    assert_eq!(CERTAIN.action_authorization(0), Some(Authorization::NoAuth));
    assert!(table_within(&CERTAIN, lowered, Some(Authorization::NoAuth)));
    assert_eq!(
        Outcome::compiled(&CERTAIN, 0, 0b010, 0).annotations(),
        lowered.effective()
    );
    // Rule 2 (destructive, `delete_repo`) may fire as well: it joins the
    // certain rule's value, and its scope joins the certain rule's none.
    const BOTH_ROWS: [ActionRow; 1] = [fired_as(
        "clean",
        DELETE,
        Annotations::new(),
        [Tri::Never, Tri::Always, Tri::Maybe],
    )];
    static BOTH: RuleTable = RuleTable::new(RULES, Annotations::new(), Some(REPO), &BOTH_ROWS);
    assert_eq!(BOTH.action_authorization(0), Some(DELETE_REPO));
    assert!(!table_within(&BOTH, lowered, Some(DELETE_REPO)));
    assert!(table_within(&BOTH, DELETE, Some(DELETE_REPO)));
    assert!(!table_within(&BOTH, DELETE, Some(REPO)));
}

/// The threshold of a full table of outcomes (docs/declaring.md, "How rules
/// run", describes the tables): up to `FULL_TABLE_RULES` rules and
/// `FULL_TABLE_ENTRIES` entries.
#[test]
fn full_tables_up_to_four_rules_and_1024_entries() {
    assert_eq!((FULL_TABLE_RULES, FULL_TABLE_ENTRIES), (4, 1024));
    assert_eq!(outcome_bits(0, 1), 0);
    assert_eq!(outcome_bits(1, 1), 1);
    assert_eq!(outcome_bits(4, 64), 4);
    assert_eq!(outcome_bits(4, 65), 0);
    assert_eq!(outcome_bits(3, 128), 3);
    assert_eq!(outcome_bits(3, 129), 0);
    assert_eq!(outcome_bits(5, 1), 0);
}

/// With a full table, an outcome of rules that fired is read from it: a
/// table whose entries were all replaced answers with the replacement.
#[test]
fn a_full_table_is_what_answers() {
    const ROWS: [ActionRow; 2] = [
        one_action(DELETE, DELETE_DEFAULTS, "a"),
        one_action(Annotations::new(), DELETE_DEFAULTS, "b"),
    ];
    const MASKS: RuleTable = RuleTable::new(RULES, DELETE_DEFAULTS, Some(REPO), &ROWS);
    const BITS: u32 = outcome_bits(RULES.len(), ROWS.len());
    const MARKED: [Annotations; 2 << BITS] = {
        let mut outcomes = [Annotations::new(); 2 << BITS];
        let mut entry = 0;
        while entry < outcomes.len() {
            // Each entry names itself in the title.
            outcomes[entry] = Annotations::worst().title(ENTRY_TITLES[entry]);
            entry += 1;
        }
        outcomes
    };
    const ENTRY_TITLES: [&str; 16] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
    ];
    static MARKED_TABLE: RuleTable = MASKS.with_outcomes(BITS, &MARKED);
    assert_eq!(BITS, 3);
    for action in 0..2 {
        for fired in 1..8u64 {
            let outcome = Outcome::compiled(&MARKED_TABLE, action, fired, 0).annotations();
            let entry = (action << BITS) | fired as usize;
            assert_eq!(outcome.title, Some(ENTRY_TITLES[entry]), "{action} {fired}");
        }
    }
    // Nothing fired: the row's own resolution; undecided: the join.
    let none = Outcome::compiled(&MARKED_TABLE, 0, 0, 0).annotations();
    assert_eq!(
        none,
        Outcome::compiled(&MASKS_STATIC, 0, 0, 0).annotations()
    );
    let undecided = Outcome::compiled(&MARKED_TABLE, 0, 0b001, 0b100).annotations();
    assert_eq!(undecided.title, None);
    static MASKS_STATIC: RuleTable = MASKS;
}

#[test]
fn read_only_implies_the_write_hints() {
    let declared = Annotations::new().read_only(true);
    const ROWS: [ActionRow; 1] = [ActionRow::new(
        "read",
        Annotations::new().read_only(true),
        None,
        Annotations::new(),
        None,
        &[],
    )];
    static TABLE: RuleTable = RuleTable::new(&[], Annotations::new(), None, &ROWS);
    let explanation = Outcome::compiled(&TABLE, 0, 0, 0).explain();
    assert_eq!(explanation.source(Hint::Destructive), &Source::ReadOnly);
    assert_eq!(explanation.hint(Hint::Idempotent).value, Some(true));
    assert_eq!(explanation.authorization, None);
    let opaque = Explanation::opaque(declared, None);
    assert_eq!(opaque.source(Hint::ReadOnly), &Source::Resolver);
    assert_eq!(opaque.annotations, declared.effective());
}

/// Twenty rules, one per hint and value, on bases of every kind: for any set
/// of them firing (none undecided), the table's field-by-field join gives
/// what the step-by-step `Resolver` and the table's hint-by-hint join give.
#[test]
fn the_field_by_field_join_agrees_on_every_hint() {
    let rules: Vec<Rule> = Hint::ALL
        .iter()
        .flat_map(|hint| [false, true].map(|value| (*hint, value)))
        .enumerate()
        .map(|(index, (hint, value))| Rule {
            index,
            source: "one hint",
            hints: Annotations::new().with(hint, Some(value)),
            authorization: None,
        })
        .collect();
    let rules: &'static [Rule] = Box::leak(rules.into_boxed_slice());
    let bases = [
        DELETE,
        Annotations::new(),
        Annotations::new().read_only(true).title("Read"),
        Annotations::worst(),
        Annotations::new()
            .destructive(false)
            .reversible(true)
            .ai_processing(false)
            .open_world(false),
    ];
    let rows: Vec<ActionRow> = bases
        .iter()
        .map(|base| {
            ActionRow::new(
                "a",
                *base,
                None,
                Annotations::new(),
                None,
                &[Tri::Maybe; 20],
            )
        })
        .collect();
    let rows: &'static [ActionRow] = Box::leak(rows.into_boxed_slice());
    let table: &'static RuleTable = Box::leak(Box::new(RuleTable::new(
        rules,
        Annotations::new(),
        None,
        rows,
    )));
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    for round in 0..4000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Sparse sets as well as dense ones: most calls fire one rule or two.
        let fired = match round % 3 {
            0 => state & (state >> 20) & (state >> 40),
            1 => state,
            _ => 1 << (state % 20),
        } & ((1 << 20) - 1);
        for (action, base) in bases.iter().enumerate() {
            let base = action_base(*base, Annotations::new());
            assert_eq!(
                table.combine_decided(base, fired),
                table.combine_hint_by_hint(base, fired, 0),
                "{base} with {fired:#b}"
            );
            let mut resolver = Resolver::new(base, None);
            for rule in rules.iter().filter(|rule| fired & 1 << rule.index != 0) {
                resolver.fire(rule);
            }
            let outcome = Outcome::compiled(table, action, fired, 0);
            assert_eq!(
                outcome.annotations(),
                resolver.annotations(),
                "{base} with {fired:#b}"
            );
        }
    }
}

#[test]
fn rules_in_play_are_those_that_held_or_were_undecided_on_the_action() {
    // Rule 0 cannot fire on `b`; rules 1 and 2 can on both.
    const ROWS: [ActionRow; 2] = [
        fired_as("a", DELETE, DELETE_DEFAULTS, [Tri::Maybe; 3]),
        fired_as(
            "b",
            DELETE,
            DELETE_DEFAULTS,
            [Tri::Never, Tri::Maybe, Tri::Maybe],
        ),
    ];
    static TABLE: RuleTable = RuleTable::new(RULES, DELETE_DEFAULTS, Some(REPO), &ROWS);
    // (action, fired, undecided, in play), by hand.
    for (action, fired, undecided, in_play) in [
        (0, 0b000, 0b000, 0b000),
        (0, 0b001, 0b000, 0b001),
        (0, 0b001, 0b100, 0b101),
        (0, 0b000, 0b110, 0b110),
        (1, 0b001, 0b000, 0b000),
        (1, 0b001, 0b101, 0b100),
        // Past the table's end: any rule may have fired.
        (2, 0b000, 0b000, u64::MAX),
    ] {
        let outcome = Outcome::compiled(&TABLE, action, fired, undecided);
        assert_eq!(
            outcome.rules_in_play(),
            in_play,
            "{action} {fired:#b} {undecided:#b}"
        );
    }
    let opaque = Outcome::opaque(Annotations::worst(), None);
    assert_eq!(opaque.rules_in_play(), 0);
}
