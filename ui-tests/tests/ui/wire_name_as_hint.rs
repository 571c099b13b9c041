use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(readOnlyHint = true)]
    Read { path: String },
}

fn main() {}
