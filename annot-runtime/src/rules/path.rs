//! The lexical normal form of file paths and URL paths, which `path_matches`
//! and `matches_template` test instead of the raw string.
//!
//! A rule on a path must not be evaded by spelling: `//etc/shadow`,
//! `/./etc/shadow` and `/home/../etc/shadow` all name `/etc/shadow`, and a
//! DELETE of `/repos/acme/./secret` reaches `/repos/acme/secret`. So these
//! predicates see one spelling per path:
//!
//! * empty segments (`//`) and `.` segments are removed, `..` removes the
//!   segment before it, a trailing `/` is dropped (`/` stays `/`);
//! * for URL paths only, the query and fragment (`?...`, `#...`) are cut
//!   off first, then `%XX` escapes are decoded (so `%2e%2e` is `..`).
//!
//! A relative path is read from the root, as a tool serving a tree reads
//! it: `etc/shadow` is `/etc/shadow`, as an HTTP client joins `repos/a/b` to
//! its API's base URL. A tool whose relative paths start somewhere else must
//! make them absolute before the rules see them (or write its patterns for
//! the tail of the path).
//!
//! A path whose meaning depends on what this function cannot know is
//! *undecided* (`None`): `..` above the root, a backslash or a NUL
//! (a separator or a terminator to some systems), for URL paths one that a
//! client joining it onto its base URL reads as a host or a scheme
//! (`//host/...`, `https://...`, a `:` in the first segment, spaces or
//! control characters a URL parser drops), and for URL paths a
//! malformed escape, an escape decoding to `/`, `\` or `%` (servers disagree
//! on them, and a `%25` may be decoded twice) or to bytes that are not UTF-8.
//! Rules whose predicate is undecided never lower risk (see the
//! [module](super) documentation).

use std::borrow::Cow;

/// How a field's value is read as a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// A file system path, `/`-separated, taken literally (no escapes).
    File,
    /// The path of an HTTP request: query and fragment ignored, `%XX` decoded.
    Url,
}

/// Whether an HTTP client that joins `value` onto its base URL could read
/// part of it as a scheme or an authority, and so reach another host or
/// replace the URL: it opens with `//`, or has a `:` before its first `/`
/// (`https://...`, `mailto:x`). URL parsers also drop leading spaces and
/// control characters and every tab and newline, so a value holding any is
/// judged the same way: undecided.
fn names_a_host_or_scheme(value: &str) -> bool {
    if value.starts_with(' ') || value.bytes().any(|byte| byte < 0x20 || byte == 0x7f) {
        return true;
    }
    let first_segment = value.split(['/', '?', '#']).next().unwrap_or("");
    value.starts_with("//") || first_segment.contains(':')
}

/// The normal form of `value` read as a path of `kind`, or `None` when it is
/// undecided. Borrows when `value` is already normal, and builds other
/// forms of up to [`NormalPath::INLINE`] bytes without touching the heap
/// (resolving stays allocation-free for ordinary paths).
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rules::{PathKind, normalize_path};
///
/// let file = |path| normalize_path(path, PathKind::File);
/// assert_eq!(file("/home/../etc//./shadow").as_deref(), Some("/etc/shadow"));
/// assert_eq!(file("/etc/").as_deref(), Some("/etc"));
/// assert!(file("/..").is_none()); // above the root
/// assert_eq!(file("etc/shadow").as_deref(), Some("/etc/shadow")); // from the root
///
/// let url = |path| normalize_path(path, PathKind::Url);
/// assert_eq!(url("/repos//acme/%2e/secret/?x=1").as_deref(), Some("/repos/acme/secret"));
/// assert!(url("/repos/acme%2Fsecret").is_none()); // an escaped separator
/// assert!(url("//api.example.com/repos").is_none()); // another host
/// assert!(url("https://api.example.com/repos").is_none()); // a whole URL
/// ```
pub fn normalize_path(value: &str, kind: PathKind) -> Option<NormalPath<'_>> {
    #[cfg(test)]
    tests::NORMALIZED.with(|count| count.set(count.get() + 1));
    if kind == PathKind::Url && names_a_host_or_scheme(value) {
        return None;
    }
    let path = match kind {
        PathKind::File => value,
        PathKind::Url => value.split(['?', '#']).next().unwrap_or(""),
    };
    if path.contains(['\\', '\0']) {
        return None;
    }
    let decoded: Cow<'_, str> = match kind {
        PathKind::Url if path.contains('%') => Cow::Owned(percent_decode(path)?),
        _ => Cow::Borrowed(path),
    };
    if decoded.starts_with('/') && is_normal(&decoded) {
        return Some(match decoded {
            Cow::Borrowed(path) => NormalPath(Repr::Borrowed(path)),
            Cow::Owned(path) => NormalPath(Repr::Heap(path)),
        });
    }
    let mut normal = NormalPath(Repr::Inline {
        bytes: [0; NormalPath::INLINE],
        len: 0,
    });
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                let text = normal.as_str();
                if text.is_empty() {
                    return None;
                }
                let cut = text.rfind('/').unwrap_or(0);
                normal.truncate(cut);
            }
            other => {
                normal.push("/");
                normal.push(other);
            }
        }
    }
    if normal.as_str().is_empty() {
        normal.push("/");
    }
    Some(normal)
}

/// The high bit of each byte of `word` that equals `byte`, and no other bit.
const fn bytes_equal(word: u64, byte: u8) -> u64 {
    const LOW_SEVEN: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let zero_where_equal = word ^ (byte as u64 * 0x0101_0101_0101_0101);
    // Adding 0x7f carries into the high bit of every byte but a zero one.
    !(((zero_where_equal & LOW_SEVEN) + LOW_SEVEN) | zero_where_equal | LOW_SEVEN)
}

/// `after_slash` for the first segment, which follows the root.
const ROOT: u64 = 0x80;

/// The irregular bytes of eight (see [`with_normal_form`]), given whether the
/// byte before them is a `/` (`0x80`) or not (`0`); and where the `/`s are.
fn irregular_bytes(word: u64, after_slash: u64, escapes: bool) -> (u64, u64) {
    let slash = bytes_equal(word, b'/');
    let mut refused = bytes_equal(word, b'\\') | bytes_equal(word, 0);
    if escapes {
        refused |= bytes_equal(word, b'%');
    }
    let opens = (slash << 8) | after_slash;
    (refused | (opens & (slash | bytes_equal(word, b'.'))), slash)
}

/// Calls `search` with the normal form of `value` read as a path of `kind`
/// (`None` when undecided), as bytes: what [`normalize_path`] gives, without
/// its work for the two common spellings. One pass over the bytes finds a
/// path already normal, handed over as it is, or one normal but for a missing
/// leading `/`, copied after a `/` on the stack. Anything else (a `.` at the
/// start of a segment, `//`, a trailing `/`, an escape, a backslash or NUL)
/// goes through [`normalize_path`].
pub(crate) fn with_normal_form<R>(
    value: &str,
    kind: PathKind,
    search: impl FnOnce(&[u8]) -> R,
) -> Option<R> {
    const SHORT: usize = 128;
    if kind == PathKind::Url && names_a_host_or_scheme(value) {
        return None;
    }
    let bytes = value.as_bytes();
    let path = match kind {
        PathKind::File => bytes,
        PathKind::Url => match bytes.iter().position(|&byte| matches!(byte, b'?' | b'#')) {
            Some(end) => &bytes[..end],
            None => bytes,
        },
    };
    let relative = path.first() != Some(&b'/');
    let segments = if relative { path } else { &path[1..] };
    // Eight bytes at a time: a byte is irregular if it is a backslash, a NUL
    // or (in a URL) an escape, or if it opens a segment with `/` or `.`.
    let escapes = kind == PathKind::Url;
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or_default());
    let mut irregular = 0;
    if let Some(last) = segments.len().checked_sub(8) {
        let mut after_slash = ROOT;
        for chunk in segments.chunks_exact(8) {
            let (found, slash) = irregular_bytes(word(chunk), after_slash, escapes);
            irregular |= found;
            after_slash = slash >> 56;
        }
        // The last eight bytes again, which covers a tail of any length:
        // looking at a byte twice changes nothing, and the first of them was
        // looked at in its chunk, `/` before it or not.
        irregular |= irregular_bytes(word(&segments[last..]), 0, escapes).0;
    } else {
        // Padded with a byte that is none of those looked for.
        let mut short = [b'a'; 8];
        short[..segments.len()].copy_from_slice(segments);
        irregular = irregular_bytes(u64::from_le_bytes(short), ROOT, escapes).0;
    }
    // A trailing `/` is not normal, but `/` is (and so is `` read from the root).
    let irregular = irregular != 0 || segments.last() == Some(&b'/');
    match (irregular, relative) {
        (false, false) => Some(search(path)),
        (false, true) if path.len() < SHORT => {
            let mut rooted = [b'/'; SHORT];
            rooted[1..=path.len()].copy_from_slice(path);
            Some(search(&rooted[..=path.len()]))
        }
        _ => normalize_path(value, kind).map(|normal| search(normal.as_bytes())),
    }
}

/// A path in normal form: borrowed from the value, built in place when short,
/// on the heap otherwise. Dereferences to `str`.
#[derive(Clone)]
pub struct NormalPath<'a>(Repr<'a>);

// The inline buffer is the point: a short normal form lives on the stack, so
// resolving an ordinary path never allocates. Boxing it would defeat that.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Repr<'a> {
    Borrowed(&'a str),
    Inline {
        bytes: [u8; NormalPath::INLINE],
        len: usize,
    },
    Heap(String),
}

impl NormalPath<'_> {
    /// The longest normal form built without the heap, in bytes.
    pub const INLINE: usize = 256;

    /// The path as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Borrowed(path) => path,
            // Only whole `str`s are pushed and cuts fall before a `/`.
            Repr::Inline { bytes, len } => core::str::from_utf8(&bytes[..*len]).unwrap_or(""),
            Repr::Heap(path) => path,
        }
    }

    /// Whether the value was already normal, and is borrowed.
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Repr::Borrowed(_))
    }

    fn push(&mut self, text: &str) {
        match &mut self.0 {
            Repr::Inline { bytes, len } if *len + text.len() <= NormalPath::INLINE => {
                bytes[*len..*len + text.len()].copy_from_slice(text.as_bytes());
                *len += text.len();
            }
            Repr::Heap(path) => path.push_str(text),
            _ => {
                let mut path = self.as_str().to_owned();
                path.push_str(text);
                self.0 = Repr::Heap(path);
            }
        }
    }

    fn truncate(&mut self, at: usize) {
        match &mut self.0 {
            Repr::Inline { len, .. } => *len = at,
            Repr::Heap(path) => path.truncate(at),
            Repr::Borrowed(path) => *path = &path[..at],
        }
    }
}

impl core::ops::Deref for NormalPath<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl core::fmt::Debug for NormalPath<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Whether an absolute path has no empty, `.` or `..` segment and no
/// trailing `/` (but `/` itself).
fn is_normal(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    path.get(1..)
        .unwrap_or("")
        .split('/')
        .all(|segment| !matches!(segment, "" | "." | ".."))
}

/// `%XX` escapes decoded; `None` for a malformed escape, an escape of `/`,
/// `\`, `%` or NUL, or a result that is not UTF-8.
fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let high = hex(*bytes.get(index + 1)?)?;
            let low = hex(*bytes.get(index + 2)?)?;
            let byte = high * 16 + low;
            if matches!(byte, b'/' | b'\\' | b'%' | 0) {
                return None;
            }
            decoded.push(byte);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

fn hex(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    thread_local! {
        // How many times this thread took the long way.
        pub(super) static NORMALIZED: Cell<usize> = const { Cell::new(0) };
    }

    fn file(path: &str) -> Option<String> {
        normalize_path(path, PathKind::File).map(|path| path.to_string())
    }

    fn url(path: &str) -> Option<String> {
        normalize_path(path, PathKind::Url).map(|path| path.to_string())
    }

    #[test]
    fn file_paths_of_the_issue() {
        for spelling in [
            "/etc/shadow",
            "//etc/shadow",
            "/./etc/shadow",
            "/home/../etc/shadow",
            "/etc/shadow/",
            "/etc//shadow/.",
            "/a/b/../../etc/./shadow",
            "etc/shadow",
            "./etc/shadow",
            "a/../etc/shadow",
        ] {
            assert_eq!(file(spelling).as_deref(), Some("/etc/shadow"), "{spelling}");
        }
        assert_eq!(file("/").as_deref(), Some("/"));
        assert_eq!(file("").as_deref(), Some("/"));
        assert_eq!(file("//").as_deref(), Some("/"));
        assert_eq!(file("/a/..").as_deref(), Some("/"));
        // `%2e` is a file name, not a dot, on a file system.
        assert_eq!(file("/etc/%2e%2e").as_deref(), Some("/etc/%2e%2e"));
        assert_eq!(file("/etc/...").as_deref(), Some("/etc/..."));
    }

    #[test]
    fn undecided_file_paths() {
        for undecided in ["..", "/..", "/a/../..", "a/../..", "\\etc", "/a\0b"] {
            assert_eq!(file(undecided), None, "{undecided:?}");
        }
    }

    #[test]
    fn url_paths_of_the_issue() {
        for spelling in [
            "/repos/acme/secret",
            "/repos/acme/secret/.",
            "/repos/acme/./secret",
            "/repos//acme/secret",
            "/repos/acme/secret/",
            "/repos/acme/secret?page=2",
            "/repos/acme/secret#top",
            "/repos/acme/%73ecret",
            "/repos/acme/%2e/secret",
            "/repos/acme/x/%2E%2E/secret",
            "repos/acme/secret",
        ] {
            assert_eq!(
                url(spelling).as_deref(),
                Some("/repos/acme/secret"),
                "{spelling}"
            );
        }
    }

    #[test]
    fn undecided_url_paths() {
        for undecided in [
            "/repos/acme%2Fsecret",
            "/repos/%5c",
            "/repos/%25",
            "/repos/%2",
            "/repos/%zz",
            "/repos/%ff",
            "/..",
            "/repos/..%2f..",
            "//api.example.com/repos",
            "https://api.example.com/repos",
            "a:b/c",
            " /repos",
            "/re\tpos",
            "/repos\n",
        ] {
            assert_eq!(url(undecided), None, "{undecided:?}");
        }
    }

    #[test]
    fn normal_paths_are_borrowed_and_long_ones_spill() {
        assert!(
            normalize_path("/etc/shadow", PathKind::File)
                .unwrap()
                .is_borrowed()
        );
        let query = normalize_path("/repos/a/b?q", PathKind::Url).unwrap();
        assert!(query.is_borrowed());
        assert_eq!(&*query, "/repos/a/b");
        assert!(!normalize_path("etc", PathKind::File).unwrap().is_borrowed());
        let long = format!("{}/../x/", "a/".repeat(200));
        let expected = format!("/{}x", "a/".repeat(199));
        assert_eq!(file(&long).as_deref(), Some(expected.as_str()));
        let deep = format!("/{}", "é/".repeat(300));
        let normal = normalize_path(&deep, PathKind::File).unwrap();
        assert!(normal.is_borrowed() || normal.len() + 1 == deep.len());
        assert_eq!(file(&format!("{deep}..")).unwrap().len(), deep.len() - 4);
    }

    /// Where a normal form that is not the value itself lives: on the stack
    /// up to [`NormalPath::INLINE`] bytes, so resolving such a path does not
    /// allocate, on the heap past it; and it reads as its text.
    #[test]
    fn rebuilt_paths_stay_inline_up_to_the_limit() {
        let inline = |value: &str| {
            let normal = normalize_path(value, PathKind::File).unwrap();
            matches!(normal.0, Repr::Inline { .. })
        };
        assert!(inline("/home/../etc/shadow"));
        // Exactly INLINE bytes once normal (the leading `/` added), and one more.
        let fits = "a".repeat(NormalPath::INLINE - 1);
        assert!(inline(&fits));
        assert!(!inline(&format!("{fits}b")));
        let spelling = format!("{fits}b/c/..");
        let spilled = normalize_path(&spelling, PathKind::File).unwrap();
        assert!(matches!(spilled.0, Repr::Heap(_)));
        assert_eq!(spilled.len(), NormalPath::INLINE + 1);

        let normal = normalize_path("/a/./b", PathKind::File).unwrap();
        assert_eq!(format!("{normal:?}"), r#""/a/b""#);
    }

    /// What the short cut hands over, as text.
    fn short_cut(value: &str, kind: PathKind) -> Option<String> {
        with_normal_form(value, kind, |bytes| {
            String::from_utf8(bytes.to_vec()).unwrap()
        })
    }

    #[test]
    fn the_short_cut_is_the_normal_form() {
        // Every string of up to five of these symbols, each read both ways.
        let symbols = ["/", ".", "a", "\\", "%", "2e", "?", "#", "\0", "é", "%2f"];
        let mut values = vec![String::new()];
        let mut last = values.clone();
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|value| symbols.iter().map(move |symbol| format!("{value}{symbol}")))
                .collect();
            values.extend(last.iter().cloned());
        }
        for value in &values {
            for kind in [PathKind::File, PathKind::Url] {
                let expected = normalize_path(value, kind).map(|normal| normal.to_string());
                assert_eq!(short_cut(value, kind), expected, "{value:?} as {kind:?}");
            }
        }
        // Longer ones, across the eight-byte steps of the scan: pseudo-random
        // strings of up to 24 symbols (xorshift, so every run sees the same).
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let common = ["a", "b", "c", "/", "/", "."];
        for _ in 0..20_000 {
            let length = next(25);
            let value: String = (0..length)
                .map(|_| match next(4) {
                    0 => symbols[next(symbols.len())],
                    _ => common[next(common.len())],
                })
                .collect();
            for kind in [PathKind::File, PathKind::Url] {
                let expected = normalize_path(&value, kind).map(|normal| normal.to_string());
                assert_eq!(short_cut(&value, kind), expected, "{value:?} as {kind:?}");
            }
        }
        // A normal path is searched where it stands, not copied, and a
        // relative one is rooted: neither is normalised the long way.
        for normal in ["/", "/a", "/etc/ssl/certs/ca.pem", "/x/y..z/z../a.b.c/é"] {
            let before = NORMALIZED.with(Cell::get);
            let at = with_normal_form(normal, PathKind::File, |bytes| bytes.as_ptr());
            assert_eq!(at, Some(normal.as_ptr()), "{normal}");
            let relative = &normal[1..];
            assert_eq!(short_cut(relative, PathKind::File).as_deref(), Some(normal));
            let query = format!("{normal}?a=/../b#c");
            assert_eq!(short_cut(&query, PathKind::Url).as_deref(), Some(normal));
            assert_eq!(NORMALIZED.with(Cell::get), before, "{normal}");
        }
        // Relative paths about the length of the stack copy, and past it.
        for length in [126, 127, 128, 129, 300] {
            let value = "x".repeat(length);
            let expected = format!("/{value}");
            assert_eq!(short_cut(&value, PathKind::File), Some(expected.clone()));
            assert_eq!(
                short_cut(&format!("{value}?q"), PathKind::Url),
                Some(expected)
            );
        }
    }
}
