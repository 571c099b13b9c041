//! Reading a `serde_json::Value` as a field's type, with integral floats
//! (`1.0`) read as integers only where the type asks for an integer.
//!
//! JSON Schema's `"integer"` accepts `1.0`, so the parser must read it into
//! a `u32`; but a `serde_json::Value` (or an `f64`) inside the same type
//! must receive `1.0` as the client sent it. Rewriting the whole value
//! before reading it cannot do both, so this deserializer decides per
//! request of the type: `deserialize_u32` and friends see the integer, and
//! `deserialize_any` (which `Value` and `f64` use) sees the float.

use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Map, Number, Value};

/// `value` as a deserializer that hands integral floats as integers to the
/// integer requests of the type it is read as, and as floats to any other.
#[derive(Clone, Copy)]
pub(crate) struct IntegralFloats<'a>(pub &'a Value);

macro_rules! integer_requests {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0 {
                Value::Number(number) => match as_integer(number) {
                    Some(integer) => integer.deserialize_any(visitor),
                    None => number.deserialize_any(visitor),
                },
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for IntegralFloats<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(value) => visitor.visit_bool(*value),
            Value::Number(number) => number.deserialize_any(visitor),
            Value::String(text) => visitor.visit_borrowed_str(text),
            Value::Array(items) => {
                let mut seq = Items(items.iter());
                let value = visitor.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(value),
                    _ => Err(de::Error::invalid_length(items.len(), &"fewer elements")),
                }
            }
            Value::Object(members) => visit_members(members, visitor),
        }
    }

    integer_requests! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // As serde_json reads enums: a unit variant by its name, any other
        // as an object of one member.
        match self.0 {
            Value::String(name) => visitor.visit_enum(name.as_str().into_deserializer()),
            Value::Object(members) if members.len() == 1 => {
                let (name, value) = members.iter().next().expect("one member");
                visitor.visit_enum(Variant { name, value })
            }
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a string or an object of one member",
            )),
        }
    }

    forward_to_deserialize_any! {
        bool f32 f64 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(value) => de::Unexpected::Bool(*value),
        Value::Number(_) => de::Unexpected::Other("a number"),
        Value::String(text) => de::Unexpected::Str(text),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

fn visit_members<'de, V: Visitor<'de>>(
    members: &'de Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let mut map = Members {
        members: members.iter(),
        value: None,
    };
    let value = visitor.visit_map(&mut map)?;
    match map.members.len() {
        0 => Ok(value),
        _ => Err(de::Error::invalid_length(members.len(), &"fewer members")),
    }
}

struct Items<'de>(core::slice::Iter<'de, Value>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|item| seed.deserialize(IntegralFloats(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Members<'de> {
    members: serde_json::map::Iter<'de>,
    value: Option<&'de Value>,
}

impl<'de> MapAccess<'de> for Members<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        let key: StrDeserializer<'_, Error> = key.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(IntegralFloats(value)),
            None => Err(de::Error::custom("a value asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// A variant of an enum written as an object of one member.
struct Variant<'de> {
    name: &'de str,
    value: &'de Value,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = Error;
    type Variant = IntegralFloats<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), Error> {
        let name: StrDeserializer<'_, Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, IntegralFloats(self.value)))
    }
}

impl<'de> VariantAccess<'de> for IntegralFloats<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a unit variant",
            )),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(members) => visit_members(members, visitor),
            Value::Array(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a struct variant",
            )),
        }
    }
}

/// The integer a float number holds exactly, if any.
pub(crate) fn as_integer(number: &Number) -> Option<Number> {
    if !number.is_f64() {
        return None;
    }
    let float = number.as_f64()?;
    // Judged by the decimal text where it is known (see `decimal`).
    if float.fract() != 0.0 || crate::decimal::is_inexact(float) {
        return None;
    }
    // 2^64 and -2^63 are exact in f64; the casts below are exact in range.
    if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        Some(Number::from(float as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
        Some(Number::from(float as i64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::private::deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Wrapper(u8);

    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Dot,
        Square(u32),
        Line(i64, f64),
        Box { side: u16, note: Value },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Everything {
        count: Option<i32>,
        wrapped: Wrapper,
        shapes: Vec<Shape>,
        raw: Value,
        big: u128,
        flag: bool,
    }

    #[test]
    fn integers_where_asked_and_the_value_as_sent_elsewhere() {
        let value = json!({
            "count": 2.0, "wrapped": 7.0, "big": 4.0, "flag": true,
            "shapes": ["Dot", {"Square": 3.0}, {"Line": [4.0, 5.0]},
                       {"Box": {"side": 6.0, "note": [1.0, {"k": 2.0}]}}],
            "raw": {"a": 1.0, "b": [-0.0, 2]}
        });
        let read: Everything = deserialize(&value, "field").unwrap();
        assert_eq!(read.count, Some(2));
        assert_eq!(read.wrapped, Wrapper(7));
        assert_eq!(read.big, 4);
        assert!(read.flag);
        assert_eq!(read.shapes[0], Shape::Dot);
        assert_eq!(read.shapes[1], Shape::Square(3));
        assert_eq!(read.shapes[2], Shape::Line(4, 5.0));
        let Shape::Box { side, note } = &read.shapes[3] else {
            panic!("{:?}", read.shapes[3])
        };
        assert_eq!(*side, 6);
        assert_eq!(note.to_string(), r#"[1.0,{"k":2.0}]"#);
        assert_eq!(read.raw.to_string(), r#"{"a":1.0,"b":[-0.0,2]}"#);
        let absent: Everything = deserialize(
            &json!({"count": null, "wrapped": 0, "big": 0, "flag": false, "shapes": [], "raw": 1.5}),
            "field",
        )
        .unwrap();
        assert_eq!(absent.count, None);
    }

    #[test]
    fn what_does_not_fit_is_refused_with_its_path() {
        for (value, path) in [
            (json!({"Square": 1.5}), "field.Square"),
            (json!({"Square": -1.0}), "field.Square"),
            (json!({"Line": [1.0]}), "field.Line"),
            (
                json!({"Box": {"side": 70000.0, "note": null}}),
                "field.Box.side",
            ),
            (json!({"Dot": null, "Square": 1}), "field"),
            (json!("Circle"), "field"),
            (json!(3), "field"),
        ] {
            let error = deserialize::<Shape>(&value, "field").unwrap_err();
            assert_eq!(error.path(), Some(path), "{value}: {error}");
        }
        assert!(deserialize::<Wrapper>(&json!(256.0), "w").is_err());
        assert!(deserialize::<(u8,)>(&json!([1.0, 2.0]), "t").is_err());
        assert_eq!(
            deserialize::<(u8, f32)>(&json!([1.0, 2.0]), "t").unwrap(),
            (1, 2.0)
        );
        assert_eq!(deserialize::<i64>(&json!(-9.0), "n").unwrap(), -9);
        assert!(deserialize::<i64>(&json!(1e19), "n").is_err());
    }

    #[test]
    fn a_unit_variant_written_as_an_object_takes_null() {
        assert_eq!(
            deserialize::<Shape>(&json!({"Dot": null}), "f").unwrap(),
            Shape::Dot
        );
        assert!(deserialize::<Shape>(&json!({"Dot": 1}), "f").is_err());
        assert!(deserialize::<Shape>(&json!({"Square": [1]}), "f").is_err());
    }
}
