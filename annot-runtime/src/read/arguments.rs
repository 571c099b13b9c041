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
pub fn members<'a, const N: usize>(
    text: &'a str,
    split: Option<&SplitArguments<'a>>,
    names: &[&str; N],
) -> Option<([Option<Member<'a>>; N], u64)> {
    let (slots, plain) = match split {
        Some(split) => match members_of_split(split, names) {
            Some((slots, plain)) => (Some(slots), plain),
            None => (None, 0),
        },
        None => match super::scan::members(text, names) {
            Some(Some(slots)) => (Some(slots.map(|slot| slot.map(Member::checked))), 0),
            Some(None) => (None, 0),
            None => return members_by_serde(text, names).map(|slots| (slots, 0)),
        },
    };
    // Where the request reader answers, serde_json answers the same (tests
    // and fuzzing run with this check).
    #[cfg(debug_assertions)]
    {
        let texts = |slots: &Option<[Option<Member<'a>>; N]>| {
            slots.map(|slots| slots.map(|slot| slot.map(Member::get)))
        };
        assert_eq!(
            texts(&slots),
            texts(&members_by_serde(text, names)),
            "{text}"
        );
        for (index, slot) in slots.iter().flatten().enumerate() {
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
    slots.map(|slots| (slots, plain))
}

/// [`members`] of an object already split: its members matched by name.
fn members_of_split<'a, const N: usize>(
    split: &SplitArguments<'a>,
    names: &[&str; N],
) -> Option<([Option<Member<'a>>; N], u64)> {
    let mut slots = [None; N];
    let mut plain = 0;
    for (index, &(name, text)) in split.members().iter().enumerate() {
        let slot = names
            .iter()
            .position(|known| same_name(known.as_bytes(), name))?;
        if slots[slot].replace(Member(text)).is_some() {
            return None;
        }
        plain |= u64::from(split.plain >> index & 1) << slot;
    }
    Some((slots, plain))
}

/// Whether two member names are the same, compared where they stand: names
/// are short, where a call to `memcmp` costs more than the comparison.
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a == b)
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
