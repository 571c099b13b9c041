use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(readonly)]
    Read { path: String },
    #[annotate(destrutive)]
    Delete { path: String },
}

fn main() {}
