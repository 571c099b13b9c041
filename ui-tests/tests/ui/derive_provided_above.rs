//! `#[mcp_actions]` implements `Clone`, `Copy` and `Deserialize` unless the
//! enum derives them below it; a derive above it is out of its sight, and
//! each trait is reported as implemented twice.

use annot::mcp_actions;

#[derive(Clone, Copy, serde::Deserialize)]
#[mcp_actions]
enum Method {
    #[annotate(read_only)]
    Get,
}

fn main() {}
