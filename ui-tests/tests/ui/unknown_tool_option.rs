use annot::mcp_tool;

#[mcp_tool(nmae = "files", discriminater = "op", colour = "red")]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
}

fn main() {}
