//! Tier a: what `tools/list` declares, read from the raw bytes. The four core
//! hints (absent and malformed told apart), each `inputSchema` (valid JSON
//! Schema, object root, portable), and the resolution capability against the
//! per-tool markers.

use annot_model::Hint;
use annot_runtime::protocol::TOOL_RESOLUTION_EXTENSION;
use serde_json::{Map, Value};

use crate::report::{Finding, Verdict};
use crate::wire::{Exchange, duplicate_keys};

/// Keywords that constrain an instance: a schema with none of them accepts
/// anything (MCP Inspector's `untyped-schema`).
const CONSTRAINING: [&str; 43] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// Where a bare `true`/`false` is a fine sub-schema.
const BOOLEAN_VALUED: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

/// Keywords whose value is a map of sub-schemas, an array of them, or one.
const MAP_KEYWORDS: [&str; 6] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
const ARRAY_KEYWORDS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SINGLE_KEYWORDS: [&str; 13] = [
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
    "additionalItems",
];

/// Root keywords model APIs refuse in a function's parameters (OpenAI's
/// function calling rejects a root that is not a plain object).
const ROOT_FORBIDDEN: [&str; 6] = ["oneOf", "anyOf", "allOf", "enum", "const", "not"];

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Tier a over one listing.
pub fn check(listing: &[Exchange], tools: &[Value], capabilities: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    let duplicates: Vec<(usize, String, String)> = listing
        .iter()
        .enumerate()
        .flat_map(|(page, exchange)| {
            duplicate_keys(exchange.response.as_deref().unwrap_or(""))
                .into_iter()
                .map(move |(pointer, key)| (page, pointer, key))
        })
        .collect();
    let mut page_offsets = Vec::new();
    let mut offset = 0;
    for exchange in listing {
        page_offsets.push(offset);
        offset += exchange
            .result()
            .and_then(|r| r["tools"].as_array().map(Vec::len))
            .unwrap_or(0);
    }
    for (index, tool) in tools.iter().enumerate() {
        let name = tool["name"].as_str().unwrap_or("<unnamed>").to_owned();
        let page = page_offsets
            .iter()
            .rposition(|start| *start <= index)
            .unwrap_or(0);
        let position = index - page_offsets.get(page).copied().unwrap_or(0);
        let evidence = listing.get(page).cloned().into_iter().collect::<Vec<_>>();
        let annotations_pointer = format!("/result/tools/{position}/annotations");
        let duplicated: Vec<String> = duplicates
            .iter()
            .filter(|(p, pointer, _)| *p == page && *pointer == annotations_pointer)
            .map(|(_, _, key)| key.clone())
            .collect();
        findings.extend(hints(&name, tool, &duplicated, &evidence));
        findings.push(schema_valid(&name, tool, &evidence));
        findings.push(schema_portable(&name, tool, &evidence));
    }
    findings.push(markers(tools, capabilities, listing));
    findings
}

fn hints(name: &str, tool: &Value, duplicated: &[String], evidence: &[Exchange]) -> [Finding; 2] {
    let annotations = tool.get("annotations");
    let object = annotations.and_then(Value::as_object);
    let mut absent = Vec::new();
    let mut malformed = Vec::new();
    if let Some(value) = annotations
        && !value.is_object()
    {
        malformed.push(format!("`annotations` is {value}, not an object"));
    }
    for hint in Hint::CORE {
        let key = hint.wire_name();
        match object.and_then(|object| object.get(key)) {
            None => absent.push(key.to_owned()),
            Some(Value::Bool(_)) => {}
            Some(other) => malformed.push(format!("`{key}` is {other}, not a boolean")),
        }
    }
    for key in duplicated {
        malformed.push(format!("`{key}` appears more than once"));
    }
    let present = if absent.is_empty() {
        Finding::new(
            "hints.present",
            name,
            Verdict::Pass,
            "all four core hints are stated",
        )
    } else {
        Finding::new(
            "hints.present",
            name,
            Verdict::Violation,
            format!("absent (no claim, not false): {}", absent.join(", ")),
        )
    };
    let well_formed = if malformed.is_empty() {
        Finding::new(
            "hints.well_formed",
            name,
            Verdict::Pass,
            "every stated hint is one JSON boolean",
        )
    } else {
        Finding::new(
            "hints.well_formed",
            name,
            Verdict::Violation,
            malformed.join("; "),
        )
    };
    [present, well_formed].map(|finding| finding.with_evidence(evidence.to_vec()).with_cases(1))
}

fn schema_valid(name: &str, tool: &Value, evidence: &[Exchange]) -> Finding {
    let verdict = match tool.get("inputSchema") {
        None => Err("no inputSchema".to_owned()),
        Some(schema) if !schema.is_object() => {
            Err(format!("inputSchema is {schema}, not an object"))
        }
        Some(schema) if schema.get("type") != Some(&Value::from("object")) => Err(format!(
            "the root's type is {}, not \"object\"",
            schema.get("type").unwrap_or(&Value::Null)
        )),
        Some(schema) => match jsonschema::meta::validate(schema) {
            Err(error) => Err(format!(
                "not valid JSON Schema: {error} at {}",
                error.instance_path()
            )),
            Ok(()) => jsonschema::validator_for(schema)
                .map(|_| ())
                .map_err(|error| format!("cannot be compiled: {error}")),
        },
    };
    match verdict {
        Ok(()) => Finding::new(
            "schema.valid",
            name,
            Verdict::Pass,
            "valid JSON Schema with an object root",
        ),
        Err(problem) => Finding::new("schema.valid", name, Verdict::Violation, problem),
    }
    .with_evidence(evidence.to_vec())
    .with_cases(1)
}

fn schema_portable(name: &str, tool: &Value, evidence: &[Exchange]) -> Finding {
    let Some(schema) = tool.get("inputSchema").filter(|schema| schema.is_object()) else {
        return Finding::new(
            "schema.portable",
            name,
            Verdict::NotApplicable("no schema object".into()),
            "",
        );
    };
    let problems = portability(schema);
    if problems.is_empty() {
        Finding::new(
            "schema.portable",
            name,
            Verdict::Pass,
            "no Inspector lint finding, plain object root",
        )
    } else {
        Finding::new(
            "schema.portable",
            name,
            Verdict::Violation,
            problems.join("; "),
        )
    }
    .with_evidence(evidence.to_vec())
    .with_cases(1)
}

/// MCP Inspector's four lint rules and the plain-object root model APIs
/// require: every finding, with its JSON pointer.
pub fn portability(schema: &Value) -> Vec<String> {
    let mut problems: Vec<String> = ROOT_FORBIDDEN
        .iter()
        .filter(|keyword| schema.get(**keyword).is_some())
        .map(|keyword| format!("root-keyword `{keyword}` (model APIs refuse it at the root)"))
        .collect();
    let has_id = declares_id(schema, 0);
    walk(schema, "", None, 0, &mut |node, pointer, keyword| {
        let at = if pointer.is_empty() { "/" } else { pointer };
        if node.is_boolean() {
            if !keyword.is_some_and(|k| BOOLEAN_VALUED.contains(&k)) {
                problems.push(format!("boolean-schema (error) at {at}"));
            }
            return;
        }
        let Some(object) = node.as_object() else {
            return;
        };
        if let Some(Value::Array(types)) = object.get("type") {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let distinct: std::collections::BTreeSet<_> = names.iter().collect();
            if !types.is_empty()
                && names.len() == types.len()
                && names.iter().all(|name| TYPE_NAMES.contains(name))
                && distinct.len() == names.len()
            {
                problems.push(format!("type-union (warning) at {at}"));
            }
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && !reference.is_empty()
            && !reference.starts_with('#')
            && !has_id
        {
            problems.push(format!("remote-ref (warning) at {at}"));
        }
        if !constrains(object) && keyword != Some("not") {
            problems.push(format!("untyped-schema (warning) at {at}"));
        }
    });
    problems
}

fn constrains(object: &Map<String, Value>) -> bool {
    object
        .keys()
        .any(|key| CONSTRAINING.contains(&key.as_str()))
        || (object.contains_key("if")
            && (object.contains_key("then") || object.contains_key("else")))
}

fn declares_id(node: &Value, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    match node {
        Value::Object(object) => {
            matches!(object.get("$id"), Some(Value::String(id)) if !id.is_empty())
                || object.values().any(|child| declares_id(child, depth + 1))
        }
        Value::Array(items) => items.iter().any(|child| declares_id(child, depth + 1)),
        _ => false,
    }
}

fn walk<'a>(
    node: &'a Value,
    pointer: &str,
    keyword: Option<&'a str>,
    depth: usize,
    visit: &mut dyn FnMut(&'a Value, &str, Option<&'a str>),
) {
    if !(node.is_object() || node.is_boolean()) || depth > 64 {
        return;
    }
    visit(node, pointer, keyword);
    let Some(object) = node.as_object() else {
        return;
    };
    let escape = |token: &str| token.replace('~', "~0").replace('/', "~1");
    for (key, value) in object {
        let key = key.as_str();
        if let Some(k) = MAP_KEYWORDS.iter().find(|k| **k == key) {
            for (name, sub) in value.as_object().into_iter().flatten() {
                walk(
                    sub,
                    &format!("{pointer}/{k}/{}", escape(name)),
                    Some(k),
                    depth + 1,
                    visit,
                );
            }
        } else if let Some(k) = ARRAY_KEYWORDS.iter().find(|k| **k == key) {
            for (index, sub) in value.as_array().into_iter().flatten().enumerate() {
                walk(
                    sub,
                    &format!("{pointer}/{k}/{index}"),
                    Some(k),
                    depth + 1,
                    visit,
                );
            }
        } else if let Some(k) = SINGLE_KEYWORDS.iter().find(|k| **k == key) {
            match value {
                Value::Array(items) if key == "items" => {
                    for (index, sub) in items.iter().enumerate() {
                        walk(
                            sub,
                            &format!("{pointer}/{k}/{index}"),
                            Some(k),
                            depth + 1,
                            visit,
                        );
                    }
                }
                sub => walk(sub, &format!("{pointer}/{k}"), Some(k), depth + 1, visit),
            }
        }
    }
}

/// Which dialects the server's capabilities announce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Announced {
    pub dynamic_annotations: bool,
    pub resolve: bool,
    pub extension: bool,
}

impl Announced {
    pub fn of(capabilities: &Value) -> Announced {
        Announced {
            dynamic_annotations: capabilities["tools"]["dynamicAnnotations"] == Value::Bool(true),
            resolve: capabilities["tools"]["resolve"] == Value::Bool(true),
            extension: capabilities["extensions"]
                .get(TOOL_RESOLUTION_EXTENSION)
                .is_some(),
        }
    }
}

/// The per-tool markers of each dialect.
pub fn marked(tool: &Value) -> Announced {
    Announced {
        dynamic_annotations: tool["dynamicAnnotations"] == Value::Bool(true),
        resolve: tool["resolve"] == Value::Bool(true),
        extension: tool["_meta"][TOOL_RESOLUTION_EXTENSION]["resolvable"] == Value::Bool(true),
    }
}

/// Whether a dialect is on in a set of announcements.
type DialectOf = fn(&Announced) -> bool;

fn markers(tools: &[Value], capabilities: &Value, listing: &[Exchange]) -> Finding {
    let announced = Announced::of(capabilities);
    let mut problems = Vec::new();
    let dialects: [(&str, DialectOf); 3] = [
        (
            "tools/annotations (capabilities.tools.dynamicAnnotations)",
            |a| a.dynamic_annotations,
        ),
        ("tools/resolve (capabilities.tools.resolve)", |a| a.resolve),
        ("the tool-resolution extension", |a| a.extension),
    ];
    for (dialect, of) in dialects {
        let marked_tools: Vec<&str> = tools
            .iter()
            .filter(|tool| of(&marked(tool)))
            .map(|tool| tool["name"].as_str().unwrap_or("<unnamed>"))
            .collect();
        if !of(&announced) && !marked_tools.is_empty() {
            problems.push(format!(
                "{} marked for {dialect}, which the server does not announce",
                marked_tools.join(", ")
            ));
        }
    }
    let finding = if problems.is_empty() {
        Finding::new(
            "resolution.markers_consistent",
            "server",
            Verdict::Pass,
            "capabilities and tool markers agree",
        )
    } else {
        Finding::new(
            "resolution.markers_consistent",
            "server",
            Verdict::Violation,
            problems.join("; "),
        )
    };
    finding
        .with_evidence(listing.to_vec())
        .with_cases(tools.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn portability_names_each_rule() {
        let schema = json!({"type": "object", "properties": {
            "a": true, "b": {"description": "anything"}, "c": {"type": ["string", "null"]},
            "d": {"$ref": "https://example.com/x"}}});
        assert_eq!(
            portability(&schema),
            [
                "boolean-schema (error) at /properties/a",
                "untyped-schema (warning) at /properties/b",
                "type-union (warning) at /properties/c",
                "remote-ref (warning) at /properties/d",
            ]
        );
        let plain = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "additionalProperties": false});
        assert!(portability(&plain).is_empty());
        assert_eq!(
            portability(&json!({"type": "object", "anyOf": []})).len(),
            1
        );
    }
}
