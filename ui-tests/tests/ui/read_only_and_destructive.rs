use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(read_only, destructive)]
    Read { path: String },
}

fn main() {}
