use annot::mcp_tool;

#[mcp_tool(discriminator = "op")]
enum Files {
    #[annotate(read_only)]
    Read { op: String },
    #[annotate(destructive)]
    Delete {
        #[serde(rename = "op")]
        path: String,
    },
}

fn main() {}
