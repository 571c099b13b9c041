//! A field's patterns determinised at compile time into one dense DFA, whose
//! serialized bytes the generated code embeds, so that a search at run time
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
/// room for sets like them while bounding the binary and the build, whose
/// time grows with the size (measured about 1.5 ms a KiB with
/// `regex-automata` unoptimised, 0.3 ms optimised; a set over the limit costs
/// the time to reach it).
const DFA_SIZE_LIMIT: usize = 320 * 1024;

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

/// The DFA of `patterns` (all valid, as the checks found), or `None` when the
/// set is to be searched by the runtime's meta regex instead: a pattern whose
/// empty matches may split a character, or a DFA over the limits. A set too
/// big for one DFA is not split into several: each would be a pass over the
/// value, and for `examples/tools/sql.rs` (three parts) the passes measured
/// slower than the meta regex on statements of 100 bytes and more.
pub fn serialized_dfa(patterns: &[String]) -> Option<SerializedDfa> {
    if patterns.is_empty()
        || !patterns
            .iter()
            .all(|pattern| empty_matches_on_boundaries(pattern))
    {
        return None;
    }
    let config = dense::Config::new()
        // Every pattern matching anywhere is reported, not the leftmost only.
        .match_kind(MatchKind::All)
        .start_kind(StartKind::Unanchored)
        // A Unicode `\b` is decided on ASCII bytes; on any other byte the
        // search quits and the runtime asks the meta regex instead.
        .unicode_word_boundary(true)
        // Values are short: a skip loop costs more than it saves.
        .accelerate(false)
        // Minimising measured 7% smaller for the 64 path patterns of the
        // benches at 40% more build time, and no faster to search.
        .minimize(false)
        .dfa_size_limit(Some(DFA_SIZE_LIMIT))
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
        .build_many(patterns)
        .ok()?;
    let (little, pad) = dfa.to_bytes_little_endian();
    let little_endian = little[pad..].to_vec();
    let (big, pad) = dfa.to_bytes_big_endian();
    let big_endian = big[pad..].to_vec();
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
