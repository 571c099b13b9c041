//! `annot-audit`: checks any MCP server's tool annotations, static and
//! resolved, against what its tools do. See docs/auditing.md.
//!
//! ```sh
//! annot-audit --exercise -- target/debug/examples/manage_files .
//! annot-audit --url http://127.0.0.1:8080/mcp
//! ```

mod behaviour;
mod declarations;
mod generate;
mod namespace;
mod records;
mod report;
mod resolution;
mod session;
mod snapshot;
mod transport;
mod warm;
mod wire;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use serde_json::Value;

use declarations::{Announced, marked};
use report::{Finding, Report, Summary, Verdict};
use resolution::Dialect;
use session::{Connection, Era, Launch, Offer, Server};

/// Audits an MCP server's tool annotations: declarations, resolutions and
/// (with --exercise) behaviour in a sandbox.
#[derive(Parser, Debug)]
#[command(
    name = "annot-audit",
    version,
    after_help = "Exit codes: 0 done (whatever the verdicts, unless a --fail-on option), 1 a VIOLATION with --fail-on-violation, 2 bad usage or failed setup, 3 an UNDECLARED hint with --fail-on-undeclared (and no exit 1)."
)]
struct Cli {
    /// A Streamable HTTP endpoint. With a command too, the auditor starts the
    /// command in the sandbox and talks to it at this URL.
    #[arg(long)]
    url: Option<String>,
    /// Seed the sandbox (the server's working directory) from this directory
    /// or SQLite file; by default two text files and a SQLite database.
    #[arg(long)]
    fixture: Option<PathBuf>,
    /// Force the protocol era instead of detecting it.
    #[arg(long, value_enum)]
    era: Option<Era>,
    /// Run the behaviour tier: exercise calls in the sandbox.
    #[arg(long)]
    exercise: bool,
    /// Also observe calls that claim `idempotentHint: false` or
    /// `destructiveHint: true`, and say in the NOT_APPLICABLE reason how many
    /// behaved as if they had not (over-declarations; never a VIOLATION).
    #[arg(long)]
    over_declarations: bool,
    /// Exit with 1 when any check gives VIOLATION.
    #[arg(long)]
    fail_on_violation: bool,
    /// Exit with 3 when a hint that means something is absent (UNDECLARED)
    /// and no VIOLATION made the exit 1.
    #[arg(long)]
    fail_on_undeclared: bool,
    /// Write the versioned JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Seed of argument generation: the same seed gives the same sets.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Argument sets to resolve per tool and dialect (at least).
    #[arg(long, default_value_t = 200)]
    resolutions: usize,
    /// Argument sets to exercise in all (behaviour tier).
    #[arg(long, default_value_t = 40)]
    calls: usize,
    /// More argument sets: a JSON object from tool name to an array of argument objects.
    #[arg(long, value_name = "FILE")]
    args: Option<PathBuf>,
    /// Run one case alone, as a report names it (`TOOL#INDEX`), and print its exchanges.
    #[arg(long, value_name = "TOOL#INDEX")]
    replay: Option<String>,
    /// Milliseconds to wait for each answer.
    #[arg(long, default_value_t = 30_000)]
    timeout_ms: u64,
    /// An environment variable for the server, `KEY=VALUE`; `{sandbox}` in
    /// VALUE (and in the command's arguments) is the sandbox's absolute path.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    envs: Vec<String>,
    /// Do not give the server a network namespace (closed-world checks become INCONCLUSIVE).
    /// Also set by the environment variable ANNOT_AUDIT_NO_NETNS=1.
    #[arg(long)]
    no_namespace: bool,
    /// The server's command and arguments (after `--`).
    #[arg(last = true)]
    command: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(report) => {
            if cli.replay.is_some() {
                for finding in &report.findings {
                    println!(
                        "{} {} {}: {}",
                        finding.verdict.label(),
                        finding.check,
                        finding.subject,
                        finding.detail
                    );
                    for exchange in &finding.evidence {
                        println!("  > {}", exchange.request);
                        println!(
                            "  < {}",
                            exchange
                                .response
                                .as_deref()
                                .or(exchange.failure.as_deref())
                                .unwrap_or("")
                        );
                    }
                }
            }
            print!("{}", report::table(&report));
            if let Some(path) = &cli.json {
                let text = serde_json::to_string_pretty(&report).expect("the report serializes");
                if let Err(error) = std::fs::write(path, text) {
                    eprintln!("annot-audit: cannot write {}: {error}", path.display());
                    return ExitCode::from(2);
                }
            }
            if cli.fail_on_violation && report.summary.violation > 0 {
                ExitCode::from(1)
            } else if cli.fail_on_undeclared && report.summary.undeclared > 0 {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(error) => {
            eprintln!("annot-audit: {error}");
            ExitCode::from(2)
        }
    }
}

fn parse_replay(text: &str) -> Result<(String, usize), String> {
    let (tool, index) = text.rsplit_once('#').ok_or("--replay takes TOOL#INDEX")?;
    let index = index
        .parse()
        .map_err(|_| format!("--replay {text}: INDEX is not a number"))?;
    Ok((tool.to_owned(), index))
}

fn read_extra(path: &Option<PathBuf>) -> Result<BTreeMap<String, Vec<Value>>, String> {
    let Some(path) = path else {
        return Ok(BTreeMap::new());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let object = value.as_object().ok_or_else(|| {
        format!(
            "{}: must be an object from tool name to an array of argument objects",
            path.display()
        )
    })?;
    let mut extra = BTreeMap::new();
    for (tool, sets) in object {
        let sets = sets
            .as_array()
            .ok_or_else(|| format!("{}: `{tool}` must be an array", path.display()))?;
        extra.insert(tool.clone(), sets.clone());
    }
    Ok(extra)
}

fn run(cli: &Cli) -> Result<Report, String> {
    if cli.command.is_empty() && cli.url.is_none() {
        return Err("give a server: `-- <command> [args...]` or `--url <URL>`".into());
    }
    let only = cli.replay.as_deref().map(parse_replay).transpose()?;
    let only = only.as_ref().map(|(tool, index)| (tool.as_str(), *index));
    let extra = read_extra(&cli.args)?;
    let namespaces = !cli.no_namespace
        && std::env::var_os("ANNOT_AUDIT_NO_NETNS").is_none_or(|v| v.is_empty() || v == "0");
    let mut command = cli.command.clone();
    // The server runs in the sandbox: a relative program path is the caller's.
    if let Some(program) = command.first_mut()
        && program.contains('/')
        && !program.starts_with('/')
    {
        let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        *program = cwd.join(&*program).to_string_lossy().into_owned();
    }
    let mut env = Vec::new();
    for pair in &cli.envs {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("--env {pair}: expected KEY=VALUE"))?;
        env.push((key.to_owned(), value.to_owned()));
    }
    let launch = Launch {
        command,
        env,
        url: cli.url.clone(),
        era: cli.era,
        namespaces,
        timeout: Duration::from_millis(cli.timeout_ms),
    };
    let sandbox = tempfile::Builder::new()
        .prefix("annot-audit-")
        .tempdir()
        .map_err(|e| format!("cannot make the sandbox: {e}"))?;
    let default_fixture = tempfile::Builder::new()
        .prefix("annot-audit-fixture-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let fixture = match &cli.fixture {
        Some(fixture) if fixture.exists() => fixture.clone(),
        Some(fixture) => return Err(format!("the fixture {} does not exist", fixture.display())),
        None => {
            snapshot::default_fixture(default_fixture.path())?;
            default_fixture.path().to_owned()
        }
    };
    snapshot::seed(&fixture, sandbox.path())
        .map_err(|e| format!("cannot seed the sandbox: {e}"))?;

    let mut server = Server::start(&launch, sandbox.path())?;
    let mut main = server.connect(Offer::Extension)?;
    let era = main.era;
    let server_info = main
        .handshake
        .iter()
        .filter_map(|exchange| exchange.result())
        .find_map(|result| result.get("serverInfo").cloned())
        .unwrap_or(Value::Null);
    let (listing, tools) = main.list_tools();
    if listing
        .first()
        .and_then(|exchange| exchange.result())
        .is_none()
    {
        return Err(format!(
            "tools/list failed: {}",
            listing.first().map(|e| e.outcome()).unwrap_or_default()
        ));
    }
    let mut findings: Vec<Finding> = Vec::new();
    if only.is_none() {
        findings.extend(declarations::check(&listing, &tools, &main.capabilities));
    }

    let announced = Announced::of(&main.capabilities);
    let per_dialect = cli.resolutions.max(1) as u64;
    let progress = indicatif::ProgressBar::new(
        tools.len() as u64 * per_dialect * 3 + if cli.exercise { cli.calls as u64 } else { 0 },
    );
    if let Ok(style) =
        indicatif::ProgressStyle::default_bar().template("{spinner} {bar:40} {pos}/{len} {msg}")
    {
        progress.set_style(style);
    }
    let extra_for = |tool: &str| extra.get(tool).cloned().unwrap_or_default();
    let mut keep: Vec<Server> = Vec::new();
    let open =
        |offer: Offer, server: &mut Server, keep: &mut Vec<Server>| -> Result<Connection, String> {
            let (other, connection) = server.second_connection(offer)?;
            keep.extend(other);
            Ok(connection)
        };
    // One dialect on a pair of connections: the tools marked for it, each
    // resolved on `first` and again on `second`.
    let resolve_in =
        |dialect: Dialect, first: &mut Connection, second: &mut Connection, tools: &[Value]| {
            resolution::check(
                resolution::Plan {
                    dialect,
                    first,
                    second,
                    tools,
                    seed: cli.seed,
                    count: cli.resolutions,
                    extra: &extra_for,
                    only,
                    progress: &progress,
                },
                |tool| marked(tool).offers(dialect),
            )
        };
    let mut resolution_findings = Vec::new();
    if announced.extension {
        let mut second = open(Offer::Extension, &mut server, &mut keep)?;
        resolution_findings.extend(resolve_in(
            Dialect::Extension,
            &mut main,
            &mut second,
            &tools,
        ));
    }
    if announced.resolve || announced.dynamic_annotations {
        // Without the extension the server answers tools/resolve in SEP-1862's shape.
        let (mut first, mut second, plain_tools) = if announced.extension {
            let mut first = open(Offer::Plain, &mut server, &mut keep)?;
            let (_, plain_tools) = first.list_tools();
            (
                first,
                open(Offer::Plain, &mut server, &mut keep)?,
                plain_tools,
            )
        } else {
            (
                open(Offer::Plain, &mut server, &mut keep)?,
                open(Offer::Plain, &mut server, &mut keep)?,
                tools.clone(),
            )
        };
        if announced.resolve {
            if first.era == Era::Legacy {
                resolution_findings.extend(resolve_in(
                    Dialect::ResolveTool,
                    &mut first,
                    &mut second,
                    &plain_tools,
                ));
            } else {
                resolution_findings.push(Finding::new(
                    "resolve.within_bound",
                    "server [tools/resolve (SEP-1862)]",
                    Verdict::NotApplicable(
                        "SEP-1862's shape belongs to handshake sessions; the server speaks \
                         2026-07-28"
                            .into(),
                    ),
                    "",
                ));
            }
        }
        if announced.dynamic_annotations {
            resolution_findings.extend(resolve_in(
                Dialect::Annotations,
                &mut first,
                &mut second,
                &plain_tools,
            ));
        }
    }
    if resolution_findings.is_empty() && only.is_none() {
        resolution_findings.push(Finding::new(
            "resolve.within_bound",
            "server",
            Verdict::NotApplicable(
                "the server offers no resolution dialect (static annotations only)".into(),
            ),
            "",
        ));
    }
    findings.extend(resolution_findings);
    drop(keep);
    server.stop();
    drop(main);

    if cli.exercise {
        if cli.command.is_empty() {
            findings.push(Finding::new("behaviour", "server", Verdict::NotApplicable("a server reached only by --url cannot be sandboxed; give its command after `--` too".into()), ""));
        } else {
            let dialect_for = |tool: &Value| {
                let marks = marked(tool);
                if announced.extension && marks.extension {
                    Some(Dialect::Extension)
                } else if announced.dynamic_annotations
                    && (marks.dynamic_annotations || marks.extension)
                {
                    Some(Dialect::Annotations)
                } else {
                    None
                }
            };
            // The era found once: later starts skip its detection.
            let behaviour_launch = Launch {
                era: Some(era),
                ..launch.clone()
            };
            findings.extend(behaviour::check(behaviour::Plan {
                launch: &behaviour_launch,
                sandbox: sandbox.path(),
                fixture: &fixture,
                tools: &tools,
                dialect_for: &dialect_for,
                seed: cli.seed,
                calls: cli.calls,
                only,
                over_declarations: cli.over_declarations,
                progress: &progress,
            })?);
        }
    }
    progress.finish_and_clear();

    for finding in &mut findings {
        if let Some(case) = &finding.case {
            finding.reproduce = Some(replay_command(cli, case));
        }
    }
    let auditor = format!("annot-audit {}", env!("CARGO_PKG_VERSION"));
    let records = records::cite(
        &records::Context {
            auditor: &auditor,
            seed: cli.seed,
            server_info,
            command: &cli.command,
            url: cli.url.as_deref(),
        },
        &mut findings,
    )?;
    Ok(Report {
        report_version: report::REPORT_VERSION,
        auditor,
        seed: cli.seed,
        target: report::Target {
            command: cli.command.clone(),
            url: cli.url.clone(),
        },
        era: Some(era),
        summary: Summary::of(&findings),
        findings,
        records,
    })
}

/// The command line that replays one case alone.
fn replay_command(cli: &Cli, case: &str) -> String {
    let quote = |text: &str| {
        if text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@#".contains(c))
        {
            text.to_owned()
        } else {
            format!("'{}'", text.replace('\'', "'\\''"))
        }
    };
    let mut parts = vec![
        "annot-audit".to_owned(),
        format!("--seed {}", cli.seed),
        format!("--resolutions {}", cli.resolutions),
        format!("--calls {}", cli.calls),
    ];
    if cli.exercise {
        parts.push("--exercise".into());
    }
    if let Some(url) = &cli.url {
        parts.push(format!("--url {}", quote(url)));
    }
    if let Some(fixture) = &cli.fixture {
        parts.push(format!("--fixture {}", quote(&fixture.to_string_lossy())));
    }
    for pair in &cli.envs {
        parts.push(format!("--env {}", quote(pair)));
    }
    if let Some(args) = &cli.args {
        parts.push(format!("--args {}", quote(&args.to_string_lossy())));
    }
    parts.push(format!("--replay {}", quote(case)));
    if !cli.command.is_empty() {
        parts.push("--".into());
        parts.extend(cli.command.iter().map(|part| quote(part)));
    }
    parts.join(" ")
}
