use annot::mcp_tool;

#[mcp_tool(when(path matches "^/(etc|root") => (sensitive_data))]
enum Files {
    #[annotate(read_only, when(path matches r"\p{Nonsense}") => (privileged_access))]
    Read { path: String },
}

fn main() {}
