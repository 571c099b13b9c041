use annot::{HttpMethod, mcp_actions, mcp_tool};

#[mcp_tool]
enum Repos {
    #[annotate(read_only, no_auth)]
    Get { name: String },
    #[annotate(destructive, when(name matches "^prod") => (scopes = ["admin", "bad scope"]))]
    Delete { name: String },
}

#[mcp_tool(discriminator = "method", when(path matches "^/admin") => (scopes = ["admin"]))]
struct Api {
    method: HttpMethod,
    path: String,
}

#[mcp_actions(no_auth)]
enum Op {
    #[annotate(read_only, when(x == 1) => (sensitive_data))]
    Get,
}

fn main() {}
