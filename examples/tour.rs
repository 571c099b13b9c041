//! A scripted agent session against two real MCP servers, decided twice: on
//! the static annotations of `tools/list` alone, and on the annotations the
//! servers resolve for each call's arguments.
//!
//! ```sh
//! cargo run --example tour
//! ```
//!
//! Both servers run in this process: `manage_files` over a fresh temporary
//! sandbox directory, `github_api` over the in-memory fake GitHub of
//! `examples/github_api.rs`. The client speaks JSON-RPC bytes to them through
//! [`JsonRpcRequester`]: `initialize`, `tools/list`, then for every proposed call
//! a preflight (`tools/annotations` or `tools/resolve`), the default [`Policy`],
//! the [`Session`]'s lethal-trifecta tracker, and `tools/call` for every call
//! not refused (the scripted user approves every confirmation). A second session
//! tracks what a host without resolution would have decided on the same calls,
//! and a `silent:` note shows where an answer left out hints the static
//! annotations declare: the client keeps them (silence never lowers risk), and
//! the note says what a host reading the answer alone would have decided.
//! Each call is shown as a person approving it would read it ("delete
//! scratch.txt"): the call preview its server lists, rendered by
//! `annot::client::display::preview`.
//! Nothing printed is a constant: every row and count comes from those calls.

// Both examples load the `--exposure` flag's module (`common/exposure.rs`),
// each its own private copy.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "manage_files.rs"]
mod files_example;
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "github_api.rs"]
mod github_example;
#[path = "tour/report.rs"]
mod report;
#[path = "tour/script.rs"]
mod script;

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use annot::client::display::preview;
use annot::client::{
    AnnotationSource, ClientExtension, Decision, JsonRpcRequester, Policy, PolicyRule,
    PreflightError, ProposedCall, RequestError, Requester, ResolutionSupport, Session, Trust,
    Verdict,
};
use annot::protocol::Dialect;
use annot::server::Server;
use annot::{Annotations, Hint, Tool};
use files_example::ManageFiles;
use files_example::sandbox::Sandbox;
use github_example::fake::FakeGithub;
pub use report::{Executed, Row, Summary, WithResolution};
use script::{Step, script};
use serde_json::{Map, Value, json};

fn main() -> ExitCode {
    let stdout = io::stdout();
    match run_tour(&mut stdout.lock()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tour: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the whole tour, writing the table and the summary to `out`.
///
/// # Errors
///
/// When the sandbox cannot be set up, `out` cannot be written, or a server
/// answers `initialize`, `tools/list` or `tools/call` with a protocol error
/// (a tool's own failure is a row, not an error).
pub fn run_tour(out: &mut impl Write) -> Result<Summary, TourError> {
    let sandbox = TempSandbox::create()?;
    let files_server = files_server(&sandbox)?;
    let github_server = github_example::server(FakeGithub::seeded(), github_example::TOKEN_SCOPES);
    let mut clients = BTreeMap::new();
    clients.insert(
        "manage_files",
        Client::connect("manage_files", &files_server)?,
    );
    clients.insert("github_api", Client::connect("github_api", &github_server)?);

    let policy = Policy::default();
    let mut with_resolution = Session::default();
    let mut without_resolution = Session::default();
    let mut rows = Vec::new();
    for (index, step) in script().into_iter().enumerate() {
        let client = clients
            .get_mut(step.tool)
            .ok_or_else(|| TourError::Listing(format!("no client for `{}`", step.tool)))?;
        let row = play(
            index + 1,
            &step,
            client,
            &policy,
            &mut with_resolution,
            &mut without_resolution,
        )?;
        rows.push(row);
    }
    let summary = Summary::from_rows(rows);
    report::print(out, &clients, &summary)?;
    Ok(summary)
}

/// Decides one call both ways, runs it if the resolved decision lets it run,
/// and records it in each session that would have run it.
fn play(
    number: usize,
    step: &Step,
    client: &mut Client,
    policy: &Policy,
    with_resolution: &mut Session,
    without_resolution: &mut Session,
) -> Result<Row, TourError> {
    let tool = client.tool(step.tool)?.clone();
    let declared = tool
        .annotations
        .as_ref()
        .map(|annotations| annotations.hints())
        .unwrap_or_default();
    let arguments = &step.arguments;
    // A host without resolution: the listed annotations, the same policy and
    // the same tracker.
    let listed = ProposedCall::new(step.tool, arguments, declared, client.trust);
    let without = without_resolution.review(&listed, policy.decide(&listed));

    let mut row = Row {
        number,
        tool: step.tool.to_owned(),
        call: describe(&tool, arguments),
        declared: declared.effective(),
        resolved: None,
        dialect: None,
        without: without.clone(),
        with: WithResolution::InvalidArguments(String::new()),
        executed: None,
        silence: None,
    };
    let preflight = match client
        .support
        .preflight(&mut client.requester, &tool, arguments)
    {
        Ok(preflight) => preflight,
        Err(PreflightError::InvalidParams { error, .. }) => {
            // Refused before anyone is asked; no session records a call
            // that the server would reject.
            row.with = WithResolution::InvalidArguments(format!("-32602 {}", error.message));
            return Ok(row);
        }
        Err(other) => return Err(TourError::Preflight(other)),
    };
    row.dialect = match &preflight.source {
        AnnotationSource::Resolved(dialect) => Some(*dialect),
        _ => None,
    };
    row.resolved = Some(preflight.annotations());
    let call = ProposedCall::from_preflight(&preflight, arguments, client.trust);
    let with = with_resolution.review(&call, policy.decide(&call));
    if let Some(resolution) = preflight.resolved {
        // What a host that reads the answer alone would decide: every hint
        // the answer left out at its default, not at its static value.
        let stated = resolution.stated();
        let alone = ProposedCall::new(step.tool, arguments, stated, client.trust);
        let alone = with_resolution.review(&alone, policy.decide(&alone));
        let kept: Vec<Hint> = Hint::ALL
            .into_iter()
            .filter(|&hint| {
                let kept = resolution.annotations().effective().get(hint);
                stated.get(hint).is_none() && kept != stated.effective().get(hint)
            })
            .collect();
        if alone.verdict() < with.verdict() {
            row.silence = Some((kept, alone));
        }
    }
    if !without.is_denied() {
        without_resolution.record(&listed);
    }
    if !with.is_denied() {
        // The call ran (the scripted user approves every confirmation), so
        // whatever it brought in belongs to the session, even an error message.
        row.executed = Some(client.call(step.tool, arguments)?);
        with_resolution.record(&call);
    }
    row.with = WithResolution::Decided(with);
    Ok(row)
}

/// `read notes.md`, `GET /repos/octo/hello`: what the call does, in brief,
/// as a confirmation prompt shows it. It is the call preview the server
/// lists on the tool (the display-templates extension), rendered by
/// `annot::client::display::preview`; the raw arguments when the tool offers
/// none.
fn describe(tool: &Tool, arguments: &Map<String, Value>) -> String {
    let listed = serde_json::to_value(tool).expect("a listed tool serializes");
    preview(&listed, arguments).unwrap_or_else(|| Value::Object(arguments.clone()).to_string())
}

/// The `manage_files` server over the sandbox. It speaks only the oldest
/// dialect, `tools/annotations`, as a server written before `tools/resolve`
/// would; the client picks whatever each server offers.
fn files_server(sandbox: &TempSandbox) -> Result<Server, TourError> {
    let confined = Sandbox::open(sandbox.path.clone()).map_err(|error| TourError::Sandbox {
        path: sandbox.path.clone(),
        error,
    })?;
    Server::builder("annot-manage-files", env!("CARGO_PKG_VERSION"))
        .dialects([Dialect::DynamicAnnotations])
        .tool_with_call(move |arguments: ManageFiles, call: &annot::server::Call| {
            files_example::run(&confined, arguments, call)
        })
        .build()
        .map_err(|error| TourError::Listing(format!("the manage_files server: {error}")))
}

type Exchange = Box<dyn FnMut(&[u8]) -> Option<Vec<u8>>>;

/// One client connection: JSON-RPC bytes to an in-process server.
pub struct Client {
    server: &'static str,
    requester: JsonRpcRequester<Exchange>,
    support: ResolutionSupport,
    tools: Vec<Tool>,
    trust: Trust,
}

impl Client {
    /// Connects, runs `initialize` and lists the tools. The client does not
    /// offer the tool-resolution extension: its answers carry only the four
    /// core hints, and this policy also weighs sensitive data, privileged
    /// access and reversibility, which `tools/resolve` (SEP-1862) resolves.
    fn connect(server_name: &'static str, server: &Server) -> Result<Client, TourError> {
        let mut connection = server.connect();
        let exchange: Exchange = Box::new(move |message: &[u8]| connection.handle(message));
        let mut requester = JsonRpcRequester::new(exchange);
        let failed = |method: &str, error: RequestError| TourError::Request {
            server: server_name,
            method: method.to_owned(),
            error,
        };
        let initialize = requester
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "clientInfo": {"name": "annot-tour", "version": env!("CARGO_PKG_VERSION")},
                    "capabilities": {}
                }),
            )
            .map_err(|error| failed("initialize", error))?;
        requester
            .notify("notifications/initialized", json!({}))
            .map_err(|error| failed("notifications/initialized", error))?;
        let support =
            ResolutionSupport::from_initialize_result(&initialize, ClientExtension::NotOffered);
        let listed = requester
            .request("tools/list", json!({}))
            .map_err(|error| failed("tools/list", error))?;
        let tools = serde_json::from_value(listed["tools"].clone()).map_err(|error| {
            TourError::Listing(format!("tools/list of {server_name} is malformed: {error}"))
        })?;
        Ok(Client {
            server: server_name,
            requester,
            support,
            tools,
            // The host runs both servers itself.
            trust: Trust::Trusted,
        })
    }

    /// The server's name, as the tour calls it.
    pub fn server(&self) -> &'static str {
        self.server
    }

    /// The dialect this client would use for `tool`, or `None`.
    pub fn dialect(&self, tool: &str) -> Option<Dialect> {
        let tool = self.tools.iter().find(|listed| listed.name == tool)?;
        self.support.dialect_for(tool).ok()
    }

    /// The listed tools' names.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|tool| tool.name.as_str())
    }

    fn tool(&self, name: &str) -> Result<&Tool, TourError> {
        self.tools
            .iter()
            .find(|tool| tool.name == name)
            .ok_or_else(|| TourError::Listing(format!("{} lists no `{name}`", self.server)))
    }

    /// Runs `tools/call` and tells success from the tool's own failure.
    fn call(&mut self, tool: &str, arguments: &Map<String, Value>) -> Result<Executed, TourError> {
        let result = self
            .requester
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .map_err(|error| TourError::Request {
                server: self.server,
                method: "tools/call".to_owned(),
                error,
            })?;
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        Ok(if result["isError"] == json!(true) {
            Executed::ToolError(text)
        } else {
            Executed::Ok(text)
        })
    }
}

/// A fresh directory holding a few notes, removed when dropped.
struct TempSandbox {
    path: PathBuf,
}

impl TempSandbox {
    fn create() -> Result<TempSandbox, TourError> {
        static CREATED: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "annot-tour-{}-{}",
            std::process::id(),
            CREATED.fetch_add(1, Ordering::Relaxed)
        ));
        let sandbox = TempSandbox { path };
        let failed = |error| TourError::Sandbox {
            path: sandbox.path.clone(),
            error,
        };
        std::fs::create_dir_all(&sandbox.path).map_err(failed)?;
        for (name, text) in [
            ("notes.md", "- octo/hello wants a French greeting\n"),
            ("todo.md", "- read the issues\n"),
            ("scratch.txt", "draft\n"),
        ] {
            std::fs::write(sandbox.path.join(name), text).map_err(failed)?;
        }
        Ok(sandbox)
    }
}

impl Drop for TempSandbox {
    fn drop(&mut self) {
        // Best effort: a leftover directory in the temporary folder is harmless.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Why the tour could not run to the end.
#[derive(Debug)]
pub enum TourError {
    /// The temporary sandbox could not be set up.
    Sandbox { path: PathBuf, error: io::Error },
    /// The output could not be written.
    Output(io::Error),
    /// A server answered a protocol request with an error, or not at all.
    Request {
        server: &'static str,
        method: String,
        error: RequestError,
    },
    /// A server or its tool list is not what the tour expects.
    Listing(String),
    /// A preflight failed in a way the client does not know.
    Preflight(PreflightError),
}

impl fmt::Display for TourError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TourError::Sandbox { path, error } => {
                write!(f, "cannot set up the sandbox {}: {error}", path.display())
            }
            TourError::Output(error) => write!(f, "cannot write the report: {error}"),
            TourError::Request {
                server,
                method,
                error,
            } => write!(f, "{server} failed `{method}`: {error}"),
            TourError::Listing(detail) => f.write_str(detail),
            TourError::Preflight(error) => write!(f, "preflight failed: {error}"),
        }
    }
}

impl std::error::Error for TourError {}

impl From<io::Error> for TourError {
    fn from(error: io::Error) -> Self {
        TourError::Output(error)
    }
}

/// Whether a decision refused a call as the lethal trifecta.
pub fn is_trifecta(decision: &Decision) -> bool {
    decision.is_denied() && decision.reason().rule == PolicyRule::Trifecta
}

/// Whether a decision asks a person, and how insistently.
pub fn confirmation(decision: &Decision) -> Option<annot::client::Strength> {
    match decision.verdict() {
        Verdict::Confirm(strength) => Some(strength),
        _ => None,
    }
}

/// The annotations' hints in short form: `RO- D+ I- OW-` and, when set,
/// `S` (sensitive data), `P` (privileged access), `R` (reversible).
pub fn short(annotations: &Annotations) -> String {
    let mark = |value: Option<bool>| match value {
        Some(true) => "+",
        Some(false) => "-",
        None => "?",
    };
    let mut parts: Vec<String> = [
        ("RO", annotations.read_only),
        ("D", annotations.destructive),
        ("I", annotations.idempotent),
        ("OW", annotations.open_world),
    ]
    .into_iter()
    .map(|(name, value)| format!("{name}{}", mark(value)))
    .collect();
    for (name, value) in [
        ("S", annotations.sensitive_data),
        ("P", annotations.privileged_access),
        ("R", annotations.reversible),
    ] {
        parts.push(match value {
            Some(_) => format!("{name}{}", mark(value)),
            None => "  ".to_owned(),
        });
    }
    parts.join(" ").trim_end().to_owned()
}
