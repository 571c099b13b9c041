//! What each `inputSchema` shape accepts, against the parser: the exact shape
//! agrees with `from_arguments`; the portable shape (the default) accepts a
//! documented superset: a field of another action, a field missing that only
//! some actions require, a value typed as another action types that field.

use crate::macro_support;
use crate::schema_support;
#[path = "../../examples/tools/github_api.rs"]
mod github_api;
#[path = "../../examples/tools/http_api.rs"]
mod http_api;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;

use annot::AnnotatedTool;
use macro_support::{assert_same_verdicts, combinations};
use manage_files::ManageFiles;
use schema_support::tools::{Lookup, Mixed, MixedExact};
use serde_json::{Map, Value, json};

fn validator(text: &str) -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(text).expect("JSON");
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// (arguments, parser accepts, exact schema accepts, portable schema accepts),
/// each verdict written by hand.
fn check_table<T: AnnotatedTool + std::fmt::Debug>(table: &[(Value, bool, bool, bool)]) {
    let portable = validator(T::input_schema());
    let exact = validator(T::exact_input_schema());
    for (arguments, parser, by_exact, by_portable) in table {
        assert_eq!(
            T::from_arguments(arguments).is_ok(),
            *parser,
            "parser on {arguments}"
        );
        assert_eq!(exact.is_valid(arguments), *by_exact, "exact on {arguments}");
        assert_eq!(
            portable.is_valid(arguments),
            *by_portable,
            "portable on {arguments}"
        );
    }
}

#[test]
fn manage_files_shapes_against_the_parser() {
    check_table::<ManageFiles>(&[
        (json!({"action": "read", "path": "a"}), true, true, true),
        (
            json!({"action": "append", "path": "a", "content": "x"}),
            true,
            true,
            true,
        ),
        // The superset: `content` belongs to other actions; `append` needs it.
        (
            json!({"action": "read", "path": "a", "content": "x"}),
            false,
            false,
            true,
        ),
        (json!({"action": "append", "path": "a"}), false, false, true),
        // Rules every action shares hold in both shapes.
        (
            json!({"action": "append", "content": "x"}),
            false,
            false,
            false,
        ),
        (json!({"path": "a"}), false, false, false),
        (
            json!({"action": "rename", "path": "a"}),
            false,
            false,
            false,
        ),
        (
            json!({"action": "read", "path": "a", "mode": 1}),
            false,
            false,
            false,
        ),
        (
            json!({"action": "append", "path": "a", "content": 1}),
            false,
            false,
            false,
        ),
        (
            json!({"action": "delete", "path": null}),
            false,
            false,
            false,
        ),
        (json!(["read", "a"]), false, false, false),
    ]);
}

#[test]
fn mixed_types_shapes_against_the_parser() {
    check_table::<Mixed>(&[
        (
            json!({"action": "find", "target": "x", "tags": [], "limit": null}),
            true,
            true,
            true,
        ),
        (
            json!({"action": "store", "target": 7, "values": {"a": -1},
                   "flags": {"f": null}, "extra": {"any": [1, "x"]}}),
            true,
            true,
            true,
        ),
        (
            json!({"action": "mark", "letter": "é", "weight": 0.5}),
            true,
            true,
            true,
        ),
        (json!({"action": "ping"}), true, true, true),
        // `target` typed as the other action types it.
        (
            json!({"action": "find", "target": 7, "tags": []}),
            false,
            false,
            true,
        ),
        (
            json!({"action": "store", "target": "x", "values": {}, "flags": {}}),
            false,
            false,
            true,
        ),
        // A field of another action, a per-action field missing.
        (json!({"action": "ping", "letter": "a"}), false, false, true),
        (json!({"action": "mark", "letter": "a"}), false, false, true),
        // Types, ranges and lengths hold in both shapes.
        (
            json!({"action": "mark", "letter": "ab", "weight": 1}),
            false,
            false,
            false,
        ),
        (
            json!({"action": "find", "target": "x", "tags": [], "limit": 70000}),
            false,
            false,
            false,
        ),
        (
            json!({"action": "store", "target": -1, "values": {}, "flags": {}}),
            false,
            false,
            false,
        ),
        (
            json!({"action": "ping", "weight": "heavy"}),
            false,
            false,
            false,
        ),
    ]);
}

/// Every combination of a few values per field: the exact schema agrees with
/// the parser, the portable one accepts at least what the parser accepts.
#[test]
fn mixed_types_agree_over_combinations() {
    let cases = combinations(&[
        ("action", vec![json!("find"), json!("store"), json!("ping")]),
        ("target", vec![json!("x"), json!(3), json!(null)]),
        ("tags", vec![json!([]), json!([1])]),
        ("values", vec![json!({}), json!({"k": 1.5})]),
        ("flags", vec![json!({"f": true})]),
        ("extra", vec![json!(null), json!([[]])]),
    ]);
    // Counted by hand: `find` with target "x" and tags [] alone; `store` with
    // target 3, values {}, flags, and extra absent, null or [[]]; `ping` bare.
    assert_eq!(assert_same_verdicts::<Mixed>(&cases), 5);
    assert_eq!(assert_same_verdicts::<MixedExact>(&cases), 5);
}

/// The two shapes differ only in the `if`/`then`/`else` chain: the portable
/// schema is the exact one without it.
#[test]
fn the_exact_shape_is_the_portable_one_plus_the_chain() {
    for (portable, exact) in [
        (Mixed::input_schema(), Mixed::exact_input_schema()),
        (
            ManageFiles::input_schema(),
            ManageFiles::exact_input_schema(),
        ),
    ] {
        let portable: Value = serde_json::from_str(portable).unwrap();
        let mut exact: Map<String, Value> = serde_json::from_str(exact).unwrap();
        for key in ["if", "then", "else"] {
            assert!(exact.remove(key).is_some(), "exact schema has `{key}`");
        }
        assert_eq!(Value::Object(exact), portable);
        let text = portable.to_string();
        for keyword in ["\"if\"", "\"then\"", "\"propertyNames\"", "\"const\""] {
            assert!(!text.contains(keyword), "{keyword} in {text}");
        }
    }
}

/// `schema = "exact"` advertises the exact shape; a tool whose flat object is
/// already exact (one action, or a struct) has one schema.
#[test]
fn which_schema_each_tool_advertises() {
    assert_eq!(MixedExact::input_schema(), MixedExact::exact_input_schema());
    assert_ne!(Mixed::input_schema(), Mixed::exact_input_schema());
    let exact: Value = serde_json::from_str(MixedExact::input_schema()).unwrap();
    assert_eq!(
        exact["if"],
        json!({"properties": {"action": {"const": "find"}}})
    );
    assert_eq!(
        exact["then"]["propertyNames"],
        json!({"enum": ["action", "target", "limit", "tags"]})
    );
    for (advertised, exact) in [
        (Lookup::input_schema(), Lookup::exact_input_schema()),
        (
            http_api::HttpApi::input_schema(),
            http_api::HttpApi::exact_input_schema(),
        ),
        (
            github_api::GithubApi::input_schema(),
            github_api::GithubApi::exact_input_schema(),
        ),
    ] {
        assert_eq!(advertised, exact);
    }
}

/// The portable shape states each action's fields in the discriminator's
/// description, and each action's description of a shared field.
#[test]
fn the_portable_shape_describes_each_action() {
    let schema: Value = serde_json::from_str(Mixed::input_schema()).unwrap();
    assert_eq!(
        schema["properties"]["action"]["description"],
        "`find`: Look something up. Requires `target`, `tags`. Optional: `limit`.\n\
         `store`: Store values. Requires `target`, `values`, `flags`. Optional: `extra`.\n\
         `mark`: Requires `letter`, `weight`.\n\
         `ping`: No other fields."
    );
    assert_eq!(
        schema["properties"]["target"],
        json!({
            "description": "`find`: What to look for.\n`store`: The slot number.",
            "anyOf": [
                {"type": "string"},
                {"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64}
            ]
        })
    );
    assert_eq!(schema["required"], json!(["action"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(
        schema["properties"]["limit"],
        json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 65535}, {"type": "null"}]})
    );
}
