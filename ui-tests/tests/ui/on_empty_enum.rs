use annot::mcp_tool;

#[mcp_tool(open_world = false)]
enum Nothing {}

fn main() {}
