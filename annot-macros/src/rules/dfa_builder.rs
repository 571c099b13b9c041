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

/// The DFA of one field serialized for each byte order, in the layout
/// `annot_runtime`'s `rules/dfa.rs` reads (see [`layout`]).
pub struct SerializedDfa {
    pub little_endian: Vec<u8>,
    pub big_endian: Vec<u8>,
}

/// The DFA of `patterns` (all valid, as the checks found), or `None` when the
/// set is to be searched by the runtime's meta regex instead: a pattern whose
/// empty matches may split a character, or a DFA over the limits.
///
/// A set of patterns all anchored at the start of the value (`^/etc`) is one
/// DFA searched from the start only, which dies within a few bytes of a value
/// none of them can match. Any other set is one unanchored DFA of all its
/// patterns, with its start states marked (`specialize_start_states`), so
/// that the runtime's walk notices, at no cost on other states, when it is
/// back where a fresh search would be, and scans the rest of the value for
/// the next place a match can begin (`annot-runtime/src/rules/prefilter.rs`).
/// Two DFAs, anchored and not, each walked on its own, read a value twice
/// where a pattern of each matched, and cost more than the one walk
/// (counted with `benches/rules.rs` when the one walk replaced them). A set too big for one DFA is not split:
/// for `examples/tools/sql.rs` (three parts) the passes measured slower than
/// the meta regex on statements of 100 bytes and more.
pub fn serialized_dfa(patterns: &[String]) -> Option<SerializedDfa> {
    if patterns.is_empty()
        || patterns.len() > layout::MAX_PATTERNS
        || !patterns
            .iter()
            .all(|pattern| empty_matches_on_boundaries(pattern))
    {
        return None;
    }
    let chosen: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let anchored = patterns.iter().all(|pattern| anchored_at_start(pattern));
    let start = if anchored {
        StartKind::Anchored
    } else {
        StartKind::Unanchored
    };
    let dfa = build(&chosen, start)?;
    let (little, little_pad) = dfa.to_bytes_little_endian();
    let (big, big_pad) = dfa.to_bytes_big_endian();
    Some(SerializedDfa {
        little_endian: layout::write(anchored, &little[little_pad..], u32::to_le_bytes),
        big_endian: layout::write(anchored, &big[big_pad..], u32::to_be_bytes),
    })
}

/// One DFA of `patterns`, every match of each reported.
fn build(patterns: &[&str], start: StartKind) -> Option<dense::DFA<Vec<u32>>> {
    let config = dense::Config::new()
        // Every pattern matching anywhere is reported, not the leftmost only.
        .match_kind(MatchKind::All)
        .start_kind(start)
        // A Unicode `\b` is decided on ASCII bytes; on any other byte the
        // search quits and the runtime asks the meta regex instead.
        .unicode_word_boundary(true)
        // Values are short: a skip loop costs more than it saves.
        .accelerate(false)
        // Minimised, an unanchored DFA's start states are the states its
        // walk is in once no match is under way: without it, the start
        // states keep the patterns anchored at the start (pending on `^`)
        // and no walk ever comes back to one, so the runtime could never
        // leave the walk for its scan. An anchored DFA gains nothing from it
        // (7% smaller for the 32 anchored patterns of the benches, at 40%
        // more build time).
        .minimize(start == StartKind::Unanchored)
        // The walk notices a start state (see above) at no cost on others.
        .specialize_start_states(start == StartKind::Unanchored)
        .dfa_size_limit(Some(DFA_SIZE_LIMIT))
        .determinize_size_limit(Some(DETERMINIZE_SIZE_LIMIT));
    dense::Builder::new()
        .configure(config)
        .syntax(syntax::Config::new().utf8(true))
        .thompson(
            thompson::Config::new()
                .utf8(true)
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .build_many(patterns)
        .ok()
}

/// Whether every match of `pattern` starts at the start of the value (`^`,
/// `\A`, outside multi-line mode).
fn anchored_at_start(pattern: &str) -> bool {
    syntax::parse_with(pattern, &syntax::Config::new().utf8(true))
        .is_ok_and(|hir| hir.properties().look_set_prefix().contains(Look::Start))
}

/// The bytes the generated code embeds: three `u32`s in the target's byte
/// order (a tag, whether the DFA is anchored at the start of the value, the
/// length of its bytes), then the DFA, padded to 4 bytes. Its pattern `i` is
/// the field's pattern `i`.
pub mod layout {
    /// `annot_runtime::__private::PatternSet`'s limit.
    pub const MAX_PATTERNS: usize = 64;
    /// The first word: which layout this is. The runtime reads no other.
    pub const TAG: u32 = 0x616e_7433;

    /// The serialized DFA `dfa` (anchored or not), with `word` writing a
    /// `u32` in the byte order `dfa` was serialized in.
    pub fn write(anchored: bool, dfa: &[u8], word: fn(u32) -> [u8; 4]) -> Vec<u8> {
        let len = dfa.len().next_multiple_of(4);
        let mut out = word(TAG).to_vec();
        out.extend(word(u32::from(anchored)));
        out.extend(word(
            u32::try_from(len).expect("a DFA under the size limit"),
        ));
        out.extend(dfa);
        out.resize(out.len() + len - dfa.len(), 0);
        out
    }
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
