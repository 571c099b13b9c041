//! Numbers judged by their decimal text: `100.00000000000001` is not an
//! integer, even though serde_json's `f64` for it is `100.0`.
//!
//! JSON Schema's `"integer"` is a property of the number the text denotes,
//! not of the nearest `f64`. The borrowing reader has the text of each
//! member; the owned path (`AnnotatedTool::from_arguments_str`) reads the
//! whole text into a `serde_json::Value`, where only the `f64` is left, so it
//! first lists the `f64` values of every number whose text is not an integer
//! ([`with_inexact_integers`]), and [`super::as_integer`] reads none of those
//! as an integer. Arguments handed over as a `Value` (the rmcp adapter's)
//! have no text left to judge, and are judged by their `f64`.

use std::cell::RefCell;

thread_local! {
    /// The `f64` values, integral as floats, of the numbers of the arguments
    /// being parsed whose decimal text is no integer.
    static INEXACT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
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

/// Whether `float` stands for a number the text of the arguments being
/// parsed wrote as no integer.
pub(crate) fn is_inexact(float: f64) -> bool {
    INEXACT.with(|inexact| inexact.borrow().contains(&float))
}

/// Runs `parse` with the integral `f64`s of the numbers of `text` that are
/// no integers recorded, so that `as_integer` refuses them.
pub fn with_inexact_integers<T>(text: &str, parse: impl FnOnce() -> T) -> T {
    // Most arguments have no number with a fraction or an exponent.
    if !text.contains(['.', 'e', 'E']) {
        return parse();
    }
    let found = inexact_numbers(text);
    if found.is_empty() {
        return parse();
    }
    let saved = INEXACT.with(|inexact| std::mem::replace(&mut *inexact.borrow_mut(), found));
    let parsed = parse();
    INEXACT.with(|inexact| *inexact.borrow_mut() = saved);
    parsed
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
    fn only_numbers_outside_strings_count() {
        // 100.000000000000001 is 100.0 as an f64 whether or not serde_json
        // reads floats exactly (its `float_roundtrip` feature).
        let text = r#"{"a": "100.000000000000001", "b": [100.000000000000001, 3.5, 2.0]}"#;
        let found = inexact_numbers(text);
        assert_eq!(found, [100.0]);
    }
}
