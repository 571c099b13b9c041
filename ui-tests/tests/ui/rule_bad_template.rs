use annot::{HttpMethod, mcp_tool};

#[mcp_tool(
    discriminator = "method",
    when(path matches_template "repos/:owner") => (sensitive_data),
    when(path matches_template "/repos/:1st/*rest/x") => (sensitive_data),
    when(method matches "^G") => (sensitive_data),
)]
struct Api {
    method: HttpMethod,
    path: String,
}

fn main() {}
