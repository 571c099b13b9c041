use annot::{HttpMethod, mcp_tool};

#[mcp_tool(
    discriminator = "method",
    when(method in ["GET", "DELET"]) => (sensitive_data = false),
)]
struct Api {
    method: HttpMethod,
    path: String,
}

fn main() {}
