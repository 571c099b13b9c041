use annot::mcp_tool;

// A tool-level default does not excuse a missing #[annotate]: the action
// would silently take the specification's worst case.
#[mcp_tool(open_world = false)]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    Delete { path: String },
}

fn main() {}
