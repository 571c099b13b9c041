use annot::mcp_tool;

#[mcp_tool]
#[serde(untagged, rename_all = "snake_cas")]
enum Files {
    #[annotate(read_only)]
    Read {
        #[serde(alias = "file")]
        path: String,
        #[serde(flatten)]
        extra: std::collections::HashMap<String, String>,
    },
}

fn main() {}
