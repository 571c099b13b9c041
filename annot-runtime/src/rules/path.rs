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
//! (a separator or a terminator to some systems), and for URL paths a
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

/// The normal form of `value` read as a path of `kind`, or `None` when it is
/// undecided. Borrows when `value` is already normal, and builds other
/// forms of up to [`NormalPath::INLINE`] bytes without touching the heap
/// (resolving stays allocation-free for ordinary paths).
///
/// ```
/// use annot_runtime::rules::{PathKind, normalize_path};
///
/// let file = |path| normalize_path(path, PathKind::File);
/// assert_eq!(file("/home/../etc//./shadow").as_deref(), Some("/etc/shadow"));
/// assert_eq!(file("/etc/").as_deref(), Some("/etc"));
/// assert!(file("/..").is_none()); // above the root
/// assert_eq!(file("etc/shadow").as_deref(), Some("/etc/shadow")); // from the root
///
/// let url = |path| normalize_path(path, PathKind::Url);
/// assert_eq!(url("//repos/acme/%2e/secret/?x=1").as_deref(), Some("/repos/acme/secret"));
/// assert!(url("/repos/acme%2Fsecret").is_none()); // an escaped separator
/// ```
pub fn normalize_path(value: &str, kind: PathKind) -> Option<NormalPath<'_>> {
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
    use super::*;

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
            "//repos/acme/secret",
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
}
