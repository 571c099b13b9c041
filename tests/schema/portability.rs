//! Every tool schema `#[mcp_tool]` emits, for the example tools and the tools
//! below, run through MCP Inspector's portability lint and through each model
//! API's documented subset (`tests/support/schema/`).

use crate::schema_support;
#[path = "../../examples/tools/github_api.rs"]
mod github_api;
#[path = "../../examples/tools/http_api.rs"]
mod http_api;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
#[path = "../../examples/tools/sql.rs"]
mod sql;

use annot::AnnotatedTool;
use schema_support::inspector::{Severity, lint};
use schema_support::tools::{Lookup, Mixed, MixedExact};
use schema_support::{failed_subsets, pointers, providers};
use serde_json::{Value, json};

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("the schema is JSON")
}

/// The advertised and the exact schema of a tool.
fn schemas<T: AnnotatedTool>() -> [(String, Value); 2] {
    [
        (
            format!("{} (advertised)", T::NAME),
            parse(T::input_schema()),
        ),
        (
            format!("{} (exact)", T::NAME),
            parse(T::exact_input_schema()),
        ),
    ]
}

fn every_schema() -> Vec<(String, Value)> {
    let mut all = Vec::new();
    all.extend(schemas::<manage_files::ManageFiles>());
    all.extend(schemas::<http_api::HttpApi>());
    all.extend(schemas::<github_api::GithubApi>());
    all.extend(schemas::<sql::Sql>());
    all.extend(schemas::<Mixed>());
    all.extend(schemas::<MixedExact>());
    all.extend(schemas::<Lookup>());
    all
}

#[test]
fn inspector_lint_finds_nothing_in_any_shape() {
    for (name, schema) in every_schema() {
        let findings = lint(&schema);
        assert!(findings.is_empty(), "{name}: {findings:?}");
    }
}

/// Which subsets each schema leaves: literal, derived by hand from the shapes
/// (the portability table of docs/declaring.md says the same).
#[test]
fn each_schema_fits_the_subsets_the_readme_says() {
    // The exact shape's `if`/`then`/`else`, `const` and `propertyNames` are
    // outside every subset but the two that take any keyword below the root.
    const CHAIN: &[&str] = &[
        "openai-strict",
        "anthropic-strict",
        "gemini",
        "gemini-json",
        "openapi-3.0",
    ];
    let expected: &[(&str, &[&str])] = &[
        // Strings only: fields some actions lack are not required (OpenAI
        // strict needs every property required); `additionalProperties` is no
        // field of Gemini's `parameters`.
        ("manage_files (advertised)", &["openai-strict", "gemini"]),
        ("manage_files (exact)", CHAIN),
        // Optional fields (`"null"` branches: no OpenAPI 3.0 or Gemini
        // `parameters` type; not required: OpenAI strict), integer bounds and
        // a map (Anthropic strict).
        (
            "http_request (advertised)",
            &["openai-strict", "anthropic-strict", "gemini", "openapi-3.0"],
        ),
        (
            "http_request (exact)",
            &["openai-strict", "anthropic-strict", "gemini", "openapi-3.0"],
        ),
        // `serde_json::Value`: an open object branch (Anthropic strict).
        (
            "github_api (advertised)",
            &["openai-strict", "anthropic-strict", "gemini", "openapi-3.0"],
        ),
        (
            "github_api (exact)",
            &["openai-strict", "anthropic-strict", "gemini", "openapi-3.0"],
        ),
        // Both actions take the same required field: even OpenAI strict fits.
        ("sql (advertised)", &["gemini"]),
        ("sql (exact)", CHAIN),
        // `char` bounds its length (no Gemini JSON Schema keyword).
        ("mixed (advertised)", CHAIN),
        ("mixed (exact)", CHAIN),
        ("mixed_exact (advertised)", CHAIN),
        ("mixed_exact (exact)", CHAIN),
        (
            "lookup (advertised)",
            &["openai-strict", "gemini", "openapi-3.0"],
        ),
        (
            "lookup (exact)",
            &["openai-strict", "gemini", "openapi-3.0"],
        ),
    ];
    let all = every_schema();
    assert_eq!(all.len(), expected.len());
    for (name, subsets) in expected {
        let (_, schema) = all
            .iter()
            .find(|(known, _)| known == name)
            .unwrap_or_else(|| panic!("no schema {name}"));
        assert_eq!(&failed_subsets(schema), subsets, "{name}: {schema}");
    }
}

/// The schema `examples/manage_files` served before, with `true` for the
/// fields each `if`/`then` branch shares: Inspector 2.12 reported 8
/// `boolean-schema` errors on it, one per `true`.
#[test]
fn the_lint_finds_the_eight_errors_inspector_reported() {
    let old = json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["read", "append", "replace", "delete"]},
            "path": {"type": "string"},
            "content": {"type": "string"}
        },
        "required": ["action", "path"],
        "additionalProperties": false,
        "if": {"properties": {"action": {"const": "read"}}},
        "then": {"properties": {"action": true, "path": true}, "required": ["path"],
                 "additionalProperties": false},
        "else": {
            "if": {"properties": {"action": {"const": "append"}}},
            "then": {"properties": {"action": true, "path": true, "content": {"type": "string"}},
                     "required": ["path", "content"], "additionalProperties": false},
            "else": {
                "if": {"properties": {"action": {"const": "replace"}}},
                "then": {"properties": {"action": true, "path": true,
                                        "content": {"type": "string"}},
                         "required": ["path", "content"], "additionalProperties": false},
                "else": {"properties": {"action": true, "path": true}, "required": ["path"],
                         "additionalProperties": false}
            }
        }
    });
    let findings = lint(&old);
    assert!(
        findings
            .iter()
            .all(|f| f.rule == "boolean-schema" && f.severity == Severity::Error)
    );
    let mut found: Vec<&str> = findings.iter().map(|f| f.pointer.as_str()).collect();
    found.sort_unstable();
    assert_eq!(
        found,
        [
            "/else/else/else/properties/action",
            "/else/else/else/properties/path",
            "/else/else/then/properties/action",
            "/else/else/then/properties/path",
            "/else/then/properties/action",
            "/else/then/properties/path",
            "/then/properties/action",
            "/then/properties/path",
        ]
    );
}

#[test]
fn the_lint_has_four_rules() {
    let schema = json!({
        "type": "object",
        "properties": {
            "union": {"type": ["string", "null"]},
            "untyped": {"description": "anything"},
            "remote": {"$ref": "https://example.com/s.json"},
            "local": {"$ref": "#/$defs/x"},
            "negated": {"not": {}},
            "open": {"type": "object", "additionalProperties": true},
            "lone_if": {"if": {"type": "string"}},
            "paired_if": {"if": {"type": "string"}, "then": {"minLength": 1}},
            "a~b/c": false
        }
    });
    let lint = lint(&schema);
    let mut findings: Vec<(&str, &str, Severity)> = lint
        .iter()
        .map(|f| (f.rule, f.pointer.as_str(), f.severity))
        .collect();
    findings.sort_unstable_by_key(|(_, pointer, _)| *pointer);
    assert_eq!(
        findings,
        [
            ("boolean-schema", "/properties/a~0b~1c", Severity::Error),
            ("untyped-schema", "/properties/lone_if", Severity::Warning),
            ("remote-ref", "/properties/remote", Severity::Warning),
            ("type-union", "/properties/union", Severity::Warning),
            ("untyped-schema", "/properties/untyped", Severity::Warning),
        ]
    );
    // An `$id` anywhere makes a relative `$ref` resolvable: no finding.
    let with_id = json!({"$id": "https://example.com/root", "type": "object",
                         "properties": {"a": {"$ref": "other.json"}}});
    assert!(schema_support::inspector::lint(&with_id).is_empty());
}

#[test]
fn provider_checkers_name_each_violation() {
    let root_union = json!({"anyOf": [{"type": "object"}]});
    for check in [providers::openai, providers::anthropic] {
        let found = check(&root_union);
        assert_eq!(pointers(&found), ["", ""], "{found:?}");
    }
    let schema = json!({
        "type": "object",
        "properties": {"a": {"const": 1}, "b": {"type": "null"}, "c": true},
        "additionalProperties": false
    });
    assert!(providers::openai(&schema).is_empty());
    assert!(providers::anthropic(&schema).is_empty());
    let cases: [(schema_support::Checker, &[&str]); 5] = [
        (providers::openai_strict, &["", "", "", "/properties/c"]),
        (providers::anthropic_strict, &["/properties/c"]),
        (
            providers::gemini,
            &["", "/properties/a", "/properties/b", "/properties/c"],
        ),
        (providers::gemini_json, &["/properties/a", "/properties/c"]),
        (
            providers::openapi_30,
            &["/properties/a", "/properties/b", "/properties/c"],
        ),
    ];
    for (check, expected) in cases {
        let found = check(&schema);
        let mut found_pointers = pointers(&found);
        found_pointers.sort_unstable();
        assert_eq!(found_pointers, expected, "{found:?}");
    }
    // Strict modes: every object closed, Anthropic's bounds.
    let open = json!({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0},
        "m": {"type": "object", "additionalProperties": {"type": "string"}},
        "l": {"type": "array", "items": {"type": "string"}, "minItems": 2}
    }, "required": ["n", "m", "l"], "additionalProperties": false});
    let mut found = pointers(&providers::anthropic_strict(&open))
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    found.sort_unstable();
    assert_eq!(
        found,
        [
            "/properties/l",
            "/properties/m",
            "/properties/m",
            "/properties/n"
        ]
    );
    assert_eq!(
        pointers(&providers::openai_strict(&open)),
        ["/properties/m", "/properties/m"]
    );
}
