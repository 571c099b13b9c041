//! [`Server`] and what it shares with every connection: everything
//! rendered when it was built.

use core::fmt;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use crate::protocol::Dialect;
use crate::server::answers::annotation_json;
use crate::server::answers::list_pages::ToolPages;
use crate::server::answers::profile::{self, Profile};
use crate::server::answers::resolution_meta::AnnotExtensions;
use crate::server::negotiation::dialects::DialectSet;
use crate::server::negotiation::era::ModernForms;
use crate::server::registry::exposure::{Exposed, Exposure};
use crate::server::registry::tool_entry::ToolEntry;

/// An MCP server of annotated tools, ready to accept sessions.
///
/// Cheap to clone: clones share the rendered tools and handlers, so one server
/// can give a [`Connection`](crate::server::Connection) to each session of a multi-client transport.
#[derive(Clone)]
pub struct Server {
    pub(crate) state: Arc<ServerState>,
}

/// Everything rendered at build time, shared by every connection.
pub(crate) struct ServerState {
    pub(crate) dialects: DialectSet,
    /// This project's extensions the server advertises (dialect C).
    pub(crate) extensions: AnnotExtensions,
    /// The registered tools, in registration order, then the per-action
    /// tools derived from them.
    pub(crate) tools: Vec<ToolEntry>,
    /// Which of `tools` each listing shows, and which calls name.
    pub(crate) exposed: Exposed,
    /// Every name `tools/call` accepts ([`Exposed::accepted`]).
    /// FxHash: the keys are the server's own names, so a client can only
    /// look names up, never fill the table to collide.
    pub(crate) by_name: HashMap<Box<str>, usize, BuildHasherDefault<annotation_json::FxHasher>>,
    pub(crate) pages: ToolPages,
    /// The `initialize` result for each of [`crate::protocol::PROTOCOL_VERSIONS`].
    pub(crate) initialize_results: Vec<Box<str>>,
    /// What 2026-07-28 adds to results, and its `server/discover` answer.
    pub(crate) modern: ModernForms,
    /// The longest line the stdio transport reads as one message.
    pub(crate) max_message_size: usize,
    /// How many calls one stdio session runs at once.
    pub(crate) max_concurrent_calls: usize,
    /// What calls the server lets through.
    pub(crate) profile: profile::Profile,
}

impl ServerState {
    /// The tool `tools/call` and the resolution methods reach by `name`:
    /// only one some listing shows.
    pub(crate) fn tool(&self, name: &str) -> Option<&ToolEntry> {
        // A few names are compared faster than one is hashed and probed.
        if self.exposed.accepted.len() <= 4 {
            return self
                .exposed
                .accepted
                .iter()
                .map(|&index| &self.tools[index])
                .find(|tool| tool.name() == name);
        }
        self.by_name.get(name).map(|index| &self.tools[*index])
    }
}

impl Server {
    /// The dialects this server offers, oldest first.
    pub fn dialects(&self) -> Vec<Dialect> {
        self.state.dialects.iter().collect()
    }

    /// The names of the registered tools, in registration order (that of a
    /// resolvable listing), with those a [`Profile`] left nothing of (they
    /// are not listed); per-action tools are not among them.
    pub fn tool_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.state
            .exposed
            .resolvable
            .iter()
            .map(|&index| self.state.tools[index].tool())
    }

    /// How tools of several actions are exposed ([`ServerBuilder::exposure`](crate::server::ServerBuilder::exposure)).
    pub fn exposure(&self) -> Exposure {
        self.state.exposed.exposure
    }

    /// Whether the server offers the trust-annotations extension
    /// ([`ServerBuilder::trust_annotations`](crate::server::ServerBuilder::trust_annotations)).
    pub fn offers_trust_annotations(&self) -> bool {
        self.state.extensions.trust_annotations
    }

    /// How many `tools/call`s one stdio session runs at once
    /// ([`ServerBuilder::max_concurrent_calls`](crate::server::ServerBuilder::max_concurrent_calls)).
    pub fn max_concurrent_calls(&self) -> usize {
        self.state.max_concurrent_calls
    }

    /// What calls the server lets through ([`ServerBuilder::profile`](crate::server::ServerBuilder::profile)).
    pub fn profile(&self) -> Profile {
        self.state.profile
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
