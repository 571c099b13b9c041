//! The dense DFA `#[mcp_tool]` builds at compile time from a field's
//! patterns, read back from the bytes the generated code embeds, and the
//! search of a value with it.
//!
//! The macro builds it with `MatchKind::All` and an unanchored start, so the
//! DFA enters a match state for pattern `i` (one byte late, as the DFAs of
//! `regex-automata` do) after each end of a match of `i`; one forward pass
//! collects every pattern that matches anywhere, which is what
//! [`PatternSet::matches`](super::PatternSet::matches) answers.

use regex_automata::Anchored;
use regex_automata::dfa::Automaton;
use regex_automata::dfa::dense::DFA;
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;

/// Bytes aligned as [`DFA::from_bytes`] requires: the generated code puts a
/// serialized DFA in one. Not an API of its own.
#[doc(hidden)]
#[repr(C, align(4))]
#[derive(Debug)]
pub struct AlignedBytes<const N: usize>(pub [u8; N]);

/// A DFA read from embedded bytes, with what every search with it starts
/// from.
#[derive(Clone, Debug)]
pub(super) struct Compiled {
    dfa: DFA<&'static [u32]>,
    /// The start state of a search of a whole value.
    start: StateID,
    /// Every pattern's bit: once all are found the rest of a value cannot
    /// change the answer.
    all: u64,
}

impl Compiled {
    /// The DFA in `bytes`, if they hold a DFA of `patterns` patterns, as the
    /// macro builds it; `None` (search with the meta regex instead) for bytes
    /// of another format, byte order or version of `regex-automata`, or
    /// misaligned.
    pub(super) fn read(bytes: &'static [u8], patterns: usize) -> Option<Compiled> {
        let (dfa, _) = DFA::from_bytes(bytes).ok()?;
        if dfa.pattern_len() != patterns || !(1..=64).contains(&patterns) {
            return None;
        }
        // A value is searched whole: its start is the start of the text, so
        // there is no byte before it to look at.
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::No))
            .ok()?;
        Some(Compiled {
            dfa,
            start,
            all: u64::MAX >> (64 - patterns),
        })
    }

    /// The bits of the patterns that match somewhere in `haystack`, or
    /// `None` when the DFA cannot decide (a non-ASCII byte where a pattern
    /// has a Unicode `\b`): the caller asks the meta regex then.
    #[inline]
    pub(super) fn search(&self, haystack: &[u8]) -> Option<u64> {
        let dfa = &self.dfa;
        let mut state = self.start;
        let mut bits = 0;
        for &byte in haystack {
            state = dfa.next_state(state, byte);
            if dfa.is_special_state(state) {
                if dfa.is_match_state(state) {
                    bits |= self.matched(state);
                    if bits == self.all {
                        return Some(bits);
                    }
                } else if dfa.is_dead_state(state) {
                    // No pattern can match any more.
                    return Some(bits);
                } else if dfa.is_quit_state(state) {
                    return None;
                }
            }
        }
        // The matches that end at the end of the value (`$`, `\b`...).
        let state = dfa.next_eoi_state(state);
        if dfa.is_match_state(state) {
            bits |= self.matched(state);
        }
        Some(bits)
    }

    fn matched(&self, state: StateID) -> u64 {
        (0..self.dfa.match_len(state))
            .map(|index| self.dfa.match_pattern(state, index).as_usize())
            .fold(0, |bits, pattern| bits | 1 << pattern)
    }
}
