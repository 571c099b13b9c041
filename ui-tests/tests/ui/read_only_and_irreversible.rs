use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(read_only, reversible = false)]
    Read { path: String },
}

fn main() {}
