use annot::mcp_tool;

/// Every way `results(...)` can be written wrong, each reported at once.
#[mcp_tool(open_world = false)]
enum Mail {
    /// An unknown claim, with the close spelling suggested.
    #[annotate(read_only, results(sensitiv))]
    Read { folder: String },
    /// A claim named twice.
    #[annotate(read_only, results(untrusted, untrusted))]
    Peek,
    /// No claim at all.
    #[annotate(read_only, results())]
    Count,
    /// Not a list.
    #[annotate(destructive, results = "sensitive")]
    Purge,
}

/// On an `#[mcp_actions]` enum, `results(...)` is not read.
#[annot::mcp_actions]
enum Verb {
    #[annotate(read_only, results(sensitive))]
    Get,
}

fn main() {}
