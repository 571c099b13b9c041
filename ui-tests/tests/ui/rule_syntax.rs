use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(
        destructive = false,
        when(path matchs "^/tmp") => (sensitive_data),
        when(path = "a") => (sensitive_data),
        when() => (sensitive_data),
        when(size > 1) (sensitive_data),
        when(all()) => (sensitive_data),
        when(path in []) => (sensitive_data),
        when(path == "a", size > 1) => (sensitive_data),
    )]
    Write { path: String, size: u64 },
}

fn main() {}
