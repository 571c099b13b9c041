use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(
        destructive = false,
        when(path matches "^/tmp") => (read_only, destructive),
        when(path matches "^/etc") => (no_auth, scopes = ["admin"]),
        when(path matches "^/var") => (),
        when(path matches "^/srv") => (title = "x", destructive, destructive),
    )]
    Write { path: String },
}

fn main() {}
