use annot::mcp_tool;

#[mcp_tool]
enum Files<T> {
    #[annotate(read_only)]
    Read { path: T },
}

fn main() {}
