//! A tool's argument object split into its members, each as its JSON text:
//! by the scanner (in the request's one pass, or over the arguments' text),
//! and by serde where the scanner gives up. What the code `#[mcp_tool]`
//! generates reads each member from, as the field's type (`private/view.rs`).

use std::borrow::Cow;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::split::SplitArguments;

/// A JSON string, borrowed from the text when it has no escape.
#[derive(Debug)]
pub struct Text<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

impl AsRef<str> for Text<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// One member of the argument object: its JSON text, checked to be one
/// JSON value.
#[derive(Clone, Copy, Debug)]
// Sixteen bytes: slots of them are returned by value (with a flag in each,
// the borrowing path measured 10% slower); which of them the request reader
// found plain comes beside them, as a mask.
pub struct Member<'a>(&'a str);

impl<'a> Member<'a> {
    /// Wraps text the caller has checked to be one JSON value.
    pub fn checked(text: &'a str) -> Self {
        Member(text)
    }

    /// The member's JSON text.
    pub fn get(self) -> &'a str {
        self.0
    }
}

/// The members of the argument object named in `names`, as their text, slot
/// `i` for `names[i]`; `None` when the text is not one JSON object, or a
/// member is not in `names` or comes twice (the owned path decides those).
///
/// `split` is the same object as the request reader split it, when it did:
/// its names are matched without reading the text again. Otherwise the
/// request reader's one pass reads the common shape; serde_json reads what
/// it gives up on (escaped member names, `\u` escapes), and decides.
///
/// Beside them, a mask of the slots whose value the request reader found a
/// string without escapes (bit `i` for slot `i`; only a split object has
/// any): such a value's text between the quotes is what it says, and
/// [`text_known`](crate::private::text_known) and
/// [`string_checked_known`](crate::private::string_checked_known) take it as it
/// stands.
// Inlined where the generated code calls it, so that the split path
// compares each member's name with the tool's names as constants.
#[inline]
pub fn members<'a, const N: usize>(
    text: &'a str,
    split: Option<&SplitArguments<'a>>,
    names: &[&str; N],
) -> Option<([Option<Member<'a>>; N], u64)> {
    let found = match split {
        Some(split) => members_of_split(split, names),
        None => members_of_text(text, names),
    };
    // Where the request reader answers, serde_json answers the same (tests
    // and fuzzing run with this check).
    #[cfg(debug_assertions)]
    check_against_serde(text, names, found.as_ref());
    found
}

/// [`members`] of an object the request reader did not split.
fn members_of_text<'a, const N: usize>(
    text: &'a str,
    names: &[&str; N],
) -> Option<([Option<Member<'a>>; N], u64)> {
    match super::scan::members(text, names) {
        Some(Some(slots)) => Some((slots.map(|slot| slot.map(Member::checked)), 0)),
        Some(None) => None,
        None => members_by_serde(text, names).map(|slots| (slots, 0)),
    }
}

/// Panics unless serde_json reads `text` as [`members`] did, and every
/// member marked plain is a string without escapes.
#[cfg(debug_assertions)]
fn check_against_serde<'a, const N: usize>(
    text: &'a str,
    names: &[&str; N],
    found: Option<&([Option<Member<'a>>; N], u64)>,
) {
    let texts = |slots: Option<&[Option<Member<'a>>; N]>| {
        slots.map(|slots| slots.map(|slot| slot.map(Member::get)))
    };
    assert_eq!(
        texts(found.map(|(slots, _)| slots)),
        texts(members_by_serde(text, names).as_ref()),
        "{text}"
    );
    let Some((slots, plain)) = found else {
        return;
    };
    for (index, slot) in slots.iter().enumerate() {
        let text = slot.map(Member::get).unwrap_or_default();
        assert!(
            plain & (1 << index) == 0
                || (text.len() >= 2
                    && text.starts_with('"')
                    && !crate::json_text::has_backslash(text)),
            "a plain member is a string without escapes: {text}"
        );
    }
}

/// [`members`] of an object already split: its members matched by name.
#[inline(always)]
fn members_of_split<'a, const N: usize>(
    split: &SplitArguments<'a>,
    names: &[&str; N],
) -> Option<([Option<Member<'a>>; N], u64)> {
    let mut slots = [None; N];
    let mut plain = 0;
    // The members' plain bits, member `i`'s the lowest after `i` shifts.
    let mut plain_members = split.plain;
    for &(name, text) in split.members() {
        let slot = names
            .iter()
            .position(|known| same_name(known.as_bytes(), name))?;
        if slots[slot].replace(Member(text)).is_some() {
            return None;
        }
        plain |= u64::from(plain_members & 1) << slot;
        plain_members >>= 1;
    }
    Some((slots, plain))
}

/// Whether a member's `name` is the `known` one, compared where they stand:
/// names are short, where a call to `memcmp` costs more than the
/// comparison. From four to eight bytes, as two words of four that overlap,
/// which are constants where `known` is one.
#[inline(always)]
fn same_name(known: &[u8], name: &[u8]) -> bool {
    if known.len() != name.len() {
        return false;
    }
    if (4..=8).contains(&known.len()) {
        let head = |bytes: &[u8]| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let tail = |bytes: &[u8]| head(&bytes[bytes.len() - 4..]);
        return head(known) == head(name) && tail(known) == tail(name);
    }
    known.iter().zip(name).all(|(a, b)| a == b)
}

/// [`members`], read by serde_json.
fn members_by_serde<'a, const N: usize>(
    text: &'a str,
    names: &[&str; N],
) -> Option<[Option<Member<'a>>; N]> {
    struct Members<'n, const N: usize>(&'n [&'n str; N]);
    impl<'de, const N: usize> Visitor<'de> for Members<'_, N> {
        type Value = [Option<Member<'de>>; N];
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut slots = [None; N];
            while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                let slot = self.0.iter().position(|name| *name == key);
                match slot {
                    Some(slot) if slots[slot].is_none() => {
                        let raw = map.next_value::<&'de RawValue>()?;
                        slots[slot] = Some(Member::checked(raw.get()));
                    }
                    // Unknown or repeated: the owned path says what is wrong.
                    _ => return Err(de::Error::custom("left to the owned path")),
                }
            }
            Ok(slots)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let slots = deserializer.deserialize_map(Members(names)).ok()?;
    deserializer.end().ok()?;
    Some(slots)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names of every length class the comparison treats apart (under
    /// four bytes, four to eight, over eight), each beside a name of the
    /// same length that differs in one byte only: first, middle or last.
    const NAMES: [&str; 8] = [
        "id",
        "ix",
        "path",
        "pbth",
        "contents",
        "contentz",
        "timeout_s",
        "timeout_t",
    ];

    fn split<'a>(members: &[(&'a str, &'a str, bool)]) -> SplitArguments<'a> {
        let mut split = SplitArguments::default();
        for &(name, value, plain) in members {
            split.push(name.as_bytes(), value, plain).expect("room");
        }
        split
    }

    #[test]
    fn split_members_are_matched_by_their_whole_name() {
        let split = split(&[
            ("pbth", r#""b""#, true),
            ("ix", "2", false),
            ("timeout_t", "9", false),
            ("contentz", r#""z""#, true),
        ]);
        let text = r#"{"pbth":"b","ix":2,"timeout_t":9,"contentz":"z"}"#;
        let (slots, plain) = members(text, Some(&split), &NAMES).expect("all known");
        let found: Vec<Option<&str>> = slots.iter().map(|slot| slot.map(Member::get)).collect();
        assert_eq!(
            found,
            [
                None,
                Some("2"),
                None,
                Some(r#""b""#),
                None,
                Some(r#""z""#),
                None,
                Some("9")
            ]
        );
        assert_eq!(plain, 1 << 3 | 1 << 5);
    }

    #[test]
    fn a_split_member_of_no_known_name_or_twice_is_left_to_the_owned_path() {
        for unknown in ["i", "idd", "pat", "paths", "contentx", "timeout_u", "Path"] {
            let split = split(&[("id", "1", false), (unknown, "2", false)]);
            let text = format!(r#"{{"id":1,"{unknown}":2}}"#);
            assert!(members(&text, Some(&split), &NAMES).is_none(), "{unknown}");
        }
        let split = split(&[("path", "1", false), ("path", "2", false)]);
        assert!(members(r#"{"path":1,"path":2}"#, Some(&split), &NAMES).is_none());
    }
}
