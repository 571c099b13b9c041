use annot::{AnnotatedTool, mcp_tool};

// A tool-level write-only default (`idempotent = false`) is for the actions
// that write: a read-only action skips it instead of contradicting it.
#[mcp_tool(idempotent = false, reversible = false)]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    #[annotate(destructive = false)]
    Append { path: String },
}

#[test]
fn read_only_actions_skip_the_tools_write_defaults() {
    assert_eq!(Files::ACTIONS[0].annotations.idempotent, Some(true));
    assert_eq!(Files::ACTIONS[1].annotations.idempotent, Some(false));
    assert_eq!(Files::ACTIONS[1].annotations.reversible, Some(false));
}
