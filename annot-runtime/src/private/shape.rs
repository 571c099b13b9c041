//! Members no rule reads, of collection types, checked on the borrowing path
//! without building them: a `headers: Option<BTreeMap<String, String>>` is
//! read as the owned path reads it, and nothing is allocated for it.

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::view::{integer, string_checked};
use crate::read::Member;

/// What the JSON of a member must be for the owned path to read it as the
/// field's type. The macro writes one for every type made of these (see
/// [`shape_checked`]); a type with any other part is read the owned way.
#[derive(Debug)]
pub enum Shape {
    /// A string (`String`, `Box<str>`, ...): surrogate escapes in pairs.
    Str,
    /// `true` or `false`.
    Bool,
    /// An integer in `min..=max`; an integral float is read as one.
    Int(i128, i128),
    /// `null`, or the inner shape (`Option<T>`).
    Option(&'static Shape),
    /// An array of the inner shape (`Vec<T>`, `VecDeque<T>`, sets).
    Seq(&'static Shape),
    /// An object of values of the inner shape (`BTreeMap<String, T>`,
    /// `HashMap<String, T>`).
    Map(&'static Shape),
}

/// `Some(())` when the owned path reads `raw` as a value of `shape`.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::__private::{Member, Shape, shape_checked};
///
/// static HEADERS: Shape = Shape::Option(&Shape::Map(&Shape::Str));
/// let raw = Member::checked;
/// assert!(shape_checked(raw(r#"{"accept": "text/plain"}"#), &HEADERS).is_some());
/// assert!(shape_checked(raw("null"), &HEADERS).is_some());
/// assert!(shape_checked(raw(r#"{"accept": 1}"#), &HEADERS).is_none());
/// ```
pub fn shape_checked(raw: Member<'_>, shape: &'static Shape) -> Option<()> {
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    shape.deserialize(&mut deserializer).ok()
}

fn refused<E: de::Error>() -> E {
    E::custom("left to the owned path")
}

impl<'de> DeserializeSeed<'de> for &'static Shape {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        match self {
            Shape::Str => {
                let raw = <&RawValue>::deserialize(deserializer)?;
                string_checked(Member::checked(raw.get())).ok_or_else(refused)
            }
            Shape::Bool => bool::deserialize(deserializer).map(drop),
            Shape::Int(min, max) => {
                let raw = <&RawValue>::deserialize(deserializer)?;
                integer(Member::checked(raw.get()), *min, *max)
                    .map(drop)
                    .ok_or_else(refused)
            }
            Shape::Option(inner) => deserializer.deserialize_option(Checker(inner)),
            Shape::Seq(_) => deserializer.deserialize_seq(Checker(self)),
            Shape::Map(_) => deserializer.deserialize_map(Checker(self)),
        }
    }
}

/// The visitor of the shapes with parts.
struct Checker(&'static Shape);

impl<'de> Visitor<'de> for Checker {
    type Value = ();

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.0)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let Shape::Seq(item) = self.0 else {
            return Err(refused());
        };
        while items.next_element_seed(*item)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let Shape::Map(value) = self.0 else {
            return Err(refused());
        };
        while members.next_key_seed(&Shape::Str)?.is_some() {
            members.next_value_seed(*value)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use serde::de::DeserializeOwned;

    use super::*;
    use crate::private::view::{rewritten, verbatim};

    /// Whether the shape and the owned path (`read`) agree on `text`.
    fn agree<T: DeserializeOwned>(
        shape: &'static Shape,
        text: &str,
        read: fn(Member<'_>) -> Option<T>,
    ) {
        let raw = Member::checked(text);
        assert_eq!(
            shape_checked(raw, shape).is_some(),
            read(raw).is_some(),
            "{shape:?} on {text}"
        );
    }

    const TEXTS: &[&str] = &[
        "null",
        "true",
        "7",
        "7.0",
        "7.5",
        "-1",
        "300",
        "\"a\"",
        r#""\ud800""#,
        r#""\u00e9""#,
        "[]",
        "[1, 2]",
        "[1.0, 255]",
        "[256]",
        "[\"a\", \"b\"]",
        "[null]",
        "[[1]]",
        "{}",
        r#"{"a": "b"}"#,
        r#"{"a": 1}"#,
        r#"{"a": null}"#,
        r#"{"\ud800": "b"}"#,
        r#"{"a": "\udc00"}"#,
        r#"{"a": "b", "a": "c"}"#,
        r#"{"a\"": "b\n"}"#,
        r#"{"a": [true]}"#,
    ];

    #[test]
    fn shapes_accept_what_the_owned_path_reads() {
        static HEADERS: Shape = Shape::Option(&Shape::Map(&Shape::Str));
        static BYTES: Shape = Shape::Seq(&Shape::Int(0, 255));
        static NAMES: Shape = Shape::Seq(&Shape::Str);
        static COUNTS: Shape = Shape::Map(&Shape::Option(&Shape::Int(-128, 127)));
        static FLAGS: Shape = Shape::Map(&Shape::Seq(&Shape::Bool));
        static NESTED: Shape = Shape::Seq(&Shape::Seq(&Shape::Int(0, 255)));
        for text in TEXTS {
            agree::<Option<BTreeMap<String, String>>>(&HEADERS, text, verbatim);
            agree::<Option<HashMap<String, String>>>(&HEADERS, text, verbatim);
            agree::<Vec<u8>>(&BYTES, text, rewritten);
            agree::<BTreeSet<String>>(&NAMES, text, verbatim);
            agree::<BTreeMap<String, Option<i8>>>(&COUNTS, text, rewritten);
            agree::<HashMap<String, Vec<bool>>>(&FLAGS, text, verbatim);
            agree::<Vec<Vec<u8>>>(&NESTED, text, rewritten);
        }
    }
}
