use annot::{mcp_actions, mcp_tool};

#[mcp_tool(open_world = false, read_only, display = "open {file_path} at {line}")]
struct Open {
    #[serde(rename = "filePath")]
    file_path: String,
    #[serde(skip)]
    line: u32,
}

#[mcp_actions]
enum Method {
    #[annotate(read_only, display = "get {path}")]
    Get,
}

#[mcp_tool(discriminator = "method", open_world = true, display = "{method} {url}")]
struct Api {
    method: Method,
    path: String,
}

fn main() {}
