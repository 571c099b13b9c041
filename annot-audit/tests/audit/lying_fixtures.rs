//! Every lying fixture is caught by the check it lies to, and its honest
//! twin passes every check: the real binary against the real fixture
//! servers (`annot-audit-fixture`).

use crate::support::{FIXTURE, audit};

/// Each fixture and the one check that must give VIOLATION on it, written
/// by hand from what each fixture does; `missing-hints` is a missing
/// declaration, not a lie: its check gives UNDECLARED (see [`UNDECLARED`]).
const CAUGHT_BY: [(&str, &str); 12] = [
    ("static-read-only-writes", "behaviour.read_only"),
    ("resolved-read-only-writes", "behaviour.read_only"),
    ("riskier-than-bound", "resolve.within_bound"),
    ("unstable-resolution", "resolve.deterministic"),
    ("result-for-invalid", "resolve.invalid_rejected"),
    ("non-destructive-deletes", "behaviour.non_destructive"),
    ("idempotent-appends", "behaviour.idempotent"),
    ("closed-world-connects", "behaviour.closed_world"),
    ("missing-hints", "hints.present"),
    ("malformed-hints", "hints.well_formed"),
    ("extension-shape", "resolve.answer_schema"),
    ("foreign-meta", "resolve.meta_negotiated"),
];

const OPTIONS: [&str; 6] = [
    "--exercise",
    "--calls",
    "8",
    "--resolutions",
    "40",
    "--fail-on-violation",
];

/// The fixtures whose finding is a missing declaration.
const UNDECLARED: [&str; 1] = ["missing-hints"];

#[test]
fn every_lie_is_caught_by_its_check_and_only_by_it() {
    for (kind, check) in CAUGHT_BY {
        let audit = audit(&OPTIONS, &[FIXTURE, kind], &[]);
        let (verdict, status) = if UNDECLARED.contains(&kind) {
            assert!(
                audit.checks_with("VIOLATION").is_empty(),
                "{}",
                audit.stdout
            );
            ("UNDECLARED", 0)
        } else {
            ("VIOLATION", 1)
        };
        assert_eq!(
            audit.checks_with(verdict),
            [check],
            "{kind}: {}",
            audit.stdout
        );
        assert_eq!(audit.status, status, "{kind}: --fail-on-violation");
    }
}

#[test]
fn a_read_tool_in_the_reference_servers_style_passes_fail_on_violation() {
    // `readOnlyHint: true` alone: destructiveHint and idempotentHint mean
    // nothing there; openWorldHint is a missing declaration, not a lie.
    let only_read_only = audit(&OPTIONS, &[FIXTURE, "reference-style"], &[]);
    assert_eq!(only_read_only.status, 0, "{}", only_read_only.stdout);
    assert!(only_read_only.checks_with("VIOLATION").is_empty());
    assert_eq!(only_read_only.checks_with("UNDECLARED"), ["hints.present"]);
    let hints = only_read_only
        .findings()
        .iter()
        .find(|f| f["check"] == "hints.present")
        .expect("hints.present");
    assert_eq!(
        hints["detail"],
        "absent, no claim: openWorldHint (hosts assume true); \
         absent, without meaning on a read-only tool: destructiveHint, idempotentHint"
    );
    assert_eq!(only_read_only.report["summary"]["undeclared"], 1);
    let gated = audit(
        &["--fail-on-undeclared", "--resolutions", "20"],
        &[FIXTURE, "reference-style"],
        &[],
    );
    assert_eq!(
        gated.status, 3,
        "--fail-on-undeclared exits 3: {}",
        gated.stdout
    );
    // With openWorldHint stated, nothing is missing: a clean run under both gates.
    let twin = audit(
        &[&OPTIONS[..], &["--fail-on-undeclared"]].concat(),
        &[FIXTURE, "reference-style", "--honest"],
        &[],
    );
    assert_eq!(twin.status, 0, "{}", twin.stdout);
    let passed = twin.checks_with("PASS");
    for check in [
        "hints.present",
        "behaviour.read_only",
        "behaviour.closed_world",
    ] {
        assert!(
            passed.contains(&check.to_owned()),
            "{check}: {}",
            twin.stdout
        );
    }
}

#[test]
fn every_honest_twin_passes() {
    for (kind, _) in CAUGHT_BY {
        let audit = audit(&OPTIONS, &[FIXTURE, kind, "--honest"], &[]);
        assert!(
            audit.checks_with("VIOLATION").is_empty(),
            "{kind} (honest): {}",
            audit.stdout
        );
        assert!(
            audit.checks_with("INCONCLUSIVE").is_empty(),
            "{kind} (honest): {}",
            audit.stdout
        );
        assert_eq!(audit.status, 0, "{kind} (honest)");
    }
}

#[test]
fn a_violation_carries_its_bytes_its_case_and_a_replay_that_finds_it_again() {
    let audit = audit(&OPTIONS, &[FIXTURE, "riskier-than-bound"], &[]);
    let finding = audit
        .findings()
        .iter()
        .find(|f| f["verdict"] == "VIOLATION")
        .expect("a violation");
    let evidence = &finding["evidence"][0];
    assert!(
        evidence["request"]
            .as_str()
            .unwrap()
            .contains("\"method\":\"tools/resolve\"")
    );
    assert!(
        evidence["response"]
            .as_str()
            .unwrap()
            .contains("\"destructiveHint\":true")
    );
    assert_eq!(audit.report["report_version"], 2);
    assert_eq!(audit.report["seed"], 2026);
    let case = finding["case"].as_str().expect("a case id");
    assert!(
        finding["reproduce"]
            .as_str()
            .unwrap()
            .contains(&format!("--replay {case}"))
    );
    let again = crate::support::audit(
        &["--resolutions", "40", "--replay", case],
        &[FIXTURE, "riskier-than-bound"],
        &[],
    );
    assert_eq!(
        again.checks_with("VIOLATION"),
        ["resolve.within_bound"],
        "{}",
        again.stdout
    );
    assert_eq!(
        again
            .findings()
            .iter()
            .map(|f| f["cases"].as_u64().unwrap())
            .max(),
        Some(1)
    );
}

#[test]
fn without_a_namespace_closed_world_is_inconclusive_never_pass() {
    for honest in [false, true] {
        let server: Vec<&str> = [FIXTURE, "closed-world-connects"]
            .into_iter()
            .chain(honest.then_some("--honest"))
            .collect();
        for env in [[("ANNOT_AUDIT_NO_NETNS", "1")].as_slice(), &[]] {
            let options: Vec<&str> = if env.is_empty() {
                vec!["--exercise", "--calls", "4", "--no-namespace"]
            } else {
                vec!["--exercise", "--calls", "4"]
            };
            let audit = audit(&options, &server, env);
            let closed: Vec<_> = audit
                .verdicts()
                .into_iter()
                .filter(|(c, _, _)| c == "behaviour.closed_world")
                .collect();
            assert!(!closed.is_empty(), "{}", audit.stdout);
            assert!(
                closed
                    .iter()
                    .all(|(_, _, verdict)| verdict == "INCONCLUSIVE"),
                "{closed:?}"
            );
        }
    }
}

#[test]
fn bad_usage_exits_2_and_a_clean_run_0() {
    let nothing = audit(&[], &[], &[]);
    assert_eq!(nothing.status, 2);
    assert!(
        nothing.stderr.contains("give a server"),
        "{}",
        nothing.stderr
    );
    let missing = audit(&[], &["/nonexistent/server"], &[]);
    assert_eq!(missing.status, 2, "{}", missing.stderr);
    // Without --fail-on-violation a violation still exits 0.
    let lie = audit(&[], &[FIXTURE, "riskier-than-bound"], &[]);
    assert_eq!(
        (lie.status, lie.checks_with("VIOLATION")),
        (0, vec!["resolve.within_bound".to_owned()])
    );
}

#[test]
fn url_alone_makes_behaviour_not_applicable() {
    let port = crate::support::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut server = std::process::Command::new(crate::support::example("rmcp_server"))
        .args(["--http", &format!("127.0.0.1:{port}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rmcp_server starts");
    let audit = audit(
        &["--exercise", "--resolutions", "20", "--url", &url],
        &[],
        &[],
    );
    let _ = server.kill();
    let _ = server.wait();
    let behaviour: Vec<_> = audit
        .verdicts()
        .into_iter()
        .filter(|(c, _, _)| c.starts_with("behaviour"))
        .collect();
    assert_eq!(
        behaviour,
        [(
            "behaviour".to_owned(),
            "server".to_owned(),
            "NOT_APPLICABLE".to_owned()
        )],
        "{}",
        audit.stdout
    );
    assert!(
        audit
            .checks_with("PASS")
            .contains(&"resolve.within_bound".to_owned()),
        "{}",
        audit.stdout
    );
}
