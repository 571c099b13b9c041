//! `manage_files` served by rmcp, the official Rust MCP SDK, with argument-specific
//! annotations: `tools/resolve` (both shapes) and `tools/annotations` answered,
//! the SEP-1984 hints and every dialect's marker in `tools/list`.
//!
//! ```sh
//! cargo run --example rmcp_server -- --stdio
//! cargo run --example rmcp_server -- --http 127.0.0.1:8080
//! cargo run --example rmcp_server -- --http 127.0.0.1:8081 --tag b1
//! cargo run --example rmcp_server -- --http 127.0.0.1:8080 --exposure per-action
//! ```
//!
//! Beside it, `stat_file` returns structured content: declared with
//! `#[mcp_tool(output = FileStats)]`, it lists an `outputSchema`, and its
//! handler returns `structured(Json(stats))`, rmcp's `Json<T>` habit.
//!
//! `--exposure per-action` lists one tool per action (`manage_files_read`,
//! ...); `--exposure auto` lists those to clients without tool resolution and
//! the resolvable `manage_files` to the others (the `exposure` chapter).
//!
//! Files live under a sandbox directory (`--root DIR`, by default a fresh
//! directory in the system's temporary directory); a path that would leave it is
//! refused. Logs go to stderr; over HTTP the first line on stdout is the
//! endpoint's URL.
//!
//! Several processes can serve one endpoint behind a load balancer
//! (docs/scaling.md): MCP 2026-07-28 requests go to any of them, and with
//! `--tag NAME` every legacy session id this process hands out starts with
//! `NAME.`, so the balancer can send the session's later requests back here.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use annot::rmcp::{
    Annotated, AnnotatedTools, HandleTool, LiftHttp, TaggedSessionManager, resolving, structured,
};
use annot::server::Exposure;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::wrapper::Json;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

#[path = "common/exposure.rs"]
mod exposure_flag;
#[path = "tools/manage_files.rs"]
mod manage_files;
#[path = "common/stat_file.rs"]
mod stat_file;

use manage_files::ManageFiles;
use stat_file::{FileStats, StatFile};

/// The server: a sandbox directory.
#[derive(Clone, Debug)]
struct Files {
    root: Arc<PathBuf>,
}

impl ServerHandler for Files {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "annot-rmcp-example",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Files under one sandbox directory. Resolve a call with tools/resolve to see \
                 whether it only reads.",
            )
    }
}

impl HandleTool<ManageFiles> for Files {
    async fn handle(
        &self,
        tool: ManageFiles,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match self.run(tool) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        })
    }
}

impl HandleTool<StatFile> for Files {
    async fn handle(
        &self,
        tool: StatFile,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let path = tool.path;
        let read = self
            .sandboxed(&path)
            .and_then(|file| std::fs::read_to_string(file).map_err(|e| io_error("read", &path, e)));
        match read {
            Ok(text) => structured(Json(FileStats::of(&path, &text))),
            Err(message) => Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
        }
    }
}

impl Files {
    fn run(&self, tool: ManageFiles) -> Result<String, String> {
        match tool {
            ManageFiles::Read { path } => std::fs::read_to_string(self.sandboxed(&path)?)
                .map_err(|e| io_error("read", &path, e)),
            ManageFiles::Append { path, content } => {
                let file = self.sandboxed(&path)?;
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(file)
                    .map_err(|e| io_error("open", &path, e))?;
                file.write_all(content.as_bytes())
                    .map_err(|e| io_error("append to", &path, e))?;
                Ok(format!("appended {} bytes to {path}", content.len()))
            }
            ManageFiles::Replace { path, content } => {
                std::fs::write(self.sandboxed(&path)?, &content)
                    .map_err(|e| io_error("write", &path, e))?;
                Ok(format!("wrote {} bytes to {path}", content.len()))
            }
            ManageFiles::Delete { path } => {
                std::fs::remove_file(self.sandboxed(&path)?)
                    .map_err(|e| io_error("delete", &path, e))?;
                Ok(format!("deleted {path}"))
            }
        }
    }

    /// `path` under the root, or why it is refused: only plain relative paths
    /// (no `..`, no root, no drive) stay inside the sandbox.
    fn sandboxed(&self, path: &str) -> Result<PathBuf, String> {
        let relative = Path::new(path);
        let plain = relative
            .components()
            .all(|component| matches!(component, Component::Normal(_) | Component::CurDir));
        if path.is_empty() || !plain {
            return Err(format!(
                "refused path `{path}`: it must stay inside the sandbox"
            ));
        }
        Ok(self.root.join(relative))
    }
}

fn io_error(what: &str, path: &str, error: std::io::Error) -> String {
    format!("cannot {what} {path}: {error}")
}

enum Mode {
    Stdio,
    Http(SocketAddr),
}

struct Options {
    mode: Mode,
    root: PathBuf,
    /// The prefix of legacy session ids (`--tag`), for a load balancer.
    tag: Option<String>,
    exposure: Exposure,
}

const USAGE: &str = "usage: rmcp_server (--stdio | --http ADDR:PORT [--tag NAME]) [--root DIR]";

fn options() -> Result<Options, String> {
    let mut mode = None;
    let mut root = None;
    let mut tag = None;
    let (exposure, rest) = exposure_flag::take_exposure(std::env::args_os().skip(1))?;
    let mut args = rest
        .into_iter()
        .map(|arg| arg.to_string_lossy().into_owned());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => mode = Some(Mode::Stdio),
            "--http" => {
                let address = args
                    .next()
                    .ok_or("--http needs an address such as 127.0.0.1:8080")?;
                let address = address
                    .parse()
                    .map_err(|e| format!("--http {address}: {e}"))?;
                mode = Some(Mode::Http(address));
            }
            "--tag" => tag = Some(args.next().ok_or("--tag needs a name such as b1")?),
            "--root" => {
                root = Some(PathBuf::from(
                    args.next().ok_or("--root needs a directory")?,
                ))
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let root = match root {
        Some(root) => root,
        None => std::env::temp_dir().join(format!("annot-rmcp-{}", std::process::id())),
    };
    let mode = mode.ok_or("choose a transport")?;
    if tag.is_some() && matches!(mode, Mode::Stdio) {
        return Err("--tag names HTTP sessions; stdio has none".into());
    }
    Ok(Options {
        mode,
        root,
        tag,
        exposure,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options().map_err(|e| format!("{e}\n{USAGE} {}", exposure_flag::USAGE))?;
    std::fs::create_dir_all(&options.root)?;
    eprintln!("sandbox: {}", options.root.display());
    let files = Files {
        root: Arc::new(options.root),
    };
    let tools = AnnotatedTools::builder()
        .exposure(options.exposure)
        .tool::<ManageFiles>()
        .tool::<StatFile>()
        .build()?;
    let server = Annotated::new(files, tools)?;
    match options.mode {
        Mode::Stdio => {
            // Resolutions answered as the lines are read, the rest by rmcp.
            let (stdin, stdout) = rmcp::transport::stdio();
            let transport = resolving(&server, stdin, stdout);
            let running = server.serve(transport).await?;
            running.waiting().await?;
        }
        Mode::Http(address) => serve_http(server, address, options.tag).await?,
    }
    Ok(())
}

/// rmcp's Streamable HTTP service behind hyper, wrapped in [`LiftHttp`]; with a
/// tag, its legacy sessions get ids that name this process.
async fn serve_http(
    server: Annotated<Files>,
    address: SocketAddr,
    tag: Option<String>,
) -> Result<(), Box<dyn std::error::Error>> {
    let factory = move || Ok(server.clone());
    let config = StreamableHttpServerConfig::default();
    match tag {
        Some(tag) => {
            let sessions = Arc::new(TaggedSessionManager::new(tag)?);
            accept(
                StreamableHttpService::new(factory, sessions, config),
                address,
            )
            .await?
        }
        None => {
            let sessions = Arc::new(LocalSessionManager::default());
            accept(
                StreamableHttpService::new(factory, sessions, config),
                address,
            )
            .await?
        }
    }
    Ok(())
}

/// Serves `service`, lifted, on `address` until Ctrl-C.
async fn accept<M>(
    service: StreamableHttpService<Annotated<Files>, M>,
    address: SocketAddr,
) -> std::io::Result<()>
where
    M: SessionManager,
{
    let service = LiftHttp::new(service);
    let listener = tokio::net::TcpListener::bind(address).await?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "http://{}/mcp", listener.local_addr()?)?;
    stdout.flush()?;
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => accepted?,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        // An event-stream answer goes out in several small writes; with Nagle's
        // algorithm each waits for the peer's delayed ACK (about 40 ms).
        stream.set_nodelay(true)?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            // A client that hangs up mid-message is routine, not worth a line.
            if let Err(error) = connection.await
                && !error.is_incomplete_message()
            {
                eprintln!("connection from {peer}: {error}");
            }
        });
    }
}
