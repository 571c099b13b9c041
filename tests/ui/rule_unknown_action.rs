use annot::{HttpMethod, mcp_tool};

#[mcp_tool(
    discriminator = "method",
    when(method in ["GET", "DELET"]) => (destructive = false),
)]
struct Api {
    method: HttpMethod,
    path: String,
}

fn main() {}
