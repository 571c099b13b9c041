//! The reference example: the `manage_files` tool of seed 003.

use crate::macro_support;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;

use annot::{AnnotatedTool, Annotations, ArgumentError};
use macro_support::{
    assert_same_verdicts, assert_schema_and_parser_agree, assert_within_static_bound, combinations,
    schema_of,
};
use manage_files::ManageFiles;
use serde_json::{Value, json};

fn resolve(arguments: Value) -> Annotations {
    ManageFiles::from_arguments(&arguments)
        .expect("valid arguments")
        .resolve()
}

fn core_hints(annotations: Annotations) -> [Option<bool>; 4] {
    [
        annotations.read_only,
        annotations.destructive,
        annotations.idempotent,
        annotations.open_world,
    ]
}

#[test]
fn static_annotations_are_the_worst_case() {
    const STATIC: Annotations = ManageFiles::STATIC_ANNOTATIONS;
    assert_eq!(
        core_hints(STATIC),
        [Some(false), Some(true), Some(false), Some(false)]
    );
    assert_eq!(STATIC.title, Some("Manage files"));
    assert_eq!(
        STATIC.to_string(),
        r#"{"title":"Manage files","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false,"sensitiveDataHint":true,"privilegedAccessHint":true}"#
    );
}

#[test]
fn actions_resolve_to_the_table_of_seed_003() {
    let read = resolve(json!({"action": "read", "path": "notes.txt"}));
    assert_eq!(
        core_hints(read),
        [Some(true), Some(false), Some(true), Some(false)]
    );
    assert_eq!(read.title, Some("Read a file"));

    let append = resolve(json!({"action": "append", "path": "log", "content": "x"}));
    assert_eq!(
        core_hints(append),
        [Some(false), Some(false), Some(false), Some(false)]
    );

    let replace = resolve(json!({"action": "replace", "path": "a", "content": ""}));
    assert_eq!(
        core_hints(replace),
        [Some(false), Some(true), Some(true), Some(false)]
    );

    let delete = resolve(json!({"action": "delete", "path": "a"}));
    assert_eq!(
        core_hints(delete),
        [Some(false), Some(true), Some(true), Some(false)]
    );
}

#[test]
fn every_action_stays_within_the_static_bound() {
    assert_within_static_bound::<ManageFiles>(&[
        json!({"action": "read", "path": "a"}),
        json!({"action": "append", "path": "a", "content": "b"}),
        json!({"action": "replace", "path": "a", "content": "b"}),
        json!({"action": "delete", "path": "a"}),
        json!({"action": "read", "path": "/etc/shadow"}),
        json!({"action": "delete", "path": "/root/.bashrc"}),
    ]);
    let names: Vec<&str> = ManageFiles::ACTIONS
        .iter()
        .map(|action| action.name)
        .collect();
    assert_eq!(names, ["read", "append", "replace", "delete"]);
}

#[test]
fn identity_comes_from_the_declaration() {
    assert_eq!(ManageFiles::NAME, "manage_files");
    assert_eq!(ManageFiles::TITLE, Some("Manage files"));
    assert_eq!(
        ManageFiles::DESCRIPTION,
        Some("Read, append, replace, or delete file contents.")
    );
    assert_eq!(ManageFiles::DISCRIMINATOR, Some("action"));
}

#[test]
fn schema_lists_the_actions_and_fields() {
    let schema = schema_of::<ManageFiles>();
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["read", "append", "replace", "delete"])
    );
    assert_eq!(schema["properties"]["action"]["type"], "string");
    assert_eq!(schema["properties"]["path"]["type"], "string");
    assert_eq!(
        schema["properties"]["path"]["description"],
        "Path of the file, relative to the server's root."
    );
    assert_eq!(schema["properties"]["content"]["type"], "string");
    assert_eq!(schema["required"], json!(["action", "path"]));
    assert_eq!(schema["additionalProperties"], false);
    for combinator in ["oneOf", "anyOf", "allOf"] {
        assert!(
            schema.get(combinator).is_none(),
            "no {combinator} at the root"
        );
    }
}

#[test]
fn schema_and_parser_agree_both_ways() {
    assert_schema_and_parser_agree::<ManageFiles>(
        &[
            json!({"action": "read", "path": "notes.txt"}),
            json!({"path": "", "action": "delete"}),
            json!({"action": "append", "path": "a", "content": "more"}),
            json!({"action": "replace", "path": "a", "content": ""}),
        ],
        &[
            json!(null),
            json!([]),
            json!("read"),
            json!({}),
            json!({"path": "a"}),
            json!({"action": "read"}),
            json!({"action": "Read", "path": "a"}),
            json!({"action": "copy", "path": "a"}),
            json!({"action": 1, "path": "a"}),
            json!({"action": null, "path": "a"}),
            json!({"action": "read", "path": 7}),
            json!({"action": "read", "path": null}),
            json!({"action": "read", "path": "a", "content": "x"}),
            json!({"action": "delete", "path": "a", "content": "x"}),
            json!({"action": "append", "path": "a"}),
            json!({"action": "replace", "content": "x"}),
            json!({"action": "append", "path": "a", "content": ["x"]}),
            json!({"action": "read", "path": "a", "extra": true}),
        ],
    );
}

#[test]
fn schema_and_parser_agree_on_every_combination() {
    let cases = combinations(&[
        (
            "action",
            vec![
                json!("read"),
                json!("append"),
                json!("replace"),
                json!("delete"),
                json!("copy"),
                json!(0),
            ],
        ),
        ("path", vec![json!("a.txt"), json!(1), json!(null)]),
        ("content", vec![json!("text"), json!(["text"])]),
        ("extra", vec![json!(true)]),
    ]);
    assert_eq!(cases.len(), 7 * 4 * 3 * 2);
    // read and delete with a string path; append and replace with content too.
    assert_eq!(assert_same_verdicts::<ManageFiles>(&cases), 4);
}

#[test]
fn errors_name_the_field() {
    let parse = |arguments: Value| ManageFiles::from_arguments(&arguments).unwrap_err();
    assert_eq!(
        parse(json!({"action": "append", "path": "a"})),
        ArgumentError::MissingField {
            field: "content".into()
        }
    );
    let unknown = parse(json!({"action": "read", "path": "a", "content": "x"}));
    assert_eq!(unknown.path(), Some("content"));
    assert_eq!(
        unknown.to_string(),
        "unknown field `content`, expected one of `action`, `path`"
    );
    let action = parse(json!({"action": "copy", "path": "a"}));
    assert_eq!(
        action.to_string(),
        "unknown action `copy`, expected one of `read`, `append`, `replace`, `delete`"
    );
    let wrong = parse(json!({"action": "read", "path": 7}));
    assert_eq!(wrong.path(), Some("path"));
    assert!(wrong.to_string().contains("expected a string"), "{wrong}");
    assert!(matches!(
        ManageFiles::from_arguments_str("{\"action\":"),
        Err(ArgumentError::Syntax { .. })
    ));
}

#[test]
fn parsing_builds_the_variant() {
    assert_eq!(
        ManageFiles::from_arguments(&json!({"action": "append", "path": "log", "content": "x"})),
        Ok(ManageFiles::Append {
            path: "log".into(),
            content: "x".into()
        })
    );
}

#[test]
fn system_paths_need_privileges_and_touch_sensitive_data() {
    for path in [
        "/etc/passwd",
        "/root",
        "/sys/kernel/debug",
        "/var/log/syslog",
        // Other spellings of the same paths: relative to the root, with
        // `//`, `.` and `..` segments.
        "etc/passwd",
        "./root",
        "//etc/shadow",
        "/./etc/shadow",
        "/home/../etc/shadow",
        "/tmp/../../etc",
    ] {
        for arguments in [
            json!({"action": "read", "path": path}),
            json!({"action": "delete", "path": path}),
            json!({"action": "append", "path": path, "content": "x"}),
        ] {
            let resolved = resolve(arguments.clone());
            assert_eq!(resolved.privileged_access, Some(true), "{arguments}");
            assert_eq!(resolved.sensitive_data, Some(true), "{arguments}");
        }
    }
    // The core hints still come from the action.
    let read = resolve(json!({"action": "read", "path": "/etc/hosts"}));
    assert_eq!(
        core_hints(read),
        [Some(true), Some(false), Some(true), Some(false)]
    );
    for path in ["notes.txt", "/home/me/etc", "/etcetera", "home/./etc/../x"] {
        let resolved = resolve(json!({"action": "read", "path": path}));
        // The tool declares both `false`: only the path rule raises them.
        assert_eq!(resolved.privileged_access, Some(false), "{path}");
        assert_eq!(resolved.sensitive_data, Some(false), "{path}");
    }
    let explanation = ManageFiles::from_arguments(&json!({"action": "delete", "path": "/etc/x"}))
        .unwrap()
        .explain();
    assert_eq!(explanation.fired.len(), 1);
    assert_eq!(
        explanation.fired[0].source,
        r#"when(path path_matches "^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)") => (sensitive_data, privileged_access)"#
    );
}
