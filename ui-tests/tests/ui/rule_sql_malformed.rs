use annot::mcp_tool;

#[mcp_tool(open_world = false)]
enum Db {
    #[annotate(destructive, when(statement is sql(postgres)) => (read_only))]
    Run { statement: String },
    #[annotate(destructive, when(statement is regex("select")) => (read_only))]
    Query { statement: String },
    #[annotate(destructive, when(statement is) => (read_only))]
    Explain { statement: String },
}

fn main() {}
