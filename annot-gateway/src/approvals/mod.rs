//! The approvals page: the calls waiting for a person, each with its
//! preview, its resolved hints as badges and what decided them; each
//! upstream's tools; the decision log's latest calls. Served at
//! `/approvals` of `--http` when `[approvals]` or `--confirm page` turns it
//! on, behind `[auth]`'s issuer (a token with the approver scope signs in).

pub(crate) mod catalog;
mod routes;
mod sessions;
mod views;

use std::net::SocketAddr;

pub(crate) use routes::router;

use crate::StartError;
use crate::gateway::Shared;

/// Refuses an address off loopback without `[auth]`: the page would let
/// anyone who reaches it approve calls.
pub(crate) fn check_address(local: SocketAddr, shared: &Shared) -> Result<(), StartError> {
    if local.ip().is_loopback() || shared.authenticator.is_some() {
        return Ok(());
    }
    Err(StartError::Approvals(format!(
        "{local} is not a loopback address and [auth] is not configured: the approvals \
         page would let anyone who reaches it approve calls (listen on loopback, or \
         configure [auth])"
    )))
}
