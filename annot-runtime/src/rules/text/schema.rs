//! A tool's fields as rules see them, read from its `inputSchema` (JSON
//! Schema): each property's type (`string`, `integer` with its `minimum`
//! and `maximum`, `number`, `boolean`), whether it may be absent or null,
//! and the `default` an absent one reads as.

use std::collections::HashMap;

use serde_json::{Map, Value};

use annot_rules::check::FieldKinds;
use annot_rules::{Base, Kind};

/// The fields of `schema`, an object schema; what is wrong with it
/// otherwise. `discriminator` is typed as the action.
pub(super) fn field_kinds(
    schema: &Value,
    discriminator: Option<&str>,
) -> Result<FieldKinds, String> {
    let Some(schema) = schema.as_object() else {
        return Err("an inputSchema is a JSON object".to_owned());
    };
    let properties = match schema.get("properties") {
        None => &Map::new(),
        Some(Value::Object(properties)) => properties,
        Some(_) => return Err("the inputSchema's `properties` is not an object".to_owned()),
    };
    let required: Vec<&str> = match schema.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        Some(_) => return Err("the inputSchema's `required` is not an array".to_owned()),
    };
    let mut kinds = FieldKinds::new();
    for (name, property) in properties {
        let (mut kind, nullable) = kind_of(property);
        // With a `default`, an absent field reads as it: always present.
        let defaulted = property
            .get("default")
            .is_some_and(|value| !value.is_null());
        kind.optional = nullable || !(required.contains(&name.as_str()) || defaulted);
        if Some(name.as_str()) == discriminator {
            kind = Kind {
                optional: false,
                base: Base::Action,
                text: "the action".to_owned(),
            };
        }
        kinds.insert(name.clone(), (kind, false));
    }
    if let Some(field) = discriminator
        && !kinds.contains_key(field)
    {
        return Err(format!(
            "the discriminator `{field}` is not a property of the inputSchema"
        ));
    }
    Ok(kinds)
}

/// The `default` of each property that has one (but `null`).
pub(super) fn defaults(schema: &Value) -> HashMap<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .filter_map(|(name, property)| {
            let value = property.get("default").filter(|value| !value.is_null())?;
            Some((name.clone(), value.clone()))
        })
        .collect()
}

/// The string values a property's `enum` lists (a discriminator's actions).
pub(super) fn enum_names(schema: &Value, field: &str) -> Vec<String> {
    let property = &schema["properties"][field];
    let names = property.get("enum").and_then(Value::as_array);
    names
        .into_iter()
        .flatten()
        .filter_map(|name| name.as_str().map(str::to_owned))
        .collect()
}

/// A property's kind and whether it admits `null`.
fn kind_of(property: &Value) -> (Kind, bool) {
    let kind = |base: Base, text: &str| Kind {
        optional: false,
        base,
        text: text.to_owned(),
    };
    // `anyOf`/`oneOf` of one type and `null`: how schemars writes an `Option`.
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = property.get(key) {
            let (nulls, others): (Vec<&Value>, Vec<&Value>) =
                branches.iter().partition(|branch| branch["type"] == "null");
            if let ([_], [other]) = (nulls.as_slice(), others.as_slice()) {
                return (kind_of(other).0, true);
            }
            return (kind(Base::Other, key), false);
        }
    }
    let (types, nullable) = match property.get("type") {
        Some(Value::String(name)) => (vec![name.as_str()], false),
        Some(Value::Array(names)) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            let nullable = names.contains(&"null");
            (
                names.into_iter().filter(|name| *name != "null").collect(),
                nullable,
            )
        }
        _ => {
            // No type: an `enum` or `const` of strings is a string.
            let strings = property
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.iter().all(Value::is_string))
                || property.get("const").is_some_and(Value::is_string);
            let found = if strings { vec!["string"] } else { Vec::new() };
            (found, false)
        }
    };
    let found = match types.as_slice() {
        ["string"] => kind(Base::Str, "string"),
        ["integer"] => kind(integer(property), "integer"),
        ["number"] => kind(Base::Float, "number"),
        ["boolean"] => kind(Base::Bool, "boolean"),
        [one] => kind(Base::Other, one),
        _ => kind(Base::Other, "a value of several types"),
    };
    (found, nullable)
}

/// An integer property's range: its `minimum` and `maximum`, else its
/// `format`'s (`uint32`...), else what a JSON argument can hold (as for an
/// `i128` field of the macro).
fn integer(property: &Value) -> Base {
    let (min, max): (i128, i128) = match property.get("format").and_then(Value::as_str) {
        Some("uint8") => (0, u8::MAX.into()),
        Some("uint16") => (0, u16::MAX.into()),
        Some("uint32") => (0, u32::MAX.into()),
        Some("int8") => (i8::MIN.into(), i8::MAX.into()),
        Some("int16") => (i16::MIN.into(), i16::MAX.into()),
        Some("int32") => (i32::MIN.into(), i32::MAX.into()),
        Some("int64") => (i64::MIN.into(), i64::MAX.into()),
        Some("uint64" | "uint") => (0, u64::MAX.into()),
        _ => (i64::MIN.into(), u64::MAX.into()),
    };
    let bound = |key: &str, default: i128| match property.get(key) {
        Some(Value::Number(number)) => number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from))
            .or_else(|| number.as_f64().map(|value| value as i128))
            .unwrap_or(default),
        _ => default,
    };
    Base::Int {
        min: bound("minimum", min),
        max: bound("maximum", max),
    }
}
