use annot::mcp_tool;

#[mcp_tool(open_world = false, read_only, display = "query {sql")]
struct Query {
    sql: String,
}

#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
enum Files {
    #[annotate(read_only, display = "read path} now")]
    Read { path: String },
    #[annotate(destructive, display = "delete {}")]
    Delete { path: String },
    #[annotate(destructive, display = "move {{from}} {from} to {to}")]
    Move { from: String, to: String },
}

fn main() {}
