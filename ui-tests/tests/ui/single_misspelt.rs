use annot::{mcp_actions, mcp_tool};

// `single` is a flag, or `= bool`.
#[mcp_tool(single = "yes", read_only)]
struct Lookup {
    action: String,
}

// Once is enough.
#[mcp_tool(single, single, read_only)]
struct Find {
    action: String,
}

// An `#[mcp_actions]` enum is the actions of a struct: never a single action.
#[mcp_actions(single)]
enum Method {
    #[annotate(read_only)]
    Get,
}

fn main() {}
