use annot::{HttpMethod, mcp_tool};

// `method` is annot's enum of actions, but no discriminator names it: the
// struct would be a tool of one action, every method resolving alike.
#[mcp_tool(open_world = true)]
struct Api {
    method: HttpMethod,
    path: String,
}

fn main() {}
