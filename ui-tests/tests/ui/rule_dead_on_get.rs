use annot::{HttpMethod, mcp_tool};

// The rule can fire on GET, HEAD and OPTIONS, which are read-only.
#[mcp_tool(discriminator = "method", when(path path_matches "^/admin/") => (destructive))]
struct Api {
    method: HttpMethod,
    path: String,
}

fn main() {}
