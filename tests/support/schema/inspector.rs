//! MCP Inspector's schema-portability lint (2.12, the lint `tools/list
//! --strict` runs): the Inspector rules of `annot::schema::portability`, the
//! one implementation that annot-audit's `schema.portable` calls too (its
//! rules are listed there). tests/schema/portability.rs pins each rule with
//! hand-written schemas, and tests/interop/inspector.sh runs the real
//! Inspector on every example server.

use annot::schema::portability;
pub use annot::schema::{PortabilityFinding as Finding, Severity};
use serde_json::Value;

use super::{Violation, violation};

/// Every finding of Inspector's lint on one schema (the root-keyword rule,
/// which is the model APIs', is `providers`' business).
pub fn lint(schema: &Value) -> Vec<Finding> {
    portability(schema)
        .into_iter()
        .filter(Finding::is_inspector_rule)
        .collect()
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
