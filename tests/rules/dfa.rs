//! The dense DFAs `#[mcp_tool]` builds at compile time from each field's
//! patterns: which sets get one, and that a set answers exactly as
//! `regex::RegexSet` (an engine the set does not call) for random values,
//! ASCII or not, built from the patterns' own words. A set whose DFA quits on
//! a value (a Unicode `\b` next to a non-ASCII byte) asks the meta regex; the
//! literal cases below pin that path.

use crate::examples_support;
#[allow(dead_code)]
#[path = "../../benches/support/keyword_sql.rs"]
mod keyword_sql;
use crate::robust_support;
#[allow(dead_code, unreachable_pub)]
#[path = "../../benches/wide/tools.rs"]
mod wide;

use annot::__private::PatternSet;
use annot::{AnnotatedTool, mcp_tool};
use examples_support::example_tool_files;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use regex::RegexSet;
use robust_support::{github_api, http_api, manage_files};

/// Assertions, case folding, anchors and empty patterns, on one field.
#[mcp_tool(
    when(text matches r"\bkey\b") => (sensitive_data),
    when(text matches r"(?i)^select\b") => (read_only),
    when(text matches r"\.rs$") => (idempotent),
    when(text matches "^$") => (destructive),
    when(text matches "") => (open_world),
    when(text matches r"(?i)straße|kelvin") => (privileged_access),
    when(text matches r"\B\d+\B") => (slow_execution),
    when(text matches r"(?m)^end$") => (resource_intensive),
    when(text matches r"\p{Greek}+\b") => (reversible),
)]
#[allow(dead_code)]
struct Assertions {
    text: String,
}

/// An ASCII `\B` can hold between two bytes of one character, where the
/// meta regex drops the empty match: no DFA for this set.
#[mcp_tool(
    when(text matches r"(?-u:\B)") => (sensitive_data),
    when(text matches r"x") => (read_only),
)]
#[allow(dead_code)]
struct AsciiNotBoundary {
    text: String,
}

/// Every set of a tool, with the name of the tool.
fn sets_of<T: AnnotatedTool>(name: &'static str) -> Vec<(&'static str, &'static PatternSet)> {
    (T::GENERATED.pattern_sets)()
        .iter()
        .map(|set| (name, *set))
        .collect()
}

/// The sets that must get a DFA: the example tools' and the benches' sets
/// but the keyword SQL rules' (see `keyword_sql_gets_no_dfa`).
fn sets_with_dfa() -> Vec<(&'static str, &'static PatternSet)> {
    let mut sets = Vec::new();
    sets.extend(sets_of::<manage_files::ManageFiles>("manage_files"));
    sets.extend(sets_of::<github_api::GithubApi>("github_api"));
    sets.extend(sets_of::<wide::Rules1>("rules1"));
    sets.extend(sets_of::<wide::Rules8>("rules8"));
    sets.extend(sets_of::<wide::Rules64>("rules64"));
    sets.extend(sets_of::<Assertions>("assertions"));
    sets
}

/// The bits of the patterns `oracle` finds in `value`.
fn oracle_bits(oracle: &RegexSet, value: &str) -> u64 {
    oracle
        .matches(value)
        .iter()
        .fold(0, |bits, pattern| bits | 1 << pattern)
}

#[test]
fn every_example_tool_is_covered() {
    assert_eq!(
        example_tool_files(),
        ["github_api.rs", "http_api.rs", "manage_files.rs", "sql.rs"]
    );
    // The one example tool without a pattern.
    assert!((http_api::HttpApi::GENERATED.pattern_sets)().is_empty());
}

#[test]
fn example_and_bench_sets_get_a_dfa() {
    let sets = sets_with_dfa();
    let counts: Vec<(&str, usize)> = sets
        .iter()
        .map(|(name, set)| (*name, set.patterns().len()))
        .collect();
    assert_eq!(
        counts,
        [
            ("manage_files", 1),
            ("github_api", 4),
            ("rules1", 1),
            ("rules8", 8),
            ("rules64", 64),
            ("assertions", 9),
        ]
    );
    for (name, set) in sets {
        assert!(set.has_dfa(), "{name}: {:?}", set.patterns());
    }
}

/// The five patterns `sql.rs` had before its parser rule (comments, `\s`,
/// case folding, `\b` after each of several keywords, all unanchored)
/// determinise to about 2 MiB, four times the macro's limit: the meta regex
/// searches them.
#[test]
fn keyword_sql_gets_no_dfa() {
    let [set] = (keyword_sql::KeywordSql::GENERATED.pattern_sets)() else {
        panic!("one set");
    };
    assert_eq!(set.patterns().len(), 5);
    assert!(!set.has_dfa());
}

#[test]
fn an_ascii_not_boundary_gets_no_dfa_and_drops_splitting_matches() {
    let [set] = (AsciiNotBoundary::GENERATED.pattern_sets)() else {
        panic!("one set");
    };
    assert!(!set.has_dfa());
    // The only `(?-u:\B)` position of "aéa" is inside "é".
    assert_eq!(set.matches("aéa").0, 0b00);
    assert_eq!(set.matches("a é").0, 0b01);
    assert_eq!(set.matches("x").0, 0b10);
    assert_eq!(set.matches("ax").0, 0b11);
}

#[test]
fn a_unicode_word_boundary_next_to_non_ascii_asks_the_meta_regex() {
    let [set] = (wide::Rules64::GENERATED.pattern_sets)() else {
        panic!("one set");
    };
    // Pattern 3 is `(?i)/secrets?/key3\b`.
    assert!(set.matches("/srv/Secret/KEY3").matched(3));
    assert!(set.matches("/srv/secrets/key3 é").matched(3));
    assert!(set.matches("/srv/secrets/key3-ß").matched(3));
    // `é` and `ß` are word characters: no boundary after `key3`.
    assert!(!set.matches("/srv/secrets/key3é").matched(3));
    assert!(!set.matches("/srv/secrets/key3ß/x").matched(3));
    // A non-ASCII byte after every pattern is decided changes nothing.
    assert_eq!(set.matches("/srv/area0/ü").0, 1);
    assert_eq!(set.matches("/srv/area0").0, 1);
    assert_eq!(set.matches("/srv/area0x").0, 0);
}

#[test]
fn assertion_cases() {
    let [set] = (Assertions::GENERATED.pattern_sets)() else {
        panic!("one set");
    };
    // Bits: 0 `\bkey\b`, 1 `(?i)^select\b`, 2 `\.rs$`, 3 `^$`, 4 empty,
    // 5 `(?i)straße|kelvin`, 6 `\B\d+\B`, 7 `(?m)^end$`, 8 `\p{Greek}+\b`.
    let cases: &[(&str, u64)] = &[
        ("", 0b0_0001_1000),
        ("key", 0b0_0001_0001),
        ("monkey", 0b0_0001_0000),
        ("SeLeCt key.rs", 0b0_0001_0111),
        ("selectkey", 0b0_0001_0000),
        ("STRASSE", 0b0_0001_0000),
        ("STRAẞE", 0b0_0011_0000),
        ("\u{212A}ELVIN", 0b0_0011_0000),
        ("a123b", 0b0_0101_0000),
        ("1", 0b0_0001_0000),
        ("123", 0b0_0101_0000),
        ("x\nend\ny", 0b0_1001_0000),
        ("αβγ", 0b1_0001_0000),
        ("αβγδ key", 0b1_0001_0001),
        ("αβγx", 0b0_0001_0000),
        ("é key é", 0b0_0001_0001),
        ("ékey", 0b0_0001_0000),
    ];
    for &(value, bits) in cases {
        assert_eq!(set.matches(value).0, bits, "{value:?}");
    }
}

/// The words of a set's patterns, and bytes that matter to assertions: the
/// pieces random values are built from.
fn pieces(patterns: &[&str]) -> Vec<String> {
    let mut pieces: Vec<String> = [
        "/", ".", "-", ";", " ", "\n", "--", "/*", "*/", "é", "ß", "ſ", "\u{212A}", "α", "☃", "_",
        "0", "x", "X", "K",
    ]
    .iter()
    .map(|piece| piece.to_string())
    .collect();
    for pattern in patterns {
        let words = pattern.split(|c: char| !(c.is_alphanumeric() || c == '/' || c == '-'));
        pieces.extend(words.filter(|word| !word.is_empty()).map(str::to_owned));
    }
    pieces.sort();
    pieces.dedup();
    pieces
}

/// Random values: pieces of the patterns' words, and any characters.
fn values(pieces: Vec<String>) -> BoxedStrategy<String> {
    let piece = prop_oneof![
        3 => proptest::sample::select(pieces),
        1 => any::<char>().prop_map(String::from),
        1 => "[a-zA-Z0-9/]{1,4}",
    ];
    proptest::collection::vec(piece, 0..10)
        .prop_map(|pieces| pieces.concat())
        .boxed()
}

#[test]
fn every_set_answers_as_a_regex_set() {
    let mut sets = sets_with_dfa();
    sets.extend(sets_of::<keyword_sql::KeywordSql>("keyword_sql"));
    sets.extend(sets_of::<AsciiNotBoundary>("ascii_not_boundary"));
    for (name, set) in sets {
        let oracle = RegexSet::new(set.patterns()).expect("the patterns compile");
        let mut runner = TestRunner::new(Config {
            cases: 2000,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&values(pieces(set.patterns())), |value| {
                prop_assert_eq!(
                    set.matches(&value).0,
                    oracle_bits(&oracle, &value),
                    "{} on {:?}",
                    name,
                    value
                );
                Ok(())
            })
            .unwrap_or_else(|failure| panic!("{name}: {failure}"));
    }
}
