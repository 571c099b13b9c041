//! JSON Schemas of nested types (from `schemars`) rewritten in the spelling
//! the macro uses for its own fields.

/// Rewrites a schema in the spelling the macro uses for its own fields, which
/// portability lints and single-type dialects accept: a type array becomes
/// `anyOf` of one type each, a bare `true` the `anyOf` of every JSON type, a
/// bare `false` `{"not":{}}`. Each rewrite accepts the same values.
#[cfg_attr(
    not(any(feature = "schemars", feature = "output-schema")),
    allow(dead_code)
)]
pub(super) fn portable(schema: &mut serde_json::Value) {
    use serde_json::{Map, Value};
    let typed = |kind: &str| {
        let mut object = Map::new();
        object.insert("type".into(), Value::from(kind));
        Value::Object(object)
    };
    let any_of = |branches: Vec<Value>| {
        let mut object = Map::new();
        object.insert("anyOf".into(), Value::Array(branches));
        object
    };
    let object = match schema {
        Value::Bool(true) => {
            let kinds = ["null", "boolean", "number", "string", "array", "object"];
            *schema = Value::Object(any_of(kinds.into_iter().map(typed).collect()));
            return;
        }
        Value::Bool(false) => {
            let mut object = Map::new();
            object.insert("not".into(), Value::Object(Map::new()));
            *schema = Value::Object(object);
            return;
        }
        Value::Object(object) => object,
        _ => return,
    };
    if let Some(Value::Array(kinds)) = object.get("type")
        && kinds.iter().all(Value::is_string)
        && !object.contains_key("anyOf")
    {
        let branches: Vec<Value> = kinds.iter().filter_map(Value::as_str).map(typed).collect();
        object.remove("type");
        match <[Value; 1]>::try_from(branches) {
            Ok([single]) => {
                object.insert("type".into(), single["type"].clone());
            }
            Err(branches) => {
                object.insert("anyOf".into(), Value::Array(branches));
            }
        }
    }
    for (key, value) in object.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(map) = value {
                    map.values_mut().for_each(portable);
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(items) = value {
                    items.iter_mut().for_each(portable);
                }
            }
            "items" => match value {
                Value::Array(items) => items.iter_mut().for_each(portable),
                other => portable(other),
            },
            "contains" | "not" | "propertyNames" | "if" | "then" | "else" | "contentSchema" => {
                portable(value);
            }
            // A boolean is the usual spelling here; only a schema is rewritten.
            "additionalProperties"
            | "unevaluatedProperties"
            | "additionalItems"
            | "unevaluatedItems"
                if value.is_object() =>
            {
                portable(value);
            }
            _ => {}
        }
    }
}
