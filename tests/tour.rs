//! `examples/tour.rs` run as a test: the counts of its summary, a few of its
//! rows, and that what it prints is what it computed.

#[allow(dead_code)]
#[path = "../examples/tour.rs"]
mod tour;

use annot::Hint;
use annot::client::{Decision, Rule, Strength, Verdict};
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
    // Written out from the table the tour prints: with resolution, fewer
    // strong confirmations and trifecta refusals; one more confirmation,
    // since two calls refused without resolution are only confirmed.
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
        (9, 7, 3, 1)
    );

    let refused: Vec<&str> = summary
        .rows
        .iter()
        .filter(|row| matches!(&row.with, WithResolution::Decided(d) if tour::is_trifecta(d)))
        .map(|row| row.call.as_str())
        .collect();
    assert_eq!(
        refused,
        [
            "POST /repos/octo/hello/issues/1/labels",
            "DELETE /repos/octo/hello/issues/1/labels/bug",
            "POST /repos/octo/hello/issues"
        ]
    );
    let post = row(&summary, "POST /repos/octo/hello/issues");
    assert_eq!(post.executed, None);
    // The notes read laid the private-data leg: its server was silent about
    // sensitive data, which its static annotations declare.
    assert!(
        decided(post)
            .reason()
            .message
            .contains("via `manage_files`"),
        "{}",
        decided(post).reason()
    );
}

#[test]
fn a_servers_silence_keeps_the_strong_confirmation() {
    let (summary, _) = run();
    let read = row(&summary, "read notes.md");
    assert_eq!(read.dialect, Some(Dialect::DynamicAnnotations));
    let resolved = read.resolved.unwrap();
    // The server resolved a read but said nothing about sensitive data or
    // privileged access, which the static annotations declare: both stay.
    assert!(resolved.is_read_only());
    assert_eq!(
        (resolved.sensitive_data, resolved.privileged_access),
        (Some(true), Some(true))
    );
    assert_eq!(decided(read).verdict(), Verdict::Confirm(Strength::Strong));
    assert_eq!(decided(read).reason().rule, Rule::SensitiveAndPrivileged);
    assert_eq!(read.without.verdict(), Verdict::Confirm(Strength::Strong));
    // A host reading the answer alone would have run it without asking.
    let (kept, alone) = read.silence.as_ref().expect("the row notes the silence");
    assert_eq!(kept, &[Hint::SensitiveData, Hint::PrivilegedAccess]);
    assert!(alone.is_allowed(), "{alone}");
    let (_, text) = run();
    assert!(
        text.contains(
            "    silent: the answer left out sensitiveDataHint, privilegedAccessHint, kept at the \
             static values; read alone it would be allow\n"
        ),
        "{text}"
    );
    // Where the server stated the risk itself, nothing was silent.
    assert!(row(&summary, "read /etc/shadow").silence.is_none());
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
        (Verdict::Confirm(Strength::Normal), &Rule::PrivilegedAccess)
    );
    assert_eq!(
        repository.without.verdict(),
        Verdict::Confirm(Strength::Strong)
    );

    let unlabel = row(&summary, "DELETE /repos/octo/hello/issues/1/labels/bug");
    assert_eq!(unlabel.dialect, Some(Dialect::ResolveTool));
    assert_eq!(unlabel.resolved.unwrap().reversible, Some(true));
    assert!(tour::is_trifecta(decided(unlabel)));
    assert!(tour::is_trifecta(&unlabel.without));
    assert_eq!(unlabel.executed, None);

    let secret = row(&summary, "GET /repos/octo/secret");
    assert_eq!(secret.resolved.unwrap().sensitive_data, Some(true));
    assert_eq!(
        decided(secret).verdict(),
        Verdict::Confirm(Strength::Strong)
    );
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
