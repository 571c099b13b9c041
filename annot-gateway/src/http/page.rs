//! The approvals page on an HTTP server: a route of `--http`, or, for a
//! gateway whose host speaks over stdio, a server of its own.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;

use super::refusals::is_loopback_authority;
use crate::StartError;
use crate::approvals;
use crate::gateway::Shared;

/// Binds `listen`: the listener and the address it got (port 0 picks one).
pub(super) async fn bind(listen: SocketAddr) -> Result<(TcpListener, SocketAddr), StartError> {
    let failed = |source| StartError::Listen {
        address: listen,
        source,
    };
    let listener = TcpListener::bind(listen).await.map_err(failed)?;
    let local = listener.local_addr().map_err(failed)?;
    Ok((listener, local))
}

/// The page's routes on a server listening on `local`, when the page is on,
/// and its address written to stderr. Off loopback the page needs `[auth]`
/// (it would let anyone who reaches it approve calls); on loopback a
/// request's `Host` must be a loopback name, against DNS rebinding.
pub(super) fn routes(
    shared: &Arc<Shared>,
    local: SocketAddr,
) -> Result<Option<Router>, StartError> {
    if shared.settings.approvals.is_none() {
        return Ok(None);
    }
    let loopback = local.ip().is_loopback();
    if !loopback && shared.authenticator.is_none() {
        return Err(StartError::Approvals(format!(
            "{local} is not a loopback address and [auth] is not configured: the approvals \
             page would let anyone who reaches it approve calls (listen on loopback, or \
             configure [auth])"
        )));
    }
    let host_allowed: fn(&str) -> bool = if loopback {
        is_loopback_authority
    } else {
        |_| true
    };
    let page = approvals::router(Arc::clone(shared), host_allowed);
    if page.is_some() {
        eprintln!("annot-gateway: the approvals page is at http://{local}/approvals");
    }
    Ok(page)
}

/// Serves the page alone at `http://LISTEN/approvals`, for a gateway whose
/// host speaks over stdio, until the process ends.
pub(crate) async fn serve_page_alone(
    shared: Arc<Shared>,
    listen: SocketAddr,
) -> Result<(), StartError> {
    let (listener, local) = bind(listen).await?;
    let Some(page) = routes(&shared, local)? else {
        return Ok(());
    };
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, page).await {
            tracing::error!("the approvals page stopped: {error}");
        }
    });
    Ok(())
}
