use annot::mcp_tool;

#[mcp_tool(open_world = false)]
enum Db {
    #[annotate(destructive, when(limit is sql(postgres, read)) => (read_only))]
    Run { statement: String, limit: u32 },
    #[annotate(destructive, when(missing is sql(postgres, read)) => (read_only))]
    Query { statement: String },
}

fn main() {}
