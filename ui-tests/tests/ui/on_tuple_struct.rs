use annot::mcp_tool;

#[mcp_tool]
struct Files(String, u32);

fn main() {}
