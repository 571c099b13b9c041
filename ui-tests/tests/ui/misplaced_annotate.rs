use annot::mcp_tool;

#[mcp_tool]
#[annotate(read_only)]
enum Files {
    #[annotate(read_only)]
    Read {
        #[annotate(destructive)]
        path: String,
    },
}

fn main() {}
