//! Tier a: what `tools/list` declares, read from the raw bytes. The four core
//! hints (absent and malformed told apart), each `inputSchema` (valid JSON
//! Schema, object root, portable), and the resolution capability against the
//! per-tool markers.

use annot_model::Hint;
use annot_runtime::protocol::TOOL_RESOLUTION_EXTENSION;
use annot_runtime::schema::portability;
use serde_json::Value;

use crate::report::{Finding, Verdict};
use crate::resolution::Dialect;
use crate::wire::{Exchange, duplicate_keys};

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
    let mut malformed = Vec::new();
    if let Some(value) = annotations
        && !value.is_object()
    {
        malformed.push(format!("`annotations` is {value}, not an object"));
    }
    let stated = |hint: Hint| object.and_then(|object| object.get(hint.wire_name()));
    for hint in Hint::CORE {
        if let Some(other) = stated(hint).filter(|value| !value.is_boolean()) {
            malformed.push(format!("`{}` is {other}, not a boolean", hint.wire_name()));
        }
    }
    for key in duplicated {
        malformed.push(format!("`{key}` appears more than once"));
    }
    let read_only = stated(Hint::ReadOnly) == Some(&Value::Bool(true));
    let present = missing_declarations(name, read_only, |hint| stated(hint).is_some());
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

/// `hints.present`: an absent hint is no claim, and its default is its risky
/// value, so absence never claims less risk than the truth. It is a missing
/// declaration (UNDECLARED), never a VIOLATION, and only where the hint means
/// something: `destructiveHint` and `idempotentHint` mean nothing on a tool
/// that states `readOnlyHint: true`.
fn missing_declarations(name: &str, read_only: bool, is_stated: impl Fn(Hint) -> bool) -> Finding {
    let (meaningless, missing): (Vec<Hint>, Vec<Hint>) = Hint::CORE
        .into_iter()
        .filter(|hint| !is_stated(*hint))
        .partition(|hint| read_only && hint.only_meaningful_when_writing());
    let mut parts = Vec::new();
    if !missing.is_empty() {
        let assumed: Vec<String> = missing
            .iter()
            .map(|hint| {
                let default = hint.default_value().unwrap_or(hint.risky_value());
                format!("{} (hosts assume {default})", hint.wire_name())
            })
            .collect();
        parts.push(format!("absent, no claim: {}", assumed.join(", ")));
    }
    if !meaningless.is_empty() {
        let names: Vec<&str> = meaningless.iter().map(|hint| hint.wire_name()).collect();
        parts.push(format!(
            "absent, without meaning on a read-only tool: {}",
            names.join(", ")
        ));
    }
    let (verdict, detail) = match (missing.is_empty(), parts.is_empty()) {
        (false, _) => (Verdict::Undeclared, parts.join("; ")),
        (true, true) => (Verdict::Pass, "all four core hints are stated".to_owned()),
        (true, false) => (
            Verdict::Pass,
            format!("every hint with a meaning is stated; {}", parts.join("; ")),
        ),
    };
    Finding::new("hints.present", name, verdict, detail)
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
    // annot's own rules for its schemas (MCP Inspector's lint and the
    // plain-object root), the same function its tests call.
    let problems: Vec<String> = portability(schema)
        .iter()
        .map(ToString::to_string)
        .collect();
    if problems.is_empty() {
        Finding::new(
            "schema.portable",
            name,
            Verdict::Pass,
            "no Inspector lint finding, plain object root",
        )
    } else {
        // A lint of what some clients refuse, not a claim contradicted.
        Finding::new(
            "schema.portable",
            name,
            Verdict::Advisory,
            problems.join("; "),
        )
    }
    .with_evidence(evidence.to_vec())
    .with_cases(1)
}

/// Which dialects the server's capabilities announce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Announced {
    pub dynamic_annotations: bool,
    pub resolve: bool,
    pub extension: bool,
}

impl Announced {
    /// Whether `dialect` is among those announced.
    pub fn offers(self, dialect: Dialect) -> bool {
        match dialect {
            Dialect::Annotations => self.dynamic_annotations,
            Dialect::ResolveTool => self.resolve,
            Dialect::Extension => self.extension,
        }
    }

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

    fn present(annotations: Value) -> Finding {
        let tool = json!({"name": "t", "annotations": annotations});
        let [present, _] = hints("t", &tool, &[], &[]);
        present
    }

    #[test]
    fn a_read_only_tool_needs_no_writing_hints_but_every_tool_needs_open_world() {
        // The reference servers' style: read tools state only these two.
        let reference = present(json!({"readOnlyHint": true, "openWorldHint": false}));
        assert_eq!(reference.verdict, Verdict::Pass);
        assert_eq!(
            reference.detail,
            "every hint with a meaning is stated; absent, without meaning on a read-only tool: \
             destructiveHint, idempotentHint"
        );
        let only_read_only = present(json!({"readOnlyHint": true}));
        assert_eq!(only_read_only.verdict, Verdict::Undeclared);
        assert_eq!(
            only_read_only.detail,
            "absent, no claim: openWorldHint (hosts assume true); \
             absent, without meaning on a read-only tool: destructiveHint, idempotentHint"
        );
        // Not read-only (stated false, or absent and so false): every hint counts.
        let writer = present(json!({"readOnlyHint": false, "openWorldHint": false}));
        assert_eq!(writer.verdict, Verdict::Undeclared);
        assert_eq!(
            writer.detail,
            "absent, no claim: destructiveHint (hosts assume true), idempotentHint (hosts assume false)"
        );
        let nothing = present(Value::Null);
        assert_eq!(nothing.verdict, Verdict::Undeclared);
        assert!(nothing.detail.contains("readOnlyHint (hosts assume false)"));
        // `"true"` is malformed, not a read-only claim.
        assert_eq!(
            present(json!({"readOnlyHint": "true", "openWorldHint": false})).detail,
            "absent, no claim: destructiveHint (hosts assume true), idempotentHint (hosts assume false)"
        );
    }

    #[test]
    fn a_schema_that_is_not_portable_is_advisory_naming_each_finding() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object", "anyOf": [],
            "properties": {"a": true, "b": {"description": "anything"}}}});
        let finding = schema_portable("t", &tool, &[]);
        assert_eq!(finding.verdict, Verdict::Advisory);
        assert_eq!(
            finding.detail,
            "root-keyword (error): `anyOf` at the root, which model APIs refuse; \
             boolean-schema (error) at /properties/a; untyped-schema (warning) at /properties/b"
        );
        let plain = json!({"name": "t", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "string"}}, "additionalProperties": false}});
        assert_eq!(schema_portable("t", &plain, &[]).verdict, Verdict::Pass);
    }
}
