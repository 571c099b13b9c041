//! The DFAs the macro builds, read back by the runtime's `PatternSet` as
//! generated code reads them, answer as `regex::RegexSet` (an engine neither
//! calls) for random pattern sets and random values.

use std::cell::Cell;

use annot::__private::PatternSet;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use regex::RegexSet;

use super::dfa_builder::serialized_dfa;

/// `bytes` at a 4-aligned address, for the life of the test run.
fn aligned(bytes: &[u8]) -> &'static [u8] {
    let mut storage = vec![0; bytes.len() + 3];
    let offset = storage.as_ptr().align_offset(4);
    storage[offset..offset + bytes.len()].copy_from_slice(bytes);
    &Vec::leak(storage)[offset..offset + bytes.len()]
}

/// A set of `patterns` searched with the DFA the macro builds for them, or
/// `None` when it builds none.
fn set_with_dfa(patterns: &[String]) -> Option<PatternSet> {
    let dfa = serialized_dfa(patterns)?;
    let bytes = aligned(if cfg!(target_endian = "little") {
        &dfa.little_endian
    } else {
        &dfa.big_endian
    });
    let patterns: Vec<&'static str> = patterns
        .iter()
        .map(|pattern| &*String::leak(pattern.clone()))
        .collect();
    let set = PatternSet::with_dfa(Vec::leak(patterns), bytes);
    assert!(set.has_dfa(), "the DFA reads back");
    Some(set)
}

fn oracle_bits(oracle: &RegexSet, value: &str) -> u64 {
    oracle
        .matches(value)
        .iter()
        .fold(0, |bits, pattern| bits | 1 << pattern)
}

/// One pattern: a few atoms, some repeated, some alternatives, maybe
/// case-insensitive.
fn pattern() -> impl Strategy<Value = String> {
    let atom = proptest::sample::select(vec![
        "a",
        "b",
        "ab",
        "é",
        "K",
        "k",
        "s",
        "/",
        " ",
        "\\n",
        "[a-c]",
        "[^a]",
        "\\d",
        "\\w",
        "\\s",
        ".",
        "(?s:.)",
        "^",
        "$",
        "\\b",
        "\\B",
        "(?m:^)",
        "(?m:$)",
        "(?-u:\\b)",
        "(?-u:\\w)",
        "\\p{Greek}",
        "",
    ]);
    let quantifier = proptest::sample::select(vec!["", "", "", "*", "+", "?", "{2}", "*?"]);
    let piece = (atom, quantifier).prop_map(|(atom, quantifier)| {
        if quantifier.is_empty() || atom.is_empty() || atom.starts_with(['^', '$', '\\', '(']) {
            // Assertions are not repeated; a class or an escape is grouped.
            if quantifier.is_empty() || !atom.starts_with('\\') || atom.starts_with("\\b") {
                return atom.to_owned();
            }
        }
        format!("(?:{atom}){quantifier}")
    });
    let branch = proptest::collection::vec(piece, 0..4).prop_map(|pieces| pieces.concat());
    (
        proptest::collection::vec(branch, 1..3),
        proptest::bool::weighted(0.3),
    )
        .prop_map(|(branches, fold)| {
            let alternatives = branches.join("|");
            if fold {
                format!("(?i){alternatives}")
            } else {
                alternatives
            }
        })
}

fn value() -> impl Strategy<Value = String> {
    let pieces = |pieces: Vec<&'static str>| {
        // Up to 24 pieces: values of 17 bytes and more take the packed scan.
        proptest::collection::vec(proptest::sample::select(pieces), 0..24)
            .prop_map(|pieces| pieces.concat())
    };
    prop_oneof![
        pieces(vec![
            "a", "b", "ab", "é", "K", "\u{212A}", "k", "s", "ſ", "/", " ", "\n", "1", "_", "α",
            "☃", "x",
        ]),
        // ASCII only: a value with a non-ASCII byte leaves the scan early
        // where a pattern has a Unicode `\b`.
        pieces(vec![
            "a", "b", "ab", "K", "k", "s", "/", " ", "\n", "1", "_", "x"
        ]),
    ]
}

#[test]
fn random_sets_answer_as_a_regex_set() {
    let mut runner = TestRunner::new(Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    });
    let case = (
        proptest::collection::vec(pattern(), 1..6),
        proptest::collection::vec(value(), 1..40),
    );
    let (valid, with_dfa) = (Cell::new(0), Cell::new(0));
    runner
        .run(&case, |(patterns, values)| {
            let Ok(oracle) = RegexSet::new(&patterns) else {
                return Ok(()); // not a valid set: the macro refuses it
            };
            valid.set(valid.get() + 1);
            // Sets of large Unicode classes may go without (too big), and
            // so do those of an ASCII `\B`: the meta regexes answer alone.
            let set = match set_with_dfa(&patterns) {
                Some(set) => {
                    with_dfa.set(with_dfa.get() + 1);
                    set
                }
                None => PatternSet::new(Vec::leak(
                    patterns
                        .iter()
                        .map(|pattern| &*String::leak(pattern.clone()))
                        .collect(),
                )),
            };
            for value in &values {
                prop_assert_eq!(
                    set.matches(value).0,
                    oracle_bits(&oracle, value),
                    "{:?} on {:?}",
                    patterns,
                    value
                );
            }
            Ok(())
        })
        .unwrap_or_else(|failure| panic!("{failure}"));
    // Most sets get DFAs, so the comparison above is not vacuous.
    assert!(
        with_dfa.get() * 4 > valid.get() * 3,
        "{with_dfa:?} of {valid:?}"
    );
}

/// Bytes that do not read back as DFAs of exactly the set's patterns leave
/// the set to the meta regex, which still answers; nothing panics.
#[test]
fn bytes_that_do_not_read_back_leave_the_meta_regex() {
    let patterns = ["^a".to_owned(), "b$".to_owned()];
    let dfa = serialized_dfa(&patterns).expect("a small set gets a DFA");
    let (native, foreign) = if cfg!(target_endian = "little") {
        (&dfa.little_endian, &dfa.big_endian)
    } else {
        (&dfa.big_endian, &dfa.little_endian)
    };
    let misaligned = {
        let mut bytes = vec![0];
        bytes.extend_from_slice(native);
        &aligned(&bytes)[1..]
    };
    let truncated = aligned(&native[..native.len() / 2]);
    let cases: [(&[&str], &'static [u8]); 5] = [
        (&["^a", "b$"], aligned(foreign)),
        (&["^a", "b$"], misaligned),
        (&["^a", "b$"], truncated),
        (&["^a", "b$", "c"], aligned(native)),
        (&["^a"], aligned(native)),
    ];
    for (patterns, bytes) in cases {
        let set = PatternSet::with_dfa(Vec::leak(patterns.to_vec()), bytes);
        assert!(!set.has_dfa(), "{patterns:?}");
        assert_eq!(set.matches("ab").0, 0b11 & ((1 << patterns.len()) - 1));
        assert_eq!(set.matches("ba").0, 0);
    }
    // The same bytes, aligned and of as many patterns, read back.
    let set = PatternSet::with_dfa(&["^a", "b$"], aligned(native));
    assert!(set.has_dfa());
    assert_eq!(set.matches("ab").0, 0b11);
    // No DFA at all: a set as `PatternSet::new` makes.
    let set = PatternSet::new(&["^a", "b$"]);
    assert!(!set.has_dfa());
    assert_eq!(set.matches("xb").0, 0b10);
}

/// Found by `random_sets_answer_as_a_regex_set`: a pattern that can match
/// empty, searched by the meta regex (a DFA quit on a non-ASCII byte, or no
/// DFA at all), made `regex-automata`'s one-pass engine index past its
/// capture slots.
#[test]
fn a_pattern_matching_empty_falls_back_without_a_panic() {
    let patterns = vec!["^\\b".to_owned()];
    let oracle = RegexSet::new(&patterns).unwrap();
    let set = set_with_dfa(&patterns).expect("a DFA");
    for value in ["K", "\u{212A}", "é", "Ké", "", " K", "αK"] {
        assert_eq!(
            set.matches(value).0,
            oracle_bits(&oracle, value),
            "{value:?}"
        );
    }
}
