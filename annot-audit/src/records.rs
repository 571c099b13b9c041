//! Verdicts others can verify: each finding as a canonical record (JCS,
//! RFC 8785, by `serde_jcs`) with its SHA-256 digest, cited in the shape of
//! the interest group's `evidenceRef` (`type`, `digest`, `canonicalization`,
//! `schema`, `ref`). The record's JSON Schema is
//! annot-audit/schema/verdict-record.schema.json; a registry, a host or a
//! gateway re-derives the digest from the record alone.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::report::{EvidenceRef, Finding, Verdict};
use crate::wire::Exchange;

/// The version of the record's format.
pub const RECORD_VERSION: u32 = 1;
/// The `$id` of annot-audit/schema/verdict-record.schema.json.
pub const SCHEMA_ID: &str = "urn:annot-audit:verdict-record:1";
const RECORD_TYPE: &str = "annot-audit/verdict";
const CANONICALIZATION: &str = "JCS (RFC 8785)";

/// What every record of one audit shares: who judged which server.
pub struct Context<'a> {
    pub auditor: &'a str,
    pub seed: u64,
    /// The server's `serverInfo` (name, version), as it answered.
    pub server_info: Value,
    pub command: &'a [String],
    pub url: Option<&'a str>,
}

/// The canonical record of one finding.
pub fn record(context: &Context<'_>, finding: &Finding) -> Value {
    // Server-wide findings name `server` where a tool's name would be; the
    // per-tool checks always name a tool, even one called `server`.
    let first = finding.subject.split(' ').next().unwrap_or_default();
    let per_tool = ["hints.", "schema.", "behaviour."]
        .iter()
        .any(|prefix| finding.check.starts_with(prefix));
    let tool = (per_tool || first != "server").then(|| first.to_owned());
    // The action (`{action=read}`) or dialect (`[tools/annotations]`) part.
    let class = finding
        .subject
        .split_once(' ')
        .map(|(_, class)| class.to_owned());
    let reason = match &finding.verdict {
        Verdict::Inconclusive(reason) | Verdict::NotApplicable(reason) => Some(reason.clone()),
        _ => None,
    };
    json!({
        "record_version": RECORD_VERSION,
        "auditor": context.auditor,
        "server": {
            "info": context.server_info,
            "command": context.command,
            "url": context.url,
        },
        // A string: JCS writes numbers as doubles, and a seed may pass 2^53.
        "seed": context.seed.to_string(),
        "check": finding.check,
        "subject": finding.subject,
        "tool": tool,
        "argument_class": class,
        "arguments": finding.evidence.iter().find_map(arguments_of),
        "case": finding.case,
        "outcome": finding.verdict.label(),
        "reason": reason,
        "detail": finding.detail,
        "cases": finding.cases,
        "evidence": finding.evidence,
    })
}

/// The arguments a `tools/call` or resolution request carried.
fn arguments_of(exchange: &Exchange) -> Option<Value> {
    let request: Value = serde_json::from_str(&exchange.request).ok()?;
    let method = request["method"].as_str()?;
    let params = &request["params"];
    match method {
        "tools/call" | "tools/resolve" => params.get("arguments").cloned(),
        "tools/annotations" => params.get("arguments").cloned(),
        _ => None,
    }
}

/// `sha256:HEX` of the record's canonical bytes.
pub fn digest(record: &Value) -> Result<String, String> {
    let canonical =
        serde_jcs::to_vec(record).map_err(|error| format!("cannot canonicalize: {error}"))?;
    let hex: String = Sha256::digest(&canonical)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok(format!("sha256:{hex}"))
}

/// The records of `findings`, and each finding's reference to its record at
/// `#/records/INDEX` of the report.
pub fn cite(context: &Context<'_>, findings: &mut [Finding]) -> Result<Vec<Value>, String> {
    let mut records = Vec::with_capacity(findings.len());
    for (index, finding) in findings.iter_mut().enumerate() {
        let record = record(context, finding);
        finding.evidence_ref = Some(EvidenceRef {
            kind: RECORD_TYPE,
            digest: digest(&record)?,
            canonicalization: CANONICALIZATION,
            schema: SCHEMA_ID,
            reference: format!("#/records/{index}"),
        });
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_names_the_tool_and_class_of_its_subject_and_none_for_the_server() {
        let context = Context {
            auditor: "annot-audit 0",
            seed: u64::MAX,
            server_info: json!({"name": "s", "version": "1"}),
            command: &[],
            url: None,
        };
        let of = |check: &'static str, subject: &str| {
            record(&context, &Finding::new(check, subject, Verdict::Pass, ""))
        };
        let resolved = of("resolve.within_bound", "files [tool-resolution extension]");
        assert_eq!(resolved["tool"], "files");
        assert_eq!(resolved["argument_class"], "[tool-resolution extension]");
        assert_eq!(resolved["seed"], "18446744073709551615");
        let server_wide = of("resolve.within_bound", "server [tools/resolve (SEP-1862)]");
        assert_eq!(server_wide["tool"], Value::Null);
        assert_eq!(of("hints.present", "server")["tool"], "server");
        assert_eq!(
            of("behaviour.read_only", "files {action=read}")["argument_class"],
            "{action=read}"
        );
    }

    #[test]
    fn the_digest_is_of_the_jcs_bytes_whatever_the_key_order() {
        // RFC 8785: keys sorted by UTF-16 code units, no whitespace,
        // numbers as ECMAScript writes them.
        let a: Value = serde_json::from_str(r#"{"b": 1.0, "a": [true, "é"]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[true,"é"],"b":1}"#).unwrap();
        let canonical = r#"{"a":[true,"é"],"b":1}"#;
        assert_eq!(serde_jcs::to_string(&a).unwrap(), canonical);
        let expected: String = Sha256::digest(canonical.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(digest(&a).unwrap(), format!("sha256:{expected}"));
        assert_eq!(digest(&a), digest(&b));
    }
}
