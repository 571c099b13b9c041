use annot::{HttpMethod, mcp_tool};

#[mcp_tool(
    discriminator = "method",
    when(method == "DELET") => (destructive = false),
    when(method matches "^G") => (sensitive_data),
)]
struct Api {
    method: HttpMethod,
    path: String,
}

fn main() {}
