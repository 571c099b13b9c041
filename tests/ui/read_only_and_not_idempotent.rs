use annot::mcp_tool;

// The contradiction comes from a tool-level default and is reported where the
// action says `read_only`.
#[mcp_tool(idempotent = false)]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    #[annotate(destructive = false)]
    Append { path: String },
}

fn main() {}
