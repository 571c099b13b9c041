use annot::mcp_tool;

#[mcp_tool(read_only, schema = "strict")]
enum Files {
    Read { path: String },
    List,
}

fn main() {}
