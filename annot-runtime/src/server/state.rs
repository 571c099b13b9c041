//! [`Server`] and what it shares with every connection: everything
//! rendered when it was built.

use core::fmt;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::exposure::{Exposed, Exposure};
use super::extras::AnnotExtensions;
use super::modern::ModernForms;
use super::negotiation::DialectSet;
use super::pagination::ToolPages;
use super::profile::{self, Profile};
use super::registry::ToolEntry;
use super::render;
use crate::protocol::Dialect;

/// An MCP server of annotated tools, ready to accept sessions.
///
/// Cheap to clone: clones share the rendered tools and handlers, so one server
/// can give a [`Connection`](super::Connection) to each session of a multi-client transport.
#[derive(Clone)]
pub struct Server {
    pub(super) state: Arc<ServerState>,
}

/// Everything rendered at build time, shared by every connection.
pub(super) struct ServerState {
    pub(super) dialects: DialectSet,
    /// This project's extensions the server advertises (dialect C).
    pub(super) extensions: AnnotExtensions,
    /// The registered tools, in registration order, then the per-action
    /// tools derived from them.
    pub(super) tools: Vec<ToolEntry>,
    /// Which of `tools` each listing shows, and which calls name.
    pub(super) exposed: Exposed,
    /// Every name `tools/call` accepts ([`Exposed::accepted`]).
    /// FxHash: the keys are the server's own names, so a client can only
    /// look names up, never fill the table to collide.
    pub(super) by_name: HashMap<Box<str>, usize, BuildHasherDefault<render::FxHasher>>,
    pub(super) pages: ToolPages,
    /// The `initialize` result for each of [`crate::protocol::PROTOCOL_VERSIONS`].
    pub(super) initialize_results: Vec<Box<str>>,
    /// What 2026-07-28 adds to results, and its `server/discover` answer.
    pub(super) modern: ModernForms,
    /// The longest line the stdio transport reads as one message.
    pub(super) max_message_size: usize,
    /// How many calls one stdio session runs at once.
    pub(super) max_concurrent_calls: usize,
    /// What calls the server lets through.
    pub(super) profile: profile::Profile,
}

impl ServerState {
    /// The tool `tools/call` and the resolution methods reach by `name`:
    /// only one some listing shows.
    pub(super) fn tool(&self, name: &str) -> Option<&ToolEntry> {
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

    /// How tools of several actions are exposed ([`ServerBuilder::exposure`](super::ServerBuilder::exposure)).
    pub fn exposure(&self) -> Exposure {
        self.state.exposed.exposure
    }

    /// Whether the server offers the trust-annotations extension
    /// ([`ServerBuilder::trust_annotations`](super::ServerBuilder::trust_annotations)).
    pub fn offers_trust_annotations(&self) -> bool {
        self.state.extensions.trust_annotations
    }

    /// How many `tools/call`s one stdio session runs at once
    /// ([`ServerBuilder::max_concurrent_calls`](super::ServerBuilder::max_concurrent_calls)).
    pub fn max_concurrent_calls(&self) -> usize {
        self.state.max_concurrent_calls
    }

    /// What calls the server lets through ([`ServerBuilder::profile`](super::ServerBuilder::profile)).
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
