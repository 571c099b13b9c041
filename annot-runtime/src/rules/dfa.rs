//! The dense DFA `#[mcp_tool]` builds at compile time from a field's
//! patterns, read back from the bytes the generated code embeds, and the
//! search of a value with it.
//!
//! The DFA is built with `MatchKind::All`, so it enters a match state
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

/// The first word of the macro's layout (`annot-macros/src/rules/dfa_builder.rs`):
/// the tag, whether the DFA is anchored, the length of its bytes, then the
/// DFA, whose pattern `i` is the field's pattern `i`.
const TAG: u32 = 0x616e_7433;
/// The header: three words.
const HEADER: usize = 12;

/// A field's DFA read from embedded bytes, with what every search with it
/// starts from.
#[derive(Clone, Debug)]
pub(super) struct Compiled {
    dfa: DFA<&'static [u32]>,
    /// The start state of a search from the start of a value.
    start: StateID,
    /// Every pattern's bit: once all are found the rest of a value cannot
    /// change the answer.
    all: u64,
    /// The scan that rules a walk out, for an unanchored DFA where one
    /// applies.
    scan: Option<Prefilter>,
}

impl Compiled {
    /// The DFA in `bytes`, if it is one of `patterns` patterns, as the macro
    /// builds it; `None` (search with the meta regex instead) for bytes of
    /// another layout, byte order or version of `regex-automata`, or
    /// misaligned.
    pub(super) fn read(bytes: &'static [u8], patterns: usize) -> Option<Compiled> {
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_ne_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        if word(0)? != TAG || !(1..=64).contains(&patterns) {
            return None;
        }
        let anchored = match word(4)? {
            0 => Anchored::No,
            1 => Anchored::Yes,
            _ => return None,
        };
        let len = usize::try_from(word(8)?).ok()?;
        if HEADER.checked_add(len)? != bytes.len() {
            return None;
        }
        let (dfa, _) = DFA::from_bytes(&bytes[HEADER..]).ok()?;
        if dfa.pattern_len() != patterns {
            // Pattern `i` would answer for rule `i` of another set.
            return None;
        }
        // A value is searched whole: its start is the start of the text, so
        // there is no byte before it to look at.
        let start = dfa
            .start_state(&start::Config::new().anchored(anchored))
            .ok()?;
        let scan = match anchored {
            Anchored::No => Prefilter::of(&dfa, start),
            _ => None,
        };
        Some(Compiled {
            dfa,
            start,
            all: u64::MAX >> (64 - patterns),
            scan,
        })
    }

    /// The bits of the patterns that match somewhere in `haystack`, or
    /// `None` when the DFA cannot decide (a non-ASCII byte where a pattern
    /// has a Unicode `\b`): the caller asks the meta regex then.
    #[inline]
    pub(super) fn search(&self, haystack: &[u8]) -> Option<u64> {
        // Two copies of the walk: one with the scan's hand-off, one (an
        // anchored DFA's) without a step of it.
        match &self.scan {
            Some(scan) => self.walk(haystack, Some(scan)),
            None => self.walk(haystack, None),
        }
    }

    /// The bits of the patterns that match in `haystack`, walked from the
    /// start of the value; `None` if the DFA quits. With a `scan`, the walk
    /// goes back to it whenever it is in the fresh state after the byte it
    /// read: up to the next candidate the walk would stay where fresh
    /// searches are, never in a match state (see `prefilter.rs`), so the
    /// bytes before it are skipped.
    #[inline(always)]
    fn walk(&self, haystack: &[u8], scan: Option<&Prefilter>) -> Option<u64> {
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
}

#[cfg(test)]
mod tests {
    use regex_automata::MatchKind;
    use regex_automata::dfa::{StartKind, dense};

    use super::*;

    /// The DFA of `patterns` laid out as `#[mcp_tool]` lays it out (an
    /// anchored DFA when every pattern starts with `^`, else an unanchored
    /// one, its start states marked), in this machine's byte order, in
    /// aligned `'static` bytes.
    fn serialized(patterns: &[&str]) -> &'static [u8] {
        let anchored = patterns.iter().all(|pattern| pattern.starts_with('^'));
        let start = if anchored {
            StartKind::Anchored
        } else {
            StartKind::Unanchored
        };
        let config = dense::Config::new()
            .match_kind(MatchKind::All)
            .start_kind(start)
            .minimize(!anchored)
            .specialize_start_states(!anchored)
            .unicode_word_boundary(true);
        let dfa = dense::Builder::new()
            .configure(config)
            .build_many(patterns)
            .unwrap();
        let (serialized, pad) = dfa.to_bytes_native_endian();
        let mut bytes = serialized[pad..].to_vec();
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        let mut laid_out = TAG.to_ne_bytes().to_vec();
        laid_out.extend(u32::from(anchored).to_ne_bytes());
        laid_out.extend((bytes.len() as u32).to_ne_bytes());
        laid_out.extend(bytes);
        let aligned = Box::leak(Box::new(AlignedBytes([0; 1 << 18])));
        aligned.0[..laid_out.len()].copy_from_slice(&laid_out);
        &aligned.0[..laid_out.len()]
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
        let other_kind = Box::leak(Box::new(AlignedBytes([0; 1 << 18])));
        other_kind.0[..two.len()].copy_from_slice(two);
        other_kind.0[4..8].copy_from_slice(&2u32.to_ne_bytes());
        assert!(
            Compiled::read(&other_kind.0[..two.len()], 2).is_none(),
            "no such kind"
        );
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
        assert!(anchored.scan.is_none(), "an anchored DFA is walked alone");
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
        let scan = dfa.scan.as_ref().expect("`/` then `s`, `.` then `p`");
        // Once `^/srv` and `^/home` are out of the race, the walk is where a
        // fresh search would be, and goes back to the scan.
        let walked = (b"/v".iter()).fold(dfa.start, |state, &byte| dfa.dfa.next_state(state, byte));
        assert_eq!(walked, scan.fresh_after(b'v'));
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
