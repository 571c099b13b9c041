//! The risk lattice checked against its laws, not against its own code.
//!
//! The order is written out by hand here (which value of each hint is risky,
//! `safe < absent < risky`, the specification's defaults, read-only
//! normalisation), and `Hint::join`, `Annotations::join`, `join_all`,
//! `effective` and `check_within` must obey it: the join is the *least* upper
//! bound, commutative, associative and idempotent, and `is_within(a, b)` holds
//! exactly when `join(a, b)` is `b`. Every law counts the cases it compared, so
//! a generator that produces nothing fails.

use annot::{Annotations, Bound, Hint};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const VALUES: [Option<bool>; 3] = [None, Some(false), Some(true)];

/// The risky value of each hint, by hand: `true` but for these three.
fn risky(hint: Hint) -> bool {
    !matches!(hint, Hint::ReadOnly | Hint::Idempotent | Hint::Reversible)
}

/// The hint's order: ruling the risk out (0) < no claim (1) < claiming it (2).
fn rank(hint: Hint, value: Option<bool>) -> u8 {
    match value {
        None => 1,
        Some(value) if value == risky(hint) => 2,
        Some(_) => 0,
    }
}

fn below(hint: Hint, a: Option<bool>, b: Option<bool>) -> bool {
    rank(hint, a) <= rank(hint, b)
}

#[test]
fn hint_tables_are_the_specification() {
    // (hint, wire name, attribute name, risky value, default, core, write-only)
    let table = [
        (
            Hint::ReadOnly,
            "readOnlyHint",
            "read_only",
            false,
            Some(false),
            true,
            false,
        ),
        (
            Hint::Destructive,
            "destructiveHint",
            "destructive",
            true,
            Some(true),
            true,
            true,
        ),
        (
            Hint::Idempotent,
            "idempotentHint",
            "idempotent",
            false,
            Some(false),
            true,
            true,
        ),
        (
            Hint::OpenWorld,
            "openWorldHint",
            "open_world",
            true,
            Some(true),
            true,
            false,
        ),
        (
            Hint::AiProcessing,
            "aiProcessingHint",
            "ai_processing",
            true,
            None,
            false,
            false,
        ),
        (
            Hint::SlowExecution,
            "slowExecutionHint",
            "slow_execution",
            true,
            None,
            false,
            false,
        ),
        (
            Hint::ResourceIntensive,
            "resourceIntensiveHint",
            "resource_intensive",
            true,
            None,
            false,
            false,
        ),
        (
            Hint::SensitiveData,
            "sensitiveDataHint",
            "sensitive_data",
            true,
            None,
            false,
            false,
        ),
        (
            Hint::PrivilegedAccess,
            "privilegedAccessHint",
            "privileged_access",
            true,
            None,
            false,
            false,
        ),
        (
            Hint::Reversible,
            "reversibleHint",
            "reversible",
            false,
            None,
            false,
            true,
        ),
    ];
    assert_eq!(Hint::ALL.len(), table.len());
    for (hint, (expected, wire, attribute, risky_value, default, core, writing)) in
        Hint::ALL.into_iter().zip(table)
    {
        assert_eq!(hint, expected);
        assert_eq!(hint.wire_name(), wire);
        assert_eq!(hint.to_string(), wire);
        assert_eq!(hint.attribute_name(), attribute);
        assert_eq!(Hint::from_wire_name(wire), Some(hint));
        assert_eq!(Hint::from_attribute_name(attribute), Some(hint));
        assert_eq!(hint.risky_value(), risky_value, "{hint}");
        assert_eq!(hint.default_value(), default, "{hint}");
        assert_eq!(hint.is_core(), core, "{hint}");
        assert_eq!(Hint::CORE.contains(&hint), core, "{hint}");
        assert_eq!(hint.only_meaningful_when_writing(), writing, "{hint}");
        for (value, expected_rank) in [(Some(!risky_value), 0), (None, 1), (Some(risky_value), 2)] {
            assert_eq!(hint.risk_rank(value), expected_rank, "{hint} {value:?}");
        }
    }
    assert_eq!(Hint::from_wire_name("read_only"), None);
    assert_eq!(Hint::from_attribute_name("readOnlyHint"), None);
}

#[test]
fn hint_join_is_the_least_upper_bound() {
    let mut compared = 0;
    for hint in Hint::ALL {
        for a in VALUES {
            assert_eq!(hint.join(a, a), a, "{hint}: idempotent");
            for b in VALUES {
                let joined = hint.join(a, b);
                assert_eq!(joined, hint.join(b, a), "{hint}: commutative");
                assert!(
                    below(hint, a, joined) && below(hint, b, joined),
                    "{hint}: upper bound"
                );
                for c in VALUES {
                    let left = hint.join(hint.join(a, b), c);
                    assert_eq!(left, hint.join(a, hint.join(b, c)), "{hint}: associative");
                    if below(hint, a, c) && below(hint, b, c) {
                        assert!(below(hint, joined, c), "{hint}: least, {a:?} {b:?} {c:?}");
                        compared += 1;
                    }
                }
                // The join is one of its operands, and the riskier one.
                assert!(joined == a || joined == b);
            }
        }
    }
    // 10 hints, 14 (a, b, c) with c above a and b in a three-element chain.
    assert_eq!(compared, 10 * 14);
}

/// The specification's view of a hint set, by hand: core hints get their
/// defaults, and a read-only call neither destroys, repeats with effect, nor
/// has anything to undo.
fn effective(a: Annotations) -> Annotations {
    let mut e = a;
    e.read_only = e.read_only.or(Some(false));
    e.destructive = e.destructive.or(Some(true));
    e.idempotent = e.idempotent.or(Some(false));
    e.open_world = e.open_world.or(Some(true));
    if e.read_only == Some(true) {
        e.destructive = Some(false);
        e.idempotent = Some(true);
        e.reversible = None;
    }
    e
}

/// The first hint (in wire order) on which `resolved` claims more risk than
/// `declared`, after defaults; write-only hints do not count when `resolved`
/// reads only.
fn first_violation(resolved: &Annotations, declared: &Annotations) -> Option<Hint> {
    let (r, d) = (effective(*resolved), effective(*declared));
    Hint::ALL.into_iter().find(|hint| {
        let skipped = r.read_only == Some(true)
            && matches!(
                hint,
                Hint::Destructive | Hint::Idempotent | Hint::Reversible
            );
        !skipped && !below(*hint, r.get(*hint), d.get(*hint))
    })
}

fn untitled(a: Annotations) -> Annotations {
    Annotations { title: None, ..a }
}

/// Every combination of the four core hints, one risky-when-true SEP-1984 hint
/// and `reversible` (3^6 = 729 values), so every pair is compared.
fn small_domain() -> Vec<Annotations> {
    let mut all = vec![Annotations::new()];
    for hint in [
        Hint::ReadOnly,
        Hint::Destructive,
        Hint::Idempotent,
        Hint::OpenWorld,
        Hint::SensitiveData,
        Hint::Reversible,
    ] {
        all = all
            .into_iter()
            .flat_map(|a| VALUES.map(|value| a.with(hint, value)))
            .collect();
    }
    all
}

#[test]
fn effective_applies_the_defaults_and_read_only_normalisation() {
    let domain = small_domain();
    assert_eq!(domain.len(), 729);
    for a in &domain {
        let e = a.effective();
        assert_eq!(e, effective(*a), "{a}");
        assert_eq!(e.effective(), e, "{a}");
        assert_eq!(e.is_read_only(), a.read_only == Some(true), "{a}");
        assert!(a.is_within(&e) && e.is_within(a), "{a}");
    }
}

#[test]
fn is_within_agrees_with_join_and_the_order_on_every_pair() {
    let domain = small_domain();
    let (mut pairs, mut within) = (0, 0);
    for b in &domain {
        // A host checking many resolutions makes the declaration a bound once.
        let bound = Bound::new(b);
        assert_eq!(*bound.declared(), effective(*b), "{b}");
        for a in &domain {
            let joined = a.join(*b);
            assert_eq!(
                untitled(joined),
                untitled(b.join(*a)),
                "{a} ⊔ {b}: commutative"
            );
            assert!(
                a.is_within(&joined) && b.is_within(&joined),
                "{a} ⊔ {b} = {joined}"
            );
            // Both spellings of the check, against the hand-written reference.
            let expected = first_violation(a, b);
            for checked in [bound.check(a), a.check_within(b)] {
                assert_eq!(checked.err().map(|v| v.hint), expected, "{a} ≤ {b}");
                if let Err(violation) = checked {
                    assert_eq!(violation.resolved, effective(*a).get(violation.hint));
                    assert_eq!(violation.declared, effective(*b).get(violation.hint));
                }
            }
            // is_within(a, b) ⇔ join(a, b) == b, with b's defaults applied.
            assert_eq!(
                a.is_within(b),
                untitled(joined) == untitled(effective(*b)),
                "{a} ≤ {b} but {a} ⊔ {b} = {joined}"
            );
            within += usize::from(expected.is_none());
            pairs += 1;
        }
    }
    assert_eq!(pairs, 729 * 729);
    assert!(within > 729 && within < pairs, "{within} pairs within");
}

fn hint_value() -> impl Strategy<Value = Option<bool>> {
    prop_oneof![Just(None), Just(Some(false)), Just(Some(true))]
}

/// Any annotations: every one of the ten hints in each of its three states.
fn annotations() -> impl Strategy<Value = Annotations> {
    (
        proptest::collection::vec(hint_value(), 10),
        prop_oneof![Just(None), Just(Some("A")), Just(Some("B"))],
    )
        .prop_map(|(values, title)| {
            let mut a = Annotations::new();
            a.title = title;
            for (hint, value) in Hint::ALL.into_iter().zip(values) {
                a = a.with(hint, value);
            }
            a
        })
}

/// `a` with some hints raised to their risky value: often an upper bound.
fn raised(a: Annotations, raise: &[bool]) -> Annotations {
    Hint::ALL
        .into_iter()
        .zip(raise)
        .fold(a, |a, (hint, raise)| {
            if *raise {
                a.with(hint, Some(risky(hint)))
            } else {
                a
            }
        })
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn join_of_whole_annotations_is_the_least_upper_bound() {
    let strategy = (
        annotations(),
        annotations(),
        annotations(),
        proptest::collection::vec(any::<bool>(), 10),
        any::<bool>(),
    );
    let least = std::cell::Cell::new(0);
    let cases = std::cell::Cell::new(0);
    runner(20_000)
        .run(&strategy, |(a, b, other, raise, from_join)| {
            cases.set(cases.get() + 1);
            let joined = a.join(b);
            prop_assert!(a.is_within(&joined) && b.is_within(&joined));
            prop_assert_eq!(untitled(joined), untitled(b.join(a)));
            prop_assert_eq!(joined.title, a.title.or(b.title));
            prop_assert_eq!(untitled(a.join(a)), untitled(effective(a)));
            prop_assert_eq!(joined, effective(joined));
            let c = if from_join {
                raised(joined, &raise)
            } else {
                other
            };
            let associative = (a.join(b).join(c), a.join(b.join(c)));
            prop_assert_eq!(untitled(associative.0), untitled(associative.1));
            prop_assert_eq!(
                a.is_within(&c),
                untitled(a.join(c)) == untitled(effective(c))
            );
            if a.is_within(&c) && b.is_within(&c) {
                prop_assert!(
                    joined.is_within(&c),
                    "{} ⊔ {} = {} not within {}",
                    a,
                    b,
                    joined,
                    c
                );
                least.set(least.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(cases.get(), 20_000);
    assert!(
        least.get() > 5_000,
        "only {} upper bounds compared",
        least.get()
    );
}

#[test]
fn join_all_is_the_least_upper_bound_of_a_list() {
    let strategy = (
        proptest::collection::vec(annotations(), 0..6),
        annotations(),
        proptest::collection::vec(any::<bool>(), 10),
    );
    let (cases, least) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner(5_000)
        .run(&strategy, |(all, other, raise)| {
            cases.set(cases.get() + 1);
            let joined = Annotations::join_all(&all);
            prop_assert_eq!(joined, effective(joined));
            for a in &all {
                prop_assert!(a.is_within(&joined));
            }
            if all.is_empty() {
                // Nothing declared: the specification's defaults, the top.
                prop_assert_eq!(joined, effective(Annotations::new()));
            }
            let c = raised(joined, &raise);
            for c in [c, other] {
                if all.iter().all(|a| a.is_within(&c)) {
                    prop_assert!(joined.is_within(&c) || all.is_empty());
                    least.set(least.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    assert_eq!(cases.get(), 5_000);
    assert!(
        least.get() > 1_000,
        "only {} upper bounds compared",
        least.get()
    );
}

#[test]
fn violations_and_annotations_print_as_documented() {
    let declared = Annotations::new().destructive(false);
    let violation = Annotations::new()
        .destructive(true)
        .check_within(&declared)
        .unwrap_err();
    assert_eq!(
        violation.to_string(),
        "resolved destructiveHint is true but the static declaration allows at most false"
    );
    let silent = Annotations::new();
    let violation = silent
        .sensitive_data(true)
        .check_within(&silent)
        .unwrap_err();
    assert_eq!(
        violation.to_string(),
        "resolved sensitiveDataHint is true but the static declaration allows at most absent"
    );
    let hints = Annotations::new()
        .title("T")
        .read_only(false)
        .ai_processing(true)
        .reversible(false);
    assert_eq!(
        hints.to_string(),
        r#"{"title":"T","readOnlyHint":false,"aiProcessingHint":true,"reversibleHint":false}"#
    );
    assert_eq!(
        serde_json::to_value(Annotations::new()).unwrap(),
        serde_json::json!({})
    );
}
