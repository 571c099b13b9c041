use annot::mcp_tool;

#[mcp_tool]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
