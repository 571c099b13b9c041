//! No false alarms on annot's own example servers: manage_files over stdio in
//! both eras, rmcp_server over stdio and Streamable HTTP (started by the
//! auditor in its sandbox), github_api. Every check passes or says why it
//! does not apply; nothing is a VIOLATION or INCONCLUSIVE.

use crate::support::{audit, example, free_port};

fn assert_clean(name: &str, audit: &crate::support::Audit, expected_checks: &[&str]) {
    assert_eq!(audit.status, 0, "{name}: {}{}", audit.stdout, audit.stderr);
    assert!(
        audit.checks_with("VIOLATION").is_empty(),
        "{name}: {}",
        audit.stdout
    );
    assert!(
        audit.checks_with("INCONCLUSIVE").is_empty(),
        "{name}: {}",
        audit.stdout
    );
    let passed = audit.checks_with("PASS");
    for check in expected_checks {
        assert!(
            passed.contains(&check.to_string()),
            "{name}: {check} did not pass: {}",
            audit.stdout
        );
    }
}

const EVERY_RESOLVING_CHECK: [&str; 9] = [
    "hints.present",
    "hints.well_formed",
    "schema.valid",
    "schema.portable",
    "resolution.markers_consistent",
    "resolve.within_bound",
    "resolve.deterministic",
    "resolve.invalid_rejected",
    "resolve.answer_schema",
];

const BEHAVIOUR: [&str; 4] = [
    "behaviour.read_only",
    "behaviour.non_destructive",
    "behaviour.idempotent",
    "behaviour.closed_world",
];

#[test]
fn manage_files_over_stdio_in_both_eras() {
    let server = example("manage_files");
    for era in ["legacy", "modern"] {
        let audit = audit(
            &[
                "--exercise",
                "--calls",
                "24",
                "--resolutions",
                "100",
                "--era",
                era,
            ],
            &[&server, "."],
            &[],
        );
        assert_clean(
            &format!("manage_files ({era})"),
            &audit,
            &EVERY_RESOLVING_CHECK,
        );
        assert_clean(&format!("manage_files ({era})"), &audit, &BEHAVIOUR);
        assert_eq!(audit.report["era"], era);
    }
}

#[test]
fn rmcp_server_over_stdio_and_streamable_http() {
    let server = example("rmcp_server");
    let stdio = audit(
        &["--exercise", "--calls", "16", "--resolutions", "60"],
        &[&server, "--stdio", "--root", "."],
        &[],
    );
    assert_clean("rmcp_server (stdio)", &stdio, &EVERY_RESOLVING_CHECK);
    assert_clean("rmcp_server (stdio)", &stdio, &BEHAVIOUR);
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let address = format!("127.0.0.1:{port}");
    let http = audit(
        &[
            "--exercise",
            "--calls",
            "16",
            "--resolutions",
            "60",
            "--url",
            &url,
        ],
        &[&server, "--http", &address, "--root", "."],
        &[],
    );
    assert_clean("rmcp_server (HTTP)", &http, &EVERY_RESOLVING_CHECK);
    assert_clean("rmcp_server (HTTP)", &http, &BEHAVIOUR);
}

#[test]
fn github_api() {
    let server = example("github_api");
    let audit = audit(
        &["--exercise", "--calls", "16", "--resolutions", "100"],
        &[&server],
        &[],
    );
    // The tool is open-world, so closed_world does not apply.
    assert_clean("github_api", &audit, &EVERY_RESOLVING_CHECK);
}
