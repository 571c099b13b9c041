//! Shape (b): an annotated struct whose `method` field is an `#[mcp_actions]` enum.

#[path = "../../examples/tools/http_api.rs"]
mod http_api;
use crate::macro_support;
use annot::{AnnotatedActions, AnnotatedTool, ArgumentError};
use http_api::{HttpApi, HttpMethod};
use macro_support::{
    assert_same_verdicts, assert_schema_and_parser_agree, assert_within_static_bound, combinations,
    schema_of,
};
use serde_json::json;

#[test]
fn the_actions_enum_knows_its_names() {
    assert_eq!(
        HttpMethod::NAMES,
        ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
    );
    assert_eq!(HttpMethod::from_name("PUT"), Some(HttpMethod::Put));
    assert_eq!(HttpMethod::from_name("put"), None);
    assert_eq!(HttpMethod::Delete.action().name, "DELETE");
    let names: serde_json::Value = serde_json::from_str(HttpMethod::NAMES_JSON).unwrap();
    assert_eq!(names, json!(HttpMethod::NAMES));
    // Declared annotations: the specification's defaults are not applied yet.
    assert_eq!(HttpMethod::Get.action().annotations.open_world, None);
    assert_eq!(
        HttpMethod::Delete.action().annotations.reversible,
        Some(false)
    );
}

#[test]
fn resolve_joins_the_method_with_tool_defaults() {
    let get = HttpApi::from_arguments(&json!({"method": "GET", "path": "/users"}))
        .unwrap()
        .resolve();
    assert_eq!(
        (
            get.read_only,
            get.destructive,
            get.idempotent,
            get.open_world
        ),
        (Some(true), Some(false), Some(true), Some(true))
    );
    let post = HttpApi::from_arguments(&json!({"method": "POST", "path": "/users"}))
        .unwrap()
        .resolve();
    assert_eq!(
        (post.read_only, post.destructive, post.idempotent),
        (Some(false), Some(false), Some(false))
    );
    let delete = HttpApi::from_arguments(&json!({"method": "DELETE", "path": "/u/1"}))
        .unwrap()
        .resolve();
    assert_eq!(
        (delete.destructive, delete.idempotent, delete.reversible),
        (Some(true), Some(true), Some(false))
    );
}

#[test]
fn static_annotations_cover_every_method() {
    let declared = HttpApi::STATIC_ANNOTATIONS;
    assert_eq!(
        (
            declared.read_only,
            declared.destructive,
            declared.idempotent,
            declared.open_world
        ),
        (Some(false), Some(true), Some(false), Some(true))
    );
    assert_eq!(declared.reversible, Some(false));
    let every_method: Vec<_> = HttpMethod::NAMES
        .iter()
        .map(|method| json!({"method": method, "path": "/"}))
        .collect();
    assert_within_static_bound::<HttpApi>(&every_method);
    assert_eq!(HttpApi::NAME, "http_request");
    assert_eq!(HttpApi::DISCRIMINATOR, Some("method"));
}

#[test]
fn schema_lists_the_methods_and_fields() {
    let schema = schema_of::<HttpApi>();
    let method = &schema["properties"]["method"];
    assert_eq!(method["type"], "string");
    assert_eq!(method["enum"], json!(HttpMethod::NAMES));
    let description = method["description"].as_str().unwrap();
    assert!(
        description.starts_with("The HTTP method of the request."),
        "{description}"
    );
    assert!(
        description.contains("`DELETE`: Remove a resource."),
        "{description}"
    );
    assert_eq!(schema["required"], json!(["method", "path"]));
    assert_eq!(
        schema["properties"]["timeout_seconds"],
        json!({"description": "Seconds to wait for an answer.", "type": "integer", "minimum": 0, "maximum": 65535})
    );
    assert_eq!(
        schema["properties"]["headers"]["anyOf"],
        json!([{"type": "object", "additionalProperties": {"type": "string"}}, {"type": "null"}])
    );
}

#[test]
fn schema_and_parser_agree_both_ways() {
    assert_schema_and_parser_agree::<HttpApi>(
        &[
            json!({"method": "GET", "path": "/"}),
            json!({"method": "PATCH", "path": "/a", "body": "{}", "headers": {"x": "y"}}),
            json!({"method": "PUT", "path": "/a", "body": null, "headers": null}),
            json!({"method": "HEAD", "path": "/", "timeout_seconds": 65535}),
            json!({"method": "HEAD", "path": "/", "timeout_seconds": 5.0}),
        ],
        &[
            json!({"path": "/"}),
            json!({"method": "get", "path": "/"}),
            json!({"method": "TRACE", "path": "/"}),
            json!({"method": ["GET"], "path": "/"}),
            json!({"method": "GET"}),
            json!({"method": "GET", "path": "/", "query": "x"}),
            json!({"method": "GET", "path": "/", "headers": {"x": 1}}),
            json!({"method": "GET", "path": "/", "headers": ["x"]}),
            json!({"method": "GET", "path": "/", "timeout_seconds": 65536}),
            json!({"method": "GET", "path": "/", "timeout_seconds": -1}),
            json!({"method": "GET", "path": "/", "timeout_seconds": 1.5}),
            json!({"method": "GET", "path": "/", "timeout_seconds": null}),
        ],
    );
}

#[test]
fn fields_are_read_with_defaults() {
    let parsed = HttpApi::from_arguments(&json!({"method": "GET", "path": "/"})).unwrap();
    assert_eq!(
        parsed,
        HttpApi {
            method: HttpMethod::Get,
            path: "/".into(),
            headers: None,
            body: None,
            timeout_seconds: 30,
        }
    );
    let error = HttpApi::from_arguments(&json!({"method": "TRACE", "path": "/"})).unwrap_err();
    assert_eq!(
        error,
        ArgumentError::UnknownAction {
            field: "method".into(),
            found: "TRACE".into(),
            expected: HttpMethod::NAMES,
        }
    );
}

#[test]
fn schema_and_parser_agree_on_every_combination() {
    let cases = combinations(&[
        (
            "method",
            vec![json!("GET"), json!("DELETE"), json!("get"), json!(null)],
        ),
        ("path", vec![json!("/"), json!(false)]),
        (
            "headers",
            vec![json!({"a": "b"}), json!({"a": 1}), json!(null)],
        ),
        ("body", vec![json!("x"), json!(null), json!(1.5)]),
        (
            "timeout_seconds",
            vec![json!(0), json!(2.0), json!(2.5), json!(70000), json!("1")],
        ),
    ]);
    assert_eq!(cases.len(), 5 * 3 * 4 * 4 * 6);
    // 2 methods x 1 path x 3 header forms x 3 body forms x 3 timeouts.
    assert_eq!(assert_same_verdicts::<HttpApi>(&cases), 2 * 3 * 3 * 3);
}
