use annot::mcp_tool;

#[mcp_tool(read_only, schema = "strict")]
enum Files {
    #[annotate]
    Read { path: String },
    #[annotate]
    List,
}

fn main() {}
