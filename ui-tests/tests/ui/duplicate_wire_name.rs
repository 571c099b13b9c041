use annot::mcp_tool;

#[mcp_tool]
#[serde(rename_all = "lowercase")]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    #[serde(rename = "read")]
    #[annotate(read_only)]
    ReadAll,
}

fn main() {}
