use annot::mcp_actions;

#[mcp_actions]
enum Method {
    #[annotate(read_only)]
    Get,
    #[annotate(destructive)]
    Post { body: String },
    Delete,
}

fn main() {}
