//! Field types classified once: string smart pointers, wide integers and
//! `serde_json::Value` get the same answer from the schema, the parser and
//! the rules.

use std::borrow::Cow;

use annot::{AnnotatedTool, mcp_tool};
use serde_json::{Value, json};

#[mcp_tool(
    open_world = false,
    when(name matches "^admin") => (privileged_access),
    when(label path_matches "^/etc/") => (sensitive_data),
    when(big > 10000000000000000000) => (resource_intensive),
    when(signed < -5) => (slow_execution),
)]
#[derive(Debug)]
#[allow(dead_code)]
struct Typed {
    name: Box<str>,
    label: Cow<'static, str>,
    big: u128,
    signed: i128,
    extra: Option<serde_json::Value>,
}

fn schema() -> Value {
    serde_json::from_str(Typed::input_schema()).unwrap()
}

#[test]
fn string_pointers_are_strings_everywhere() {
    let properties = &schema()["properties"];
    assert_eq!(properties["name"], json!({"type": "string"}));
    assert_eq!(properties["label"], json!({"type": "string"}));
    let call = Typed::from_arguments(&json!({
        "name": "admin-1", "label": "/tmp/../etc/x", "big": 1, "signed": 0
    }))
    .unwrap();
    let resolved = call.resolve();
    assert_eq!(resolved.privileged_access, Some(true));
    assert_eq!(resolved.sensitive_data, Some(true));
    assert_eq!(resolved.resource_intensive, None);
}

#[test]
fn wide_integers_take_the_range_json_arguments_reach() {
    let properties = &schema()["properties"];
    assert_eq!(
        properties["big"],
        json!({"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64})
    );
    assert_eq!(
        properties["signed"],
        json!({"type": "integer", "minimum": -9223372036854775808i64, "maximum": 18446744073709551615u64})
    );
    let huge = Typed::from_arguments(&json!({
        "name": "x", "label": "y", "big": 18446744073709551615u64, "signed": -6
    }))
    .unwrap()
    .resolve();
    assert_eq!(huge.resource_intensive, Some(true));
    assert_eq!(huge.slow_execution, Some(true));
    assert!(huge.is_within(&Typed::STATIC_ANNOTATIONS));
    assert_eq!(
        schema()["properties"]["extra"],
        json!({"anyOf": [
            {"type": "null"}, {"type": "boolean"}, {"type": "number"},
            {"type": "string"}, {"type": "array"}, {"type": "object"}
        ]}),
        "an optional JSON value is anything, null included"
    );
}
