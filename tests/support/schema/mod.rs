//! Checkers of the JSON Schema subsets that MCP clients and model APIs accept
//! for a tool's parameters, one function per subset, each returning the
//! violations it finds with the JSON pointer of the offending sub-schema.
//!
//! The subsets are written from each provider's public documentation (cited in
//! docs/declaring.md, "Schema portability") and from the errors their APIs return;
//! `inspector` mirrors the four rules of MCP Inspector's schema-portability lint.

#![allow(dead_code)] // Each suite uses a different part.

pub mod inspector;
pub mod providers;
pub mod tools;

use std::fmt;

use serde_json::Value;

/// One way a schema leaves a subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer of the sub-schema (`""` for the root).
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.message)
    }
}

/// A checker: the violations of one subset in a schema.
pub type Checker = fn(&Value) -> Vec<Violation>;

/// A named subset and its checker.
pub struct Subset {
    pub name: &'static str,
    pub check: Checker,
}

/// Every subset, Inspector's lint first.
pub const SUBSETS: &[Subset] = &[
    Subset {
        name: "inspector",
        check: inspector::findings_as_violations,
    },
    Subset {
        name: "openai",
        check: providers::openai,
    },
    Subset {
        name: "openai-strict",
        check: providers::openai_strict,
    },
    Subset {
        name: "anthropic",
        check: providers::anthropic,
    },
    Subset {
        name: "anthropic-strict",
        check: providers::anthropic_strict,
    },
    Subset {
        name: "gemini",
        check: providers::gemini,
    },
    Subset {
        name: "gemini-json",
        check: providers::gemini_json,
    },
    Subset {
        name: "openapi-3.0",
        check: providers::openapi_30,
    },
];

/// The names of the subsets `schema` leaves, in `SUBSETS` order.
pub fn failed_subsets(schema: &Value) -> Vec<&'static str> {
    SUBSETS
        .iter()
        .filter(|subset| !(subset.check)(schema).is_empty())
        .map(|subset| subset.name)
        .collect()
}

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

/// Where a sub-schema sits: its pointer and the keyword it is under (`None`
/// at the root).
pub struct Place<'a> {
    pub pointer: String,
    pub keyword: Option<&'a str>,
    pub depth: usize,
}

/// Calls `visit` on the root and on every sub-schema below it, objects and
/// booleans alike (a value of `dependencies` that is a list of names is no
/// sub-schema and is skipped).
pub fn walk<'a>(schema: &'a Value, visit: &mut dyn FnMut(&'a Value, &Place<'a>)) {
    walk_at(
        schema,
        &Place {
            pointer: String::new(),
            keyword: None,
            depth: 0,
        },
        visit,
    );
}

fn walk_at<'a>(node: &'a Value, place: &Place<'a>, visit: &mut dyn FnMut(&'a Value, &Place<'a>)) {
    if !(node.is_object() || node.is_boolean()) || place.depth > 64 {
        return;
    }
    visit(node, place);
    let Some(object) = node.as_object() else {
        return;
    };
    let child = |keyword: &'a str, tail: &[&str]| {
        let mut pointer = place.pointer.clone();
        for part in std::iter::once(&keyword).chain(tail) {
            pointer.push('/');
            pointer.push_str(&part.replace('~', "~0").replace('/', "~1"));
        }
        Place {
            pointer,
            keyword: Some(keyword),
            depth: place.depth + 1,
        }
    };
    for (key, value) in object {
        let key = key.as_str();
        if let Some(keyword) = MAP_KEYWORDS.iter().find(|k| **k == key) {
            for (name, sub) in value.as_object().into_iter().flatten() {
                walk_at(sub, &child(keyword, &[name]), visit);
            }
        } else if let Some(keyword) = ARRAY_KEYWORDS.iter().find(|k| **k == key) {
            for (index, sub) in value.as_array().into_iter().flatten().enumerate() {
                walk_at(sub, &child(keyword, &[&index.to_string()]), visit);
            }
        } else if let Some(keyword) = SINGLE_KEYWORDS.iter().find(|k| **k == key) {
            match value {
                Value::Array(items) if key == "items" => {
                    for (index, sub) in items.iter().enumerate() {
                        walk_at(sub, &child(keyword, &[&index.to_string()]), visit);
                    }
                }
                sub => walk_at(sub, &child(keyword, &[]), visit),
            }
        }
    }
}

/// A violation at `pointer`.
pub fn violation(pointer: &str, message: impl Into<String>) -> Violation {
    Violation {
        pointer: pointer.to_owned(),
        message: message.into(),
    }
}

/// The pointers of the violations, for comparisons with literal tables.
pub fn pointers(violations: &[Violation]) -> Vec<&str> {
    violations.iter().map(|v| v.pointer.as_str()).collect()
}
