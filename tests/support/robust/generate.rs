//! Argument values for any `#[mcp_tool]` schema, valid and invalid alike.
//!
//! The generators read the tool's `inputSchema` for its fields (at the root and
//! in every `if`/`then`/`else` and `allOf`/`anyOf`/`oneOf` branch) and the
//! strings it knows (action names, `const`s and `enum`s, field names). Each
//! field is then present with a value its schema describes, absent, or given a
//! near miss (a wrong type, `null`, an integral or fractional float, a number
//! out of range, nested junk); now and then an unknown field is added, or the
//! arguments are not an object at all. Whether a value is valid is left to the
//! oracles: the schema and the parser must agree on it.
//!
//! A tool's rules on argument values (`AnnotatedTool::RULES`) add values that
//! make them fire: strings their `matches` patterns match, paths their
//! `matches_template` templates match, the literals they compare with, and
//! SQL of every class for their `is sql(...)` predicates.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::Union;
use serde_json::{Map, Number, Value};

/// The subschemas a schema gives one field, across all its branches.
type Fields = BTreeMap<String, Vec<Value>>;

/// Every field of the argument object, with each subschema that describes it.
pub fn fields(schema: &Value) -> Fields {
    let mut fields = Fields::new();
    collect_fields(schema, &mut fields);
    fields
}

fn collect_fields(schema: &Value, fields: &mut Fields) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, subschema) in properties {
            let entry = fields.entry(name.clone()).or_default();
            if subschema.is_object() {
                entry.push(subschema.clone());
            }
        }
    }
    for branch in ["if", "then", "else", "not"] {
        if let Some(subschema) = schema.get(branch) {
            collect_fields(subschema, fields);
        }
    }
    for list in ["allOf", "anyOf", "oneOf"] {
        for subschema in schema
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_fields(subschema, fields);
        }
    }
}

/// Every string a schema names: `const` and `enum` values and property names.
pub fn known_strings(schema: &Value) -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                for (key, member) in object {
                    match (key.as_str(), member) {
                        ("const", Value::String(text)) => out.push(text.clone()),
                        ("enum", Value::Array(items)) => {
                            out.extend(items.iter().filter_map(Value::as_str).map(str::to_owned));
                        }
                        ("properties", Value::Object(properties)) => {
                            out.extend(properties.keys().cloned());
                        }
                        _ => {}
                    }
                    walk(member, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut known = Vec::new();
    walk(schema, &mut known);
    known.sort();
    known.dedup();
    if known.is_empty() {
        known.push("x".to_owned());
    }
    known
}

/// Arguments for the tool whose `inputSchema` is `schema` and whose rules are
/// written `rules` (`Rule::source`).
pub fn arguments(schema: &Value, rules: &[&str]) -> BoxedStrategy<Value> {
    let known = known_strings(schema);
    let fields = fields(schema);
    let mut rule_values = rule_values(rules);
    let names: Vec<String> = fields.keys().cloned().collect();
    let values: Vec<BoxedStrategy<Option<Value>>> = fields
        .iter()
        .map(|(name, schemas)| {
            let from_rules = rule_values.remove(name).unwrap_or_default();
            field_value(schemas, from_rules, &known)
        })
        .collect();
    let extra = proptest::option::weighted(0.1, (extra_key(&known), junk(&known)));
    let object = (values, extra).prop_map(move |(values, extra)| {
        let mut object: Map<String, Value> = names
            .iter()
            .zip(values)
            .filter_map(|(name, value)| Some((name.clone(), value?)))
            .collect();
        if let Some((key, value)) = extra {
            object.insert(key, value);
        }
        Value::Object(object)
    });
    prop_oneof![19 => object, 1 => junk(&known)].boxed()
}

/// One field: a value its schema describes or a rule tests for, absent, or a
/// near miss.
fn field_value(
    schemas: &[Value],
    from_rules: Vec<BoxedStrategy<Value>>,
    known: &[String],
) -> BoxedStrategy<Option<Value>> {
    let described = if schemas.is_empty() {
        junk(known)
    } else {
        Union::new(schemas.iter().map(|schema| valid_value(schema, known, 2))).boxed()
    };
    let valid = if from_rules.is_empty() {
        described
    } else {
        prop_oneof![1 => described, 2 => Union::new(from_rules)].boxed()
    };
    prop_oneof![
        8 => valid.prop_map(Some),
        1 => Just(None),
        1 => near_miss(known).prop_map(Some),
    ]
    .boxed()
}

/// A key no tool should accept, or one it knows in the wrong place.
fn extra_key(known: &[String]) -> BoxedStrategy<String> {
    prop_oneof![
        "[a-z_]{1,8}",
        select(known.to_vec()).prop_map(|name| name.to_uppercase()),
        Just(String::new()),
    ]
    .boxed()
}

/// A value `schema` describes (mostly: bounds such as `minLength` are left to
/// chance, which the oracles judge like any other value).
pub fn valid_value(schema: &Value, known: &[String], depth: u32) -> BoxedStrategy<Value> {
    if let Some(constant) = schema.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.is_empty()
    {
        return select(options.clone()).boxed();
    }
    // `Option<T>` and `serde_json::Value` are `anyOf` (a value of one branch).
    if let Some(Value::Array(branches)) = schema.get("anyOf")
        && !branches.is_empty()
    {
        return Union::new(
            branches
                .iter()
                .map(|branch| valid_value(branch, known, depth)),
        )
        .boxed();
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if types.is_empty() {
        return junk(known);
    }
    Union::new(
        types
            .into_iter()
            .map(|name| of_type(name, schema, known, depth)),
    )
    .boxed()
}

fn of_type(name: &str, schema: &Value, known: &[String], depth: u32) -> BoxedStrategy<Value> {
    match name {
        "string" => string(schema, known),
        "integer" => integer(schema),
        "number" => any::<f64>()
            .prop_filter_map("finite", |float| Number::from_f64(float).map(Value::Number))
            .boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "null" => Just(Value::Null).boxed(),
        "array" if depth > 0 => {
            let items = schema
                .get("items")
                .map_or_else(|| junk(known), |items| valid_value(items, known, depth - 1));
            proptest::collection::vec(items, 0..4)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" if depth > 0 => object(schema, known, depth - 1),
        _ => junk(known),
    }
}

fn string(schema: &Value, known: &[String]) -> BoxedStrategy<Value> {
    let patterned = schema
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(|pattern| proptest::string::string_regex(pattern).ok());
    let plain = prop_oneof![
        select(known.to_vec()),
        "[a-zA-Z0-9/._ -]{0,12}",
        any::<String>(),
    ];
    match patterned {
        Some(patterned) => prop_oneof![3 => patterned, 1 => plain]
            .prop_map(Value::String)
            .boxed(),
        None => plain.prop_map(Value::String).boxed(),
    }
}

fn integer(schema: &Value) -> BoxedStrategy<Value> {
    let bound = |key: &str, default: i128| {
        schema
            .get(key)
            .and_then(Value::as_f64)
            .map_or(default, |float| float as i128)
    };
    let (min, max) = (
        bound("minimum", i128::from(i64::MIN)),
        bound("maximum", i128::from(u64::MAX)),
    );
    let in_range = (min..=max).prop_map(integer_value);
    let integral_float = (min.max(-1 << 53)..=max.min(1 << 53))
        .prop_map(|n| Value::Number(Number::from_f64(n as f64).expect("finite")));
    prop_oneof![
        4 => in_range,
        1 => Just(integer_value(min)),
        1 => Just(integer_value(max)),
        2 => integral_float,
    ]
    .boxed()
}

fn integer_value(number: i128) -> Value {
    if let Ok(small) = i64::try_from(number) {
        Value::from(small)
    } else if let Ok(large) = u64::try_from(number) {
        Value::from(large)
    } else {
        Value::from(number as f64)
    }
}

fn object(schema: &Value, known: &[String], depth: u32) -> BoxedStrategy<Value> {
    let values = schema
        .get("additionalProperties")
        .filter(|extra| extra.is_object())
        .map_or_else(|| junk(known), |extra| valid_value(extra, known, depth));
    let keys = prop_oneof!["[a-z-]{0,6}", select(known.to_vec())];
    proptest::collection::btree_map(keys, values, 0..3)
        .prop_map(|map| Value::Object(map.into_iter().collect()))
        .boxed()
}

/// A value of the wrong type or just outside a bound.
fn near_miss(known: &[String]) -> BoxedStrategy<Value> {
    let numbers = [
        Value::from(-1),
        Value::from(65_536),
        Value::from(u64::MAX),
        Value::from(i64::MIN),
        Value::from(1.5),
        Value::from(3.0),
        Value::from(-0.0),
        Value::from(1e20),
        Value::from(18_446_744_073_709_551_616.0),
    ];
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        select(numbers.to_vec()),
        any::<i64>().prop_map(Value::from),
        select(known.to_vec()).prop_map(Value::String),
        junk(known),
    ]
    .boxed()
}

/// Any JSON, nested up to three levels.
pub fn junk(known: &[String]) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |float| Number::from_f64(float).map(Value::Number)),
        ".{0,6}".prop_map(Value::String),
        select(known.to_vec()).prop_map(Value::String),
    ];
    let known = known.to_vec();
    leaf.prop_recursive(3, 16, 4, move |inner| {
        let keys = prop_oneof!["[a-z]{0,4}", select(known.clone())];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(keys, inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
    .boxed()
}

/// SQL of each class an `is sql(...)` predicate tells apart (read, insert,
/// destructive, the riskiest), as a client would send it.
const SQL_TEXTS: &[&str] = &[
    "SELECT id, body FROM notes WHERE id = 1",
    "EXPLAIN SELECT count(*) FROM notes",
    "INSERT INTO notes (body) VALUES ('more')",
    "UPDATE notes SET body = 'x' WHERE id = 2",
    "DELETE FROM notes WHERE id = 1",
    "REPLACE INTO notes (id, body) VALUES (1, 'y')",
    "DROP TABLE notes",
    "PRAGMA user_version = 3",
    "SELECT 1; DELETE FROM notes",
    "SELECT load_extension('x')",
];

/// Values the rules test fields for, by field: `field matches "re"`,
/// `field matches_template "/a/:b/*"`, `field == literal` and
/// `field is sql(...)`.
pub fn rule_values(rules: &[&str]) -> BTreeMap<String, Vec<BoxedStrategy<Value>>> {
    let tests = regex::Regex::new(
        r#"(\w+) (matches_template|path_matches|matches|==) (r"[^"]*"|"(?:[^"\\]|\\.)*"|true|false|-?[0-9.]+)"#,
    )
    .expect("a valid regex");
    let sql = regex::Regex::new(r"(\w+) is sql\(").expect("a valid regex");
    let mut values: BTreeMap<String, Vec<BoxedStrategy<Value>>> = BTreeMap::new();
    for rule in rules {
        for test in sql.captures_iter(rule) {
            let texts = SQL_TEXTS
                .iter()
                .map(|text| Value::String((*text).to_owned()));
            values
                .entry(test[1].to_owned())
                .or_default()
                .push(select(texts.collect::<Vec<_>>()).boxed());
        }
        for test in tests.captures_iter(rule) {
            let (field, operator, literal) = (&test[1], &test[2], &test[3]);
            let text = match literal.strip_prefix("r\"") {
                Some(raw) => Some(raw.trim_end_matches('"').to_owned()),
                None => serde_json::from_str::<String>(literal).ok(),
            };
            let strategy = match (operator, text) {
                ("matches" | "path_matches", Some(pattern)) => matching(&pattern),
                ("matches_template", Some(template)) => matching(&template_regex(&template)),
                ("==", Some(text)) => Some(Just(Value::String(text)).boxed()),
                ("==", None) => serde_json::from_str(literal).ok().map(|v| Just(v).boxed()),
                _ => None,
            };
            if let Some(strategy) = strategy {
                values.entry(field.to_owned()).or_default().push(strategy);
            }
        }
    }
    values
}

/// Strings `pattern` matches, mostly: anchors and word boundaries, which the
/// generator cannot honour, are dropped from the pattern first.
fn matching(pattern: &str) -> Option<BoxedStrategy<Value>> {
    let generator = proptest::string::string_regex(&without_assertions(pattern)).ok()?;
    // Text around the match, so unanchored patterns are tested in context.
    Some(
        (generator, "[ a-z;]{0,3}", "[ a-z;/]{0,3}")
            .prop_map(|(matched, before, after)| match matched.len() % 3 {
                0 => Value::String(matched),
                1 => Value::String(format!("{before}{matched}")),
                _ => Value::String(format!("{matched}{after}")),
            })
            .boxed(),
    )
}

/// `pattern` without `^`, `$`, `\b`, `\B`, `\A`, `\z` outside character classes.
fn without_assertions(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = chars.next().unwrap_or('\\');
                if in_class || !matches!(escaped, 'b' | 'B' | 'A' | 'z') {
                    out.push('\\');
                    out.push(escaped);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // `[^` and a `]` right after the opening are part of the class.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
                if chars.peek() == Some(&']') {
                    out.push(chars.next().expect("peeked"));
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '^' | '$' if !in_class => {}
            _ => out.push(c),
        }
    }
    out
}

/// A regex of the paths a `matches_template` template matches: `:name` is one
/// segment, a trailing `*` any rest.
fn template_regex(template: &str) -> String {
    template
        .split('/')
        .map(|segment| {
            if segment.starts_with(':') {
                "[a-z0-9_-]{1,8}".to_owned()
            } else if segment == "*" {
                "[a-z0-9/._-]{0,12}".to_owned()
            } else {
                regex::escape(segment)
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}
