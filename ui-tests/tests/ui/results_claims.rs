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

/// Inside a rule: the same mistakes, and `results` twice in one outcome.
#[mcp_tool(open_world = false)]
enum Files {
    #[annotate(read_only, when(path matches "^/hr") => (results(untrustd)))]
    Read { path: String },
    #[annotate(read_only, when(path matches "^/hr") => (results(sensitive, sensitive)))]
    Stat { path: String },
    #[annotate(read_only, when(path matches "^/hr") => (results()))]
    List { path: String },
    #[annotate(read_only, when(path matches "^/hr") => (results(sensitive), results(untrusted)))]
    Open { path: String },
    /// The key misspelt.
    #[annotate(read_only, when(path matches "^/hr") => (result(sensitive)))]
    Peek { path: String },
}

/// On the tool: twice.
#[mcp_tool(read_only, results(sensitive), results(untrusted))]
struct Lookup {
    key: String,
}

/// On an `#[mcp_actions]` enum's variant, checked alike.
#[annot::mcp_actions]
enum Verb {
    #[annotate(read_only, results(sensitve))]
    Get,
}

fn main() {}
