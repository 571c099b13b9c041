use annot::mcp_tool;

// A discriminator is chosen but no field carries it. (Without
// `discriminator`, this struct would be a single-action tool.)
#[mcp_tool(discriminator = "op", open_world = false)]
struct Api {
    method: String,
    path: String,
}

// A unit struct has no field to select an action with.
#[mcp_tool(discriminator = "op")]
struct Ping;

fn main() {}
