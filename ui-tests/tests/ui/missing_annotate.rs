use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    Delete { path: String },
}

fn main() {}
