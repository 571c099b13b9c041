//! The approvals page on an address of its own, for a gateway whose host
//! speaks over stdio (with `--http` the page is a route of that server).

use std::net::SocketAddr;
use std::sync::Arc;

use super::refusals::is_loopback_authority;
use crate::StartError;
use crate::approvals;
use crate::gateway::Shared;

/// Serves the page alone at `http://LISTEN/approvals`, for a gateway whose
/// host speaks over stdio, until the process ends. Writes the address to
/// stderr (useful with port 0).
pub(crate) async fn serve_page_alone(
    shared: Arc<Shared>,
    listen: SocketAddr,
) -> Result<(), StartError> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|source| StartError::Listen {
            address: listen,
            source,
        })?;
    let local = listener.local_addr().map_err(|source| StartError::Listen {
        address: listen,
        source,
    })?;
    approvals::check_address(local, &shared)?;
    let host_allowed: fn(&str) -> bool = if local.ip().is_loopback() {
        is_loopback_authority
    } else {
        |_| true
    };
    let Some(page) = approvals::router(shared, host_allowed) else {
        return Ok(());
    };
    eprintln!("annot-gateway: the approvals page is at http://{local}/approvals");
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, page).await {
            tracing::error!("the approvals page stopped: {error}");
        }
    });
    Ok(())
}
