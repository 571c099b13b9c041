//! The JSON Schema subsets model APIs document for a function's parameters.
//! Each allow-list is the provider's documented list (sources in
//! docs/declaring.md, "Schema portability"); a keyword outside it is refused or silently dropped,
//! and either way the constraint it states is lost.

use serde_json::Value;

use super::{Place, Violation, violation, walk};

/// What one subset allows.
struct Rules {
    /// Keywords a sub-schema may use; `None`: any JSON Schema 2020-12 keyword.
    allowed: Option<&'static [&'static str]>,
    /// Keywords the root may not have besides `type: "object"`.
    root_forbidden: &'static [&'static str],
    /// Bare `true`/`false` sub-schemas (other than the value of
    /// `additionalProperties`) are valid.
    boolean_schemas: bool,
    /// `additionalProperties` may only be `false`.
    additional_false_only: bool,
    /// `type` is one name (no type arrays).
    single_type: bool,
    /// `"null"` is a type name (else nullability is `nullable: true`).
    null_type: bool,
    /// Every object sub-schema sets `additionalProperties: false`.
    closed_objects: bool,
    /// Every property of an object is in its `required`.
    all_required: bool,
    /// `minItems` only 0 or 1.
    min_items_0_or_1: bool,
    /// `exclusiveMinimum`/`exclusiveMaximum` are booleans (OpenAPI 3.0).
    boolean_exclusive_bounds: bool,
}

const FULL: Rules = Rules {
    allowed: None,
    root_forbidden: &[],
    boolean_schemas: true,
    additional_false_only: false,
    single_type: false,
    null_type: true,
    closed_objects: false,
    all_required: false,
    min_items_0_or_1: false,
    boolean_exclusive_bounds: false,
};

/// OpenAI function calling, `strict: false`: any JSON Schema whose root is
/// `type: "object"` without `oneOf`/`anyOf`/`allOf`/`enum`/`const`/`not`.
pub fn openai(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            root_forbidden: &["oneOf", "anyOf", "allOf", "enum", "const", "not"],
            ..FULL
        },
    )
}

/// OpenAI Structured Outputs (`strict: true`): the documented keywords, every
/// object closed and every property required (optional ones are nullable).
pub fn openai_strict(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            allowed: Some(&[
                "type",
                "description",
                "title",
                "properties",
                "required",
                "additionalProperties",
                "items",
                "enum",
                "const",
                "anyOf",
                "$ref",
                "$defs",
                "definitions",
                "pattern",
                "format",
                "multipleOf",
                "maximum",
                "exclusiveMaximum",
                "minimum",
                "exclusiveMinimum",
                "minItems",
                "maxItems",
            ]),
            root_forbidden: &["oneOf", "anyOf", "allOf", "enum", "const", "not"],
            boolean_schemas: false,
            additional_false_only: true,
            closed_objects: true,
            all_required: true,
            ..FULL
        },
    )
}

/// Anthropic tool use: any JSON Schema whose root is `type: "object"`
/// without `oneOf`/`allOf`/`anyOf` (the API answers "input_schema does not
/// support oneOf, allOf, or anyOf at the top level").
pub fn anthropic(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            root_forbidden: &["oneOf", "anyOf", "allOf"],
            ..FULL
        },
    )
}

/// Anthropic strict tool use (structured outputs): the documented keywords,
/// every object closed, no numeric or length bounds, `minItems` 0 or 1.
pub fn anthropic_strict(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            allowed: Some(&[
                "type",
                "description",
                "title",
                "enum",
                "const",
                "default",
                "properties",
                "required",
                "additionalProperties",
                "items",
                "minItems",
                "anyOf",
                "allOf",
                "$ref",
                "$defs",
                "definitions",
                "format",
                "pattern",
            ]),
            root_forbidden: &["oneOf", "anyOf", "allOf"],
            boolean_schemas: false,
            additional_false_only: true,
            closed_objects: true,
            min_items_0_or_1: true,
            ..FULL
        },
    )
}

/// Gemini `FunctionDeclaration.parameters`: the fields of its `Schema`, a
/// subset of the OpenAPI 3.0 schema object (no `additionalProperties`, no
/// `const`, no `$ref`, one type name, `nullable` instead of `"null"`).
pub fn gemini(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            allowed: Some(&[
                "type",
                "format",
                "title",
                "description",
                "nullable",
                "enum",
                "maxItems",
                "minItems",
                "properties",
                "required",
                "minProperties",
                "maxProperties",
                "minLength",
                "maxLength",
                "pattern",
                "example",
                "anyOf",
                "propertyOrdering",
                "default",
                "items",
                "minimum",
                "maximum",
            ]),
            boolean_schemas: false,
            single_type: true,
            null_type: false,
            ..FULL
        },
    )
}

/// Gemini `FunctionDeclaration.parametersJsonSchema`: the JSON Schema
/// keywords Gemini documents (no `const`, `allOf`, `not`, `if`/`then`/`else`,
/// length bounds); the root describes an object.
pub fn gemini_json(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            allowed: Some(&[
                "$id",
                "$defs",
                "$ref",
                "$anchor",
                "type",
                "format",
                "title",
                "description",
                "enum",
                "items",
                "prefixItems",
                "minItems",
                "maxItems",
                "minimum",
                "maximum",
                "anyOf",
                "oneOf",
                "properties",
                "additionalProperties",
                "required",
                "propertyOrdering",
            ]),
            boolean_schemas: false,
            single_type: true,
            ..FULL
        },
    )
}

/// The OpenAPI 3.0 schema object, which gateways that translate tools to
/// OpenAPI use: its keywords, one type name, no `"null"` type, no `const`,
/// no `$defs`, booleans only as `additionalProperties`.
pub fn openapi_30(schema: &Value) -> Vec<Violation> {
    check(
        schema,
        &Rules {
            allowed: Some(&[
                "title",
                "multipleOf",
                "maximum",
                "exclusiveMaximum",
                "minimum",
                "exclusiveMinimum",
                "maxLength",
                "minLength",
                "pattern",
                "maxItems",
                "minItems",
                "uniqueItems",
                "maxProperties",
                "minProperties",
                "required",
                "enum",
                "type",
                "allOf",
                "oneOf",
                "anyOf",
                "not",
                "items",
                "properties",
                "additionalProperties",
                "description",
                "format",
                "default",
                "nullable",
                "discriminator",
                "readOnly",
                "writeOnly",
                "xml",
                "externalDocs",
                "example",
                "deprecated",
                "$ref",
            ]),
            boolean_schemas: false,
            single_type: true,
            null_type: false,
            boolean_exclusive_bounds: true,
            ..FULL
        },
    )
}

fn check(schema: &Value, rules: &Rules) -> Vec<Violation> {
    let mut out = Vec::new();
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "object" => {}
        _ => out.push(violation("", "the root is not `type: \"object\"`")),
    }
    for keyword in rules.root_forbidden {
        if schema.get(keyword).is_some() {
            out.push(violation("", format!("`{keyword}` at the root")));
        }
    }
    walk(schema, &mut |node, place| {
        check_node(node, place, rules, &mut out)
    });
    out
}

fn check_node(node: &Value, place: &Place<'_>, rules: &Rules, out: &mut Vec<Violation>) {
    let at = place.pointer.as_str();
    if let Value::Bool(value) = node {
        if place.keyword == Some("additionalProperties") {
            if rules.additional_false_only && *value {
                out.push(violation(at, "`additionalProperties` other than `false`"));
            }
        } else if !rules.boolean_schemas {
            out.push(violation(at, format!("a bare `{value}` sub-schema")));
        }
        return;
    }
    let Some(object) = node.as_object() else {
        return;
    };
    if let Some(allowed) = rules.allowed {
        for key in object.keys() {
            if !allowed.contains(&key.as_str()) {
                out.push(violation(
                    at,
                    format!("keyword `{key}` is outside the subset"),
                ));
            }
        }
    }
    match object.get("type") {
        Some(Value::Array(_)) if rules.single_type => {
            out.push(violation(at, "`type` is an array"));
        }
        Some(Value::String(kind)) if kind == "null" && !rules.null_type => {
            out.push(violation(
                at,
                "`type: \"null\"` (the subset has `nullable`)",
            ));
        }
        _ => {}
    }
    let is_object =
        object.get("type") == Some(&Value::from("object")) || object.contains_key("properties");
    if rules.closed_objects
        && is_object
        && object.get("additionalProperties") != Some(&Value::Bool(false))
    {
        out.push(violation(
            at,
            "an object without `additionalProperties: false`",
        ));
    }
    if rules.all_required && is_object {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for name in object
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|properties| properties.keys())
        {
            if !required.contains(&name.as_str()) {
                out.push(violation(at, format!("property `{name}` is not required")));
            }
        }
    }
    if rules.additional_false_only
        && let Some(Value::Object(_)) = object.get("additionalProperties")
    {
        out.push(violation(at, "`additionalProperties` other than `false`"));
    }
    if rules.min_items_0_or_1
        && let Some(count) = object.get("minItems").and_then(Value::as_u64)
        && count > 1
    {
        out.push(violation(at, "`minItems` above 1"));
    }
    if rules.boolean_exclusive_bounds {
        for bound in ["exclusiveMinimum", "exclusiveMaximum"] {
            if object.get(bound).is_some_and(|value| !value.is_boolean()) {
                out.push(violation(at, format!("`{bound}` is not a boolean")));
            }
        }
    }
}
