use annot::mcp_tool;

#[mcp_tool(open_world = false)]
enum Db {
    #[annotate(destructive, when(statement is sql(oracle, read)) => (read_only))]
    Run { statement: String },
    #[annotate(destructive, when(statement is sql(postgres, reads)) => (read_only))]
    Query { statement: String },
    #[annotate(destructive, when(statement is sql(sqlite, riskiest)) => (privileged_access))]
    Admin { statement: String },
}

fn main() {}
