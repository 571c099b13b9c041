//! **annot** derives argument-specific MCP tool annotations from annotated Rust
//! enums at compile time: the static worst case for `tools/list`, a pure resolver
//! for `tools/resolve` and `tools/annotations`, and the tool's `inputSchema`, all
//! from one declaration.

#![forbid(unsafe_code)]

pub use annot_macros::{mcp_actions, mcp_tool};
pub use annot_runtime::*;

// The README and docs/ chapters, compiled and run by `cargo test` (the list is
// in src/docs.rs).
#[cfg(doctest)]
mod docs;

#[doc(hidden)]
pub mod __private {
    pub use annot_runtime::__private::*;
    pub use annot_runtime::trust::TrustClaims;
    pub use annot_runtime::{
        Action, AnnotatedActions, AnnotatedTool, Annotations, ArgumentError, Explanation,
    };
    pub use core;
    pub use std;
}
