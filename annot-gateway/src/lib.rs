//! An MCP gateway that gives the tools of servers you did not write
//! per-call annotations, profiles, confirmations bound to the exact call, the
//! lethal trifecta across the session, pinned tool definitions and a decision
//! log that loses nothing. See `docs/gateway.md`.
//!
//! The gateway is a message-level proxy: it forwards every JSON-RPC message
//! as it came (prompts, resources, completions, logging, progress,
//! cancellation, `list_changed` and methods it has never heard of), and
//! takes part only where it must: `initialize` (to learn what the upstream
//! resolves and whether the host can be asked), `tools/list` (pins,
//! annotations, per-action tools, the profile) and `tools/call` (the
//! decision). Forwarding through a typed SDK would drop what the SDK does
//! not model; the gateway's job is to drop nothing.

mod approvals;
pub mod auth;
mod call;
pub mod config;
mod confirm;
mod digest;
mod era;
mod gateway;
mod handshake;
pub mod http;
mod http_upstream;
mod listing;
mod message;
mod resolving;
mod route;
mod sources;
mod stdio;
pub mod store;
mod upstream;

pub use config::{ConfigError, ConfirmMode, Settings, UpstreamSpec};
pub use gateway::{Gateway, Shared};
pub use http::{HttpOptions, serve_http};
pub use stdio::serve_stdio;
pub use store::{Store, StoreLocation};

/// Why the gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The store could not be opened.
    #[error("cannot open the store {location}: {source}")]
    Store {
        /// Where it is (a URL without its password).
        location: String,
        /// Why.
        source: store::StoreError,
    },
    /// The audit report could not be read.
    #[error("{0}")]
    Audit(String),
    /// `--http`: the address could not be listened on.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address.
        address: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// `[auth]` cannot be used (its JWKS, a scope's profile).
    #[error("[auth]: {0}")]
    Auth(ConfigError),
    /// The approvals page cannot be served safely as configured.
    #[error("the approvals page: {0}")]
    Approvals(String),
    /// The gateway cannot watch for SIGTERM.
    #[error("cannot watch for SIGTERM: {0}")]
    Signal(std::io::Error),
}
