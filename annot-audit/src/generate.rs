//! Argument sets generated from a tool's `inputSchema`: seeded and
//! reproducible. Every enum value, optional fields absent and present,
//! strings that cross rule boundaries, numbers at their limits, invalid sets,
//! then seeded random sets up to the count asked for. Each set is classified
//! valid or invalid by a real JSON Schema validator, not by this generator.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

/// Strings chosen to cross the rules of path- and URL-shaped arguments.
pub const BOUNDARY_STRINGS: &[&str] = &[
    "notes.txt",
    "./notes.txt",
    "docs/readme.md",
    "../outside.txt",
    "docs/../../etc/passwd",
    "..",
    "//etc/passwd",
    "/etc/passwd",
    "/etc",
    "/ETC/shadow",
    "/Etc/Passwd",
    "/root/.ssh/id_rsa",
    "/proc/self/environ",
    "C:\\Windows\\System32",
    "NOTES.TXT",
    "https://example.com/repos/acme/secret",
    "//api.example.com/repos/acme/secret",
    "",
    " ",
    "ünïcödé/ファイル.txt",
    "e\u{301}tude.txt",
    "\u{202e}txt.exe",
    "a\u{0}b",
    "😀",
    "SELECT 1; DROP TABLE items",
];

/// One argument set.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its position in the tool's sequence: with the seed, what `--replay` names.
    pub index: usize,
    pub arguments: Value,
    /// Whether it validates against the tool's `inputSchema`.
    pub valid: bool,
    /// Where it came from (`enum`, `boundary`, `invalid`, `random`, `file`).
    pub origin: &'static str,
}

/// A stable per-tool seed: the run's seed mixed with the tool's name (FNV-1a).
pub fn tool_seed(seed: u64, tool: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in tool.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    seed ^ hash
}

/// The argument sets for one tool: at least `count` (when the schema allows
/// that many distinct sets), the file's sets last. With `strings`, only those
/// strings are used and only valid sets kept: what the behaviour tier runs.
pub fn cases(
    schema: &Value,
    seed: u64,
    count: usize,
    extra: &[Value],
    strings: Option<&[String]>,
) -> Vec<Case> {
    let validator = jsonschema::validator_for(schema).ok();
    let is_valid = |arguments: &Value| validator.as_ref().is_some_and(|v| v.is_valid(arguments));
    let pool: Vec<String> = match strings {
        Some(strings) => strings.to_vec(),
        None => BOUNDARY_STRINGS
            .iter()
            .map(|s| (*s).to_owned())
            .chain(["a".repeat(300)])
            .collect(),
    };
    let mut generator = Generator {
        root: schema,
        rng: ChaCha8Rng::seed_from_u64(seed),
        pool,
    };
    let flat = generator.flatten(schema);
    let mut sets: Vec<(Value, &'static str)> = Vec::new();
    for branch in &flat {
        generator.systematic(branch, strings.is_none(), &mut sets);
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut push = |arguments: Value, origin: &'static str, out: &mut Vec<Case>| {
        if seen.insert(arguments.to_string()) {
            let valid = is_valid(&arguments);
            if strings.is_none() || valid {
                out.push(Case {
                    index: out.len(),
                    arguments,
                    valid,
                    origin,
                });
            }
        }
    };
    for (arguments, origin) in sets {
        push(arguments, origin, &mut out);
    }
    let mut attempts = 0;
    while out.len() < count && attempts < count * 20 && !flat.is_empty() {
        attempts += 1;
        let branch = &flat[generator.rng.random_range(0..flat.len())];
        let arguments = generator.object(branch, true);
        push(arguments, "random", &mut out);
    }
    for arguments in extra {
        push(arguments.clone(), "file", &mut out);
    }
    out
}

struct Generator<'a> {
    root: &'a Value,
    rng: ChaCha8Rng,
    pool: Vec<String>,
}

impl Generator<'_> {
    /// A local `$ref`, followed.
    fn deref<'s>(&'s self, schema: &'s Value) -> &'s Value {
        let mut current = schema;
        for _ in 0..16 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(pointer) = reference.strip_prefix('#') else {
                break;
            };
            match self.root.pointer(pointer) {
                Some(target) => current = target,
                None => break,
            }
        }
        current
    }

    /// An object schema's alternatives (`oneOf`/`anyOf` branches merged
    /// into the parent, `allOf` merged), each with `properties`/`required`.
    fn flatten(&self, schema: &Value) -> Vec<Value> {
        let schema = self.deref(schema);
        let mut base = schema.clone();
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            for part in all {
                for merged in self.flatten(part).into_iter().take(1) {
                    merge(&mut base, &merged);
                }
            }
        }
        let branches = schema
            .get("oneOf")
            .or_else(|| schema.get("anyOf"))
            .and_then(Value::as_array);
        match branches {
            Some(branches) if !branches.is_empty() => branches
                .iter()
                .flat_map(|branch| self.flatten(branch))
                .map(|branch| {
                    let mut whole = base.clone();
                    merge(&mut whole, &branch);
                    whole
                })
                .collect(),
            _ => vec![base],
        }
    }

    fn properties(branch: &Value) -> Vec<(String, Value)> {
        branch
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| props.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    fn required(branch: &Value) -> Vec<String> {
        branch
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The sets every run has: each enum value, optional fields absent and
    /// all present, and with `boundaries` each boundary string and number in
    /// each field and the invalid sets.
    fn systematic(
        &mut self,
        branch: &Value,
        boundaries: bool,
        out: &mut Vec<(Value, &'static str)>,
    ) {
        let properties = Self::properties(branch);
        let required = Self::required(branch);
        let base = self.object_with(branch, false, 0);
        out.push((base.clone(), "enum"));
        out.push((self.object_with(branch, true, 0), "enum"));
        for (name, schema) in &properties {
            let schema = self.deref(schema).clone();
            for value in enumerated(&schema) {
                for all_optional in [false, true] {
                    let mut set = self.object_with(branch, all_optional, 0);
                    set[name.as_str()] = value.clone();
                    out.push((set, "enum"));
                }
            }
        }
        // With the pool's strings in turn (the behaviour tier's file names).
        for turn in 0..self.pool.len() {
            out.push((self.object_with(branch, true, turn), "enum"));
        }
        if !boundaries {
            return;
        }
        for (name, schema) in &properties {
            let schema = self.deref(schema).clone();
            let kinds = types(&schema);
            if kinds.contains(&"string") && enumerated(&schema).is_empty() {
                for text in self.pool.clone() {
                    let mut set = base.clone();
                    set[name.as_str()] = Value::from(text);
                    out.push((set, "boundary"));
                }
            }
            if kinds.contains(&"integer") || kinds.contains(&"number") {
                for number in number_limits(&schema) {
                    let mut set = base.clone();
                    set[name.as_str()] = number;
                    out.push((set, "boundary"));
                }
            }
            // The wrong type, for every field.
            let mut set = base.clone();
            set[name.as_str()] = if kinds.contains(&"string") {
                json!(42)
            } else {
                json!("not the right type")
            };
            out.push((set, "invalid"));
            if !enumerated(&schema).is_empty() {
                let mut set = base.clone();
                set[name.as_str()] = json!("not-one-of-the-values");
                out.push((set, "invalid"));
            }
        }
        for name in &required {
            let mut set = base.clone();
            if let Some(object) = set.as_object_mut() {
                object.remove(name);
            }
            out.push((set, "invalid"));
        }
        let mut set = base.clone();
        set["__annot_audit_unknown"] = json!(true);
        out.push((set, "invalid"));
    }

    fn object_with(&mut self, branch: &Value, all_optional: bool, turn: usize) -> Value {
        let required = Self::required(branch);
        let mut object = Map::new();
        for (name, schema) in Self::properties(branch) {
            if required.contains(&name) || all_optional {
                let schema = self.deref(&schema).clone();
                object.insert(name, self.first_value(&schema, turn, 0));
            }
        }
        Value::Object(object)
    }

    /// A plain value of a schema: the first enum value, a pool string.
    fn first_value(&mut self, schema: &Value, turn: usize, depth: usize) -> Value {
        let schema = self.deref(schema).clone();
        if let Some(value) = enumerated(&schema).into_iter().next() {
            return value;
        }
        if depth > 6 {
            return Value::Null;
        }
        let branches = schema
            .get("oneOf")
            .or_else(|| schema.get("anyOf"))
            .and_then(Value::as_array);
        if let Some(first) = branches.and_then(|b| b.first()) {
            return self.first_value(first, turn, depth + 1);
        }
        match types(&schema).first().copied().unwrap_or("string") {
            "string" => Value::from(self.pool[turn % self.pool.len().max(1)].clone()),
            "integer" => json!(
                schema
                    .get("minimum")
                    .and_then(Value::as_i64)
                    .unwrap_or(1)
                    .max(1)
            ),
            "number" => json!(
                schema
                    .get("minimum")
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0)
                    .max(1.0)
            ),
            "boolean" => json!(false),
            "null" => Value::Null,
            "array" => {
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                let least = schema
                    .get("minItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1);
                Value::Array(
                    (0..least)
                        .map(|_| self.first_value(&items, turn, depth + 1))
                        .collect(),
                )
            }
            "object" => {
                let flat = self.flatten(&schema);
                match flat.first() {
                    Some(branch) => {
                        let branch = branch.clone();
                        let mut object = Map::new();
                        for (name, sub) in Self::properties(&branch) {
                            object.insert(name, self.first_value(&sub, turn, depth + 1));
                        }
                        Value::Object(object)
                    }
                    None => json!({}),
                }
            }
            _ => Value::from(self.pool[0].clone()),
        }
    }

    /// A random object of one branch.
    fn object(&mut self, branch: &Value, random: bool) -> Value {
        let required = Self::required(branch);
        let mut object = Map::new();
        for (name, schema) in Self::properties(branch) {
            if required.contains(&name) || (random && self.rng.random_bool(0.5)) {
                let value = self.random_value(&schema, 0);
                object.insert(name, value);
            }
        }
        Value::Object(object)
    }

    fn random_value(&mut self, schema: &Value, depth: usize) -> Value {
        let schema = self.deref(schema).clone();
        let choices = enumerated(&schema);
        if !choices.is_empty() {
            return choices[self.rng.random_range(0..choices.len())].clone();
        }
        if depth > 4 {
            return Value::Null;
        }
        let branches = schema
            .get("oneOf")
            .or_else(|| schema.get("anyOf"))
            .and_then(Value::as_array);
        if let Some(branches) = branches.filter(|b| !b.is_empty()) {
            let pick = branches[self.rng.random_range(0..branches.len())].clone();
            return self.random_value(&pick, depth + 1);
        }
        let kinds = types(&schema);
        let kind = if kinds.is_empty() {
            "string"
        } else {
            kinds[self.rng.random_range(0..kinds.len())]
        };
        match kind {
            "string" => {
                let a = self.pool[self.rng.random_range(0..self.pool.len())].clone();
                if self.rng.random_bool(0.3) {
                    let b = &self.pool[self.rng.random_range(0..self.pool.len())];
                    Value::from(format!("{a}/{b}"))
                } else {
                    Value::from(a)
                }
            }
            "integer" | "number" => {
                let limits = number_limits(&schema);
                if self.rng.random_bool(0.5) && !limits.is_empty() {
                    limits[self.rng.random_range(0..limits.len())].clone()
                } else {
                    json!(self.rng.random_range(-5i64..1000))
                }
            }
            "boolean" => json!(self.rng.random_bool(0.5)),
            "null" => Value::Null,
            "array" => {
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                let length = self.rng.random_range(0..3);
                Value::Array(
                    (0..length)
                        .map(|_| self.random_value(&items, depth + 1))
                        .collect(),
                )
            }
            _ => {
                let flat = self.flatten(&schema);
                match flat.first() {
                    Some(branch) => {
                        let branch = branch.clone();
                        self.object(&branch, true)
                    }
                    None => json!({}),
                }
            }
        }
    }
}

/// Merges `properties` and `required` of `from` into `into`; other keywords
/// of `from` win.
fn merge(into: &mut Value, from: &Value) {
    let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) else {
        return;
    };
    for (key, value) in from {
        match key.as_str() {
            "properties" => {
                let target = into.entry("properties").or_insert_with(|| json!({}));
                if let (Some(target), Some(value)) = (target.as_object_mut(), value.as_object()) {
                    for (name, sub) in value {
                        target.insert(name.clone(), sub.clone());
                    }
                }
            }
            "required" => {
                let target = into.entry("required").or_insert_with(|| json!([]));
                if let (Some(target), Some(value)) = (target.as_array_mut(), value.as_array()) {
                    for name in value {
                        if !target.contains(name) {
                            target.push(name.clone());
                        }
                    }
                }
            }
            "oneOf" | "anyOf" | "allOf" => {}
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
    into.remove("oneOf");
    into.remove("anyOf");
    into.remove("allOf");
}

/// The values an `enum` or `const` allows.
fn enumerated(schema: &Value) -> Vec<Value> {
    if let Some(value) = schema.get("const") {
        return vec![value.clone()];
    }
    schema
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn types(schema: &Value) -> Vec<&'static str> {
    let names = [
        "string", "integer", "number", "boolean", "array", "object", "null",
    ];
    match schema.get("type") {
        Some(Value::String(kind)) => names.iter().copied().filter(|n| n == kind).collect(),
        Some(Value::Array(kinds)) => names
            .iter()
            .copied()
            .filter(|n| kinds.iter().any(|k| k == n))
            .collect(),
        _ => Vec::new(),
    }
}

/// Numbers at a schema's limits, and past them.
fn number_limits(schema: &Value) -> Vec<Value> {
    let mut limits = vec![
        json!(0),
        json!(-1),
        json!(1.5),
        json!(i64::MAX),
        json!(9_007_199_254_740_993u64),
        json!(-1e308),
    ];
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(bound) = schema.get(key).and_then(Value::as_f64) {
            for delta in [-1.0, 0.0, 1.0] {
                let value = bound + delta;
                limits.push(if value.fract() == 0.0 && value.abs() < 9e15 {
                    json!(value as i64)
                } else {
                    json!(value)
                });
            }
        }
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_sets_and_every_enum_value_appears() {
        let schema = json!({"type": "object", "properties": {
            "action": {"type": "string", "enum": ["read", "append", "delete"]},
            "path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["action", "path"]});
        let first = cases(&schema, 7, 200, &[], None);
        let again = cases(&schema, 7, 200, &[], None);
        let texts = |cases: &[Case]| {
            cases
                .iter()
                .map(|c| c.arguments.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(&first), texts(&again));
        assert!(first.len() >= 200);
        for action in ["read", "append", "delete"] {
            assert!(
                first
                    .iter()
                    .any(|c| c.valid && c.arguments["action"] == action)
            );
        }
        assert!(
            first
                .iter()
                .any(|c| c.valid && c.arguments["path"] == "docs/../../etc/passwd")
        );
        assert!(
            first
                .iter()
                .any(|c| !c.valid && c.arguments.get("path").is_none())
        );
        assert!(
            first
                .iter()
                .any(|c| !c.valid && c.arguments["action"] == "not-one-of-the-values")
        );
    }
}
