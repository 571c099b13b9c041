//! Arguments text to annotations: what the parser hands the tool is what the
//! client sent, and the borrowing path (`resolve_arguments_str`) accepts
//! exactly what `from_arguments_str` accepts and resolves identically.

#[path = "../examples/tools/github_api.rs"]
mod github_api;

use annot::AnnotatedTool;
use github_api::GithubApi;
use serde_json::json;

/// A `serde_json::Value` field is the client's JSON, floats and all: `1.0`
/// stays a float (only fields whose type holds integers read an integral
/// float as an integer, as JSON Schema's `"integer"` does).
#[test]
fn a_value_field_keeps_integral_floats() {
    let text = r#"{"method": "POST", "path": "/x", "body": {"x": 1.0, "y": [2.0, 3], "z": -0.0}}"#;
    let parsed = GithubApi::from_arguments_str(text).expect("valid arguments");
    let body = parsed.body.expect("a body");
    assert_eq!(
        serde_json::to_string(&body).unwrap(),
        r#"{"x":1.0,"y":[2.0,3],"z":-0.0}"#
    );
    assert!(body["x"].is_f64() && body["y"][1].is_u64());
    let from_value = GithubApi::from_arguments(&json!({"method": "GET", "path": "/", "body": 4.0}))
        .expect("valid arguments");
    assert!(from_value.body.expect("a body").is_f64());
}
