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
pub mod store;
mod upstream;

use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub use config::{ConfigError, ConfirmMode, Settings, UpstreamSpec};
pub use gateway::{Gateway, Shared};
pub use http::{HttpOptions, serve_http};
pub use store::{Store, StoreLocation};

use message::{MAX_MESSAGE_SIZE, code, error_response, read_line};

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

/// Serves one host on stdin and stdout in front of `settings.upstream`,
/// until the host closes stdin; answers every request still in flight
/// before returning.
pub async fn serve_stdio(settings: Settings) -> Result<(), StartError> {
    let shared = Shared::open(settings).await?;
    let (host, mut to_host) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(bytes) = to_host.recv().await {
            if bytes.is_empty() {
                break;
            }
            if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let gateway = Gateway::start(shared, host);
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(StartError::Signal)?;
    loop {
        let line = tokio::select! {
            line = read_line(&mut stdin, MAX_MESSAGE_SIZE) => line,
            // SIGTERM or Ctrl-C: stop reading, answer what is in flight, stop
            // the upstreams, as at the end of input.
            _ = terminate.recv() => break,
            _ = tokio::signal::ctrl_c() => break,
        };
        match line {
            Ok(Some(Ok(bytes))) => gateway.from_host(&bytes),
            Ok(Some(Err(length))) => gateway.to_host(&error_response(
                &serde_json::Value::Null,
                code::INVALID_REQUEST,
                format!(
                    "a message of {length} bytes is past the gateway's cap of {MAX_MESSAGE_SIZE}"
                ),
            )),
            Ok(None) | Err(_) => break,
        }
    }
    gateway
        .drain(gateway.settings.timeout + Duration::from_secs(1))
        .await;
    let _ = writer.await;
    gateway.close();
    Ok(())
}
