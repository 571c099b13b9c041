use annot::{AnnotatedTool, HttpMethod, mcp_tool};

// Tool-level write-only defaults skip read-only actions.
#[mcp_tool(
    destructive,
    reversible = false,
    idempotent = false,
    open_world = false
)]
enum Defaults {
    #[annotate(read_only)]
    Read { path: String },
    // A bare #[annotate] takes the tool's defaults explicitly.
    #[annotate]
    Wipe { path: String },
}

// A rule that turns a read into a write may set write-only hints.
#[mcp_tool(open_world = false)]
enum Reads {
    #[annotate(read_only, when(path path_matches "^/admin/") => (read_only = false, destructive))]
    Get { path: String },
}

// A rule on an HTTP API that skips the read-only methods.
#[mcp_tool(
    discriminator = "method",
    when(all(method != "GET", method != "HEAD", method != "OPTIONS", path path_matches "^/admin/"))
        => (destructive),
    when(all(method == "GET", path matches_template "/admin/:page")) => (read_only = false),
)]
struct Api {
    method: HttpMethod,
    path: String,
}

#[test]
fn write_rules_leave_the_worst_case_not_read_only() {
    assert!(!Defaults::STATIC_ANNOTATIONS.is_read_only());
    assert!(!Reads::STATIC_ANNOTATIONS.is_read_only());
    assert!(!Api::STATIC_ANNOTATIONS.is_read_only());
}
