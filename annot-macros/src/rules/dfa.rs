//! A field's patterns determinised at compile time into a dense DFA (or a few,
//! each of some of the patterns), whose serialized bytes the generated code
//! embeds, so that a search at run time
//! is a walk over a table: no regex to build, no cache, no pool.
//!
//! The DFA is an optimisation only. When it cannot be built exactly (too big,
//! too slow to build, or a pattern whose empty matches could fall inside a
//! character), the macro emits none and the runtime searches with its meta
//! regex, as for a set built with `PatternSet::new`.

use regex_automata::MatchKind;
use regex_automata::dfa::{StartKind, dense};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::syntax;
use regex_syntax::hir::Look;

/// The largest DFA (its transition table and the rest) embedded in a binary.
/// The 64 path patterns of the benches take 240 to 270 KiB; the cap leaves
/// room for sets like them while bounding the binary and the build.
const DFA_SIZE_LIMIT: usize = 512 * 1024;

/// The bytes of DFA one set may determinise in all, counting the attempts
/// that ran into the limit: build time grows with it (measured about 1.5 ms a
/// KiB with `regex-automata` unoptimised, 0.3 ms optimised), so it bounds the
/// time a set can add to a build, however its parts fail.
const BUILD_BUDGET: usize = 2 * 1024 * 1024;

/// The most memory determinisation may use; it also bounds its time, which
/// matters because users build this macro unoptimised.
const DETERMINIZE_SIZE_LIMIT: usize = 2 * 1024 * 1024;

/// `regex`'s default limit on the size of one compiled pattern set, which the
/// runtime's meta regex uses as well.
const NFA_SIZE_LIMIT: usize = 10 * (1 << 20);

/// One DFA serialized for each byte order; each without the leading padding
/// of `to_bytes_*`, since the generated code aligns the bytes itself.
pub struct SerializedDfa {
    pub little_endian: Vec<u8>,
    pub big_endian: Vec<u8>,
}

/// The DFAs of `patterns` (all valid, as the checks found): one of the whole
/// set when it fits the limits, else of consecutive parts of it (halved until
/// each fits), searched one after the other at run time. `None` when the set
/// is to be searched by the runtime's meta regex instead: a pattern whose
/// empty matches may split a character, or one that alone does not fit.
pub fn serialized_dfas(patterns: &[String]) -> Option<Vec<SerializedDfa>> {
    if patterns.is_empty()
        || !patterns
            .iter()
            .all(|pattern| empty_matches_on_boundaries(pattern))
    {
        return None;
    }
    let mut dfas = Vec::new();
    let mut budget = BUILD_BUDGET;
    split_into(patterns, &mut dfas, &mut budget).then_some(dfas)
}

/// Pushes the DFAs of `patterns` onto `dfas`, halving the set until each part
/// fits; `false` if a single pattern does not.
fn split_into(patterns: &[String], dfas: &mut Vec<SerializedDfa>, budget: &mut usize) -> bool {
    if *budget == 0 {
        return false;
    }
    if let Some(dfa) = serialized_dfa(patterns, budget) {
        dfas.push(dfa);
        return true;
    }
    if patterns.len() == 1 {
        return false;
    }
    let (first, second) = patterns.split_at(patterns.len() / 2);
    split_into(first, dfas, budget) && split_into(second, dfas, budget)
}

/// The DFA of the whole of `patterns`, if it fits the limits.
fn serialized_dfa(patterns: &[String], budget: &mut usize) -> Option<SerializedDfa> {
    let limit = DFA_SIZE_LIMIT.min(*budget);
    let config = dense::Config::new()
        // Every pattern matching anywhere is reported, not the leftmost only.
        .match_kind(MatchKind::All)
        .start_kind(StartKind::Unanchored)
        // A Unicode `\b` is decided on ASCII bytes; on any other byte the
        // search quits and the runtime asks the meta regex instead.
        .unicode_word_boundary(true)
        // Values are short: a skip loop costs more than it saves.
        .accelerate(false)
        .minimize(false)
        .dfa_size_limit(Some(limit))
        .determinize_size_limit(Some(DETERMINIZE_SIZE_LIMIT));
    let dfa = dense::Builder::new()
        .configure(config)
        .syntax(syntax::Config::new().utf8(true))
        .thompson(
            thompson::Config::new()
                .utf8(true)
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .build_many(patterns);
    let Ok(dfa) = dfa else {
        // Determinisation ran up to the limit before giving up.
        *budget -= limit;
        return None;
    };
    let (little, pad) = dfa.to_bytes_little_endian();
    let little_endian = little[pad..].to_vec();
    let (big, pad) = dfa.to_bytes_big_endian();
    let big_endian = big[pad..].to_vec();
    *budget = budget.saturating_sub(little_endian.len());
    Some(SerializedDfa {
        little_endian,
        big_endian,
    })
}

/// Whether every empty match of `pattern` falls on a character boundary of a
/// UTF-8 value. The runtime's meta regex drops empty matches that split a
/// character (`utf8_empty`); a DFA does not, so a pattern with an ASCII
/// assertion that holds between two bytes of one character (`(?-u:\B)` and
/// the ASCII half boundaries) gets no DFA. Every other assertion needs an
/// ASCII byte, or the start or end, on one side; the Unicode ones make the DFA
/// quit on any non-ASCII byte.
fn empty_matches_on_boundaries(pattern: &str) -> bool {
    let Ok(hir) = syntax::parse_with(pattern, &syntax::Config::new().utf8(true)) else {
        return false;
    };
    let looks = hir.properties().look_set();
    !(looks.contains(Look::WordAsciiNegate)
        || looks.contains(Look::WordStartHalfAscii)
        || looks.contains(Look::WordEndHalfAscii))
}
