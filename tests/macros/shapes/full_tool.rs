//! Both shapes, as a user writes them, compile without warnings.
#![deny(warnings)]

use annot::{AnnotatedTool, mcp_actions, mcp_tool};

/// Manage notes.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
pub enum Notes {
    /// Read a note.
    #[annotate(read_only)]
    Read { id: u32 },
    #[annotate(destructive, idempotent, reversible = false)]
    Delete { id: u32, reason: Option<String> },
    #[annotate]
    Sync,
}

#[mcp_actions(open_world = true)]
#[derive(Debug)]
pub enum Verb {
    #[annotate(read_only)]
    Get,
    #[annotate(destructive = false)]
    Post,
}

#[mcp_tool(discriminator = "verb")]
pub struct Call {
    pub verb: Verb,
    pub url: String,
}

#[test]
fn a_tool_with_every_attribute_parses_and_resolves() {
    let notes = Notes::from_arguments_str(r#"{"action":"read","id":1}"#).unwrap();
    assert!(notes.resolve().is_read_only());
    let Notes::Read { id } = notes else {
        panic!("read is the action")
    };
    assert_eq!(id, 1);
    let call = Call::from_arguments_str(r#"{"verb":"Post","url":"u"}"#).unwrap();
    assert_eq!(call.resolve().destructive, Some(false));
    assert!(matches!(call.verb, Verb::Post));
    assert!(!call.url.is_empty());
    if let Notes::Delete { id, reason } =
        Notes::from_arguments_str(r#"{"action":"delete","id":1}"#).unwrap()
    {
        assert_eq!((id, reason), (1, None));
    }
    let _ = Notes::Sync;
    let _ = Verb::Get;
}
