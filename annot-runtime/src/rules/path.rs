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
/// undecided. Borrows when `value` is already normal.
///
/// ```
/// use annot_runtime::rules::{PathKind, normalize_path};
///
/// let file = |path| normalize_path(path, PathKind::File);
/// assert_eq!(file("/home/../etc//./shadow").as_deref(), Some("/etc/shadow"));
/// assert_eq!(file("/etc/"), Some("/etc".into()));
/// assert_eq!(file("/.."), None); // above the root
/// assert_eq!(file("etc/shadow").as_deref(), Some("/etc/shadow")); // from the root
///
/// let url = |path| normalize_path(path, PathKind::Url);
/// assert_eq!(url("//repos/acme/%2e/secret/?x=1").as_deref(), Some("/repos/acme/secret"));
/// assert_eq!(url("/repos/acme%2Fsecret"), None); // an escaped separator
/// ```
pub fn normalize_path(value: &str, kind: PathKind) -> Option<Cow<'_, str>> {
    let path = match kind {
        PathKind::File => value,
        PathKind::Url => value.split(['?', '#']).next().unwrap_or(""),
    };
    if path.contains(['\\', '\0']) {
        return None;
    }
    let decoded = match kind {
        PathKind::Url if path.contains('%') => Cow::Owned(percent_decode(path)?),
        _ => Cow::Borrowed(path),
    };
    if decoded.starts_with('/') && is_normal(&decoded) {
        return Some(decoded);
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            other => segments.push(other),
        }
    }
    let mut normal = String::with_capacity(decoded.len());
    for segment in &segments {
        normal.push('/');
        normal.push_str(segment);
    }
    if normal.is_empty() {
        normal.push('/');
    }
    Some(Cow::Owned(normal))
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
        normalize_path(path, PathKind::File).map(Cow::into_owned)
    }

    fn url(path: &str) -> Option<String> {
        normalize_path(path, PathKind::Url).map(Cow::into_owned)
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
    fn normal_paths_are_borrowed() {
        assert!(matches!(
            normalize_path("/etc/shadow", PathKind::File),
            Some(Cow::Borrowed("/etc/shadow"))
        ));
        assert!(matches!(
            normalize_path("/repos/a/b?q", PathKind::Url),
            Some(Cow::Borrowed("/repos/a/b"))
        ));
    }
}
