//! Verdicts, the evidence behind each, the versioned JSON report and the
//! terminal table.

use std::fmt::Write as _;

use serde::Serialize;

use crate::wire::Exchange;

/// The version of the JSON report's format (docs/auditing.md describes it).
pub const REPORT_VERSION: u32 = 2;

/// What a check concluded, by severity: VIOLATION (behaviour or a resolution
/// contradicts a claim), INCONCLUSIVE (could not judge), UNDECLARED (a hint
/// with a meaning is absent: no claim, so hosts assume its risky default),
/// ADVISORY (a portability lint: no claim is wrong), PASS, NOT_APPLICABLE.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(
    tag = "verdict",
    content = "reason",
    rename_all = "SCREAMING_SNAKE_CASE"
)]
pub enum Verdict {
    Pass,
    Violation,
    Inconclusive(String),
    Undeclared,
    Advisory,
    NotApplicable(String),
}

impl Verdict {
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Violation => "VIOLATION",
            Verdict::Inconclusive(_) => "INCONCLUSIVE",
            Verdict::Undeclared => "UNDECLARED",
            Verdict::Advisory => "ADVISORY",
            Verdict::NotApplicable(_) => "NOT_APPLICABLE",
        }
    }
}

/// A pointer to one canonical record (`records.rs`) and its digest.
#[derive(Clone, Debug, Serialize)]
pub struct EvidenceRef {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `sha256:` and the lowercase hex of the digest of the record's JCS bytes.
    pub digest: String,
    pub canonicalization: &'static str,
    pub schema: &'static str,
    /// Where the record is: a JSON Pointer fragment into the report.
    #[serde(rename = "ref")]
    pub reference: String,
}

/// One verdict of one named check on one subject (a tool, a tool and
/// dialect, a tool and action).
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The check's name, such as `behaviour.read_only`.
    pub check: &'static str,
    /// What it is about: `server`, a tool, `tool/dialect`, `tool/action`.
    pub subject: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// What was seen, in one or two sentences.
    pub detail: String,
    /// How many cases the check looked at.
    pub cases: usize,
    /// The exchanges that show the verdict (the failing one first).
    pub evidence: Vec<Exchange>,
    /// The command that replays the case alone, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
    /// The case id for `--replay`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// The finding's canonical record in `records`, and its digest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_ref: Option<EvidenceRef>,
}

impl Finding {
    pub fn new(
        check: &'static str,
        subject: impl Into<String>,
        verdict: Verdict,
        detail: impl Into<String>,
    ) -> Self {
        Finding {
            check,
            subject: subject.into(),
            verdict,
            detail: detail.into(),
            cases: 0,
            evidence: Vec::new(),
            reproduce: None,
            case: None,
            evidence_ref: None,
        }
    }

    pub fn with_evidence(mut self, evidence: Vec<Exchange>) -> Self {
        self.evidence = evidence;
        self
    }

    pub fn with_cases(mut self, cases: usize) -> Self {
        self.cases = cases;
        self
    }

    pub fn with_case(mut self, case: Option<String>) -> Self {
        self.case = case;
        self
    }
}

/// The whole report.
#[derive(Debug, Serialize)]
pub struct Report {
    pub report_version: u32,
    pub auditor: String,
    pub seed: u64,
    pub target: Target,
    pub era: Option<crate::session::Era>,
    pub findings: Vec<Finding>,
    pub summary: Summary,
    /// One canonical record a finding, in order (docs/auditing.md, "Verdicts
    /// others can verify").
    pub records: Vec<serde_json::Value>,
}

#[derive(Debug, Serialize)]
pub struct Target {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub pass: usize,
    pub violation: usize,
    pub inconclusive: usize,
    pub undeclared: usize,
    pub advisory: usize,
    pub not_applicable: usize,
}

impl Summary {
    pub fn of(findings: &[Finding]) -> Summary {
        let mut summary = Summary::default();
        for finding in findings {
            match finding.verdict {
                Verdict::Pass => summary.pass += 1,
                Verdict::Violation => summary.violation += 1,
                Verdict::Inconclusive(_) => summary.inconclusive += 1,
                Verdict::Undeclared => summary.undeclared += 1,
                Verdict::Advisory => summary.advisory += 1,
                Verdict::NotApplicable(_) => summary.not_applicable += 1,
            }
        }
        summary
    }
}

/// The terminal table: one line a finding, violations' details below.
pub fn table(report: &Report) -> String {
    let rows: Vec<[String; 4]> = report
        .findings
        .iter()
        .map(|finding| {
            let reason = match &finding.verdict {
                Verdict::Inconclusive(reason) | Verdict::NotApplicable(reason) => reason.clone(),
                _ => finding.detail.clone(),
            };
            [
                finding.check.to_owned(),
                finding.subject.clone(),
                finding.verdict.label().to_owned(),
                shorten(&reason, 90),
            ]
        })
        .collect();
    let headers = ["CHECK", "SUBJECT", "VERDICT", "DETAIL"];
    let widths: Vec<usize> = (0..3)
        .map(|column| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .chain([headers[column].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, cells: [&str; 4]| {
        let _ = writeln!(
            out,
            "{:w0$}  {:w1$}  {:w2$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
    };
    line(&mut out, headers);
    for row in &rows {
        line(&mut out, [&row[0], &row[1], &row[2], &row[3]]);
    }
    for finding in report
        .findings
        .iter()
        .filter(|f| f.verdict == Verdict::Violation)
    {
        let _ = writeln!(
            out,
            "\nVIOLATION {} on {}: {}",
            finding.check, finding.subject, finding.detail
        );
        if let Some(first) = finding.evidence.first() {
            let _ = writeln!(out, "  request:  {}", shorten(&first.request, 400));
            let response = first
                .response
                .as_deref()
                .or(first.failure.as_deref())
                .unwrap_or("");
            let _ = writeln!(out, "  response: {}", shorten(response, 400));
        }
        if let Some(reproduce) = &finding.reproduce {
            let _ = writeln!(out, "  replay:   {reproduce}");
        }
    }
    let summary = &report.summary;
    let _ = writeln!(
        out,
        "\n{} PASS, {} VIOLATION, {} INCONCLUSIVE, {} UNDECLARED, {} ADVISORY, {} NOT_APPLICABLE (seed {})",
        summary.pass,
        summary.violation,
        summary.inconclusive,
        summary.undeclared,
        summary.advisory,
        summary.not_applicable,
        report.seed
    );
    out
}

fn shorten(text: &str, limit: usize) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() <= limit {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(limit).collect();
    cut.push('…');
    cut
}
