//! The four rules of MCP Inspector's schema-portability lint (2.12, the lint
//! `tools/list --strict` runs), written after its definition:
//!
//! - `boolean-schema` (error): a bare `true`/`false` where a schema object is
//!   expected; booleans under `additionalProperties`, `unevaluatedProperties`,
//!   `additionalItems` and `unevaluatedItems` are allowed;
//! - `untyped-schema` (warning): a schema object with no validation keyword at
//!   all (`{}` or only annotations such as `description`), except under `not`;
//!   `if` counts only together with `then` or `else`;
//! - `type-union` (warning): `type` is an array of distinct JSON type names;
//! - `remote-ref` (warning): a `$ref` not starting with `#`, unless the
//!   document declares an `$id` somewhere.

use serde_json::Value;

use super::{Violation, violation, walk};

/// Keywords that constrain an instance (assertions, applicators, references).
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

const BOOLEAN_VALUED: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One finding of the lint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub pointer: String,
}

/// Every finding of the lint on one schema.
pub fn lint(schema: &Value) -> Vec<Finding> {
    let has_id = declares_id(schema);
    let mut findings = Vec::new();
    let mut add = |rule, severity, pointer: &str| {
        findings.push(Finding {
            rule,
            severity,
            pointer: pointer.to_owned(),
        })
    };
    walk(schema, &mut |node, place| {
        let keyword = place.keyword;
        if node.is_boolean() {
            if !keyword.is_some_and(|k| BOOLEAN_VALUED.contains(&k)) {
                add("boolean-schema", Severity::Error, &place.pointer);
            }
            return;
        }
        let Some(object) = node.as_object() else {
            return;
        };
        if let Some(Value::Array(types)) = object.get("type") {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let distinct = names
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            if !types.is_empty()
                && names.len() == types.len()
                && names.iter().all(|name| TYPE_NAMES.contains(name))
                && distinct == names.len()
            {
                add("type-union", Severity::Warning, &place.pointer);
            }
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && !reference.is_empty()
            && !reference.starts_with('#')
            && !has_id
        {
            add("remote-ref", Severity::Warning, &place.pointer);
        }
        let constrains = object
            .keys()
            .any(|key| CONSTRAINING.contains(&key.as_str()))
            || (object.contains_key("if")
                && (object.contains_key("then") || object.contains_key("else")));
        if !constrains && keyword != Some("not") {
            add("untyped-schema", Severity::Warning, &place.pointer);
        }
    });
    findings
}

fn declares_id(schema: &Value) -> bool {
    let mut found = false;
    walk(schema, &mut |node, _| {
        if matches!(node.get("$id"), Some(Value::String(id)) if !id.is_empty()) {
            found = true;
        }
    });
    found
}

/// The findings, errors and warnings alike, as violations.
pub fn findings_as_violations(schema: &Value) -> Vec<Violation> {
    lint(schema)
        .into_iter()
        .map(|finding| {
            let severity = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            violation(&finding.pointer, format!("{} ({severity})", finding.rule))
        })
        .collect()
}
