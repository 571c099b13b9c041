use annot::mcp_tool;

// The variants of an enum are its actions: it always has a discriminator.
#[mcp_tool(single)]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
}

fn main() {}
