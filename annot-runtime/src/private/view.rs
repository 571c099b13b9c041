//! The borrowing path from arguments text to an outcome: the reader splits
//! the argument object into its members' JSON text ([`crate::read::members`]),
//! then each member is read here as the field's type, strings borrowed from
//! the text when they hold no escape. No `serde_json::Value` tree, no owned `String` for
//! the fields rules test.
//!
//! Every function answers `None` for anything it does not accept; generated
//! code then takes the owned path (`from_arguments_str`), which gives the
//! error, so the borrowing path never decides whether arguments are valid
//! on its own: it only has to accept nothing the owned path refuses.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

use crate::json_text::has_backslash;
use crate::read::{Member, Text};

/// Whether the present members are all in `allowed` (bit `i` is slot `i`).
pub fn only<const N: usize>(slots: &[Option<Member<'_>>; N], allowed: u64) -> bool {
    slots
        .iter()
        .enumerate()
        .all(|(index, slot)| slot.is_none() || allowed & (1 << index) != 0)
}

/// A string member (an optional field's is read by [`optional_text`]).
pub fn text(raw: Member<'_>) -> Option<Text<'_>> {
    text_known(raw, false)
}

/// [`text`] of a member the request reader found `plain` (a string without
/// escapes), or not. Inlined into the tool's code: the flag is known there.
#[inline]
pub fn text_known(raw: Member<'_>, plain: bool) -> Option<Text<'_>> {
    // `raw` is one JSON value: a string holding no backslash holds no quote
    // either, and its text between the quotes is what it says.
    let inner = raw
        .get()
        .strip_prefix('"')
        .and_then(|text| text.strip_suffix('"'));
    match inner {
        Some(inner) if plain || !has_backslash(inner) => Some(Text(Cow::Borrowed(inner))),
        _ => serde_json::from_str(raw.get()).ok(),
    }
}

/// An optional string member.
pub fn optional_text(raw: Option<Member<'_>>) -> Option<Option<Text<'_>>> {
    match raw {
        None => Some(None),
        Some(raw) if raw.get() == "null" => Some(None),
        Some(raw) => text(raw).map(Some),
    }
}

/// A string member no rule reads: checked as the owned path would read it
/// (a JSON string whose `\u` escapes decode to Unicode scalar values, so
/// surrogates come in pairs) without decoding it, so an escape costs no
/// allocation.
pub fn string_checked(raw: Member<'_>) -> Option<()> {
    // `raw` is one JSON value, so a leading quote means one whole string with
    // valid escapes; only their surrogates are left to check.
    let text = raw.get();
    let lone = crate::json_text::escapes_lone_surrogate(text);
    (text.starts_with('"') && !lone).then_some(())
}

/// [`string_checked`] of a member the request reader found `plain` (a
/// string without escapes: nothing to check), or not.
#[inline]
pub fn string_checked_known(raw: Member<'_>, plain: bool) -> Option<()> {
    if plain {
        return Some(());
    }
    string_checked(raw)
}

/// An optional string member no rule reads (absent or `null` is fine).
pub fn optional_string_checked(raw: Member<'_>) -> Option<()> {
    if raw.get() == "null" {
        return Some(());
    }
    string_checked(raw)
}

/// An integer member in `min..=max`, integral floats read as integers as the
/// owned path does.
pub fn integer(raw: Member<'_>, min: i128, max: i128) -> Option<i128> {
    // `raw` is one JSON value: digits alone (after a sign), too few to
    // overflow, are an `i64` as written; anything else is serde_json's.
    let text = raw.get();
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.len() <= 18 && digits.bytes().all(|byte| byte.is_ascii_digit()) {
        let value = i128::from(text.parse::<i64>().ok()?);
        return (min..=max).contains(&value).then_some(value);
    }
    // Judged by its decimal text: `100.00000000000001` is no integer.
    if !crate::decimal::denotes_integer(text) {
        return None;
    }
    let number: Number = serde_json::from_str(text).ok()?;
    let value = match (number.as_i64(), number.as_u64()) {
        (Some(value), _) => i128::from(value),
        (None, Some(value)) => i128::from(value),
        (None, None) => {
            let integer = super::integral::as_integer(&number)?;
            integer
                .as_i64()
                .map(i128::from)
                .or_else(|| integer.as_u64().map(i128::from))?
        }
    };
    (min..=max).contains(&value).then_some(value)
}

/// An optional integer member.
pub fn optional_integer(raw: Option<Member<'_>>, min: i128, max: i128) -> Option<Option<i128>> {
    match raw {
        None => Some(None),
        Some(raw) if raw.get() == "null" => Some(None),
        Some(raw) => integer(raw, min, max).map(Some),
    }
}

/// A member of a type that holds no integer (a float, a bool, a
/// `serde_json::Value`...), read from its text as the owned path reads it.
pub fn verbatim<T: DeserializeOwned>(raw: Member<'_>) -> Option<T> {
    if !nested_within(raw.get(), MEMBER_DEPTH) {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// How deep a member may nest: serde_json reads 128 levels, and the owned
/// path reads a member inside the argument object, one level down.
const MEMBER_DEPTH: usize = 126;

/// Whether arrays and objects in `json` (one JSON value) nest at most
/// `limit` deep. Read alone, a member could nest one level deeper than the
/// owned path reads it.
fn nested_within(json: &str, limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in json.as_bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// A member of any other type, read as the owned path reads it: through a
/// `Value`, with integral floats read as integers. Allocates; only for
/// fields no rule tests.
pub fn rewritten<T: DeserializeOwned>(raw: Member<'_>) -> Option<T> {
    if !nested_within(raw.get(), MEMBER_DEPTH) {
        return None;
    }
    let value: Value = serde_json::from_str(raw.get()).ok()?;
    // Its numbers judged by their text, as the owned path judges them.
    crate::decimal::with_inexact_member(raw.get(), || super::deserialize::<T>(&value, "").ok())
}

// The values of fields, for `Generated::from_members`: each reads a
// member as the owned path reads its field, and gives what it gives.

/// A `String` member.
#[inline]
pub fn string(raw: Member<'_>, plain: bool) -> Option<String> {
    text_known(raw, plain).map(|text| text.0.into_owned())
}

/// An `Option<String>` member (`null` is `None`).
pub fn optional_string(raw: Member<'_>) -> Option<Option<String>> {
    optional_text(Some(raw)).map(|text| text.map(|text| text.0.into_owned()))
}

/// An integer member of type `T`, whose range is `min..=max`.
#[inline]
pub fn integer_as<T: TryFrom<i128>>(raw: Member<'_>, min: i128, max: i128) -> Option<T> {
    T::try_from(integer(raw, min, max)?).ok()
}

/// An `Option` of an integer member of type `T` (`null` is `None`).
pub fn optional_integer_as<T: TryFrom<i128>>(
    raw: Member<'_>,
    min: i128,
    max: i128,
) -> Option<Option<T>> {
    match optional_integer(Some(raw), min, max)? {
        None => Some(None),
        Some(value) => T::try_from(value).ok().map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::members;

    #[test]
    fn members_borrow_and_refuse_what_they_do_not_know() {
        let slots = members(r#"{"b": [1, 2], "a": "x\"y"}"#, None, &["a", "b", "c"])
            .unwrap()
            .0;
        assert_eq!(slots[1].unwrap().get(), "[1, 2]");
        assert!(slots[2].is_none());
        assert_eq!(text(slots[0].unwrap()).unwrap().as_ref(), "x\"y");
        assert!(text(slots[1].unwrap()).is_none());
        let plain = members(r#"{"a":"plain"}"#, None, &["a"]).unwrap().0;
        assert!(matches!(
            text(plain[0].unwrap()).unwrap().0,
            Cow::Borrowed("plain")
        ));
        assert!(members(r#"{"a":1,"a":2}"#, None, &["a"]).is_none());
        assert!(members(r#"{"z":1}"#, None, &["a"]).is_none());
        assert!(members(r#"[1]"#, None, &["a"]).is_none());
        assert!(members(r#"{"a":1} x"#, None, &["a"]).is_none());
        assert!(only(&plain, 0b1) && !only(&plain, 0b10));
        // What the request reader gives up on, serde_json reads.
        for text in [
            r#"{"\u0061": "x"}"#,
            r#"{"a": "\u00e9"}"#,
            r#"{"a":"x","b":{"\u0063":1}}"#,
            " {\"a\" : \"x\" }\n",
        ] {
            let slots = members(text, None, &["a", "b"]).unwrap().0;
            assert!(slots[0].is_some(), "{text}");
        }
        for refused in [
            r#"{"a":"x","a":"x"}"#,
            r#"{"a":1,}"#,
            r#"{"a":01}"#,
            "{\"a\":\"\u{1}\"}",
        ] {
            assert!(members(refused, None, &["a"]).is_none(), "{refused}");
        }
    }

    #[test]
    fn strings_are_checked_as_the_owned_path_reads_them() {
        let raw = Member::checked;
        for text in [
            r#""plain""#,
            r#""x\ny""#,
            r#""\u00e9\"""#,
            r#""\ud83d\ude00""#,
            r#""a\\u""#,
            r#""""#,
        ] {
            let owned: Result<String, _> = serde_json::from_str(text);
            assert!(owned.is_ok(), "{text}");
            assert_eq!(string_checked(raw(text)), Some(()), "{text}");
        }
        for text in [
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800x""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
            r#""\ud83d\ude00\ude00""#,
            "1",
            "null",
            "[]",
        ] {
            let owned: Result<String, _> = serde_json::from_str(text);
            assert!(owned.is_err(), "{text}");
            assert_eq!(string_checked(raw(text)), None, "{text}");
        }
        assert_eq!(optional_string_checked(raw("null")), Some(()));
        assert_eq!(optional_string_checked(raw("2")), None);
    }

    #[test]
    fn integers_as_the_owned_path_reads_them() {
        let read = |text: &str| integer(Member::checked(text), 0, 255);
        assert_eq!(read("7"), Some(7));
        assert_eq!(read("7.0"), Some(7));
        assert_eq!(read("-0.0"), Some(0));
        assert_eq!(read("7.5"), None);
        assert_eq!(read("256"), None);
        assert_eq!(read("-1"), None);
        assert_eq!(read("\"7\""), None);
        assert_eq!(
            optional_integer(Some(Member::checked("null")), 0, 1),
            Some(None)
        );
        // About the length where the digits are no longer read directly.
        let wide = |text: &str| {
            integer(
                Member::checked(text),
                i128::from(i64::MIN),
                i128::from(u64::MAX),
            )
        };
        assert_eq!(wide("-0"), Some(0));
        assert_eq!(wide("999999999999999999"), Some(999_999_999_999_999_999));
        assert_eq!(wide("-999999999999999999"), Some(-999_999_999_999_999_999));
        assert_eq!(wide("9223372036854775807"), Some(i128::from(i64::MAX)));
        assert_eq!(wide("-9223372036854775808"), Some(i128::from(i64::MIN)));
        assert_eq!(wide("18446744073709551615"), Some(i128::from(u64::MAX)));
        assert_eq!(wide("18446744073709551616"), None);
        assert_eq!(wide("1e3"), Some(1000));
    }

    #[test]
    fn members_nest_no_deeper_than_the_owned_path_reads_them() {
        for depth in [0, 1, 125, 126, 127, 128, 200] {
            let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let arguments = format!(r#"{{"a":{nested}}}"#);
            let owned = serde_json::from_str::<Value>(&arguments).is_ok();
            assert_eq!(
                verbatim::<Value>(Member::checked(&nested)).is_some(),
                owned,
                "{depth}"
            );
            assert_eq!(
                rewritten::<Value>(Member::checked(&nested)).is_some(),
                owned,
                "{depth}"
            );
        }
        // Brackets in strings are text.
        let quoted = format!(r#"["{}\"{}"]"#, "[".repeat(300), "{".repeat(300));
        assert!(verbatim::<Value>(Member::checked(&quoted)).is_some());
        for (depth, within) in [(126, true), (127, false)] {
            let objects = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
            assert_eq!(
                verbatim::<Value>(Member::checked(&objects)).is_some(),
                within,
                "{depth}"
            );
        }
    }

    #[test]
    fn optional_strings_are_absent_null_or_text() {
        let read = |raw: Option<&str>| {
            optional_text(raw.map(Member::checked)).map(|text| text.map(|text| text.0.into_owned()))
        };
        assert_eq!(read(None), Some(None));
        assert_eq!(read(Some("null")), Some(None));
        assert_eq!(read(Some(r#""x""#)), Some(Some("x".to_owned())));
        assert_eq!(read(Some(r#""nul\u006c""#)), Some(Some("null".to_owned())));
        assert_eq!(read(Some(r#""null""#)), Some(Some("null".to_owned())));
        assert_eq!(read(Some("1")), None);
        assert_eq!(read(Some("[]")), None);
    }

    #[test]
    fn strings_without_escapes_are_their_text() {
        fn read(text: &str) -> Option<(String, bool)> {
            let text = super::text(Member::checked(text))?;
            Some((text.0.to_string(), matches!(text.0, Cow::Borrowed(_))))
        }
        assert_eq!(read(r#""""#), Some((String::new(), true)));
        assert_eq!(read(r#""a/b é""#), Some(("a/b é".into(), true)));
        assert_eq!(read(r#""a\"b""#), Some(("a\"b".into(), false)));
        assert_eq!(read(r#""\u0041""#), Some(("A".into(), false)));
        assert_eq!(read("7"), None);
        assert_eq!(read("null"), None);
    }
}
