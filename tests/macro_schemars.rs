//! Nested user types in tool fields, with their schema from `schemars`
//! (feature `schemars`): `cargo test --features schemars --test macro_schemars`.
#![cfg(feature = "schemars")]

#[path = "support/macro/mod.rs"]
mod macro_support;
#[path = "support/schema/mod.rs"]
mod schema_support;
use annot::{AnnotatedTool, mcp_tool};
use macro_support::{assert_schema_and_parser_agree, schema_of};
use serde_json::json;

/// A point on the canvas.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Colour {
    Red,
    Blue,
}

/// Draw on a canvas.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[derive(Debug, PartialEq)]
enum Canvas {
    #[annotate(destructive = false)]
    Draw {
        /// Where to draw.
        at: Point,
        path: Vec<Point>,
        colour: Option<Colour>,
    },
    #[annotate(destructive, idempotent)]
    Clear,
}

#[test]
fn nested_types_get_their_schemars_schema() {
    let schema = schema_of::<Canvas>();
    let at = &schema["properties"]["at"];
    assert_eq!(at["description"], "Where to draw.");
    assert_eq!(at["allOf"][0]["$ref"], "#/$defs/Point");
    assert_eq!(schema["$defs"]["Point"]["type"], "object");
    assert_eq!(schema["$defs"]["Colour"]["enum"], json!(["red", "blue"]));
    // Built once: the same text every time.
    assert!(std::ptr::eq(Canvas::input_schema(), Canvas::input_schema()));
}

/// Agreement inside a nested type rests on its own `Deserialize` and
/// `JsonSchema`: serde's derive also accepts a struct written as an array
/// (`[1, 2]`), which schemars' schema does not; such cases are left out here.
#[test]
fn nested_types_parse_as_their_schema_says() {
    assert_schema_and_parser_agree::<Canvas>(
        &[
            json!({"action": "draw", "at": {"x": 1, "y": -2}, "path": []}),
            json!({"action": "draw", "at": {"x": 1, "y": 2}, "path": [{"x": 0, "y": 0}],
                   "colour": "red"}),
            json!({"action": "draw", "at": {"x": 1.0, "y": 2}, "path": [], "colour": null}),
            json!({"action": "clear"}),
        ],
        &[
            json!({"action": "draw", "at": {"x": 1}, "path": []}),
            json!({"action": "draw", "at": {"x": 1, "y": 2, "z": 3}, "path": []}),
            json!({"action": "draw", "at": {"x": 1, "y": 2}, "path": [{"x": "0", "y": 0}]}),
            json!({"action": "draw", "at": {"x": 1, "y": 2}, "path": [], "colour": "green"}),
            json!({"action": "clear", "at": {"x": 1, "y": 2}}),
        ],
    );
    assert_eq!(
        Canvas::from_arguments(&json!({"action": "draw", "at": {"x": 3, "y": 4}, "path": []})),
        Ok(Canvas::Draw {
            at: Point { x: 3, y: 4 },
            path: vec![],
            colour: None
        })
    );
    let error =
        Canvas::from_arguments(&json!({"action": "draw", "at": {"x": 3, "y": "4"}, "path": []}))
            .unwrap_err();
    assert_eq!(error.path(), Some("at.y"));
}

/// A nested type schemars spells with a type array (`Option<String>`) and a
/// bare `true` (`serde_json::Value`).
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Label {
    text: Option<String>,
    data: serde_json::Value,
}

/// Label things.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[derive(Debug, PartialEq)]
enum Labels {
    #[annotate(destructive = false)]
    Add { label: Label },
    #[annotate(read_only)]
    List,
}

/// The nested schemas are rewritten in the portable spelling: Inspector's lint
/// finds nothing, and the values accepted are the same.
#[test]
fn nested_schemas_are_portable() {
    for text in [Labels::input_schema(), Labels::exact_input_schema()] {
        let schema: serde_json::Value = serde_json::from_str(text).unwrap();
        let findings = schema_support::inspector::lint(&schema);
        assert!(findings.is_empty(), "{findings:?} in {schema}");
        assert_eq!(
            schema["$defs"]["Label"]["properties"]["text"]["anyOf"],
            json!([{"type": "string"}, {"type": "null"}])
        );
    }
    assert_schema_and_parser_agree::<Labels>(
        &[
            json!({"action": "add", "label": {"text": null, "data": [1, {"a": null}]}}),
            json!({"action": "add", "label": {"text": "x", "data": null}}),
            json!({"action": "list"}),
        ],
        &[
            json!({"action": "add", "label": {"text": 1, "data": 1}}),
            json!({"action": "list", "label": {"data": 1}}),
        ],
    );
}

/// A job of the queue: an integer, a float and free JSON side by side.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Job {
    retries: u32,
    scale: f64,
    payload: serde_json::Value,
}

/// A limit by count or by name.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum Limit {
    Count(u64),
    Name(String),
}

/// Queue jobs.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[derive(Debug, PartialEq)]
enum Queue {
    #[annotate(destructive = false)]
    Push { job: Job, limit: Option<Limit> },
}

/// Integral floats are integers where the nested type asks for one, and the
/// client's own JSON everywhere else: `1.0` in a `Value` inside a user type
/// reaches the tool as `1.0`.
#[test]
fn nested_types_read_integral_floats_as_integers_only_where_an_integer_is_asked() {
    let text = r#"{"action": "push", "job": {"retries": 3.0, "scale": 2.0,
        "payload": {"x": 1.0, "y": [2.0, 3], "z": {"deep": -0.0}}}, "limit": 5.0}"#;
    for parsed in [
        Queue::from_arguments_str(text),
        Queue::from_arguments(&serde_json::from_str(text).unwrap()),
    ] {
        let Queue::Push { job, limit } = parsed.expect("valid arguments");
        assert_eq!(job.retries, 3);
        assert_eq!(job.scale, 2.0);
        assert_eq!(
            serde_json::to_string(&job.payload).unwrap(),
            r#"{"x":1.0,"y":[2.0,3],"z":{"deep":-0.0}}"#
        );
        // An untagged enum reads its numbers as any value: the integer is
        // found in the rewritten value, as before.
        assert_eq!(limit, Some(Limit::Count(5)));
    }
    assert_schema_and_parser_agree::<Queue>(
        &[
            json!({"action": "push", "job": {"retries": 1, "scale": 1, "payload": null}}),
            json!({"action": "push", "job": {"retries": 1.0, "scale": 0.5, "payload": [1.0]},
                   "limit": "all"}),
        ],
        &[
            json!({"action": "push", "job": {"retries": 1.5, "scale": 1, "payload": null}}),
            json!({"action": "push", "job": {"retries": -1, "scale": 1, "payload": null}}),
            json!({"action": "push", "job": {"retries": 1, "scale": "1", "payload": null}}),
            json!({"action": "push", "job": {"retries": 1, "scale": 1}}),
        ],
    );
}
