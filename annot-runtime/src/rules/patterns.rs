//! The patterns of one field, searched together: with the dense DFA the
//! macro built at compile time when there is one, else (and whenever a DFA
//! cannot decide) with one multi-pattern regex compiled on first use.

use std::cell::RefCell;
use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::util::prefilter::Prefilter;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind, PatternSet as Found, Span};

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
/// # use annot_runtime as annot;
/// use annot::__private::PatternSet;
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
    /// The meta regex: every search of an ASCII value without a DFA.
    compiled: OnceLock<Regex>,
    /// The same patterns apart, for a value with non-ASCII bytes: those
    /// with a Unicode `\b` one by one, the others together.
    split: OnceLock<Split>,
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
            split: OnceLock::new(),
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
        self.compiled.get_or_init(|| meta_regex(self.patterns))
    }

    /// The meta regexes for values with non-ASCII bytes, built on first use.
    fn split(&self) -> &Split {
        self.split.get_or_init(|| Split::of(self.patterns))
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
        if self.patterns.len() > 1 && !haystack.is_ascii() {
            let split = self.split();
            if !split.words.is_empty() {
                return Matches(split.matches(haystack));
            }
        }
        Matches(all_matches(self.compiled(), haystack))
    }

    /// Which patterns match the normal form of `value` read as a path of
    /// `kind`; `None` when that form is undecided (see
    /// [`normalize_path`](super::normalize_path)).
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::__private::{PathKind, PatternSet};
    ///
    /// static SYSTEM: PatternSet = PatternSet::new(&["^/etc(/|$)"]);
    /// assert!(SYSTEM.matches_path("/home/../etc/shadow", PathKind::File).unwrap().matched(0));
    /// assert!(SYSTEM.matches_path("/etc/../..", PathKind::File).is_none());
    /// ```
    pub fn matches_path(&self, value: &str, kind: PathKind) -> Option<Matches> {
        with_normal_form(value, kind, |normal| self.matches_bytes(normal))
    }
}

/// The patterns of a set apart, for values with non-ASCII bytes: a lazy
/// DFA gives up on a Unicode `\b` next to one, and `regex-automata` then
/// walks every pattern of the set with its slowest engine, the PikeVM. Apart,
/// each pattern with a Unicode `\b` is one regex of its own, whose literal
/// prefilter and bounded backtracker are fast on a short value, and the
/// others stay one set, which its lazy DFA decides. One search for the
/// prefixes of all the patterns with a Unicode `\b` first rules them all out
/// on a value where none of their prefixes occurs, in place of a prefilter
/// search of each.
struct Split {
    /// Each pattern with a Unicode `\b`: its number in the set, its regex.
    words: Vec<(usize, Regex)>,
    /// Where a match of one of `words` may begin; `None` when their
    /// prefixes are not a finite set of literals.
    words_prefixes: Option<Prefilter>,
    /// The others together, with their numbers in the set.
    others: Option<(Regex, Vec<usize>)>,
}

impl Split {
    fn of(patterns: &[&str]) -> Split {
        // Each pattern read once, for its word boundaries and its prefixes.
        let parsed: Vec<_> = patterns
            .iter()
            .map(|pattern| syntax::parse_with(pattern, &syntax::Config::new().utf8(true)).ok())
            .collect();
        // A Unicode word boundary (`\b`, `\B`, `\<`...) is what a lazy DFA
        // gives up on next to a non-ASCII byte. A pattern that does not parse
        // counts as having one: it is then searched on its own.
        let (words, others): (Vec<usize>, Vec<usize>) = (0..patterns.len()).partition(|&index| {
            parsed[index]
                .as_ref()
                .is_none_or(|hir| hir.properties().look_set().contains_word_unicode())
        });
        let others = (!others.is_empty()).then(|| {
            let chosen: Vec<&str> = others.iter().map(|&index| patterns[index]).collect();
            (meta_regex(&chosen), others)
        });
        let hirs: Option<Vec<_>> = words.iter().map(|&index| parsed[index].as_ref()).collect();
        // `All`: every prefix of every match, none trimmed as a leftmost
        // search could.
        let words_prefixes =
            hirs.and_then(|hirs| Prefilter::from_hirs_prefix(MatchKind::All, &hirs));
        Split {
            words: words
                .into_iter()
                .map(|index| (index, meta_regex(&patterns[index..=index])))
                .collect(),
            words_prefixes,
            others,
        }
    }

    /// The bits, in the set's numbering, of the patterns matching `haystack`.
    fn matches(&self, haystack: &[u8]) -> u64 {
        let mut bits = 0;
        let words_may_match = self.words_prefixes.as_ref().is_none_or(|prefixes| {
            prefixes
                .find(haystack, Span::from(0..haystack.len()))
                .is_some()
        });
        for (index, regex) in self.words.iter().filter(|_| words_may_match) {
            bits |= u64::from(regex.is_match(haystack)) << index;
        }
        if let Some((regex, numbers)) = &self.others {
            let mut local = all_matches(regex, haystack);
            while local != 0 {
                bits |= 1 << numbers[local.trailing_zeros() as usize];
                local &= local - 1;
            }
        }
        bits
    }
}

/// The meta regex of `patterns` (at least one).
fn meta_regex(patterns: &[&str]) -> Regex {
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
    let config = if patterns.len() == 1 {
        config.match_kind(MatchKind::LeftmostFirst)
    } else {
        // The values rules test are short: a pass of the lazy DFA
        // over one costs less than starting a multi-literal
        // prefilter, which the meta engine would otherwise pick.
        config.auto_prefilter(false)
    };
    // The macro built this very set at compile time with `regex`, the
    // same engine and limits, so it cannot fail here (nor a part of it).
    Regex::builder()
        .configure(config)
        .syntax(syntax::Config::new().utf8(true))
        .build_many(patterns)
        .unwrap_or_else(|error| panic!("a rule's patterns were checked by the macro: {error}"))
}

/// The bits of the patterns of `regex` (built by [`meta_regex`]) that match
/// `haystack`.
fn all_matches(regex: &Regex, haystack: &[u8]) -> u64 {
    if regex.pattern_len() == 1 {
        return u64::from(regex.is_match(haystack));
    }
    let input = Input::new(haystack);
    // Most values match none of the patterns: one search that stops at
    // the first match rules that out before the search for all of them.
    if !regex.is_match(input.clone()) {
        return 0;
    }
    let search = |found: &mut Found| {
        found.clear();
        regex.which_overlapping_matches(&input, found);
        found
            .iter()
            .fold(0, |bits, pattern| bits | 1 << pattern.as_usize())
    };
    FOUND
        .try_with(|found| match found.try_borrow_mut() {
            Ok(mut found) => search(&mut found),
            // Only while the thread's storage is gone or in use (never
            // from generated code): a set of its own.
            Err(_) => search(&mut Found::new(regex.pattern_len())),
        })
        .unwrap_or_else(|_| search(&mut Found::new(regex.pattern_len())))
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

    /// Values with non-ASCII bytes, where a lazy DFA gives up on a Unicode
    /// `\b`: the patterns with one are searched apart from the others, and
    /// the set answers as one search of all of them.
    #[test]
    fn non_ascii_values_answer_with_the_patterns_apart() {
        static SET: PatternSet =
            PatternSet::new(&[r"(?i)/secrets?/key\b", r"\.pem$", "^/srv(/|$)", r"café\b"]);
        let table: [(&str, u64); 10] = [
            ("/srv/données/café.txt", 0b1100),
            // None of the prefixes of the patterns with a `\b` occurs.
            ("/var/données/x.pem", 0b0010),
            ("/var/données/x", 0),
            ("/var/x/\u{17f}ECRET/KEY", 0b0001),
            ("/srv/secret/keyé", 0b0100),
            ("/x/SECRET/key é.pem", 0b0011),
            ("cafés", 0),
            ("/secrets/key—x", 0b0001),
            ("/ſecret/key", 0b0001),
            ("/srv/secret/key.pem", 0b0111),
        ];
        for (value, bits) in table {
            assert_eq!(SET.matches(value), Matches(bits), "{value:?}");
        }
        assert_eq!(SET.split().words.len(), 2);
        assert!(SET.split().words_prefixes.is_some());
        // Prefixes that are no finite set of literals: each pattern with a
        // `\b` is searched.
        static WORDS: PatternSet = PatternSet::new(&[r"\w+\b", r"\.pem$", r"é\b"]);
        assert!(WORDS.split().words_prefixes.is_none());
        assert_eq!(WORDS.matches("é.pem"), Matches(0b111));
        assert_eq!(WORDS.matches("/é/"), Matches(0b101));
        assert_eq!(WORDS.matches("—"), Matches(0));
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
