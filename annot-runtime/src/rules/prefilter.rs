//! A scan that finds where a match of the unanchored DFA of a field
//! (`dfa.rs`) can begin, so that the walk skips the bytes where none can: a
//! walk reads every byte with one dependent table load each, the scan
//! sixteen at a time, with the packed (SIMD) searcher of `aho-corasick`
//! (Teddy) looking for the pairs as two-byte literals.
//!
//! It is read off the DFA itself, once. A *fresh* state after byte `b` is
//! the DFA's start state with `b` before it (a search starting right after
//! `b`). The *firsts* are the bytes that take some fresh state anywhere but
//! to the fresh state after them (`/` for `/secrets?/key`, `.` for
//! `\.pem$`); each first's *seconds* the bytes after it on which the walk
//! does not reach the state a fresh start before them reaches. A place where
//! a first is followed by one of its seconds, or a first ends the value, or a
//! byte the DFA quits on (non-ASCII, when a pattern has a Unicode `\b`), is a
//! *candidate*.
//!
//! The walk of a value starts at its start, in the DFA's start state, and
//! hands the rest of the value to the scan whenever it is in the fresh state
//! after the byte it just read (from the start, once the patterns anchored
//! there are out of the race and no match is under way). From there up to
//! the first candidate of the rest, the walk after each byte is where a
//! fresh start before that byte would be (by induction over the bytes, from
//! the definitions), never in a match state; so a rest without a candidate
//! adds no match, and a walk from the fresh state before the first candidate
//! answers as the walk of the whole rest. The pair ending where the rest
//! begins is no candidate: the walk is in the fresh state itself, not in
//! one its first reached. A scan exists only when there are at most four
//! firsts with at most four seconds each (else it finds too much to save
//! anything) and no fresh state is a match or matches at the end.

use aho_corasick::packed;
use regex_automata::Anchored;
use regex_automata::dfa::Automaton;
use regex_automata::dfa::dense::DFA;
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;

/// The most firsts, and seconds of one first, a scan looks for.
const MOST: usize = 4;

/// The firsts and seconds of one DFA; see the module's documentation.
#[derive(Clone, Debug)]
pub(super) struct Prefilter {
    /// Bit `j` for the `j`th first, [`QUIT`] for a byte the DFA quits on,
    /// [`END`] for a first that is a candidate only at the end.
    first_bits: [u8; 256],
    /// Bit `j` when the byte is a second of the `j`th first.
    second_bits: [u8; 256],
    /// The firsts after which any byte is a candidate, and bit 7.
    any_second: u8,
    firsts: Vec<Pair>,
    /// Whether the DFA quits on every non-ASCII byte (and on no other).
    quits_on_non_ascii: bool,
    /// The fresh state after each byte (for those the DFA quits on, its
    /// start state, never used).
    fresh: Box<[StateID; 256]>,
    /// The pairs (a first alone when any byte may follow it) as literals,
    /// searched sixteen or thirty-two places at a time; `None` where the
    /// target has no SIMD search.
    packed: Option<packed::Searcher>,
}

/// A first and its seconds (`None`: any byte).
#[derive(Clone, Debug)]
struct Pair {
    first: u8,
    seconds: Option<Vec<u8>>,
}

/// Bit 7 of `first_bits`: a byte the DFA quits on.
const QUIT: u8 = 1 << 7;
/// Bit 6 of `first_bits`: a first that is a candidate only at the end.
const END: u8 = 1 << 6;

impl Prefilter {
    /// The scan of `dfa`, whose search of a whole value starts at `start`,
    /// if one applies.
    pub(super) fn of(dfa: &DFA<&'static [u32]>, start: StateID) -> Option<Prefilter> {
        let quits = |byte: u8| dfa.is_quit_state(dfa.next_state(start, byte));
        let quits_on_non_ascii = quits(0x80);
        if (0..=u8::MAX).any(|byte| quits(byte) != (byte >= 0x80 && quits_on_non_ascii)) {
            return None;
        }
        let mut fresh = Box::new([start; 256]);
        for byte in (0..=u8::MAX).filter(|&byte| !quits(byte)) {
            let config = start::Config::new()
                .anchored(Anchored::No)
                .look_behind(Some(byte));
            fresh[usize::from(byte)] = dfa.start_state(&config).ok()?;
        }
        // Start states may be special (marked for the walk, see `dfa.rs`);
        // the others stop or report a walk.
        let stops = |state: StateID| dfa.is_special_state(state) && !dfa.is_start_state(state);
        // The walk of a value starts at its start (`start`) and comes to the
        // scan only from a fresh state: only those are scanned from.
        let mut fresh_states: Vec<StateID> = fresh.to_vec();
        fresh_states.sort_unstable();
        fresh_states.dedup();
        if fresh_states
            .iter()
            .any(|&state| stops(state) || dfa.is_match_state(dfa.next_eoi_state(state)))
        {
            return None;
        }
        let mut firsts = Vec::new();
        let mut ends = Vec::new();
        for first in (0..=u8::MAX).filter(|&byte| !quits(byte)) {
            let after = fresh[usize::from(first)];
            let mut reached: Vec<StateID> = fresh_states
                .iter()
                .map(|&state| dfa.next_state(state, first))
                .filter(|&state| state != after)
                .collect();
            reached.sort_unstable();
            reached.dedup();
            let special = reached.iter().any(|&state| stops(state));
            let seconds = if special {
                None
            } else {
                let seconds: Vec<u8> = (0..=u8::MAX)
                    .filter(|&second| !quits(second))
                    .filter(|&second| {
                        let fresh_walk = dfa.next_state(after, second);
                        reached
                            .iter()
                            .any(|&state| dfa.next_state(state, second) != fresh_walk)
                    })
                    .collect();
                (seconds.len() <= MOST).then_some(seconds)
            };
            if seconds.as_ref().is_some_and(Vec::is_empty) {
                // The walk is back where a fresh start would be one byte
                // later (a word byte, where a pattern has a `\b`): a
                // candidate only if the value may end right after it.
                if reached
                    .iter()
                    .any(|&state| dfa.is_match_state(dfa.next_eoi_state(state)))
                {
                    ends.push(first);
                }
                continue;
            }
            if firsts.len() == MOST {
                return None;
            }
            firsts.push(Pair { first, seconds });
        }
        let mut prefilter = Prefilter {
            first_bits: [0; 256],
            second_bits: [0; 256],
            any_second: 0,
            firsts,
            quits_on_non_ascii,
            fresh,
            packed: None,
        };
        prefilter.fill_bits();
        prefilter.packed = prefilter.packed_searcher();
        for end in ends {
            prefilter.first_bits[usize::from(end)] |= END;
        }
        Some(prefilter)
    }

    /// The byte tables of the bytewise search, from the firsts.
    fn fill_bits(&mut self) {
        for (index, pair) in self.firsts.iter().enumerate() {
            let bit = 1 << index;
            self.first_bits[usize::from(pair.first)] |= bit;
            match &pair.seconds {
                Some(seconds) => {
                    for &second in seconds {
                        self.second_bits[usize::from(second)] |= bit;
                    }
                }
                None => self.any_second |= bit,
            }
        }
        if self.quits_on_non_ascii {
            for byte in 0x80..=u8::MAX {
                self.first_bits[usize::from(byte)] |= QUIT;
            }
            self.any_second |= QUIT;
        }
    }

    /// The firsts and seconds as literals for the packed searcher.
    fn packed_searcher(&self) -> Option<packed::Searcher> {
        let mut builder = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostFirst)
            .builder();
        for pair in &self.firsts {
            match &pair.seconds {
                Some(seconds) => {
                    for &second in seconds {
                        builder.add([pair.first, second]);
                    }
                }
                None => {
                    builder.add([pair.first]);
                }
            }
        }
        builder.build()
    }

    /// The fresh state after `byte`: a search starting right after it.
    #[inline]
    pub(super) fn fresh_after(&self, byte: u8) -> StateID {
        self.fresh[usize::from(byte)]
    }

    /// Where the first candidate of `haystack` is, if any: the search starts
    /// there, in the start state.
    #[inline]
    pub(super) fn first_candidate(&self, haystack: &[u8]) -> Option<usize> {
        let last = haystack.len().checked_sub(1)?;
        // A first at the very end: the end of the value may complete a match.
        self.first_pair(haystack)
            .or_else(|| (self.first_bits[usize::from(haystack[last])] != 0).then_some(last))
    }

    /// The first `i` where `haystack[i]` is a first and `haystack[i + 1]`
    /// one of its seconds (or a byte the DFA quits on), or a place before
    /// it: the packed searcher where the value is long enough for it and
    /// ASCII (a value with a byte the DFA quits on leaves the DFA anyway);
    /// else sixteen places a step decide whether there is one, and only a
    /// step that has one is read a byte at a time.
    #[inline]
    fn first_pair(&self, haystack: &[u8]) -> Option<usize> {
        if let Some(searcher) = &self.packed
            && haystack.len() >= searcher.minimum_len()
            && (!self.quits_on_non_ascii || ascii(haystack))
        {
            // A literal of one byte (a first any byte may follow) found at
            // the very end is a candidate too: `first_candidate` would
            // report it.
            return searcher.find(haystack).map(|found| found.start());
        }
        self.first_pair_without_packed(haystack)
    }

    /// [`first_pair`](Self::first_pair) where the packed searcher does not
    /// apply.
    #[inline(never)]
    fn first_pair_without_packed(&self, haystack: &[u8]) -> Option<usize> {
        let len = haystack.len();
        if len < 2 {
            return None;
        }
        if len < 64 {
            // Two independent table loads a byte, no chain from one byte to
            // the next: counted fewer instructions than the steps below on
            // values of this length.
            return self.first_pair_bytewise(haystack);
        }
        let mut at = 0;
        while at + 17 <= len {
            if self.step_has_pair(haystack, at) {
                return self
                    .first_pair_bytewise(&haystack[at..])
                    .map(|found| at + found);
            }
            at += 16;
        }
        // The last places, in a step that ends with the value.
        if at < len - 1 && self.step_has_pair(haystack, len - 17) {
            return self
                .first_pair_bytewise(&haystack[at..])
                .map(|found| at + found);
        }
        None
    }

    /// Whether one of places `at..at + 16` of `bytes` holds a first followed
    /// by one of its seconds. Written lane by lane over arrays, which the
    /// compiler turns into vector compares (`unsafe` intrinsics are not
    /// allowed in this crate).
    #[inline]
    fn step_has_pair(&self, bytes: &[u8], at: usize) -> bool {
        let here: &[u8; 16] = bytes[at..at + 16].try_into().expect("16 bytes");
        let next: &[u8; 16] = bytes[at + 1..at + 17].try_into().expect("16 bytes");
        let mut found = [0u8; 16];
        for pair in &self.firsts {
            let mut followed = [0u8; 16];
            match &pair.seconds {
                Some(seconds) => {
                    for &second in seconds {
                        for (followed, &byte) in followed.iter_mut().zip(next) {
                            *followed |= u8::from(byte == second);
                        }
                    }
                }
                None => followed = [1; 16],
            }
            for ((found, &byte), &followed) in found.iter_mut().zip(here).zip(&followed) {
                *found |= u8::from(byte == pair.first) & followed;
            }
        }
        if self.quits_on_non_ascii {
            for (found, &byte) in found.iter_mut().zip(here) {
                *found |= byte >> 7;
            }
        }
        u128::from_ne_bytes(found) != 0
    }

    /// [`first_pair`](Self::first_pair) a byte at a time.
    fn first_pair_bytewise(&self, haystack: &[u8]) -> Option<usize> {
        haystack.windows(2).position(|pair| {
            let seconds = self.second_bits[usize::from(pair[1])] | self.any_second;
            self.first_bits[usize::from(pair[0])] & seconds != 0
        })
    }
}

/// Whether `bytes` are all ASCII, eight at a time: on the values rules see
/// (a few dozen bytes), counted fewer instructions than `<[u8]>::is_ascii`,
/// whose set-up is made for longer slices.
#[inline]
fn ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let word = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let Some(last) = bytes.len().checked_sub(8) else {
        return bytes.is_ascii();
    };
    // The words from the start, and the last eight bytes (which may overlap
    // the words before them).
    let mut seen = word(last);
    let mut at = 0;
    while at < last {
        seen |= word(at);
        at += 8;
    }
    seen & HIGH == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan's answer, both ways, which must agree.
    fn first(prefilter: &Prefilter, haystack: &[u8]) -> Option<usize> {
        let found = prefilter.first_candidate(haystack);
        let last = haystack.len().checked_sub(1);
        let bytewise = prefilter.first_pair_bytewise(haystack).or_else(|| {
            last.filter(|&last| prefilter.first_bits[usize::from(haystack[last])] != 0)
        });
        assert_eq!(found, bytewise, "{:?}", String::from_utf8_lossy(haystack));
        found
    }

    fn prefilter(firsts: Vec<Pair>, quits_on_non_ascii: bool) -> Prefilter {
        let mut prefilter = Prefilter {
            first_bits: [0; 256],
            second_bits: [0; 256],
            any_second: 0,
            firsts,
            quits_on_non_ascii,
            fresh: Box::new([StateID::ZERO; 256]),
            packed: None,
        };
        prefilter.fill_bits();
        prefilter.packed = prefilter.packed_searcher();
        prefilter
    }

    #[test]
    fn ascii_is_decided_at_every_place_and_length() {
        for len in 0..40 {
            let plain = vec![b'a'; len];
            assert!(ascii(&plain), "{len}");
            for at in 0..len {
                for byte in [0x80, 0xC3, 0xFF] {
                    let mut wide = plain.clone();
                    wide[at] = byte;
                    assert!(!ascii(&wide), "{byte:#x} at {at} of {len}");
                }
            }
        }
    }

    /// Every length around the sixteen-byte steps, candidates at every place.
    #[test]
    fn the_scan_finds_the_first_pair_at_any_place_and_length() {
        let scan = prefilter(
            vec![
                Pair {
                    first: b'/',
                    seconds: Some(vec![b's', b'S']),
                },
                Pair {
                    first: b'.',
                    seconds: None,
                },
            ],
            true,
        );
        for len in 0..50 {
            let plain = vec![b'a'; len];
            assert_eq!(first(&scan, &plain), None);
            for at in 0..len {
                let mut slash = plain.clone();
                slash[at] = b'/';
                let expected = (at == len - 1).then_some(at);
                assert_eq!(first(&scan, &slash), expected, "a lone / at {at} of {len}");
                if at + 1 < len {
                    slash[at + 1] = b'S';
                    assert_eq!(first(&scan, &slash), Some(at), "/S at {at} of {len}");
                }
                let mut wide = plain.clone();
                wide[at] = 0xC3;
                assert_eq!(first(&scan, &wide), Some(at), "non-ASCII at {at} of {len}");
                let mut dot = plain.clone();
                dot[at] = b'.';
                assert_eq!(first(&scan, &dot), Some(at), ". at {at} of {len}");
            }
        }
    }
}
