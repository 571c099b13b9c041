use annot::mcp_tool;

// Write-only hints on a read-only action do nothing.
#[mcp_tool(open_world = false)]
enum Files {
    #[annotate(read_only, when(path path_matches "^/etc/") => (destructive))]
    Read { path: String },
    #[annotate(read_only, when(path path_matches "^/tmp/") => (idempotent = false, reversible))]
    Stat { path: String },
}

// A tool-level rule on a read-only and a writing action.
#[mcp_tool(open_world = false, when(path path_matches "^/etc/") => (reversible = false))]
enum Both {
    #[annotate(read_only)]
    Read { path: String },
    #[annotate(destructive)]
    Delete { path: String },
}

// Read-only through the tool's default.
#[mcp_tool(read_only, when(size > 10) => (destructive))]
enum Defaulted {
    #[annotate]
    Read { size: u32 },
}



// A single-action tool declared read-only.
#[mcp_tool(read_only, when(path path_matches "^/etc/") => (destructive))]
struct Single {
    path: String,
}
fn main() {}
