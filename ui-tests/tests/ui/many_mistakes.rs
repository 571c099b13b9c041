use annot::mcp_tool;

// Every mistake below is reported, not only the first.
#[mcp_tool(discriminator = "path", titel = "Files")]
enum Files {
    #[annotate(read_only, idempotant)]
    Read { path: String },
    #[annotate(read_only, destructive, destructive)]
    Wipe,
    Append { content: String },
    #[annotate(open_world = "no")]
    Sync(String),
}

fn main() {}
