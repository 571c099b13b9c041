//! [`Json`]: the text of one JSON value, borrowed from the message it was
//! read from, looked at only as far as an answer needs.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// The text of one JSON value, a slice of the message it was read from, known
/// to be well-formed JSON (whoever made it checked it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Json<'a>(&'a str);

impl<'a> Json<'a> {
    /// The value's JSON text.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// Wraps text the caller has checked to be one JSON value.
    pub(crate) fn checked(text: &'a str) -> Self {
        Json(text)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&RawValue>::deserialize(deserializer).map(|raw| Json(raw.get()))
    }
}

/// The JSON type of a raw value, for messages.
pub(crate) fn type_name(raw: Json<'_>) -> &'static str {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => "string",
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ if text.contains(['.', 'e', 'E']) => "a non-integer number",
        _ => "number",
    }
}

/// Whether a raw value is an object.
pub(crate) fn is_object(raw: Json<'_>) -> bool {
    raw.get().starts_with('{')
}

/// Whether a raw value is `{}` (whitespace allowed inside).
pub(crate) fn is_empty_object(raw: Json<'_>) -> bool {
    let text = raw.get();
    text.starts_with('{') && text[1..].trim_start().starts_with('}')
}

/// A raw JSON string's value: borrowed when it has no escapes.
pub(crate) fn string(raw: Json<'_>) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    let inner = &text[1..text.len() - 1];
    if crate::json_text::has_backslash(inner) {
        serde_json::from_str::<String>(text).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    fn raw(text: &str) -> Json<'_> {
        let _: IgnoredAny = serde_json::from_str(text).unwrap();
        Json(text)
    }

    #[test]
    fn reads_types_strings_and_empty_objects() {
        assert_eq!(type_name(raw("1.5")), "a non-integer number");
        assert_eq!(type_name(raw("-3")), "number");
        assert_eq!(type_name(raw("null")), "null");
        assert!(is_empty_object(raw("{ \n }")));
        assert!(!is_empty_object(raw("{\"a\":1}")));
        assert!(matches!(string(raw("\"ab\"")), Some(Cow::Borrowed("ab"))));
        assert_eq!(string(raw(r#""a\u0062""#)).as_deref(), Some("ab"));
        assert_eq!(string(raw("7")), None);
    }
}
