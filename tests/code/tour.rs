//! `examples/tour.rs` run as a test: the counts of its summary, a few of its
//! rows, and that what it prints is what it computed.

#[allow(dead_code)]
#[path = "../../examples/tour.rs"]
mod tour;

use annot::client::{Decision, PolicyRule, Strength, Verdict};
use annot::protocol::Dialect;
use tour::{Executed, Row, Summary, WithResolution};

fn run() -> (Summary, String) {
    let mut out = Vec::new();
    let summary = tour::run_tour(&mut out).expect("the tour runs");
    (
        summary,
        String::from_utf8(out).expect("the tour prints UTF-8"),
    )
}

fn row<'a>(summary: &'a Summary, call: &str) -> &'a Row {
    summary
        .rows
        .iter()
        .find(|row| row.call == call)
        .unwrap_or_else(|| panic!("no row for `{call}`"))
}

fn decided(row: &Row) -> &Decision {
    match &row.with {
        WithResolution::Decided(decision) => decision,
        WithResolution::InvalidArguments(message) => {
            panic!("`{}` was refused as invalid: {message}", row.call)
        }
    }
}

#[test]
fn resolution_asks_fewer_strong_confirmations_and_refuses_less() {
    let (summary, _) = run();
    assert_eq!(summary.rows.len(), 13);
    let (with, without) = (summary.with, summary.without);
    // Written out from the table the tour prints: with resolution, the reads
    // run without asking (both servers state that a call off system paths
    // needs no privileges), the writes are confirmed (rows 2, 3, 6, 7, 8 and
    // the read of `/etc/shadow`, the one strong confirmation), and only the
    // issue posted after reading the private repository is a trifecta.
    assert_eq!(
        (
            without.confirmations,
            without.strong,
            without.trifecta_refusals,
            without.invalid_arguments
        ),
        (8, 8, 5, 0)
    );
    assert_eq!(
        (
            with.confirmations,
            with.strong,
            with.trifecta_refusals,
            with.invalid_arguments
        ),
        (6, 1, 1, 1)
    );

    let refused: Vec<&str> = summary
        .rows
        .iter()
        .filter(|row| matches!(&row.with, WithResolution::Decided(d) if tour::is_trifecta(d)))
        .map(|row| row.call.as_str())
        .collect();
    assert_eq!(refused, ["POST /repos/octo/hello/issues"]);
    let post = row(&summary, "POST /repos/octo/hello/issues");
    assert_eq!(post.executed, None);
    // The private repository's read laid the private-data leg: the notes'
    // read stated that it touched nothing sensitive.
    assert!(
        decided(post).reason().message.contains("via `github_api`"),
        "{}",
        decided(post).reason()
    );
}

#[test]
fn a_server_that_states_its_hints_saves_the_strong_confirmation() {
    let (summary, text) = run();
    let read = row(&summary, "read notes.md");
    assert_eq!(read.dialect, Some(Dialect::DynamicAnnotations));
    let resolved = read.resolved.unwrap();
    // `manage_files` declares sensitive data and privileged access `false`,
    // raised only on system paths: off them, the answer says so.
    assert!(resolved.is_read_only());
    assert_eq!(
        (resolved.sensitive_data, resolved.privileged_access),
        (Some(false), Some(false))
    );
    assert_eq!(decided(read).verdict(), Verdict::Allow);
    assert_eq!(read.without.verdict(), Verdict::Confirm(Strength::Strong));
    assert_eq!(
        read.without.reason().rule,
        PolicyRule::SensitiveAndPrivileged
    );
    // Nothing was left out, so nothing was kept at its static value.
    assert!(read.silence.is_none());
    assert!(!text.contains("    silent: "), "{text}");
}

#[test]
fn invalid_arguments_are_refused_before_anyone_is_asked() {
    let (summary, _) = run();
    let shred = row(&summary, "shred notes.md");
    let WithResolution::InvalidArguments(message) = &shred.with else {
        panic!("the shred call was not refused: {:?}", shred.with);
    };
    assert!(message.starts_with("-32602"), "{message}");
    assert!(message.contains("shred"), "{message}");
    assert_eq!(
        (shred.resolved, shred.dialect, &shred.executed),
        (None, None, &None)
    );
    // Without resolution the person would have been asked to confirm it.
    assert!(matches!(shred.without.verdict(), Verdict::Confirm(_)));
}

#[test]
fn rows_show_what_the_servers_resolved_and_answered() {
    let (summary, _) = run();

    let read = row(&summary, "read notes.md");
    assert_eq!(read.declared.sensitive_data, Some(true));
    assert_eq!(
        read.executed,
        Some(Executed::Ok(
            "- octo/hello wants a French greeting\n".to_owned()
        ))
    );

    let repository = row(&summary, "GET /repos/octo/hello");
    assert_eq!(repository.dialect, Some(Dialect::ResolveTool));
    assert_eq!(repository.resolved.unwrap().sensitive_data, Some(false));
    assert_eq!(
        (
            decided(repository).verdict(),
            &decided(repository).reason().rule
        ),
        (Verdict::Allow, &PolicyRule::ReadOnly)
    );
    assert_eq!(
        repository.without.verdict(),
        Verdict::Confirm(Strength::Strong)
    );

    let unlabel = row(&summary, "DELETE /repos/octo/hello/issues/1/labels/bug");
    assert_eq!(unlabel.dialect, Some(Dialect::ResolveTool));
    assert_eq!(unlabel.resolved.unwrap().reversible, Some(true));
    // No private data read yet with resolution: only a light confirmation.
    assert_eq!(
        decided(unlabel).verdict(),
        Verdict::Confirm(Strength::Light)
    );
    assert!(tour::is_trifecta(&unlabel.without));
    assert!(unlabel.executed.is_some());

    let secret = row(&summary, "GET /repos/octo/secret");
    // Sensitive, but read-only and unprivileged: it runs, and lays the
    // private-data leg of the trifecta.
    assert_eq!(secret.resolved.unwrap().sensitive_data, Some(true));
    assert_eq!(secret.resolved.unwrap().privileged_access, Some(false));
    assert_eq!(decided(secret).verdict(), Verdict::Allow);
    assert!(tour::is_trifecta(&secret.without));
    match &secret.executed {
        Some(Executed::Ok(text)) => assert!(text.contains("Nothing to see"), "{text}"),
        other => panic!("the private repository was not read: {other:?}"),
    }

    let shadow = row(&summary, "read /etc/shadow");
    let resolved = shadow.resolved.unwrap();
    assert_eq!(
        (resolved.sensitive_data, resolved.privileged_access),
        (Some(true), Some(true))
    );
    assert_eq!(
        decided(shadow).verdict(),
        Verdict::Confirm(Strength::Strong)
    );
    match &shadow.executed {
        Some(Executed::ToolError(message)) => {
            assert!(message.contains("outside the sandbox"), "{message}")
        }
        other => panic!("the sandbox did not refuse: {other:?}"),
    }
}

#[test]
fn the_printed_table_and_summary_match_the_run() {
    let (summary, text) = run();
    assert!(!text.contains('\u{1b}'), "no terminal escapes");
    for row in &summary.rows {
        let line = text
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{} ", row.number)))
            .unwrap_or_else(|| panic!("row {} is not printed", row.number));
        assert!(line.contains(&row.call), "{line}");
        assert!(line.contains(&tour::short(&row.declared)), "{line}");
    }
    let counts = |label: &str| -> Vec<usize> {
        let line = text
            .lines()
            .find(|line| line.starts_with(label))
            .unwrap_or_else(|| panic!("no summary line `{label}`"));
        line[label.len()..]
            .split_whitespace()
            .map(|number| number.parse().unwrap())
            .collect()
    };
    let (with, without) = (summary.with, summary.without);
    assert_eq!(
        counts("confirmations asked"),
        [without.confirmations, with.confirmations]
    );
    assert_eq!(counts("  of which strong"), [without.strong, with.strong]);
    assert_eq!(
        counts("refused: lethal trifecta"),
        [without.trifecta_refusals, with.trifecta_refusals]
    );
    assert_eq!(
        counts("refused: invalid arguments (-32602)"),
        [without.invalid_arguments, with.invalid_arguments]
    );
}
