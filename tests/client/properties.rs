//! Property: silence never lowers risk. Over arbitrary static annotations,
//! answers and trust levels, going through the preflight (dialects A and B,
//! which carry every hint), the policy and the session:
//!
//! - when the answer states nothing, the decision with the resolution is never
//!   laxer than the decision on the static annotations;
//! - for an untrusted server, it is never laxer at all;
//! - an answer beyond the bound, which is rejected, is never laxer either
//!   (the risk it admits stands);
//! - a hint the answer leaves out decides as its static value would.
//!
//! Every kind of case is counted, so a generator that stops producing one fails.

use crate::client_support;
use std::cell::Cell;

use annot::client::{Decision, Policy, ProposedCall, Session, Trust};
use annot::protocol::Dialect;
use annot::{Annotations, Hint};
use client_support::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value};

const CASES: u32 = 2048;

fn tri_state() -> impl Strategy<Value = Option<bool>> {
    prop_oneof![Just(None), Just(Some(false)), Just(Some(true))]
}

fn annotations() -> impl Strategy<Value = Annotations> {
    proptest::array::uniform10(tri_state()).prop_map(|values| {
        Hint::ALL
            .into_iter()
            .zip(values)
            .fold(Annotations::new(), |a, (hint, value)| a.with(hint, value))
    })
}

/// What a server states: nothing half the time, else arbitrary hints.
fn answers() -> impl Strategy<Value = Annotations> {
    prop_oneof![Just(Annotations::new()), annotations()]
}

/// Which legs the session saw before the call: (private data, untrusted content).
fn history() -> impl Strategy<Value = (bool, bool)> {
    (any::<bool>(), any::<bool>())
}

fn trust() -> impl Strategy<Value = Trust> {
    prop_oneof![Just(Trust::Trusted), Just(Trust::Untrusted)]
}

/// A session that read private data and/or saw untrusted content, through
/// trusted calls whose annotations say so.
fn session((private, untrusted): (bool, bool)) -> Session {
    let arguments = Map::new();
    let mut session = Session::default();
    if private {
        let read = Annotations::new()
            .read_only(true)
            .open_world(false)
            .sensitive_data(true);
        session.record(&ProposedCall::new(
            "read_mail",
            &arguments,
            read,
            Trust::Trusted,
        ));
    }
    if untrusted {
        let fetch = Annotations::new().read_only(true).open_world(true);
        session.record(&ProposedCall::new(
            "fetch",
            &arguments,
            fetch,
            Trust::Trusted,
        ));
    }
    session
}

fn decide(session: &Session, call: &ProposedCall<'_>) -> Decision {
    session.review(call, Policy::default().decide(call))
}

/// `stated`, with every hint it leaves out written out at its static value:
/// the answer a server that repeats itself would give. Built here, by hand.
fn spelled_out(declared: Annotations, stated: Annotations) -> Annotations {
    Hint::ALL
        .into_iter()
        .fold(stated, |a, hint| match stated.get(hint) {
            Some(_) => a,
            None => a.with(hint, declared.get(hint)),
        })
}

#[derive(Default)]
struct Counts {
    resolved: Cell<u32>,
    silent: Cell<u32>,
    untrusted: Cell<u32>,
    out_of_bound: Cell<u32>,
    laxer_than_static: Cell<u32>,
}

fn bump(cell: &Cell<u32>) {
    cell.set(cell.get() + 1);
}

#[test]
fn silence_never_lowers_risk() {
    let counts = Counts::default();
    let arguments = read_arguments();
    let mut runner = TestRunner::new(Config::with_cases(CASES));
    let strategy = (annotations(), answers(), trust(), history(), any::<bool>());
    let result = runner.run(&strategy, |(declared, stated, trust, seen, use_b)| {
        let dialect = if use_b {
            Dialect::ResolveTool
        } else {
            Dialect::DynamicAnnotations
        };
        let tool = tool_declaring("tool", declared);
        let hints: Value = serde_json::to_value(stated).unwrap();
        let mut server = Scripted::answering([Ok(answer(dialect, "tool", hints))]);
        let preflight = only(dialect)
            .preflight(&mut server, &tool, &arguments)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        let session = session(seen);
        let with = ProposedCall::from_preflight(&preflight, &arguments, trust);
        let without = ProposedCall::new("tool", &arguments, declared, trust);
        let (with, without) = (decide(&session, &with), decide(&session, &without));
        if !preflight.is_resolved() {
            bump(&counts.out_of_bound);
            // A rejected answer counts for the risk it admits: never laxer
            // than the static annotations.
            prop_assert!(
                with.verdict() >= without.verdict(),
                "rejected {stated} for {declared}: {with} is laxer than {without}"
            );
            return Ok(());
        }
        bump(&counts.resolved);
        if stated == Annotations::new() {
            bump(&counts.silent);
            prop_assert!(
                with.verdict() >= without.verdict(),
                "silent answer for {declared}: {with} is laxer than {without}"
            );
        }
        if trust == Trust::Untrusted {
            bump(&counts.untrusted);
            prop_assert!(
                with.verdict() >= without.verdict(),
                "untrusted {declared} resolved to {stated}: {with} is laxer than {without}"
            );
        }
        if with.verdict() < without.verdict() {
            bump(&counts.laxer_than_static);
        }
        // Leaving a hint out decides exactly as stating its static value.
        let repeated = spelled_out(declared, stated);
        let mut server = Scripted::answering([Ok(answer(
            dialect,
            "tool",
            serde_json::to_value(repeated).unwrap(),
        ))]);
        let preflight = only(dialect)
            .preflight(&mut server, &tool, &arguments)
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        prop_assert!(preflight.is_resolved(), "{}", preflight.source);
        let explicit = ProposedCall::from_preflight(&preflight, &arguments, trust);
        prop_assert_eq!(decide(&session, &explicit).verdict(), with.verdict());
        Ok(())
    });
    result.unwrap();
    // Arbitrary answers mostly break the bound; those within it that lower a
    // trusted server's risk are rarer, but must occur.
    for (what, count, minimum) in [
        ("resolved", &counts.resolved, CASES / 4),
        ("silent answers", &counts.silent, CASES / 4),
        ("untrusted resolved", &counts.untrusted, CASES / 8),
        ("out of bound", &counts.out_of_bound, CASES / 8),
        (
            "trusted resolutions laxer than static",
            &counts.laxer_than_static,
            CASES / 200,
        ),
    ] {
        assert!(
            count.get() >= minimum,
            "only {} {what} cases of {CASES}",
            count.get()
        );
    }
}
