//! An rmcp server in an axum router, with an annotated tool added beside its
//! own: MCP over rmcp's Streamable HTTP at `/mcp`, and `GET /health` beside it.
//!
//! ```sh
//! cargo run --example rmcp_axum -- 127.0.0.1:8080
//! ```
//!
//! The server keeps notes in memory. `count_notes` is an rmcp `#[tool]` of the
//! server's `#[tool_router]`, as it was before annot; `notes` is an annotated
//! tool whose four actions differ in risk, so a client resolves each call
//! (`tools/resolve`) before it runs. The first line on stdout is the MCP
//! endpoint's URL; `GET /health` answers `ok`. Stops on Ctrl-C.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use annot::mcp_tool;
use annot::rmcp::{Annotated, AnnotatedTools, HandleTool, LiftHttp};
use axum::Router;
use axum::routing::get;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};

/// Keep short notes, one text per title.
#[mcp_tool(open_world = false, title = "Notes")]
#[serde(rename_all = "snake_case")]
enum Notes {
    /// The titles of every note.
    #[annotate(read_only)]
    List,
    /// One note's text.
    #[annotate(read_only)]
    Read { title: String },
    /// Write a note, replacing the one of the same title.
    #[annotate(destructive, idempotent)]
    Write { title: String, text: String },
    /// Delete a note.
    #[annotate(destructive, idempotent)]
    Delete { title: String },
}

/// The rmcp server as it was: its state and its own tools.
#[derive(Clone)]
struct NoteServer {
    notes: Arc<Mutex<BTreeMap<String, String>>>,
    tool_router: ToolRouter<NoteServer>,
}

#[tool_router]
impl NoteServer {
    fn new() -> Self {
        NoteServer {
            notes: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    /// How many notes there are.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    async fn count_notes(&self) -> Result<CallToolResult, ErrorData> {
        let count = self.notes().len();
        Ok(CallToolResult::success(vec![ContentBlock::text(
            count.to_string(),
        )]))
    }

    fn notes(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        // A handler that panicked mid-write leaves whole notes: keep serving.
        self.notes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for NoteServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("annot-axum-example", "0.1.0"))
    }
}

/// The annotated tool: `notes` arrives typed and validated.
impl HandleTool<Notes> for NoteServer {
    async fn handle(
        &self,
        call: Notes,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut notes = self.notes();
        let answer = match call {
            Notes::List => Ok(notes.keys().cloned().collect::<Vec<_>>().join("\n")),
            Notes::Read { title } => notes
                .get(&title)
                .cloned()
                .ok_or(format!("no note titled `{title}`")),
            Notes::Write { title, text } => {
                notes.insert(title.clone(), text);
                Ok(format!("wrote `{title}`"))
            }
            Notes::Delete { title } => match notes.remove(&title) {
                Some(_) => Ok(format!("deleted `{title}`")),
                None => Err(format!("no note titled `{title}`")),
            },
        };
        Ok(match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address: SocketAddr = match std::env::args().nth(1) {
        Some(address) => address.parse().map_err(|e| format!("{address}: {e}"))?,
        None => return Err("usage: rmcp_axum ADDR:PORT (such as 127.0.0.1:8080)".into()),
    };
    let tools = AnnotatedTools::builder().tool::<Notes>().build()?;
    // Refused here if `Notes` and a `#[tool]` of the router shared a name.
    let server = Annotated::new(NoteServer::new(), tools)?;
    // rmcp's Streamable HTTP service, one `Annotated` per session, lifted so
    // the annotations the protocol has no rmcp field for reach the wire.
    let mcp = LiftHttp::new(StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    ));
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest_service("/mcp", mcp);
    let listener = tokio::net::TcpListener::bind(address).await?;
    println!("http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
