//! The dense DFAs `#[mcp_tool]` builds at compile time from a field's
//! patterns, read back from the bytes the generated code embeds, and the
//! search of a value with them.
//!
//! Both DFAs are built with `MatchKind::All`, so a DFA enters a match state
//! for pattern `i` (one byte late, as the DFAs of `regex-automata` do) after
//! each end of a match of `i`. A field whose patterns are all anchored at the
//! start of the value has one DFA searched from its start, where the walk
//! dies within a few bytes of a value none of them can match. Any other field
//! has one unanchored DFA of all its patterns, which never dies: its walk
//! goes back to a scan (`prefilter.rs`) whenever it is back in the state a
//! fresh search would be in, so that a value is walked only around the places
//! a match can begin. Either answers what
//! [`PatternSet::matches`](super::PatternSet::matches) does.

use regex_automata::Anchored;
use regex_automata::dfa::Automaton;
use regex_automata::dfa::dense::DFA;
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;

use super::prefilter::Prefilter;

/// Bytes aligned as [`DFA::from_bytes`] requires: the generated code puts a
/// serialized DFA in one. Not an API of its own.
#[doc(hidden)]
#[repr(C, align(4))]
#[derive(Debug)]
pub struct AlignedBytes<const N: usize>(pub [u8; N]);

/// The first word of the macro's layout (`annot-macros/src/rules/dfa.rs`).
const TAG: u32 = 0x616e_7432;
/// Pattern numbers kept for each part.
const NUMBERS: usize = 64;
/// The header: the tag, two lengths, two parts' pattern numbers.
const HEADER: usize = 12 + 2 * NUMBERS;

/// The DFAs read from embedded bytes, with what every search with them
/// starts from.
#[derive(Clone, Debug)]
pub(super) struct Compiled {
    /// The patterns anchored at the start of the value.
    anchored: Option<Part>,
    /// The others, and when one exists, the scan that rules a walk out.
    unanchored: Option<(Part, Option<Prefilter>)>,
}

/// One DFA and which of the field's patterns its patterns are.
#[derive(Clone, Debug)]
struct Part {
    dfa: DFA<&'static [u32]>,
    /// The start state of a search from the start of a value.
    start: StateID,
    /// Every pattern's bit, in the DFA's numbering: once all are found the
    /// rest of a value cannot change the answer.
    all: u64,
    /// The field's number of the DFA's pattern `i`.
    numbers: [u8; NUMBERS],
}

impl Compiled {
    /// The DFAs in `bytes`, if they hold DFAs of `patterns` patterns in all,
    /// as the macro builds them; `None` (search with the meta regex instead)
    /// for bytes of another layout, byte order or version of
    /// `regex-automata`, or misaligned.
    pub(super) fn read(bytes: &'static [u8], patterns: usize) -> Option<Compiled> {
        let word = |at: usize| -> Option<usize> {
            let word = u32::from_ne_bytes(bytes.get(at..at + 4)?.try_into().ok()?);
            usize::try_from(word).ok()
        };
        if word(0)? != TAG as usize || !(1..=64).contains(&patterns) {
            return None;
        }
        let (anchored_len, unanchored_len) = (word(4)?, word(8)?);
        let anchored_at = HEADER;
        let unanchored_at = anchored_at.checked_add(anchored_len)?;
        if unanchored_at.checked_add(unanchored_len)? != bytes.len() {
            return None;
        }
        let part = |index: usize, at: usize, len: usize, anchored: Anchored| {
            if len == 0 {
                return Some(None);
            }
            let numbers: [u8; NUMBERS] =
                bytes[12 + index * NUMBERS..][..NUMBERS].try_into().ok()?;
            Part::read(&bytes[at..at + len], numbers, anchored).map(Some)
        };
        let anchored = part(0, anchored_at, anchored_len, Anchored::Yes)?;
        let unanchored = part(1, unanchored_at, unanchored_len, Anchored::No)?;
        // Every pattern of the field is in exactly one part.
        let mut seen = 0u64;
        for part in anchored.iter().chain(&unanchored) {
            for local in 0..part.dfa.pattern_len() {
                let bit = 1u64.checked_shl(u32::from(part.numbers[local]))?;
                if seen & bit != 0 {
                    return None;
                }
                seen |= bit;
            }
        }
        if seen != u64::MAX >> (64 - patterns) {
            return None;
        }
        let unanchored = unanchored.map(|part| {
            let prefilter = Prefilter::of(&part.dfa, part.start);
            (part, prefilter)
        });
        Some(Compiled {
            anchored,
            unanchored,
        })
    }

    /// The bits of the patterns that match somewhere in `haystack`, or
    /// `None` when a DFA cannot decide (a non-ASCII byte where a pattern
    /// has a Unicode `\b`): the caller asks the meta regex then.
    #[inline]
    pub(super) fn search(&self, haystack: &[u8]) -> Option<u64> {
        let mut bits = 0;
        if let Some(part) = &self.anchored {
            bits = part.numbered(part.search(haystack, None)?);
        }
        if let Some((part, scan)) = &self.unanchored {
            bits |= part.numbered(part.search(haystack, scan.as_ref())?);
        }
        Some(bits)
    }
}

impl Part {
    fn read(bytes: &'static [u8], numbers: [u8; NUMBERS], anchored: Anchored) -> Option<Part> {
        let (dfa, _) = DFA::from_bytes(bytes).ok()?;
        let patterns = dfa.pattern_len();
        if !(1..=NUMBERS).contains(&patterns) {
            return None;
        }
        // A value is searched whole: its start is the start of the text, so
        // there is no byte before it to look at.
        let start = dfa
            .start_state(&start::Config::new().anchored(anchored))
            .ok()?;
        Some(Part {
            dfa,
            start,
            all: u64::MAX >> (64 - patterns),
            numbers,
        })
    }

    /// The bits, in the DFA's numbering, of its patterns that match in
    /// `haystack`, walked from the start of the value; `None` if the DFA
    /// quits. With a `scan`, the walk goes back to it whenever it is in the
    /// fresh state after the byte it read: up to the next candidate the walk
    /// would stay where fresh searches are, never in a match state (see
    /// `prefilter.rs`), so the bytes before it are skipped.
    ///
    /// Always inlined, so that the anchored part's walk, which never has a
    /// scan, keeps none of its steps.
    #[inline(always)]
    fn search(&self, haystack: &[u8], scan: Option<&Prefilter>) -> Option<u64> {
        let dfa = &self.dfa;
        let mut state = self.start;
        let mut bits = 0;
        let mut at = 0;
        while let Some(&byte) = haystack.get(at) {
            state = dfa.next_state(state, byte);
            at += 1;
            if dfa.is_special_state(state) {
                if dfa.is_match_state(state) {
                    bits |= self.matched(state);
                    if bits == self.all {
                        // The rest of the value cannot change the answer.
                        return Some(bits);
                    }
                } else if let Some(scan) = scan
                    && state == scan.fresh_after(byte)
                {
                    // A start state (special, see the macro), and the very
                    // one a search starting here would be in.
                    match scan.first_candidate(&haystack[at..]) {
                        Some(candidate) => {
                            at += candidate;
                            state = scan.fresh_after(haystack[at - 1]);
                        }
                        None => return Some(bits),
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

    /// `local` bits in the field's numbering.
    #[inline]
    fn numbered(&self, mut local: u64) -> u64 {
        let mut bits = 0;
        while local != 0 {
            bits |= 1 << self.numbers[local.trailing_zeros() as usize];
            local &= local - 1;
        }
        bits
    }
}

#[cfg(test)]
mod tests {
    use regex_automata::MatchKind;
    use regex_automata::dfa::{StartKind, dense};

    use super::*;

    /// The DFA of `patterns` laid out as `#[mcp_tool]` lays it out (one
    /// anchored DFA when every pattern starts with `^`, else one unanchored
    /// DFA of all, its start states marked), in this machine's byte order,
    /// in aligned `'static` bytes.
    fn serialized(patterns: &[&str]) -> &'static [u8] {
        let anchored = patterns.iter().all(|pattern| pattern.starts_with('^'));
        let mut header = TAG.to_ne_bytes().to_vec();
        let mut numbers = Vec::new();
        let mut dfas = Vec::new();
        for (part_anchored, start) in [(true, StartKind::Anchored), (false, StartKind::Unanchored)]
        {
            let chosen: Vec<usize> = if part_anchored == anchored {
                (0..patterns.len()).collect()
            } else {
                Vec::new()
            };
            let mut part_numbers = [0u8; NUMBERS];
            for (local, &index) in chosen.iter().enumerate() {
                part_numbers[local] = index as u8;
            }
            numbers.extend(part_numbers);
            let mut bytes = Vec::new();
            if !chosen.is_empty() {
                let config = dense::Config::new()
                    .match_kind(MatchKind::All)
                    .start_kind(start)
                    .minimize(!part_anchored)
                    .specialize_start_states(!part_anchored)
                    .unicode_word_boundary(true);
                let chosen: Vec<&str> = chosen.iter().map(|&index| patterns[index]).collect();
                let dfa = dense::Builder::new()
                    .configure(config)
                    .build_many(&chosen)
                    .unwrap();
                let (serialized, pad) = dfa.to_bytes_native_endian();
                bytes = serialized[pad..].to_vec();
                bytes.resize(bytes.len().next_multiple_of(4), 0);
            }
            header.extend((bytes.len() as u32).to_ne_bytes());
            dfas.extend(bytes);
        }
        header.extend(numbers);
        header.extend(dfas);
        let aligned = Box::leak(Box::new(AlignedBytes([0; 1 << 18])));
        aligned.0[..header.len()].copy_from_slice(&header);
        &aligned.0[..header.len()]
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
        assert!(
            Compiled::read(&two[..two.len() - 4], 2).is_none(),
            "cut bytes"
        );
    }

    /// One pass finds every pattern that matches, stops at the dead state,
    /// and quits (for the meta regex) at a non-ASCII byte next to `\b`.
    #[test]
    fn a_search_reports_every_pattern_that_matches() {
        let patterns = ["^/etc", r"\.pem$", "key", r"\bid\b"];
        let dfa = Compiled::read(serialized(&patterns), 4).unwrap();
        assert_eq!(dfa.search(b"/etc/key.pem"), Some(0b0111));
        assert_eq!(dfa.search(b"/etc/key.pem id"), Some(0b1101));
        assert_eq!(dfa.search(b"id /etc/key.pem"), Some(0b1110));
        assert_eq!(dfa.search(b"/home/a.pem"), Some(0b0010));
        assert_eq!(dfa.search(b"monkey"), Some(0b0100));
        assert_eq!(dfa.search(b""), Some(0));
        assert_eq!(dfa.search("é id".as_bytes()), None);
        let anchored = Compiled::read(serialized(&["^/etc", "^/srv"]), 2).unwrap();
        assert!(anchored.anchored.is_some());
        assert!(anchored.unanchored.is_none());
        assert_eq!(anchored.search(b"/srv/x"), Some(0b10));
        assert_eq!(anchored.search(b"/tmp"), Some(0));
    }

    /// The unanchored DFA is walked from the start until it is where a fresh
    /// search would be, then only from each place its scan finds a match
    /// can begin: candidates at the first byte, at the last, in the middle
    /// and none, and values with non-ASCII bytes before and after them.
    #[test]
    fn the_unanchored_part_is_walked_from_its_first_candidate() {
        let patterns = [
            "^/srv(/|$)",
            r"(?i)/secrets?/key\b",
            r"\.pem$",
            "^/home/[^/]+/x/",
        ];
        let dfa = Compiled::read(serialized(&patterns), 4).unwrap();
        let (_, prefilter) = dfa.unanchored.as_ref().unwrap();
        assert!(prefilter.is_some(), "`/` then `s`, `.` then `p`");
        // Once `^/srv` and `^/home` are out of the race, the walk is where a
        // fresh search would be, and goes back to the scan.
        let (part, scan) = dfa.unanchored.as_ref().unwrap();
        let walked =
            (b"/v".iter()).fold(part.start, |state, &byte| part.dfa.next_state(state, byte));
        assert_eq!(walked, scan.as_ref().unwrap().fresh_after(b'v'));
        assert_eq!(dfa.search(b"/var/lib/app/data/file.txt"), Some(0));
        assert_eq!(dfa.search(b"/srv/a/b.txt"), Some(0b0001));
        assert_eq!(dfa.search(b"/srv/SECRET/key"), Some(0b0011));
        assert_eq!(dfa.search(b"/srv/secrets/keys"), Some(0b0001));
        assert_eq!(dfa.search(b"/home/ann/x/secret/key.pem"), Some(0b1110));
        assert_eq!(dfa.search(b"//secret/key"), Some(0b0010));
        assert_eq!(dfa.search(b"a.pem"), Some(0b0100));
        assert_eq!(dfa.search(b"a.pe"), Some(0));
        assert_eq!(dfa.search(b"x/secret/key"), Some(0b0010));
        // A candidate at the first byte, at the last, none, and the walk
        // back to the scan between two (a long value takes the packed scan).
        assert_eq!(dfa.search(b"/secret/key"), Some(0b0010));
        assert_eq!(dfa.search(b"/srv/secret/key"), Some(0b0011));
        assert_eq!(dfa.search(b"/var/lib/a/b/c/d/e/f/g.pe"), Some(0));
        assert_eq!(dfa.search(b"/var/lib/a/b/c/d/e/f/g."), Some(0));
        assert_eq!(dfa.search(b"/var/lib/a/b/c/d/e/f/g.pem"), Some(0b0100));
        assert_eq!(dfa.search(b"/var/sec/a/b/c/d/e/f/secret/key"), Some(0b0010));
        assert_eq!(dfa.search(b"/var/sec/a/b/c/d/e/f/secret/keys"), Some(0));
        assert_eq!(dfa.search(b"/home/a/x/"), Some(0b1000));
        assert_eq!(dfa.search(b"x/home/a/x/"), Some(0));
        assert_eq!(dfa.search(b"/"), Some(0));
        assert_eq!(dfa.search(b"."), Some(0));
        // Non-ASCII bytes before the first candidate, after it, in a value
        // with none, and where the walk has gone back to the scan.
        assert_eq!(dfa.search("\u{e9}/secret/key".as_bytes()), None);
        assert_eq!(dfa.search("/var/\u{e9}".as_bytes()), None);
        assert_eq!(dfa.search("/var/lib/a/b/c/d/e/f/\u{e9}".as_bytes()), None);
        assert_eq!(dfa.search("\u{e9}".as_bytes()), None);
        // A non-ASCII byte where a pattern has a Unicode `\b`: the meta
        // regex decides.
        assert_eq!(dfa.search("/ſecret/key".as_bytes()), None);
        assert_eq!(dfa.search("/secret/key\u{e9}".as_bytes()), None);
        assert_eq!(dfa.search("/srv/\u{e9}".as_bytes()), None);
        // A `\b` at a pattern's start: the fresh state depends on the byte
        // before.
        let word = Compiled::read(serialized(&[r"\bkey"]), 1).unwrap();
        assert_eq!(word.search(b"a key"), Some(1));
        assert_eq!(word.search(b"a.key"), Some(1));
        assert_eq!(word.search(b"monkey"), Some(0));
        assert_eq!(word.search(b"mon key"), Some(1));
    }
}
