//! The display-templates call preview held to the extension's normative rules
//! (`specification/draft/display-templates.mdx` of the interest group's
//! repository), each expectation written out by hand.

use annot::client::display::preview;
use serde_json::{Map, Value, json};

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().expect("arguments are an object").clone()
}

fn flat(template: &str) -> Value {
    json!({
        "name": "mix_set",
        "inputSchema": {"type": "object", "properties": {"bus": {}, "gain_db": {}, "ramp_ms": {}}},
        "_meta": {"io.modelcontextprotocol/display-templates": {"template": template}},
    })
}

#[test]
fn a_flat_template_substitutes_top_level_scalars() {
    let tool = flat("set {bus} bus to {gain_db} dB over {ramp_ms} ms");
    let call = arguments(json!({"bus": "main", "gain_db": -3.5, "ramp_ms": 200}));
    assert_eq!(
        preview(&tool, &call).as_deref(),
        Some("set main bus to -3.5 dB over 200 ms")
    );
    let call = arguments(json!({"bus": true, "gain_db": 0, "ramp_ms": 1e3}));
    assert_eq!(
        preview(&tool, &call).as_deref(),
        Some("set true bus to 0 dB over 1000.0 ms")
    );
}

#[test]
fn a_missing_or_non_scalar_value_renders_as_three_dots() {
    let tool = flat("{bus}|{gain_db}|{ramp_ms}|{nowhere}");
    let call = arguments(json!({"bus": ["a"], "gain_db": {"db": 1}, "ramp_ms": null}));
    assert_eq!(preview(&tool, &call).as_deref(), Some("...|...|...|..."));
}

#[test]
fn doubled_braces_are_literal_and_an_unmatched_brace_is_no_template() {
    let call = arguments(json!({"bus": "main"}));
    assert_eq!(
        preview(&flat("{{bus}} is {bus}}}"), &call).as_deref(),
        Some("{bus} is main}")
    );
    for malformed in ["set {bus", "set bus}", "set {b{us}", "}{"] {
        assert_eq!(preview(&flat(malformed), &call), None, "{malformed}");
    }
}

#[test]
fn values_and_template_text_are_escaped_as_untrusted_text() {
    let tool = flat("delete {bus}\u{7}");
    let call = arguments(json!({"bus": "a.txt\n\u{1b}[1Aapproved \u{202e}txt.exe"}));
    assert_eq!(
        preview(&tool, &call).as_deref(),
        Some("delete a.txt\\u{a}\\u{1b}[1Aapproved \\u{202e}txt.exe\\u{7}")
    );
}

fn branched() -> Value {
    json!({
        "name": "files",
        "inputSchema": {
            "type": "object",
            "$defs": {"path": {"type": "string", "minLength": 1}},
            "oneOf": [
                {
                    "title": "move",
                    "io.modelcontextprotocol/display-template": "move {target} to {destination}",
                    "properties": {"target": {"$ref": "#/$defs/path"}, "destination": {"$ref": "#/$defs/path"}},
                    "required": ["target", "destination"],
                },
                {
                    "title": "delete",
                    "io.modelcontextprotocol/display-template": "delete {target}",
                    "properties": {"target": {"$ref": "#/$defs/path"}},
                    "required": ["target"],
                },
            ],
        },
        "_meta": {"io.modelcontextprotocol/display-templates": {"template": "files: {target}"}},
    })
}

#[test]
fn the_first_branch_the_arguments_validate_against_gives_the_template() {
    let tool = branched();
    let both = arguments(json!({"target": "a.txt", "destination": "b.txt"}));
    assert_eq!(
        preview(&tool, &both).as_deref(),
        Some("move a.txt to b.txt")
    );
    let one = arguments(json!({"target": "a.txt"}));
    assert_eq!(preview(&tool, &one).as_deref(), Some("delete a.txt"));
}

#[test]
fn with_no_branch_matching_the_tool_level_template_applies() {
    let tool = branched();
    // The `$ref` reaches the enclosing `$defs`: an empty path matches no branch.
    let empty = arguments(json!({"target": ""}));
    assert_eq!(preview(&tool, &empty).as_deref(), Some("files: "));
    let mut bare = tool.clone();
    bare.as_object_mut().unwrap().remove("_meta");
    assert_eq!(preview(&bare, &empty), None);
}

#[test]
fn a_tool_without_a_template_has_no_preview() {
    let tool = json!({"name": "plain", "inputSchema": {"type": "object"}});
    assert_eq!(preview(&tool, &Map::new()), None);
    let wrong_type = json!({"name": "odd", "_meta": {"io.modelcontextprotocol/display-templates": {"template": 7}}});
    assert_eq!(preview(&wrong_type, &Map::new()), None);
}
