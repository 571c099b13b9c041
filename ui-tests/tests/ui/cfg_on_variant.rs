use annot::mcp_tool;

// The schema and the annotations are derived before configuration.
#[mcp_tool(open_world = false)]
enum Files {
    #[annotate(read_only)]
    Read {
        path: String,
        #[cfg(unix)]
        offset: u64,
    },
    #[cfg(unix)]
    #[annotate(destructive)]
    Delete { path: String },
}

fn main() {}
