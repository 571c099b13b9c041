//! The hint lattice of annot, defined once: the ten hints and their risky
//! values, the specification's defaults, the hints that only mean something
//! for writes, [`Annotations`] with its `join` and `effective`, and how the
//! rules that fire on a call take precedence over its action's hints, and
//! MCP's rules for tool names.
//!
//! `annot-macros` uses it while expanding `#[mcp_tool]` (to check
//! declarations), `annot-runtime` re-exports it unchanged (to resolve and
//! bound calls), so the two cannot disagree. Every function the static
//! tables need is a `const fn`. No dependency: the optional `serde` feature
//! only adds `Serialize` for [`Annotations`].

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod annotations;
mod bound;
mod hint;
mod precedence;
mod tool_name;

pub use annotations::Annotations;
pub use bound::{Bound, BoundViolation};
pub use hint::Hint;
pub use precedence::{action_base, fill_defaults, join_named, resolve};
pub use tool_name::{MAX_TOOL_NAME_LEN, ToolNameError, check_tool_name};
