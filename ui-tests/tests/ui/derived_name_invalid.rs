use annot::mcp_tool;

// The derived name `Überweisung` is not an MCP tool name.
#[mcp_tool(open_world = true)]
struct Überweisung {
    amount: u64,
}

fn main() {}
