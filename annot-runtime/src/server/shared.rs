//! What the rmcp adapter ([`crate::rmcp`]) takes from this server, so that both
//! runtimes answer alike: the rendered listing, the `initialize` capabilities,
//! the resolution answers exactly as a [`Connection`](super::Connection) gives
//! them (read from the tree rmcp hands over, see `tree.rs`), and the pieces
//! of a `tools/call` answer.

use std::sync::Arc;

use crate::read::Json;
use serde_json::Value;

use super::extras::Negotiated;
use super::negotiation::Stance;
use super::state::Server;
use super::tools::Asker;
use super::{params, tools};
use crate::protocol::{
    ANNOT_META, AUTHORIZATION_EXTENSION, Dialect, METHOD_ANNOTATIONS, METHOD_RESOLVE, RpcError,
    TOOL_RESOLUTION_EXTENSION, TRUST_ANNOTATIONS_EXTENSION, error_code,
};
use crate::read::ParamsSlot;

pub(crate) use super::tree::{EvaluateTree, evaluate_tree, resolve_tree};

pub(crate) use super::erased::panic_message;
pub(crate) use super::negotiation::argument_errors_are_tool_errors;
pub(crate) use super::params::{invalid_arguments, quote_message, unknown_tool};

pub(crate) use super::erased::FixedAction;
pub(crate) use super::listing::Listing;
pub(crate) use super::structured::DeclaredOutput;

/// Every tool's name and its `tools/list` JSON in the form `listing`, in
/// listing order: the tools the server's [`Exposure`](super::Exposure) lists
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

/// What a client's capabilities say about the extensions this server reads,
/// taken from the settings object of each extension they declare (rmcp's
/// typed capabilities, read in place: no tree is built from them).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClientExtensions {
    /// The tool-resolution extension.
    pub stance: Stance,
    /// This project's extensions and trust-annotations.
    pub negotiated: Negotiated,
}

impl ClientExtensions {
    /// Read through `takes_up`, which says for one extension whether the
    /// capabilities take it up (name it with empty settings, `Some(true)`),
    /// name it otherwise (`Some(false)`) or not at all (`None`): what
    /// [`stance`](super::negotiation::stance) and [`Negotiated::of`] read
    /// from the same capabilities as a tree.
    pub(crate) fn of(takes_up: impl Fn(&str) -> Option<bool>) -> Self {
        let stance = match takes_up(TOOL_RESOLUTION_EXTENSION) {
            None => Stance::Absent,
            Some(true) => Stance::Offered,
            Some(false) => Stance::Unsupported,
        };
        let negotiated = |key: &str| takes_up(key) == Some(true);
        ClientExtensions {
            stance,
            negotiated: Negotiated {
                resolution: negotiated(ANNOT_META),
                authorization: negotiated(AUTHORIZATION_EXTENSION),
                trust_annotations: negotiated(TRUST_ANNOTATIONS_EXTENSION),
            },
        }
    }
}

/// The form of `tools/list` a [`Connection`](super::Connection) gives a
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

/// Answers `tools/annotations` or `tools/resolve` as a `Connection` does for a
/// session whose `initialize` sent capabilities that say `session`: the
/// JSON-RPC response (with a null id) or the error. `None` for any other
/// method, or the method of a dialect the server does not offer.
///
/// The general path, for every request [`resolve_tree`] leaves to it: the
/// params written out and read as a `Connection` reads them.
pub(crate) fn answer_resolution(
    server: &Server,
    method: &str,
    params: Option<Value>,
    session: ClientExtensions,
) -> Option<Result<Vec<u8>, RpcError>> {
    let state = &*server.state;
    let dialects = state.dialects;
    let id = Json::checked("null");
    // rmcp hands the params over as a tree; the built-in readers take text.
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
    let params = match params::read(&slot) {
        Ok(params) => params,
        Err(error) => return Some(Err(error)),
    };
    // What `initialize` records for a session (see `Connection`).
    let asker = Asker {
        modern: false,
        session: session.stance,
        session_extensions: session.negotiated,
        protocol_version: None,
    };
    let mut out = Vec::new();
    let answered = match method {
        METHOD_ANNOTATIONS if dialects.contains(Dialect::DynamicAnnotations) => {
            tools::annotations(&mut out, state, id, &params, &asker)
        }
        METHOD_RESOLVE
            if dialects.contains(Dialect::ResolveTool)
                || dialects.contains(Dialect::ToolResolutionExtension) =>
        {
            tools::resolve(&mut out, state, id, &params, &asker)
        }
        _ => return None,
    };
    Some(answered.map(|()| out))
}
