//! Every verdict of a report is a canonical record whose digest anyone can
//! re-derive: JCS (RFC 8785) bytes, SHA-256, cited by an `evidenceRef`, and
//! valid against annot-audit/schema/verdict-record.schema.json.

use crate::support::{FIXTURE, audit};
use serde_json::Value;
use sha2::{Digest, Sha256};

fn rederive(record: &Value) -> String {
    let canonical = serde_jcs::to_vec(record).expect("a record canonicalizes");
    let hex: String = Sha256::digest(&canonical)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

fn schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schema/verdict-record.schema.json"
    );
    let text = std::fs::read_to_string(path).expect("the schema is in the repository");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::meta::validate(&schema).expect("the schema is valid JSON Schema");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

#[test]
fn every_digest_of_a_report_is_rederived_from_its_record() {
    let validator = schema();
    for fixture in [
        "riskier-than-bound",
        "closed-world-connects",
        "missing-hints",
    ] {
        let audit = audit(
            &["--exercise", "--calls", "4", "--resolutions", "20"],
            &[FIXTURE, fixture],
            &[],
        );
        let records = audit.report["records"].as_array().expect("records");
        let findings = audit.findings();
        assert_eq!(
            records.len(),
            findings.len(),
            "{fixture}: one record a finding"
        );
        for (index, (finding, record)) in findings.iter().zip(records).enumerate() {
            let cited = &finding["evidence_ref"];
            assert_eq!(cited["type"], "annot-audit/verdict");
            assert_eq!(cited["canonicalization"], "JCS (RFC 8785)");
            assert_eq!(cited["schema"], "urn:annot-audit:verdict-record:1");
            assert_eq!(cited["ref"], format!("#/records/{index}"));
            assert_eq!(cited["digest"], rederive(record), "{fixture} #{index}");
            let errors: Vec<String> = validator
                .iter_errors(record)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{fixture} #{index}: {errors:?}");
            assert_eq!(record["check"], finding["check"]);
            assert_eq!(record["outcome"], finding["verdict"]);
            assert_eq!(
                record["server"]["info"]["name"],
                format!("fixture-{fixture}")
            );
        }
        // A record changed in any way no longer matches its digest.
        let mut tampered = records[0].clone();
        tampered["outcome"] = Value::from("PASS");
        tampered["detail"] = Value::from("nothing to see");
        assert_ne!(findings[0]["evidence_ref"]["digest"], rederive(&tampered));
    }
}

#[test]
fn a_violations_record_names_its_tool_arguments_and_observed_effects() {
    let audit = audit(
        &["--exercise", "--calls", "4", "--resolutions", "20"],
        &[FIXTURE, "static-read-only-writes"],
        &[],
    );
    let record = audit.report["records"]
        .as_array()
        .expect("records")
        .iter()
        .find(|record| record["outcome"] == "VIOLATION")
        .expect("a violation");
    assert_eq!(record["check"], "behaviour.read_only");
    assert_eq!(record["tool"], "static_read_only_writes");
    assert!(record["arguments"].is_object(), "{record}");
    assert!(
        record["detail"]
            .as_str()
            .unwrap()
            .contains("created: audit-log.txt"),
        "{record}"
    );
    assert!(
        record["case"]
            .as_str()
            .unwrap()
            .starts_with("static_read_only_writes#")
    );
}

#[test]
fn every_published_ecosystem_digest_is_rederived() {
    let validator = schema();
    let reports = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/audits/reports");
    let mut checked = 0;
    for entry in std::fs::read_dir(reports).expect("docs/audits/reports") {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a report");
        let report: Value = serde_json::from_str(&text).expect("JSON");
        let records = report["records"].as_array().expect("records");
        for (finding, record) in report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .zip(records)
        {
            assert_eq!(
                finding["evidence_ref"]["digest"],
                rederive(record),
                "{}",
                path.display()
            );
            assert!(validator.is_valid(record), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 0, "no published record");
}
