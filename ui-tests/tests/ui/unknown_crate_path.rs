use annot::mcp_tool;

#[mcp_tool(crate = "not_annot")]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
}

fn main() {}
