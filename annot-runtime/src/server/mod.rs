//! The runtime that serves annotated tools over MCP.
//!
//! A [`Server`] is built once from its tools ([`Server::builder`]); each client
//! session gets a [`Connection`] ([`Server::connect`]), whose
//! [`handle`](Connection::handle) maps one JSON-RPC message to zero or one
//! response. Transports are thin loops around it: [`Server::serve_stdio`] is
//! the one this crate ships.
//!
//! The server answers `initialize`, `ping`, `tools/list`, `tools/call`, and the
//! argument-specific annotations of every enabled dialect
//! ([`Dialect`]): `tools/annotations` (A) and
//! `tools/resolve` in the shape of SEP-1862 (B) or of the tool-resolution
//! extension (C), chosen per request by negotiation. Every annotation JSON an
//! action can produce is rendered when the server is built, never per request.
//!
//! ```
//! use annot_runtime::server::{Server, ToolOutput};
//! # use annot_runtime::{Action, AnnotatedTool, Annotations, ArgumentError};
//! # use serde_json::Value;
//! # struct Echo;
//! # impl AnnotatedTool for Echo {
//! #     const NAME: &'static str = "echo";
//! #     const TITLE: Option<&'static str> = None;
//! #     const DESCRIPTION: Option<&'static str> = None;
//! #     const DISCRIMINATOR: Option<&'static str> = Some("action");
//! #     const ACTIONS: &'static [Action] = &[];
//! #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().read_only(true);
//! #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
//! #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
//! #     fn from_arguments(_: &Value) -> Result<Self, ArgumentError> { Ok(Echo) }
//! # }
//!
//! let server = Server::builder("demo", "0.1.0")
//!     .tool(|_: Echo| Ok(ToolOutput::text("hello")))
//!     .build()?;
//! let mut connection = server.connect();
//! let response = connection
//!     .handle(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
//!     .unwrap();
//! assert_eq!(response, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
//! # Ok::<(), annot_runtime::server::BuildError>(())
//! ```

mod builder;
mod call;
mod connection;
mod extras;
mod jsonrpc;
mod listing;
mod modern;
mod narrow;
mod negotiation;
mod output;
mod pagination;
mod params;
mod profile;
mod raw;
mod registry;
mod render;
pub(crate) mod scan;
#[cfg(feature = "rmcp")]
pub(crate) mod shared;
mod stdio;
mod tools;

use core::fmt;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::io::{self, BufRead, Write};
use std::sync::Arc;

pub use builder::{BuildError, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, ServerBuilder};
pub use call::Call;
pub use connection::Connection;
pub use output::{Content, ToolError, ToolOutput};
pub use profile::{Profile, ProfileViolation};

pub(crate) use narrow::narrow_schema;

use crate::protocol::Dialect;
use extras::AnnotExtensions;
use modern::ModernForms;
use negotiation::DialectSet;

use pagination::ToolPages;
use registry::ToolEntry;

/// An MCP server of annotated tools, ready to accept sessions.
///
/// Cheap to clone: clones share the rendered tools and handlers, so one server
/// can give a [`Connection`] to each session of a multi-client transport.
#[derive(Clone)]
pub struct Server {
    state: Arc<ServerState>,
}

/// Everything rendered at build time, shared by every connection.
struct ServerState {
    dialects: DialectSet,
    /// This project's extensions the server advertises (dialect C).
    extensions: AnnotExtensions,
    tools: Vec<ToolEntry>,
    /// FxHash: the keys are the server's own names, so a client can only
    /// look names up, never fill the table to collide.
    by_name: HashMap<&'static str, usize, BuildHasherDefault<render::FxHasher>>,
    pages: ToolPages,
    /// The `initialize` result for each of [`crate::protocol::PROTOCOL_VERSIONS`].
    initialize_results: Vec<Box<str>>,
    /// What 2026-07-28 adds to results, and its `server/discover` answer.
    modern: ModernForms,
    /// The longest line the stdio transport reads as one message.
    max_message_size: usize,
    /// What calls the server lets through.
    profile: profile::Profile,
}

impl ServerState {
    fn tool(&self, name: &str) -> Option<&ToolEntry> {
        // A few names are compared faster than one is hashed and probed.
        if self.tools.len() <= 4 {
            return self.tools.iter().find(|tool| tool.name() == name);
        }
        self.by_name.get(name).map(|index| &self.tools[*index])
    }
}

impl Server {
    /// Starts building a server whose `serverInfo` has this name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }

    /// A new session: negotiation state starts empty.
    pub fn connect(&self) -> Connection {
        Connection::new(Arc::clone(&self.state))
    }

    /// The dialects this server offers, oldest first.
    pub fn dialects(&self) -> Vec<Dialect> {
        self.state.dialects.iter().collect()
    }

    /// The names of the registered tools, in `tools/list` order, with those
    /// a [`Profile`] left nothing of (they are not listed).
    pub fn tool_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.state.tools.iter().map(ToolEntry::name)
    }

    /// What calls the server lets through ([`ServerBuilder::profile`]).
    pub fn profile(&self) -> Profile {
        self.state.profile
    }

    /// Serves one session over stdin and stdout until stdin ends; see
    /// [`Server::serve`].
    pub fn serve_stdio(&self) -> io::Result<()> {
        let stdin = io::stdin();
        let stdout = io::stdout();
        self.serve(stdin.lock(), stdout.lock())
    }

    /// Serves one session of newline-delimited JSON: each line read is one
    /// message, each response is written as one line and flushed at once.
    /// Returns `Ok` when the input ends or the peer closes the output.
    ///
    /// A line longer than [`ServerBuilder::max_message_size`] is skipped without
    /// being buffered whole and answered with a `-32600` error without an id.
    pub fn serve(&self, reader: impl BufRead, writer: impl Write) -> io::Result<()> {
        stdio::serve(self.connect(), reader, writer, self.state.max_message_size)
    }
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("dialects", &self.dialects())
            .field("tools", &self.tool_names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
