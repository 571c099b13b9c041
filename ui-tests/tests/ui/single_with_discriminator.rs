use annot::mcp_tool;

// `single` says there is no discriminator: naming one contradicts it.
#[mcp_tool(single, discriminator = "kind", read_only)]
struct Lookup {
    kind: String,
}

// So does `#[serde(tag)]`, which names one too.
#[mcp_tool(single, read_only)]
#[serde(tag = "kind")]
struct Find {
    kind: String,
}

fn main() {}
