//! Arguments text to annotations: what the parser hands the tool is what the
//! client sent, and the borrowing path (`resolve_arguments_str`) accepts
//! exactly what `from_arguments_str` accepts and resolves identically.

#[path = "../../examples/tools/github_api.rs"]
mod github_api;

use annot::AnnotatedTool;
use github_api::GithubApi;
use serde_json::json;

/// A `serde_json::Value` field is the client's JSON, floats and all: `1.0`
/// stays a float (only fields whose type holds integers read an integral
/// float as an integer, as JSON Schema's `"integer"` does).
#[test]
fn a_value_field_keeps_integral_floats() {
    let text = r#"{"method": "POST", "path": "/x", "body": {"x": 1.0, "y": [2.0, 3], "z": -0.0}}"#;
    let parsed = GithubApi::from_arguments_str(text).expect("valid arguments");
    let body = parsed.body.expect("a body");
    assert_eq!(
        serde_json::to_string(&body).unwrap(),
        r#"{"x":1.0,"y":[2.0,3],"z":-0.0}"#
    );
    assert!(body["x"].is_f64() && body["y"][1].is_u64());
    let from_value = GithubApi::from_arguments(&json!({"method": "GET", "path": "/", "body": 4.0}))
        .expect("valid arguments");
    assert!(from_value.body.expect("a body").is_f64());
}

#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
#[allow(dead_code)] // Only some of the resolvers are used here.
#[path = "../../fuzz/src/reference.rs"]
mod reference;

use manage_files::ManageFiles;

/// The borrowing path and the owned one, side by side on one text: the same
/// acceptance, the same outcome, the same error.
fn both<T: AnnotatedTool + std::fmt::Debug>(text: &str) -> Option<annot::Annotations> {
    let view = (T::GENERATED.evaluate_view)(text);
    let owned = T::from_arguments_str(text);
    let evaluated = (T::GENERATED.evaluate_arguments_str)(text);
    match (&owned, &evaluated) {
        (Ok(tool), Ok(outcome)) => {
            assert_eq!(outcome.annotations(), tool.resolve(), "{text}");
            assert_eq!(outcome.authorization(), tool.resolve_authorization());
        }
        (Err(owned), Err(evaluated)) => assert_eq!(owned, evaluated, "{text}"),
        _ => panic!("{text}: {owned:?} against {evaluated:?}"),
    }
    if let Some(view) = view {
        assert!(
            owned.is_ok(),
            "{text}: the view accepts what the parser refuses"
        );
        assert_eq!(
            view.annotations(),
            owned.as_ref().unwrap().resolve(),
            "{text}"
        );
    }
    view.map(|view| view.annotations())
}

#[test]
fn strings_with_escapes_and_spacing_resolve_alike() {
    for text in [
        r#"{"action":"read","path":"/etc/passwd"}"#,
        r#"{"action":"read","path":"\/etc\/passwd"}"#,
        r#" { "path" : "/e\u0074c/x" , "action" : "delete" } "#,
        r#"{"action":"append","path":"notes.txt","content":"a\nb"}"#,
        r#"{"action":"append","path":"notes.txt","content":"\ud83d\ude00 \\u"}"#,
    ] {
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        let resolved = both::<ManageFiles>(text).expect("the view reads valid arguments");
        assert_eq!(resolved, reference::manage_files(&json), "{text}");
    }
}

#[test]
fn what_the_view_declines_the_owned_path_decides() {
    // Repeated member: the owned path keeps the last one.
    let repeated = r#"{"action":"read","path":"/etc/x","path":"notes.txt"}"#;
    assert!((ManageFiles::GENERATED.evaluate_view)(repeated).is_none());
    let outcome =
        (ManageFiles::GENERATED.evaluate_arguments_str)(repeated).expect("valid for serde_json");
    assert_eq!(
        outcome.annotations(),
        reference::manage_files(&json!({"action": "read", "path": "notes.txt"}))
    );
    // Invalid arguments: the owned path's error, word for word.
    for text in [
        r#"{"action":"read"}"#,
        r#"{"action":"read","path":"x","content":"y"}"#,
        r#"{"action":"read","path":"x","extra":1}"#,
        r#"{"action":"burn","path":"x"}"#,
        r#"{"action":"read","path":3}"#,
        r#"{"action":"read","path":null}"#,
        r#"["read"]"#,
        r#"{"action":"read","path":"x"} trailing"#,
        r#"{"action":"read","path":"\ud800"}"#,
        // `content` is no rule's: checked without decoding, as strictly.
        r#"{"action":"append","path":"x","content":"\ud800"}"#,
        r#"{"action":"append","path":"x","content":"\udc00\ud800"}"#,
        r#"{"action":"append","path":"x","content":"\ud800\u0041"}"#,
        r#"{"action":"append","path":"x","content":7}"#,
    ] {
        assert!(
            (ManageFiles::GENERATED.evaluate_view)(text).is_none(),
            "{text}"
        );
        assert!(both::<ManageFiles>(text).is_none());
    }
}

#[test]
fn optional_and_defaulted_members_read_as_the_parser_reads_them() {
    use github_api::GithubApi;
    for text in [
        r#"{"method":"GET","path":"/repos/o/r","public":true}"#,
        r#"{"method":"GET","path":"/repos/o/r"}"#,
        r#"{"method":"DELETE","path":"/repos/o/r","body":null}"#,
        r#"{"method":"DELETE","path":"/repos/o/r","body":{"n":1.0}}"#,
        r#"{"method":"PATCH","path":"/repos/o/r/issues/1","public":false,"body":[1,2]}"#,
    ] {
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        let resolved = both::<GithubApi>(text).expect("the view reads valid arguments");
        assert_eq!(resolved, reference::github_api(&json), "{text}");
    }
    for text in [
        r#"{"method":"GET","path":"/","public":"yes"}"#,
        r#"{"method":"get","path":"/"}"#,
        r#"{"method":"GET","path":"/","public":null}"#,
    ] {
        assert!(both::<GithubApi>(text).is_none(), "{text}");
    }
}

/// A path with no safe normal form leaves the rule undecided: its hints
/// join, and the explanation marks it, on the wire too.
#[test]
fn an_undecided_rule_is_marked_in_the_explanation() {
    let text = r#"{"action":"read","path":"/../etc/passwd"}"#;
    let explanation = ManageFiles::from_arguments_str(text).unwrap().explain();
    let indices = |rules: &[&annot::Rule]| rules.iter().map(|rule| rule.index).collect::<Vec<_>>();
    assert_eq!(indices(&explanation.undecided), [0]);
    assert_eq!(indices(&explanation.fired), [0]);
    let wire = serde_json::to_value(&explanation).unwrap();
    assert_eq!(wire["rules"][0]["undecided"], true);
    // The same through the borrowing path's outcome.
    let outcome = (ManageFiles::GENERATED.evaluate_view)(text).expect("valid arguments");
    assert_eq!(outcome.explain(), explanation);

    let decided = ManageFiles::from_arguments_str(r#"{"action":"read","path":"/etc/passwd"}"#)
        .unwrap()
        .explain();
    assert!(decided.undecided.is_empty());
    assert_eq!(indices(&decided.fired), [0]);
    let wire = serde_json::to_value(&decided).unwrap();
    assert_eq!(wire["rules"][0].get("undecided"), None);
}

/// A tool with an integer field, as a new user writes one.
#[annot::mcp_tool(open_world = false, destructive = false)]
#[derive(Debug)]
struct Scale {
    replicas: u32,
}

/// JSON Schema's `"integer"` is about the number the text denotes: `100.0`
/// and `1e2` are integers, `100.00000000000001` is not, although serde_json
/// reads it as the `f64` `100.0`.
#[test]
fn a_number_is_an_integer_when_its_decimal_text_is_one() {
    for text in [
        r#"{"replicas": 100}"#,
        r#"{"replicas": 100.0}"#,
        r#"{"replicas": 1e2}"#,
        r#"{"replicas": 1000e-1}"#,
    ] {
        let parsed = Scale::from_arguments_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parsed.replicas, 100, "{text}");
        assert!(
            (Scale::GENERATED.evaluate_arguments_str)(text).is_ok(),
            "{text}"
        );
    }
    for text in [
        r#"{"replicas": 100.00000000000001}"#,
        r#"{"replicas": 100.000000000000000000001}"#,
        r#"{"replicas": 1000000000000000000001e-19}"#,
        r#"{"replicas": 100.5}"#,
    ] {
        let error = Scale::from_arguments_str(text).expect_err(text);
        assert_eq!(error.path(), Some("replicas"), "{text}: {error}");
        assert!(
            (Scale::GENERATED.evaluate_arguments_str)(text).is_err(),
            "{text}"
        );
        assert!((Scale::GENERATED.evaluate_view)(text).is_none(), "{text}");
    }
    // The same text elsewhere in the arguments changes nothing.
    assert!(Scale::from_arguments_str(r#"{"replicas": 100.0}"#).is_ok());
}
