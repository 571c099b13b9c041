use annot::{mcp_actions, mcp_tool};

#[mcp_actions]
enum Method {
    #[annotate(read_only)]
    Get,
}

#[mcp_tool(discriminator = "method", open_world = false)]
struct Api {
    method: Option<Method>,
    path: String,
}

fn main() {}
