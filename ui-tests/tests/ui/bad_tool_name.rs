use annot::mcp_tool;

#[mcp_tool(name = "manage files")]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
}

fn main() {}
