//! Numbers judged by their decimal text: `100.00000000000001` is not an
//! integer, even though serde_json's `f64` for it is `100.0`.
//!
//! JSON Schema's `"integer"` is a property of the number the text denotes,
//! not of the nearest `f64`. The borrowing reader has the text of each
//! member; the owned path (`AnnotatedTool::from_arguments_str`) reads the
//! whole text into a `serde_json::Value`, where only the `f64` is left, so it
//! first lists, per member of the argument object, the `f64` values of every
//! number whose text is not an integer ([`with_inexact_integers`]); a field
//! is read with its own member's list ([`within_member`]), and the reader
//! of integral floats (`private/integral.rs`) reads none of those as an
//! integer. A member read alone from its text (the borrowing path's values)
//! lists its own ([`with_inexact_member`]). Arguments handed over as a `Value` (the rmcp
//! adapter's) have no text left to judge, and are judged by their `f64`.
//!
//! Per member, not per argument object: an inexact `100.00000000000001` in
//! one member must not make an exact `100.0` in another one no integer.

use std::cell::RefCell;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::read::Text;

thread_local! {
    /// The `f64` values, integral as floats, of the numbers of the member
    /// being read whose decimal text is no integer.
    static INEXACT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// While an argument object is parsed by the owned path: those of each
    /// of its members (the last of a repeated name, as the `Value` keeps it),
    /// for the members that have any.
    static BY_MEMBER: RefCell<Vec<(String, Vec<f64>)>> = const { RefCell::new(Vec::new()) };
}

/// Whether a JSON number's text denotes an integer: `100`, `100.0`, `1e2`,
/// `1.5e1`, but not `100.00000000000001` nor `1e-400`.
pub(crate) fn denotes_integer(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, "0"),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = whole.bytes().chain(fraction.bytes());
    if digits.clone().all(|digit| digit == b'0') {
        return true;
    }
    let trailing_zeros = whole
        .bytes()
        .chain(fraction.bytes())
        .rev()
        .take_while(|digit| *digit == b'0')
        .count();
    // The exponent of the last significant digit must not be negative; an
    // exponent too long to read is huge either way.
    let exponent: i64 = exponent
        .strip_prefix('+')
        .unwrap_or(exponent)
        .parse()
        .unwrap_or(if exponent.starts_with('-') {
            i64::MIN / 2
        } else {
            i64::MAX / 2
        });
    let fraction_len = i64::try_from(fraction.len()).unwrap_or(i64::MAX / 4);
    let trailing = i64::try_from(trailing_zeros).unwrap_or(0);
    exponent
        .saturating_sub(fraction_len)
        .saturating_add(trailing)
        >= 0
}

/// Whether `float` stands for a number the text of the member being read
/// wrote as no integer.
pub(crate) fn is_inexact(float: f64) -> bool {
    INEXACT.with(|inexact| inexact.borrow().contains(&float))
}

/// Runs `parse` (the owned path's reading of the argument object `text`)
/// with the integral `f64`s of the numbers of each member that are no
/// integers recorded, so that a field read `within_member` refuses them.
pub fn with_inexact_integers<T>(text: &str, parse: impl FnOnce() -> T) -> T {
    // Most arguments have no number with a fraction or an exponent.
    if !text.contains(['.', 'e', 'E']) || inexact_numbers(text).is_empty() {
        return parse();
    }
    let found = inexact_by_member(text);
    let saved = BY_MEMBER.with(|by_member| std::mem::replace(&mut *by_member.borrow_mut(), found));
    let parsed = parse();
    BY_MEMBER.with(|by_member| *by_member.borrow_mut() = saved);
    parsed
}

/// Runs `read` (the reading of the member `field` of the argument object the
/// owned path is parsing) with that member's inexact numbers in force.
pub(crate) fn within_member<T>(field: &str, read: impl FnOnce() -> T) -> T {
    let found = BY_MEMBER.with(|by_member| {
        let by_member = by_member.borrow();
        if by_member.is_empty() {
            return None;
        }
        let own = by_member.iter().rev().find(|(name, _)| name == field);
        Some(own.map(|(_, found)| found.clone()).unwrap_or_default())
    });
    match found {
        None => read(),
        Some(found) => with_inexact(found, read),
    }
}

/// Runs `read` (the reading of one member, `text`, on its own) with the
/// inexact numbers of `text` in force.
pub(crate) fn with_inexact_member<T>(text: &str, read: impl FnOnce() -> T) -> T {
    if !text.contains(['.', 'e', 'E']) {
        return read();
    }
    let found = inexact_numbers(text);
    if found.is_empty() {
        return read();
    }
    with_inexact(found, read)
}

fn with_inexact<T>(found: Vec<f64>, read: impl FnOnce() -> T) -> T {
    let saved = INEXACT.with(|inexact| std::mem::replace(&mut *inexact.borrow_mut(), found));
    let read = read();
    INEXACT.with(|inexact| *inexact.borrow_mut() = saved);
    read
}

/// [`inexact_numbers`] of each member of the object `text`, for the members
/// that have any; nothing when `text` is not an object serde_json reads
/// (then the owned path refuses it anyway).
fn inexact_by_member(text: &str) -> Vec<(String, Vec<f64>)> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, Vec<f64>)>;
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found: Vec<(String, Vec<f64>)> = Vec::new();
            while let Some(Text(name)) = map.next_key::<Text<'de>>()? {
                let value = map.next_value::<&'de RawValue>()?;
                // A repeated name: the `Value` holds the last one.
                found.retain(|(known, _)| *known != name);
                let numbers = inexact_numbers(value.get());
                if !numbers.is_empty() {
                    found.push((name.into_owned(), numbers));
                }
            }
            Ok(found)
        }
    }
    serde_json::Deserializer::from_str(text)
        .deserialize_map(Members)
        .unwrap_or_default()
}

/// The `f64` serde_json reads for each number of the JSON `text` whose
/// decimal text is no integer while that `f64` is.
fn inexact_numbers(text: &str) -> Vec<f64> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'"' => {
                index += 1;
                while index < bytes.len() && bytes[index] != b'"' {
                    index += if bytes[index] == b'\\' { 2 } else { 1 };
                }
                index += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = index;
                while index < bytes.len()
                    && matches!(bytes[index], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    index += 1;
                }
                let number = &text[start..index];
                if number.contains(['.', 'e', 'E']) && !denotes_integer(number) {
                    // serde_json's own reading, which the `Value` holds.
                    if let Ok(float) = serde_json::from_str::<f64>(number)
                        && float.fract() == 0.0
                    {
                        found.push(float);
                    }
                }
            }
            _ => index += 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_by_their_text() {
        for integer in [
            "100", "100.0", "-7.000", "1e2", "1.5e1", "0.0", "-0", "1E+3", "2500e-2",
        ] {
            assert!(denotes_integer(integer), "{integer}");
        }
        for fraction in [
            "100.00000000000001",
            "1.5",
            "1e-1",
            "2501e-2",
            "1e-400",
            "-0.5",
        ] {
            assert!(!denotes_integer(fraction), "{fraction}");
        }
    }

    #[test]
    fn inexact_numbers_are_listed_per_member() {
        // 100.000000000000001 reads as 100.0 whether or not serde_json reads
        // floats exactly (its `float_roundtrip` feature, on in the workspace).
        let text = r#"{"a": 100.000000000000001, "b": [100.0, 3.5], "c": "1.00000000000000001"}"#;
        assert_eq!(inexact_by_member(text), [("a".to_owned(), vec![100.0])]);
        // A repeated member: the last one counts, as in the `Value`.
        assert!(inexact_by_member(r#"{"a": 100.000000000000001, "a": 1}"#).is_empty());
        assert!(inexact_by_member("[100.000000000000001]").is_empty());
    }

    #[test]
    fn only_numbers_outside_strings_count() {
        // 100.000000000000001 is 100.0 as an f64 whether or not serde_json
        // reads floats exactly (its `float_roundtrip` feature).
        let text = r#"{"a": "100.000000000000001", "b": [100.000000000000001, 3.5, 2.0]}"#;
        let found = inexact_numbers(text);
        assert_eq!(found, [100.0]);
    }
}
