use annot::mcp_tool;

#[mcp_tool(title = 3)]
enum Files {
    #[annotate(read_only = "yes", title = true)]
    Read { path: String },
    #[annotate(destructive(true))]
    Delete { path: String },
}

fn main() {}
