//! Checks on JSON text that serde_json's readers leave to their callers.

/// Whether `text` holds a backslash: a byte loop, as the strings read on the
/// hot path (a method, a tool name, an argument) are mostly short, where a
/// call to `memchr` costs more than it saves (and eight bytes at a time
/// measured slower on whole requests).
pub(crate) fn has_backslash(text: &str) -> bool {
    text.bytes().any(|byte| byte == b'\\')
}

/// Whether a JSON string's text (quotes included, escapes already checked by
/// the reader) escapes a UTF-16 surrogate that is not half of a pair.
pub(crate) fn escapes_lone_surrogate(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Only a `\u` escape can: most strings have none, and are told so by one
    // quick look (an escaped backslash before a `u` passes it, and is read).
    if !bytes.windows(2).any(|pair| pair == b"\\u") {
        return false;
    }
    // A high surrogate waits for the low one that must follow at once.
    let mut high = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            if high {
                return true;
            }
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            if high {
                return true;
            }
            i += 2;
            continue;
        }
        let unit = bytes
            .get(i + 2..i + 6)
            .and_then(|hex| core::str::from_utf8(hex).ok())
            .and_then(|hex| u16::from_str_radix(hex, 16).ok());
        i += 6;
        match unit {
            Some(0xD800..=0xDBFF) if !high => high = true,
            Some(0xDC00..=0xDFFF) if high => high = false,
            Some(0xD800..=0xDFFF) => return true,
            _ if high => return true,
            _ => {}
        }
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_backslash_anywhere_in_text_of_any_length() {
        for length in 0..=40 {
            let plain: String = "a[]\u{e9}\u{7f}\u{ff}\u{80}\u{5c5c}"
                .chars()
                .cycle()
                .take(length)
                .collect();
            assert!(!has_backslash(&plain), "{plain:?}");
            for (at, _) in plain.char_indices() {
                let mut with = plain.clone();
                with.insert(at, '\\');
                assert!(has_backslash(&with), "{with:?}");
                with.insert(at, ']');
                assert!(has_backslash(&with), "{with:?}");
            }
        }
        assert!(has_backslash("\\"));
        assert!(!has_backslash("]]]]]]]][[[[[[[[]"));
    }

    #[test]
    fn finds_lone_surrogate_escapes() {
        for lone in [
            r#""\ud800""#,
            r#""\udfff""#,
            r#""\ud800\ud800""#,
            r#""\ud800\n""#,
        ] {
            assert!(escapes_lone_surrogate(lone), "{lone}");
        }
        for fine in [
            r#""\ud800\udc00""#,
            r#""\\ud800""#,
            r#""\u0041\t""#,
            r#""\n\"\t\\""#,
            r#""x""#,
        ] {
            assert!(!escapes_lone_surrogate(fine), "{fine}");
        }
    }
}
