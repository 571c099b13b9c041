use annot::mcp_tool;

#[derive(serde::Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

#[mcp_tool(open_world = false)]
enum Canvas {
    #[annotate(destructive = false)]
    Draw { at: Point },
}

fn main() {}
