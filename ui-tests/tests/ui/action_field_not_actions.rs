use annot::mcp_tool;

#[mcp_tool(discriminator = "method", open_world = false)]
struct Api {
    method: String,
    path: String,
}

fn main() {}
