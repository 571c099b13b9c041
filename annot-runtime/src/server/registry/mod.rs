//! The server as built: the builder and its errors, each registered tool with
//! its type erased (`erased_tool`), the per-action tools an [`Exposure`]
//! derives (`exposure`), what a profile leaves of a tool
//! (`profile_narrowing`), each tool with its wire forms rendered
//! (`tool_entry`), and the [`Server`] every connection shares
//! (`server_state`).
//!
//! [`Exposure`]: crate::server::Exposure
//! [`Server`]: crate::server::Server

pub(crate) mod build_error;
pub(crate) mod builder;
pub(crate) mod erased_tool;
pub(crate) mod exposure;
pub(crate) mod profile_narrowing;
pub(crate) mod server_state;
pub(crate) mod tool_entry;
