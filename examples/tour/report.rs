//! The tour's rows, its summary, and how both are printed.

use std::collections::BTreeMap;
use std::io::{self, Write};

use annot::client::{Decision, Strength, Verdict};
use annot::protocol::Dialect;
use annot::{Annotations, Hint};

use super::{Client, confirmation, is_trifecta, short};

/// What the host with resolution did with a call.
#[derive(Clone, Debug)]
pub enum WithResolution {
    /// The preflight resolved (or fell back) and the policy and session decided.
    Decided(Decision),
    /// The server answered the preflight with `-32602`: the call is refused
    /// before anyone is asked. Holds the server's message.
    InvalidArguments(String),
}

/// What `tools/call` answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Executed {
    /// The tool ran; its first text content.
    Ok(String),
    /// The tool reported a failure (`isError: true`); its message.
    ToolError(String),
}

/// One proposed call, decided both ways.
#[derive(Clone, Debug)]
pub struct Row {
    /// From 1, in the order of the script.
    pub number: usize,
    /// The tool's name.
    pub tool: String,
    /// The action or method and path.
    pub call: String,
    /// The static annotations of `tools/list`, defaults applied.
    pub declared: Annotations,
    /// What the preflight said, defaults applied; `None` for invalid arguments.
    pub resolved: Option<Annotations>,
    /// The dialect that resolved the call, `None` if it was not resolved.
    pub dialect: Option<Dialect>,
    /// The decision of a host without resolution (its own session tracked).
    pub without: Decision,
    /// The decision with resolution.
    pub with: WithResolution,
    /// The result of `tools/call`, if the call ran.
    pub executed: Option<Executed>,
    /// When the answer left out hints the static annotations declare, and a
    /// host reading the answer alone would have asked less: the hints the
    /// client kept, and that host's decision.
    pub silence: Option<(Vec<Hint>, Decision)>,
}

/// How often one host asked a person or refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Confirmations of any strength.
    pub confirmations: usize,
    /// Strong confirmations.
    pub strong: usize,
    /// Calls refused as completing the lethal trifecta.
    pub trifecta_refusals: usize,
    /// Calls refused because the server rejected their arguments (`-32602`).
    pub invalid_arguments: usize,
}

impl Tally {
    fn count(&mut self, decision: &Decision) {
        if let Some(strength) = confirmation(decision) {
            self.confirmations += 1;
            self.strong += usize::from(strength == Strength::Strong);
        }
        self.trifecta_refusals += usize::from(is_trifecta(decision));
    }
}

/// Every row and the counts computed from them.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The calls, in order.
    pub rows: Vec<Row>,
    /// The host without resolution.
    pub without: Tally,
    /// The host with resolution.
    pub with: Tally,
    /// Calls that ran.
    pub executed: usize,
}

impl Summary {
    /// Counts `rows`.
    pub fn from_rows(rows: Vec<Row>) -> Summary {
        let (mut without, mut with) = (Tally::default(), Tally::default());
        for row in &rows {
            without.count(&row.without);
            match &row.with {
                WithResolution::Decided(decision) => with.count(decision),
                WithResolution::InvalidArguments(_) => with.invalid_arguments += 1,
            }
        }
        let executed = rows.iter().filter(|row| row.executed.is_some()).count();
        Summary {
            rows,
            without,
            with,
            executed,
        }
    }
}

/// A decision in a table cell.
pub fn verdict(decision: &Decision) -> String {
    match decision.verdict() {
        Verdict::Allow => "allow".to_owned(),
        Verdict::Confirm(Strength::Normal) => "confirm".to_owned(),
        Verdict::Confirm(strength) => format!("confirm ({strength})"),
        Verdict::Deny if is_trifecta(decision) => "DENY (trifecta)".to_owned(),
        Verdict::Deny => "DENY".to_owned(),
    }
}

fn dialect_name(dialect: Option<Dialect>) -> &'static str {
    match dialect {
        Some(Dialect::DynamicAnnotations) => "annotations",
        Some(Dialect::ResolveTool) => "resolve",
        Some(Dialect::ToolResolutionExtension) => "extension",
        None => "-",
    }
}

/// Prints the introduction, the table with its reason lines, and the summary.
pub fn print(
    out: &mut impl Write,
    clients: &BTreeMap<&str, Client>,
    summary: &Summary,
) -> io::Result<()> {
    writeln!(
        out,
        "annot tour: one scripted agent session, two MCP servers in this process"
    )?;
    for client in clients.values() {
        for tool in client.tool_names() {
            let method = client.dialect(tool).map_or("nothing", Dialect::method);
            writeln!(
                out,
                "  server {:<13} tool {tool:<13} resolves through {method}",
                client.server()
            )?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Hints: RO read-only, D destructive, I idempotent, OW open world, S sensitive data,"
    )?;
    writeln!(
        out,
        "P privileged access, R reversible; + true, - false (defaults applied)."
    )?;
    writeln!(
        out,
        "Without resolution: the default policy and trifecta tracker on the static annotations."
    )?;
    writeln!(
        out,
        "With resolution: the same on the annotations the server resolved for the arguments."
    )?;
    writeln!(
        out,
        "Silence never lowers risk: a hint an answer leaves out keeps its static value."
    )?;
    writeln!(
        out,
        "Every call not refused runs (the user approves each confirmation)."
    )?;
    writeln!(out)?;
    table(out, &summary.rows)?;
    writeln!(out)?;
    tally(out, summary)
}

fn table(out: &mut impl Write, rows: &[Row]) -> io::Result<()> {
    let header = [
        "#",
        "tool",
        "call",
        "static",
        "resolved",
        "via",
        "without resolution",
        "with resolution",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|row| {
            [
                row.number.to_string(),
                row.tool.clone(),
                row.call.clone(),
                short(&row.declared),
                row.resolved.as_ref().map_or_else(|| "-".to_owned(), short),
                dialect_name(row.dialect).to_owned(),
                verdict(&row.without),
                match &row.with {
                    WithResolution::Decided(decision) => verdict(decision),
                    WithResolution::InvalidArguments(_) => "refused (-32602)".to_owned(),
                },
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for line in &cells {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.len());
        }
    }
    let print_line = |out: &mut dyn Write, line: &[&str]| -> io::Result<()> {
        let mut text = String::new();
        for (index, cell) in line.iter().enumerate() {
            if index == 0 {
                text.push_str(&format!("{cell:>width$}", width = widths[0]));
            } else {
                text.push_str(&format!("  {cell:<width$}", width = widths[index]));
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    print_line(out, &header)?;
    let rule: Vec<String> = widths.iter().map(|width| "-".repeat(*width)).collect();
    print_line(out, &rule.iter().map(String::as_str).collect::<Vec<_>>())?;
    let indent = " ".repeat(widths[0] + 2);
    // A reason already printed in full is referred to by its row, so the
    // trifecta's long sentence appears once per distinct wording.
    let mut first_seen: BTreeMap<String, usize> = BTreeMap::new();
    for (row, line) in rows.iter().zip(&cells) {
        print_line(out, &line.iter().map(String::as_str).collect::<Vec<_>>())?;
        for (side, reason) in notes(row) {
            match first_seen.get(&reason) {
                Some(number) if *number != row.number => {
                    writeln!(out, "{indent}{side}: same reason as row {number}")?;
                }
                _ => {
                    first_seen.insert(reason.clone(), row.number);
                    writeln!(out, "{indent}{side}: {reason}")?;
                }
            }
        }
    }
    Ok(())
}

/// The reasons behind the row's non-allow decisions, and a tool's failure,
/// each as (which side, text).
fn notes(row: &Row) -> Vec<(&'static str, String)> {
    let mut notes = Vec::new();
    let with_reason = match &row.with {
        WithResolution::Decided(decision) => {
            if !decision.is_allowed() {
                notes.push(("with", decision.reason().to_string()));
            }
            Some(decision.reason().message.as_str())
        }
        WithResolution::InvalidArguments(message) => {
            notes.push((
                "with",
                format!("the server rejected the arguments: {message}"),
            ));
            None
        }
    };
    if !row.without.is_allowed() && with_reason != Some(row.without.reason().message.as_str()) {
        notes.push(("without", row.without.reason().to_string()));
    }
    if let Some((kept, alone)) = &row.silence {
        let names: Vec<&str> = kept.iter().map(|hint| hint.wire_name()).collect();
        notes.push((
            "silent",
            format!(
                "the answer left out {}, kept at the static values; read alone it would be {}",
                names.join(", "),
                verdict(alone)
            ),
        ));
    }
    if let Some(Executed::ToolError(message)) = &row.executed {
        notes.push(("server", message.clone()));
    }
    notes
}

fn tally(out: &mut impl Write, summary: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "Summary: {} calls proposed, {} ran.",
        summary.rows.len(),
        summary.executed
    )?;
    writeln!(
        out,
        "{:<38}{:>20}{:>17}",
        "", "without resolution", "with resolution"
    )?;
    let (without, with) = (summary.without, summary.with);
    for (label, without, with) in [
        (
            "confirmations asked",
            without.confirmations,
            with.confirmations,
        ),
        ("  of which strong", without.strong, with.strong),
        (
            "refused: lethal trifecta",
            without.trifecta_refusals,
            with.trifecta_refusals,
        ),
        (
            "refused: invalid arguments (-32602)",
            without.invalid_arguments,
            with.invalid_arguments,
        ),
    ] {
        writeln!(out, "{label:<38}{without:>20}{with:>17}")?;
    }
    Ok(())
}
