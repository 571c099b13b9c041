use annot::mcp_tool;

#[mcp_tool(when(pth matches "^/etc") => (sensitive_data))]
enum Files {
    #[annotate(read_only, when(size > 10) => (slow_execution))]
    Read { path: String },
    #[annotate(destructive, when(action == "delete") => (reversible = false))]
    Delete { path: String },
}

fn main() {}
