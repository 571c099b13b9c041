use annot::mcp_tool;

#[mcp_tool]
enum Jobs {
    #[annotate(
        destructive = false,
        when(count == "3") => (slow_execution),
        when(count matches "^1") => (slow_execution),
        when(some(name)) => (slow_execution),
        when(name < 3) => (slow_execution),
        when(priority == 300) => (slow_execution),
        when(urgent in [1, 2]) => (slow_execution),
        when(count == 1.5) => (slow_execution),
        when(tags == "x") => (slow_execution),
    )]
    Run {
        count: u32,
        name: String,
        priority: u8,
        urgent: bool,
        tags: Vec<String>,
    },
}

fn main() {}
