use annot::mcp_tool;

#[mcp_tool]
enum Files {
    #[annotate(destructive, idempotent)]
    #[annotate(destructive = false)]
    Delete { path: String },
}

fn main() {}
