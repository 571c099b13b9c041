//! The portability rules annot holds a tool's `inputSchema` to: the four
//! rules of MCP Inspector's schema lint (`tools/list --strict`, Inspector
//! 2.12) and the plain-object root that model APIs require.
//!
//! annot's own schemas pass them (tests/schema/portability.rs), and
//! `annot-audit` reports any server's schema that does not
//! (`schema.portable`): both call [`portability`].
//!
//! | rule | severity | a finding where |
//! |---|---|---|
//! | `root-keyword` | error | the root has `oneOf`, `anyOf`, `allOf`, `enum`, `const` or `not` (model APIs refuse them there) |
//! | `boolean-schema` | error | a bare `true`/`false` stands where a schema object is expected (allowed under `additionalProperties`, `unevaluatedProperties`, `additionalItems`, `unevaluatedItems`) |
//! | `untyped-schema` | warning | a schema object has no validation keyword at all (`{}`, or only `description`), except under `not`; `if` counts only with `then` or `else` |
//! | `type-union` | warning | `type` is an array of distinct JSON type names |
//! | `remote-ref` | warning | a `$ref` does not start with `#`, and the document declares no `$id` |

use core::fmt;

use serde_json::{Map, Value};

/// How bad a [`PortabilityFinding`] is: an error breaks clients, a warning
/// loses a constraint or is read differently by some.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Clients or model APIs refuse the schema.
    Error,
    /// Some clients drop or misread a part of the schema.
    Warning,
}

/// One place where a schema breaks a portability rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortabilityFinding {
    /// The rule's name (`root-keyword`, `boolean-schema`, `untyped-schema`,
    /// `type-union`, `remote-ref`).
    pub rule: &'static str,
    /// How bad it is.
    pub severity: Severity,
    /// The JSON pointer of the sub-schema (`""` for the root).
    pub pointer: String,
    /// For `root-keyword`, the keyword; otherwise `None`.
    pub keyword: Option<&'static str>,
}

impl PortabilityFinding {
    /// Whether the rule is one of MCP Inspector's lint (every rule but
    /// `root-keyword`).
    pub fn is_inspector_rule(&self) -> bool {
        self.rule != "root-keyword"
    }
}

impl fmt::Display for PortabilityFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        match self.keyword {
            Some(keyword) => write!(
                f,
                "{} ({severity}): `{keyword}` at the root, which model APIs refuse",
                self.rule
            ),
            None => write!(f, "{} ({severity}) at {at}", self.rule),
        }
    }
}

/// Every finding of the portability rules on `schema`, root keywords first,
/// then Inspector's rules in document order. Empty when the schema is
/// portable.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::schema::portability;
/// use serde_json::json;
///
/// let portable = json!({"type": "object", "properties": {"path": {"type": "string"}}});
/// assert!(portability(&portable).is_empty());
/// let union = json!({"type": "object", "properties": {"n": {"type": ["string", "null"]}}});
/// let findings = portability(&union);
/// assert_eq!(findings[0].to_string(), "type-union (warning) at /properties/n");
/// ```
pub fn portability(schema: &Value) -> Vec<PortabilityFinding> {
    let mut findings: Vec<PortabilityFinding> = ROOT_REFUSED
        .iter()
        .filter(|keyword| schema.get(**keyword).is_some())
        .map(|keyword| PortabilityFinding {
            rule: "root-keyword",
            severity: Severity::Error,
            pointer: String::new(),
            keyword: Some(keyword),
        })
        .collect();
    let has_id = declares_id(schema, 0);
    let mut add = |rule, severity, pointer: &str| {
        findings.push(PortabilityFinding {
            rule,
            severity,
            pointer: pointer.to_owned(),
            keyword: None,
        })
    };
    walk(schema, "", None, 0, &mut |node, pointer, keyword| {
        if node.is_boolean() {
            if !keyword.is_some_and(|k| BOOLEAN_VALUED.contains(&k)) {
                add("boolean-schema", Severity::Error, pointer);
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
                add("type-union", Severity::Warning, pointer);
            }
        }
        if let Some(Value::String(reference)) = object.get("$ref")
            && !reference.is_empty()
            && !reference.starts_with('#')
            && !has_id
        {
            add("remote-ref", Severity::Warning, pointer);
        }
        if !constrains(object) && keyword != Some("not") {
            add("untyped-schema", Severity::Warning, pointer);
        }
    });
    findings
}

/// Keywords model APIs refuse at the root of a tool's parameters.
const ROOT_REFUSED: [&str; 6] = ["oneOf", "anyOf", "allOf", "enum", "const", "not"];

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

/// Keywords whose value may be a bare boolean.
const BOOLEAN_VALUED: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Keywords whose value is a map of sub-schemas.
const MAP_KEYWORDS: [&str; 6] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];

/// Keywords whose value is an array of sub-schemas.
const ARRAY_KEYWORDS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is one sub-schema (`items` may also be an array).
const SINGLE_KEYWORDS: [&str; 11] = [
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

/// Past this depth a schema is not walked further: a bound on the work of
/// a hostile schema, far beyond any real one.
const MAX_DEPTH: usize = 64;

fn constrains(object: &Map<String, Value>) -> bool {
    object
        .keys()
        .any(|key| CONSTRAINING.contains(&key.as_str()))
        || (object.contains_key("if")
            && (object.contains_key("then") || object.contains_key("else")))
}

fn declares_id(node: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
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

/// Calls `visit` on `node` and on every sub-schema below it, objects and
/// booleans alike, with its JSON pointer and the keyword it sits under (a
/// value of `dependencies` that is a list of names is no sub-schema).
fn walk<'a>(
    node: &'a Value,
    pointer: &str,
    keyword: Option<&'a str>,
    depth: usize,
    visit: &mut dyn FnMut(&'a Value, &str, Option<&'a str>),
) {
    if !(node.is_object() || node.is_boolean()) || depth > MAX_DEPTH {
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
                let at = format!("{pointer}/{k}/{}", escape(name));
                walk(sub, &at, Some(k), depth + 1, visit);
            }
        } else if let Some(k) = ARRAY_KEYWORDS.iter().find(|k| **k == key) {
            for (index, sub) in value.as_array().into_iter().flatten().enumerate() {
                let at = format!("{pointer}/{k}/{index}");
                walk(sub, &at, Some(k), depth + 1, visit);
            }
        } else if let Some(k) = SINGLE_KEYWORDS.iter().find(|k| **k == key) {
            match value {
                Value::Array(items) if key == "items" => {
                    for (index, sub) in items.iter().enumerate() {
                        let at = format!("{pointer}/{k}/{index}");
                        walk(sub, &at, Some(k), depth + 1, visit);
                    }
                }
                sub => walk(sub, &format!("{pointer}/{k}"), Some(k), depth + 1, visit),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(schema: &Value) -> Vec<String> {
        portability(schema).iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn each_rule_names_its_place() {
        let schema = json!({"type": "object", "anyOf": [{"required": ["a"]}], "properties": {
            "a": true, "b": {"description": "anything"}, "c": {"type": ["string", "null"]},
            "d": {"$ref": "https://example.com/x"}, "e": {"not": {}},
            "f": {"if": {"type": "string"}}, "g": {"type": "object", "additionalProperties": true}}});
        assert_eq!(
            rules(&schema),
            [
                "root-keyword (error): `anyOf` at the root, which model APIs refuse",
                "boolean-schema (error) at /properties/a",
                "untyped-schema (warning) at /properties/b",
                "type-union (warning) at /properties/c",
                "remote-ref (warning) at /properties/d",
                "untyped-schema (warning) at /properties/f",
            ]
        );
    }

    #[test]
    fn an_id_makes_remote_references_local() {
        let schema = json!({"$id": "https://example.com/s", "type": "object",
            "properties": {"d": {"$ref": "other.json"}}});
        assert!(portability(&schema).is_empty());
    }

    #[test]
    fn a_deep_schema_is_walked_to_a_bound() {
        let mut deep = json!({"type": "string"});
        for _ in 0..200 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        assert!(portability(&deep).is_empty());
    }
}
