//! The patterns of one field, searched together: with the dense DFA the
//! macro built at compile time when there is one, else (and whenever a DFA
//! cannot decide) with one multi-pattern regex compiled on first use.

use std::cell::RefCell;
use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind, PatternSet as Found};

use super::Tri;
use super::dfa::Compiled;
use super::path::{PathKind, with_normal_form};

/// The most patterns one field can be tested against: one bit of a `u64`
/// each. The macro refuses more.
pub const MAX_PATTERNS: usize = 64;

/// Every pattern the rules of a tool test one field against (`matches` and
/// `matches_template`), searched together, so one pass over the value answers
/// all of them and the cost of a call barely grows with the number of
/// patterns.
///
/// Generated code holds one in a `static`, made by `with_dfa` with the dense
/// DFA `#[mcp_tool]` determinised from the patterns at compile time: a
/// search walks its table, without a cache, a pool or an allocation. A set
/// made by [`new`](Self::new) or without a DFA (too big, see docs/declaring.md), one
/// whose DFA does not read back, and a search the DFA quits (a non-ASCII byte
/// where a pattern has a Unicode `\b`) use the set's meta regex instead
/// (`regex`'s engine, compiled on first use), which collects the patterns
/// that matched in storage reused by every search of the thread. Both answer
/// as [`regex::RegexSet::matches`] does.
///
/// ```
/// use annot_runtime::__private::PatternSet;
///
/// static PATHS: PatternSet = PatternSet::new(&["^/etc(/|$)", "^/root(/|$)", r"\.key$"]);
/// let found = PATHS.matches("/etc/ssl/server.key");
/// assert!(found.matched(0) && !found.matched(1) && found.matched(2));
/// assert!(!PATHS.matches("notes.txt").matched(0));
/// ```
pub struct PatternSet {
    patterns: &'static [&'static str],
    /// The serialized DFA the macro built, if any.
    dfa_bytes: Option<&'static [u8]>,
    /// That DFA, read once; `None` inside when there is none or it does not
    /// read back.
    dfa: OnceLock<Option<Compiled>>,
    /// The meta regex: every search without a DFA, and those the DFA quits.
    compiled: OnceLock<Regex>,
}

thread_local! {
    // Where a search of several patterns collects which matched; grown to the
    // largest set the thread has searched, then reused.
    static FOUND: RefCell<Found> = RefCell::new(Found::new(MAX_PATTERNS));
}

impl PatternSet {
    /// A set of these patterns (at most [`MAX_PATTERNS`]), compiled on first use.
    pub const fn new(patterns: &'static [&'static str]) -> Self {
        assert!(
            patterns.len() <= MAX_PATTERNS,
            "at most 64 patterns per field"
        );
        PatternSet {
            patterns,
            dfa_bytes: None,
            dfa: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// A set of these patterns searched with `dfa`: the dense DFA
    /// `#[mcp_tool]` built from them at compile time, serialized in the
    /// target's byte order (4-aligned, see [`AlignedBytes`]). For generated
    /// code: a DFA of other patterns gives wrong answers. Bytes that do not
    /// read back as a DFA of as many patterns are ignored, and the set works
    /// as one made by [`new`](Self::new).
    ///
    /// [`AlignedBytes`]: crate::private::AlignedBytes
    #[doc(hidden)]
    pub const fn with_dfa(patterns: &'static [&'static str], dfa: &'static [u8]) -> Self {
        let mut set = Self::new(patterns);
        set.dfa_bytes = Some(dfa);
        set
    }

    /// Whether searches use a DFA built at compile time; `false` for sets
    /// made by [`new`](Self::new).
    #[doc(hidden)]
    pub fn has_dfa(&self) -> bool {
        self.dfa().is_some()
    }

    fn dfa(&self) -> Option<&Compiled> {
        self.dfa
            .get_or_init(|| Compiled::read(self.dfa_bytes?, self.patterns.len()))
            .as_ref()
    }

    /// The patterns, in the order [`Matches::matched`] numbers them.
    pub fn patterns(&self) -> &'static [&'static str] {
        self.patterns
    }

    fn compiled(&self) -> &Regex {
        self.compiled.get_or_init(|| {
            // `regex::RegexSet`'s configuration (with `regex`'s default
            // limits): every pattern reported, UTF-8 haystacks, no captures.
            let config = meta::Config::new()
                .match_kind(MatchKind::All)
                .utf8_empty(true)
                // Each pattern's implicit group, no more: with none at all,
                // the one-pass engine of `regex-automata` 0.4 indexes past
                // its slots on a pattern that can match empty (`^\b`).
                .which_captures(regex_automata::nfa::thompson::WhichCaptures::Implicit)
                .nfa_size_limit(Some(10 * (1 << 20)))
                .hybrid_cache_capacity(2 * (1 << 20));
            // One pattern: `regex::Regex`'s configuration, whose search stops
            // at the first match.
            let config = if self.patterns.len() == 1 {
                config.match_kind(MatchKind::LeftmostFirst)
            } else {
                // The values rules test are short: a pass of the lazy DFA
                // over one costs less than starting a multi-literal
                // prefilter, which the meta engine would otherwise pick.
                config.auto_prefilter(false)
            };
            // The macro built this very set at compile time with `regex`, the
            // same engine and limits, so it cannot fail here.
            Regex::builder()
                .configure(config)
                .syntax(syntax::Config::new().utf8(true))
                .build_many(self.patterns)
                .unwrap_or_else(|error| {
                    panic!("a rule's patterns were checked by the macro: {error}")
                })
        })
    }

    /// Which patterns match `haystack` (an unanchored search, as
    /// [`regex::Regex::is_match`]).
    pub fn matches(&self, haystack: &str) -> Matches {
        self.matches_bytes(haystack.as_bytes())
    }

    /// [`matches`](Self::matches) of UTF-8 text held as bytes.
    fn matches_bytes(&self, haystack: &[u8]) -> Matches {
        // The DFA decides unless it quits (see `dfa.rs`); the meta regex
        // then answers for the whole value.
        if let Some(bits) = self.dfa().and_then(|dfa| dfa.search(haystack)) {
            return Matches(bits);
        }
        self.matches_meta(haystack)
    }

    /// [`matches_bytes`](Self::matches_bytes) with the meta regex.
    fn matches_meta(&self, haystack: &[u8]) -> Matches {
        let regex = self.compiled();
        if self.patterns.len() == 1 {
            return Matches(u64::from(regex.is_match(haystack)));
        }
        let input = Input::new(haystack);
        // Most values match none of the patterns: one search that stops at
        // the first match rules that out before the search for all of them.
        if !regex.is_match(input.clone()) {
            return Matches(0);
        }
        let search = |found: &mut Found| {
            found.clear();
            regex.which_overlapping_matches(&input, found);
            found
                .iter()
                .fold(0, |bits, pattern| bits | 1 << pattern.as_usize())
        };
        let bits = FOUND
            .try_with(|found| match found.try_borrow_mut() {
                Ok(mut found) => search(&mut found),
                // Only while the thread's storage is gone or in use (never
                // from generated code): a set of its own.
                Err(_) => search(&mut Found::new(regex.pattern_len())),
            })
            .unwrap_or_else(|_| search(&mut Found::new(regex.pattern_len())));
        Matches(bits)
    }

    /// Which patterns match the normal form of `value` read as a path of
    /// `kind`; `None` when that form is undecided (see
    /// [`normalize_path`](super::normalize_path)).
    ///
    /// ```
    /// use annot_runtime::__private::{PathKind, PatternSet};
    ///
    /// static SYSTEM: PatternSet = PatternSet::new(&["^/etc(/|$)"]);
    /// assert!(SYSTEM.matches_path("/home/../etc/shadow", PathKind::File).unwrap().matched(0));
    /// assert!(SYSTEM.matches_path("/etc/../..", PathKind::File).is_none());
    /// ```
    pub fn matches_path(&self, value: &str, kind: PathKind) -> Option<Matches> {
        with_normal_form(value, kind, |normal| self.matches_bytes(normal))
    }
}

/// Whether pattern `index` matched, with an undecided path (`None`) undecided.
pub fn pattern_tri(found: &Option<Matches>, index: usize) -> Tri {
    match found {
        Some(found) => Tri::from_bool(found.matched(index)),
        None => Tri::Maybe,
    }
}

impl core::fmt::Debug for PatternSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PatternSet")
            .field("patterns", &self.patterns)
            .finish_non_exhaustive()
    }
}

/// The patterns of a [`PatternSet`] that matched one value: bit `i` is
/// pattern `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matches(pub u64);

impl Matches {
    /// No pattern matched (an absent value).
    pub const NONE: Matches = Matches(0);

    /// Whether pattern `index` matched; `false` for an index past the end.
    pub const fn matched(&self, index: usize) -> bool {
        index < 64 && self.0 & (1 << index) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_answers_every_pattern() {
        static SET: PatternSet = PatternSet::new(&["^a", "b$", "(?i)^\\s*select\\b"]);
        let found = SET.matches("  SELECT b");
        assert!(!found.matched(0) && found.matched(1) && found.matched(2));
        assert!(!found.matched(3) && !found.matched(64));
        assert_eq!(SET.patterns().len(), 3);
        assert_eq!(SET.matches("ab").0, 0b011);
    }

    #[test]
    fn a_pattern_that_can_match_empty_is_searched_without_a_panic() {
        // Found by the property tests: `^\b` on "K" made the one-pass engine
        // index past its capture slots.
        static EMPTY: PatternSet = PatternSet::new(&["^\\b"]);
        assert_eq!(EMPTY.matches("K"), Matches(1));
        assert_eq!(EMPTY.matches(" K"), Matches(0));
        assert_eq!(EMPTY.matches(""), Matches(0));
        static SEVERAL: PatternSet = PatternSet::new(&["^\\b", "(?:)", "\\B$"]);
        assert_eq!(SEVERAL.matches("K"), Matches(0b011));
        assert_eq!(SEVERAL.matches(""), Matches(0b110));
    }

    #[test]
    fn a_single_pattern_is_a_plain_match() {
        static ONE: PatternSet = PatternSet::new(&["^/etc"]);
        assert_eq!(ONE.matches("/etc/passwd"), Matches(1));
        assert!(!ONE.matches("/home").matched(0));
        assert!(!ONE.matches("/etc").matched(1));
        // Its patterns, not the engine's state, in a log line.
        assert_eq!(
            format!("{ONE:?}"),
            r#"PatternSet { patterns: ["^/etc"], .. }"#
        );
    }

    /// The macro accepts a set up to `regex`'s default limit of 10 MiB of
    /// compiled program: the runtime builds every such set (a smaller limit
    /// here would panic on the first value a rule tests).
    #[test]
    fn sets_up_to_the_macros_size_limit_build() {
        const BIG: &str = r"\w{40}";
        let over_a_mebibyte = regex::RegexBuilder::new(BIG).size_limit(1 << 20).build();
        assert!(over_a_mebibyte.is_err(), "the pattern must exceed 1 MiB");
        static SET: PatternSet = PatternSet::new(&[BIG, "x"]);
        assert_eq!(SET.matches(&"é".repeat(40)), Matches(0b01));
        assert_eq!(SET.matches("x"), Matches(0b10));
    }

    #[test]
    fn sixty_four_patterns_fit() {
        static NAMES: [&str; 64] = {
            let mut names = ["x"; 64];
            names[63] = "^last$";
            names[0] = "^first$";
            names
        };
        static MANY: PatternSet = PatternSet::new(&NAMES);
        assert_eq!(MANY.matches("last"), Matches(1 << 63));
        assert_eq!(MANY.matches("first"), Matches(1));
    }
}
