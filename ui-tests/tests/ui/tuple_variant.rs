use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(read_only)]
    Read(String),
    #[annotate(destructive)]
    Delete { path: String },
}

fn main() {}
