//! What the adapter reads of the client behind a request, in place: the
//! protocol version and capabilities rmcp's `RequestContext` would clone out
//! of the session (or decode from the request's `_meta`) on every call.

use std::sync::Arc;

use ::rmcp::RoleServer;
use ::rmcp::model::{ClientCapabilities, InitializeRequestParams};
use ::rmcp::service::RequestContext;
use serde_json::Value;

use crate::protocol::{CLIENT_CAPABILITIES_META, PROTOCOL_VERSION_META};

/// The client of one request: its own `_meta` first, then what `initialize`
/// said. Reads what `RequestContext::protocol_version` and
/// `RequestContext::client_capabilities` give, without their clones.
pub(super) struct Client<'a> {
    context: &'a RequestContext<RoleServer>,
    /// The request's own capabilities, when its `_meta` carries valid ones
    /// (rmcp falls back to the session's for invalid ones, and so does this).
    per_request: Option<ClientCapabilities>,
    /// What `initialize` said; `None` for a stateless (2026-07-28) request,
    /// whose session rmcp never gives peer info.
    session: Option<Arc<InitializeRequestParams>>,
}

impl<'a> Client<'a> {
    pub(super) fn of(context: &'a RequestContext<RoleServer>) -> Self {
        // Decoded only when present: a handshake session's requests carry none.
        let per_request = context
            .meta
            .contains_key(CLIENT_CAPABILITIES_META)
            .then(|| context.meta.client_capabilities())
            .flatten();
        Client {
            context,
            per_request,
            session: context.peer.peer_info(),
        }
    }

    /// The protocol version the request's own `_meta` names, as
    /// `Meta::protocol_version` reads it (any string).
    pub(super) fn request_version(&self) -> Option<&str> {
        self.context
            .meta
            .get(PROTOCOL_VERSION_META)
            .and_then(Value::as_str)
    }

    /// The request's protocol version, or else the session's.
    pub(super) fn version(&self) -> Option<&str> {
        self.request_version().or_else(|| {
            self.session
                .as_ref()
                .map(|info| info.protocol_version.as_str())
        })
    }

    /// The request's capabilities, or else the session's.
    pub(super) fn capabilities(&self) -> Option<&ClientCapabilities> {
        self.per_request
            .as_ref()
            .or_else(|| self.session.as_ref().map(|info| &info.capabilities))
    }
}
