//! `annot-gateway`: put per-call annotations, a profile, bound confirmations
//! and a decision log in front of an MCP server you did not write.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use std::collections::BTreeMap;

use annot_gateway::config::{
    self, ConfigFile, ConfirmMode, Settings, UpstreamConfig, UpstreamSpec,
};
use annot_gateway::{ConfigError, Store, StoreLocation};
use clap::{Parser, Subcommand};

/// An MCP gateway: argument-specific annotations, profiles, confirmations
/// bound to the call and a decision log, in front of any MCP server.
///
/// Serves the host on stdin and stdout (or, with `--http`, hosts over
/// Streamable HTTP, each session with its own upstream processes), and runs the upstream
/// server given after `--` (or in the configuration file).
#[derive(Parser, Debug)]
#[command(
    name = "annot-gateway",
    version,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeOptions,
}

#[derive(clap::Args, Debug)]
struct ServeOptions {
    /// Only calls whose resolved annotations satisfy this pass: read-only,
    /// no-destructive, closed-world, no-privileged or any, joined with `+`.
    #[arg(long)]
    profile: Option<String>,
    /// How tools are shown: resolvable, per-action (one tool per action of a
    /// tool the configuration splits) or auto.
    #[arg(long)]
    exposure: Option<String>,
    /// A call the policy wants confirmed: ask the host (elicitation), deny
    /// it, leave it to the host's own approval, or queue it on the approvals
    /// page (`page`, with --http or --approvals-listen).
    #[arg(long, value_enum)]
    confirm: Option<ConfirmMode>,
    /// The configuration file (TOML).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The store every gateway process shares (the decision log, pinned
    /// definitions, risk, confirmations): a SQLite file's path or a
    /// postgres:// URL. Default: annot-gateway/log.sqlite3 in the user's
    /// state directory. --log is its older name.
    #[arg(long, alias = "log", value_name = "URL")]
    store: Option<String>,
    /// The risk key of callers without a token: gateways given the same key
    /// share one lethal trifecta (default: each session its own).
    #[arg(long, value_name = "KEY")]
    risk_key: Option<String>,
    /// Keep only the arguments' digest in the log, not the arguments.
    #[arg(long)]
    no_log_arguments: bool,
    /// An annot-audit JSON report of the upstream: hints it saw violated are
    /// raised.
    #[arg(long)]
    audit: Option<PathBuf>,
    /// Seconds the upstream may take to answer one request.
    #[arg(long)]
    timeout: Option<u64>,
    /// Serve hosts over MCP Streamable HTTP at http://ADDR/mcp instead of
    /// stdin and stdout, each MCP session with its own upstream processes,
    /// until SIGINT or SIGTERM. Port 0 picks a free port (the address is
    /// written to stderr).
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// With --http: end a session after this many seconds without a request
    /// or an open stream (0: never).
    #[arg(long, value_name = "SECS", default_value_t = 1800, requires = "http")]
    http_idle_timeout: u64,
    /// With --http: start every session id with NAME and a dot (`NAME.<hex>`),
    /// so a load balancer in front of several gateway processes routes each
    /// session to the process that holds it (1 to 32 letters, digits, `-`, `_`).
    #[arg(long, value_name = "NAME", requires = "http", value_parser = annot_gateway::http::check_tag)]
    tag: Option<String>,
    /// How long a call waits on the approvals page for a decision before it
    /// is refused (`90s`, `2m`; default 2m). Turns the page on.
    #[arg(long, value_name = "DURATION")]
    approval_wait: Option<String>,
    /// With the host on stdio: serve the approvals page at
    /// http://ADDR/approvals (loopback, unless [auth] is configured). Turns
    /// the page on.
    #[arg(long, value_name = "ADDR", conflicts_with = "http")]
    approvals_listen: Option<std::net::SocketAddr>,
    /// The upstream server's command and arguments.
    #[arg(last = true)]
    upstream: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Tool definitions that changed and wait for an operator.
    Pins {
        #[command(subcommand)]
        action: PinsAction,
        /// The store (a SQLite file's path or a postgres:// URL).
        #[arg(long, alias = "log", global = true, value_name = "URL")]
        store: Option<String>,
    },
    /// Prints the decision log as JSON Lines, one call a line.
    Export {
        /// The store (a SQLite file's path or a postgres:// URL).
        #[arg(long, alias = "log", value_name = "URL")]
        store: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
enum PinsAction {
    /// Lists the changed definitions withheld from the host.
    List,
    /// Accepts the changed definition of a tool: it is listed again.
    Accept {
        /// The tool's name at its upstream.
        tool: String,
        /// The upstream's name (`upstream` when there is one).
        #[arg(long, default_value = "upstream")]
        upstream: String,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ANNOT_GATEWAY_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Some(Command::Pins { action, store }) => pins(action, store),
        Some(Command::Export { store }) => export(store),
        None => serve(cli.serve),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("annot-gateway: {message}");
            ExitCode::from(2)
        }
    }
}

fn serve(options: ServeOptions) -> Result<(), String> {
    let http = options.http.map(|listen| annot_gateway::HttpOptions {
        listen,
        idle_timeout: (options.http_idle_timeout > 0)
            .then(|| Duration::from_secs(options.http_idle_timeout)),
        tag: options.tag.clone(),
    });
    let served_over_http = http.is_some();
    let settings = settings(options).map_err(|error| error.to_string())?;
    match &settings.approvals {
        Some(approvals) if served_over_http && approvals.listen.is_some() => {
            return Err(
                "with --http the approvals page is at /approvals of its address: \
                 [approvals] listen (--approvals-listen) is for a host on stdio"
                    .to_owned(),
            );
        }
        Some(approvals) if !served_over_http && approvals.listen.is_none() => {
            return Err(
                "the approvals page ([approvals], --confirm page) needs an address: \
                 --http ADDR (it is then at /approvals), or, with the host on stdio, \
                 --approvals-listen ADDR ([approvals] listen)"
                    .to_owned(),
            );
        }
        _ => {}
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    let served = match http {
        Some(http) => runtime.block_on(annot_gateway::serve_http(settings, http)),
        None => runtime.block_on(annot_gateway::serve_stdio(settings)),
    };
    served.map_err(|error| error.to_string())?;
    // The upstream and any blocked reads go with the runtime.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

fn settings(options: ServeOptions) -> Result<Settings, ConfigError> {
    let file = match &options.config {
        Some(path) => ConfigFile::read(path)?,
        None => ConfigFile::default(),
    };
    let section = file.gateway;
    let upstreams = upstreams(&options.upstream, file.upstream, file.tools, file.upstreams)?;
    let profile = match options.profile.or(section.profile) {
        Some(text) => config::parse_profile(&text)?,
        None => annot_runtime::server::Profile::any(),
    };
    let exposure = match options.exposure.or(section.exposure) {
        Some(text) => config::parse_exposure(&text)?,
        None => annot_runtime::server::Exposure::Auto,
    };
    let confirm = options
        .confirm
        .or(section.confirm)
        .unwrap_or(ConfirmMode::Ask);
    let page_asked = options.approval_wait.is_some() || options.approvals_listen.is_some();
    let approvals = match (&file.approvals, page_asked, confirm) {
        (None, false, mode) if mode != ConfirmMode::Page => None,
        (section, _, _) => Some(
            section
                .clone()
                .unwrap_or_default()
                .settings(options.approval_wait.as_deref(), options.approvals_listen)?,
        ),
    };
    let gateway_log = section.log.map(|path| path.to_string_lossy().into_owned());
    let store = match options.store.or(file.store.url).or(gateway_log) {
        Some(text) => StoreLocation::parse(&text),
        None => StoreLocation::Sqlite(default_log()?),
    };
    if let Some(auth) = &file.auth {
        auth.check()?;
    }
    Ok(Settings {
        upstreams,
        profile,
        exposure,
        confirm,
        policy: file.policy.policy(),
        on_trifecta: file.policy.on_trifecta(),
        timeout: Duration::from_secs(options.timeout.or(section.timeout_seconds).unwrap_or(60)),
        store,
        risk_key: options.risk_key.or(file.store.risk_key),
        log_arguments: !options.no_log_arguments && section.log_arguments.unwrap_or(true),
        audit: options.audit.or(section.audit),
        auth: file.auth,
        approvals,
    })
}

/// The upstreams: the command after `--` or `[upstream]`, with the file's
/// `[tools]`; or every `[upstreams.NAME]`. Hint names are checked now; rule
/// text once the upstream lists its tools (the rules are checked against
/// each tool's `inputSchema`).
fn upstreams(
    command: &[String],
    upstream: Option<UpstreamSpec>,
    tools: BTreeMap<String, config::ToolRules>,
    several: BTreeMap<String, config::UpstreamEntry>,
) -> Result<Vec<UpstreamConfig>, ConfigError> {
    let single = match (command.split_first(), upstream) {
        (Some((command, args)), _) => Some(UpstreamSpec {
            command: command.clone(),
            args: args.to_vec(),
            ..UpstreamSpec::default()
        }),
        (None, upstream) => upstream,
    };
    let upstreams: Vec<UpstreamConfig> = match (single, several.is_empty()) {
        (Some(spec), true) => vec![UpstreamConfig {
            name: "upstream".into(),
            spec,
            tools,
        }],
        (None, false) if tools.is_empty() => several
            .into_iter()
            .map(|(name, entry)| {
                config::check_upstream_name(&name)?;
                Ok(UpstreamConfig {
                    name,
                    spec: UpstreamSpec {
                        command: entry.command,
                        args: entry.args,
                        env: entry.env,
                        url: entry.url,
                        headers: entry.headers,
                        ca_file: entry.ca_file,
                    },
                    tools: entry.tools,
                })
            })
            .collect::<Result<_, ConfigError>>()?,
        (None, false) => {
            return Err(ConfigError::Invalid(
                "with [upstreams.NAME], each upstream's rules go under \
                 [upstreams.NAME.tools.TOOL], not [tools.TOOL]"
                    .into(),
            ));
        }
        (Some(_), false) => {
            return Err(ConfigError::Invalid(
                "give one upstream (a command after `--`, or [upstream]) or several \
                 ([upstreams.NAME]), not both"
                    .into(),
            ));
        }
        (None, true) => {
            return Err(ConfigError::Invalid(
                "no upstream server: give its command after `--` (annot-gateway -- npx -y \
                 @modelcontextprotocol/server-filesystem DIR) or an [upstream] in --config"
                    .into(),
            ));
        }
    };
    for upstream in &upstreams {
        upstream.spec.check(&upstream.name)?;
        for (tool, rules) in &upstream.tools {
            rules.check(tool)?;
        }
    }
    Ok(upstreams)
}

/// `annot-gateway/log.sqlite3` under `$XDG_STATE_HOME` (or
/// `$HOME/.local/state`), created if need be.
fn default_log() -> Result<PathBuf, ConfigError> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".local/state")))
        .ok_or_else(|| {
            ConfigError::Invalid(
                "no state directory (set HOME or XDG_STATE_HOME, or --store)".into(),
            )
        })?;
    let directory = state.join("annot-gateway");
    std::fs::create_dir_all(&directory).map_err(|error| {
        ConfigError::Invalid(format!("cannot create {}: {error}", directory.display()))
    })?;
    Ok(directory.join("log.sqlite3"))
}

/// Runs `work` on the store `store` names (or the default one), on a
/// runtime of its own.
fn with_store<T>(
    store: Option<String>,
    work: impl AsyncFnOnce(&Store) -> Result<T, String>,
) -> Result<T, String> {
    let location = match store {
        Some(text) => StoreLocation::parse(&text),
        None => StoreLocation::Sqlite(default_log().map_err(|error| error.to_string())?),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))?;
    runtime.block_on(async {
        let opened = Store::open(&location)
            .await
            .map_err(|error| format!("cannot open {}: {error}", location.describe()))?;
        work(&opened).await
    })
}

fn pins(action: PinsAction, store: Option<String>) -> Result<(), String> {
    with_store(store, async |store| match action {
        PinsAction::List => {
            let pending = store.pending_pins().await.map_err(|e| e.to_string())?;
            for (upstream, tool, digest) in pending {
                println!("{upstream}\t{tool}\t{digest}");
            }
            Ok(())
        }
        PinsAction::Accept { tool, upstream } => {
            let accepted = store
                .accept(&upstream, &tool)
                .await
                .map_err(|e| e.to_string())?;
            if accepted == 0 {
                return Err(format!("`{tool}` has no changed definition waiting"));
            }
            println!("accepted the new definition of `{tool}`");
            Ok(())
        }
    })
}

fn export(store: Option<String>) -> Result<(), String> {
    with_store(store, async |store| {
        for call in store.export().await.map_err(|error| error.to_string())? {
            println!("{call}");
        }
        Ok(())
    })
}
