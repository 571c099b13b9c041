//! `output = Type`: a type, which needs `schemars::JsonSchema`.

use annot::mcp_tool;

#[derive(serde::Serialize)]
struct Report {
    ahead: u32,
}

#[mcp_tool(read_only, open_world = false, output = Report)]
struct WithoutSchema {}

#[mcp_tool(read_only, open_world = false, output = "Report")]
struct QuotedType {}

#[mcp_tool(read_only, open_world = false, output)]
struct NoType {}

fn main() {}
