//! `#[derive(Deserialize)]` below `#[mcp_tool]` on a struct whose action field
//! is an `#[mcp_actions]` enum: the enum reads its wire names for serde (the
//! macro provides `Deserialize`), and an enum that derives it itself, below
//! its attribute, keeps its own.

use annot::{AnnotatedActions, AnnotatedTool, mcp_actions, mcp_tool};

#[mcp_actions]
#[serde(rename_all = "UPPERCASE")]
enum Method {
    #[annotate(read_only)]
    Get,
    #[annotate(destructive)]
    Delete,
}

#[mcp_tool(discriminator = "method", open_world = true)]
#[derive(serde::Deserialize)]
struct Api {
    method: Method,
    path: String,
}

#[mcp_actions]
#[derive(Clone, Copy, Debug, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum Op {
    #[annotate(read_only)]
    Look,
}

#[test]
fn serde_and_the_macro_read_the_same_actions() {
    let text = r#"{"method":"DELETE","path":"/a"}"#;
    let by_serde: Api = serde_json::from_str(text).unwrap();
    let by_macro = Api::from_arguments_str(text).unwrap();
    assert_eq!(by_serde.method.index(), by_macro.method.index());
    assert_eq!(by_serde.path, by_macro.path);
    let Err(unknown) = serde_json::from_str::<Api>(r#"{"method":"PUT","path":"/a"}"#) else {
        panic!("PUT is no action");
    };
    assert!(
        unknown
            .to_string()
            .contains("unknown variant `PUT`, expected `GET` or `DELETE`")
    );
    let op: Op = serde_json::from_str(r#""look""#).unwrap();
    assert!(matches!(op, Op::Look));
}
