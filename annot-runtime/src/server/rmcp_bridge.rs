//! What the rmcp adapter ([`crate::rmcp`]) takes from this server, so that both
//! runtimes answer alike: the rendered listing, the `initialize` capabilities,
//! the resolution answers exactly as a [`Connection`](crate::server::Connection) gives
//! them (read from the tree rmcp hands over, see `answers/resolution_tree.rs`), and the pieces
//! of a `tools/call` answer.

use std::sync::Arc;

use serde_json::Value;

use crate::protocol::{Dialect, RpcError, error_code};
use crate::read::ParamsSlot;
use crate::server::answers::resolution::{self, Asker, Method};
use crate::server::negotiation::dialects::Stance;
use crate::server::registry::server_state::Server;
use crate::server::transport::request_params;

pub(crate) use crate::server::answers::resolution::ClientExtensions;
use crate::server::answers::resolution_tree::into_tree;
pub(crate) use crate::server::answers::resolution_tree::resolve_tree;

pub(crate) use crate::server::negotiation::versions::argument_errors_are_tool_errors;
pub(crate) use crate::server::registry::erased_tool::panic_message;
pub(crate) use crate::server::transport::request_params::{
    invalid_arguments, quote_message, unknown_tool,
};

pub(crate) use crate::server::answers::output_schema::DeclaredOutput;
pub(crate) use crate::server::answers::tool_forms::Listing;
pub(crate) use crate::server::registry::erased_tool::FixedAction;

/// Every tool's name and its `tools/list` JSON in the form `listing`, in
/// listing order: the tools the server's [`Exposure`](crate::server::Exposure) lists
/// to that kind of client, and for [`Listing::All`] every tool a call may
/// name.
pub(crate) fn listed_tools(
    server: &Server,
    listing: Listing,
) -> impl Iterator<Item = (&str, &str)> {
    let state = &*server.state;
    let exposed = &state.exposed;
    let indices = match listing {
        Listing::All => &exposed.accepted[..],
        Listing::Extension => exposed.listed_to(true),
        Listing::Legacy | Listing::Modern => exposed.listed_to(false),
    };
    indices
        .iter()
        .map(|&index| &state.tools[index])
        .filter(|tool| tool.is_listed())
        .map(move |tool| (tool.name(), tool.listed(listing)))
}

/// The declared output of the registered tool `name` (listed or not),
/// which every successful result of it and of its per-action tools is held
/// to; `None` when it declares none.
pub(crate) fn declared_output(server: &Server, name: &str) -> Option<Arc<DeclaredOutput>> {
    let tool = server.state.tools.iter().find(|tool| tool.name() == name)?;
    tool.declared_output().cloned()
}

/// What a `tools/call` of `name` reaches: the registered tool's name, and
/// for a per-action tool the action whose discriminator its arguments leave
/// out. `None` for a name no listing of the server shows.
pub(crate) fn called_tool(
    server: &Server,
    name: &str,
) -> Option<(&'static str, Option<FixedAction>)> {
    server
        .state
        .tool(name)
        .map(|tool| (tool.tool(), tool.fixed()))
}

/// The form of `tools/list` a [`Connection`](crate::server::Connection) gives a
/// request: `modern` for a 2026-07-28 request, `extension` what the client's
/// capabilities (the request's own, or else the session's) say about the
/// tool-resolution extension. Only a client that takes it up sees its marker.
pub(crate) fn listing_for(server: &Server, modern: bool, extension: Stance) -> Listing {
    let extension = server
        .state
        .dialects
        .contains(Dialect::ToolResolutionExtension)
        && extension == Stance::Offered;
    match (modern, extension) {
        (_, true) => Listing::Extension,
        (true, false) => Listing::Modern,
        (false, false) => Listing::Legacy,
    }
}

/// The `capabilities` of this server's `initialize` result.
pub(crate) fn capabilities(server: &Server) -> Value {
    let mut capabilities = server.state.dialects.capabilities();
    server.state.extensions.advertise(&mut capabilities);
    capabilities
}

/// Answers `tools/annotations` or `tools/resolve` of a session whose
/// `initialize` sent capabilities that say `session`, from params of any
/// shape (their `_meta` put back in), read as a `Connection` reads them: the
/// result as a tree, or the error. `None` for any other method, or the method
/// of a dialect the server does not offer.
///
/// The reader of every request [`resolve_tree`] leaves to it: the params
/// written out as text, so that their errors are the `Connection`'s.
pub(crate) fn answer_resolution(
    server: &Server,
    method: &str,
    params: Option<Value>,
    session: ClientExtensions,
) -> Option<Result<Value, RpcError>> {
    let state = &*server.state;
    let method = Method::offered(method, state.dialects)?;
    let text = params.map(|params| params.to_string());
    let slot: ParamsSlot<'_> = match text.as_deref().map(serde_json::from_str).transpose() {
        Ok(slot) => slot.unwrap_or_default(),
        Err(error) => {
            return Some(Err(RpcError::new(
                error_code::INVALID_PARAMS,
                error.to_string(),
            )));
        }
    };
    let answer = request_params::read(&slot).and_then(|params| {
        let asker = Asker {
            modern: false,
            session,
        };
        resolution::resolve(state, method, &params, asker, into_tree)
    });
    Some(answer)
}
