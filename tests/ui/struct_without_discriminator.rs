use annot::mcp_tool;

#[mcp_tool(open_world = false)]
struct Api {
    method: String,
    path: String,
}

fn main() {}
