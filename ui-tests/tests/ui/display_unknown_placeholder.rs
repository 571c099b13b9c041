use annot::mcp_tool;

#[mcp_tool(open_world = false, display = "{action} {file}")]
#[serde(rename_all = "snake_case")]
enum Files {
    #[annotate(read_only, display = "read {pth}")]
    Read { path: String },
    #[annotate(destructive, display = "delete {path} and {backup}")]
    Delete { path: String },
    #[annotate(read_only, display = "list {path}")]
    List,
}

fn main() {}
