//! The `#[mcp_tool]` attribute macro of annot. Use it through the `annot` crate.
