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

#[cfg(test)]
mod tests {
    use regex_automata::MatchKind;
    use regex_automata::dfa::{StartKind, dense};

    use super::*;

    /// The DFA of `patterns` built as `#[mcp_tool]` builds it, serialized in
    /// this machine's byte order into aligned `'static` bytes.
    fn serialized(patterns: &[&str]) -> &'static [u8] {
        let config = dense::Config::new()
            .match_kind(MatchKind::All)
            .start_kind(StartKind::Unanchored)
            .unicode_word_boundary(true);
        let dfa = dense::Builder::new()
            .configure(config)
            .build_many(patterns)
            .unwrap();
        let (bytes, pad) = dfa.to_bytes_native_endian();
        let bytes = &bytes[pad..];
        let aligned = Box::leak(Box::new(AlignedBytes([0; 1 << 16])));
        aligned.0[..bytes.len()].copy_from_slice(bytes);
        &aligned.0[..bytes.len()]
    }

    /// Bytes read with another number of patterns than they hold are not
    /// used: pattern `i` of the DFA would answer for rule `i` of another set.
    #[test]
    fn bytes_of_another_set_are_not_read() {
        let two = serialized(&["^/etc", r"\.pem$"]);
        assert!(Compiled::read(two, 2).is_some());
        assert!(Compiled::read(two, 1).is_none());
        assert!(Compiled::read(two, 3).is_none());
        assert!(Compiled::read(serialized(&[]), 0).is_none());
        assert!(Compiled::read(&two[4..], 2).is_none(), "cut bytes");
    }

    /// One pass finds every pattern that matches, stops at the dead state,
    /// and quits (for the meta regex) at a non-ASCII byte next to `\b`.
    #[test]
    fn a_search_reports_every_pattern_that_matches() {
        let patterns = ["^/etc", r"\.pem$", "key", r"\bid\b"];
        let dfa = Compiled::read(serialized(&patterns), 4).unwrap();
        assert_eq!(dfa.all, 0b1111);
        assert_eq!(dfa.search(b"/etc/key.pem"), Some(0b0111));
        assert_eq!(dfa.search(b"/etc/key.pem id"), Some(0b1101));
        assert_eq!(dfa.search(b"id /etc/key.pem"), Some(0b1110));
        assert_eq!(dfa.search(b"/home/a.pem"), Some(0b0010));
        assert_eq!(dfa.search(b"monkey"), Some(0b0100));
        assert_eq!(dfa.search(b""), Some(0));
        assert_eq!(dfa.search("é id".as_bytes()), None);
        let anchored = Compiled::read(serialized(&["^/etc", "^/srv"]), 2).unwrap();
        assert_eq!(anchored.all, 0b11);
        assert_eq!(anchored.search(b"/srv/x"), Some(0b10));
        assert_eq!(anchored.search(b"/tmp"), Some(0));
    }
}
