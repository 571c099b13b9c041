//! Rules written as text (`annot::rules::text`): compiled against a tool's
//! `inputSchema` into the tables the macro's code reads, resolved by the
//! same `Outcome`, and refused with errors at a line and a column.

use annot::Annotations;
use annot::rules::text::{CompileError, RuleError, TextRules, ToolSpec};
use serde_json::{Value, json};

fn files_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["read", "write", "delete"]},
            "path": {"type": "string"},
            "size": {"type": "integer", "format": "uint32", "minimum": 0},
            "ratio": {"type": "number"},
            "force": {"type": "boolean"},
            "note": {"type": ["string", "null"]},
        },
        "required": ["action", "path", "size"],
    })
}

fn files(tool_rules: &str) -> Result<TextRules, CompileError> {
    let schema = files_schema();
    ToolSpec::new("files", &schema)
        .defaults(Annotations::new().open_world(false))
        .discriminator("action")
        .rules(tool_rules)
        .action("read", Annotations::new().read_only(true), "")
        .action(
            "write",
            Annotations::new().read_only(false).destructive(false),
            "when(size > 1000000) => (resource_intensive)",
        )
        .action(
            "delete",
            Annotations::new().read_only(false).destructive(true),
            r#"when(all(force == true, not(some(note)))) => (reversible = false)"#,
        )
        .compile()
}

fn resolve(rules: &TextRules, arguments: Value) -> Annotations {
    rules
        .evaluate(&arguments)
        .expect("valid arguments")
        .annotations()
}

/// The errors of rules that must not compile.
fn errors(result: Result<TextRules, CompileError>) -> Vec<RuleError> {
    match result {
        Err(CompileError::Rules(errors)) => errors.errors().to_vec(),
        Err(other) => panic!("expected rule errors, got {other}"),
        Ok(_) => panic!("expected rule errors, the rules compiled"),
    }
}

#[test]
fn rules_of_the_tool_and_of_each_action_resolve_per_call() {
    let rules = files(
        r#"when(path path_matches "^/etc(/|$)") => (privileged_access, sensitive_data)
           when(action in ["write", "delete"]) => (idempotent = false)"#,
    )
    .unwrap();
    let read = resolve(
        &rules,
        json!({"action": "read", "path": "notes.txt", "size": 1}),
    );
    assert_eq!(read.read_only, Some(true));
    assert_eq!(read.privileged_access, None);
    let etc = resolve(
        &rules,
        json!({"action": "read", "path": "/etc/passwd", "size": 1}),
    );
    assert_eq!(etc.privileged_access, Some(true));
    assert_eq!(etc.sensitive_data, Some(true));
    let big = resolve(
        &rules,
        json!({"action": "write", "path": "a", "size": 2_000_000}),
    );
    assert_eq!(big.resource_intensive, Some(true));
    assert_eq!(big.idempotent, Some(false));
    let small = resolve(&rules, json!({"action": "write", "path": "a", "size": 10}));
    assert_eq!(small.resource_intensive, None);
    let forced = json!({"action": "delete", "path": "a", "size": 0, "force": true});
    assert_eq!(resolve(&rules, forced).reversible, Some(false));
    let noted = json!({"action": "delete", "path": "a", "size": 0, "force": true, "note": "x"});
    assert_eq!(resolve(&rules, noted).reversible, None);
    let null_note =
        json!({"action": "delete", "path": "a", "size": 0, "force": true, "note": null});
    assert_eq!(resolve(&rules, null_note).reversible, Some(false));
}

#[test]
fn an_undecided_path_never_lowers_risk() {
    let schema = files_schema();
    let rules = ToolSpec::new("files", &schema)
        .defaults(Annotations::new().privileged_access(true))
        .discriminator("action")
        .rules(r#"when(not(path path_matches "^/etc(/|$)")) => (privileged_access = false)"#)
        .compile()
        .unwrap();
    let home = resolve(
        &rules,
        json!({"action": "read", "path": "/home/a", "size": 1}),
    );
    assert_eq!(home.privileged_access, Some(false));
    let etc = resolve(
        &rules,
        json!({"action": "read", "path": "/home/../etc/a", "size": 1}),
    );
    assert_eq!(etc.privileged_access, Some(true));
    // `..` past the root has no safe normal form: the rule is undecided and
    // the call keeps the riskier value.
    let escape = json!({"action": "read", "path": "/tmp/../../etc/passwd", "size": 1});
    let outcome = rules.evaluate(&escape).unwrap();
    assert_eq!(outcome.annotations().privileged_access, Some(true));
    assert_eq!(outcome.rules_in_play(), 1);
    assert_eq!(outcome.explain().undecided.len(), 1);
}

#[test]
fn the_static_bound_holds_every_resolution_and_names_the_rules() {
    let rules = files(r#"when(path matches "secret") => (sensitive_data)"#).unwrap();
    let names: Vec<&str> = rules.actions().iter().map(|action| action.name).collect();
    assert_eq!(names, ["read", "write", "delete"]);
    assert_eq!(rules.actions()[0].annotations.sensitive_data, Some(true));
    assert_eq!(rules.static_annotations().destructive, Some(true));
    let sources: Vec<&str> = rules.rules().iter().map(|rule| rule.source).collect();
    assert_eq!(
        sources,
        [
            r#"when(path matches "secret") => (sensitive_data)"#,
            "when(size > 1000000) => (resource_intensive)",
            r#"when(all(force == true, not(some(note)))) => (reversible = false)"#,
        ]
    );
    let call = json!({"action": "read", "path": "my-secret", "size": 1});
    let explanation = rules.evaluate(&call).unwrap().explain();
    assert!(format!("{explanation:?}").contains("secret"));
}

#[test]
fn a_tool_without_actions_and_its_actions_from_an_enum() {
    let schema = json!({
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["query"],
    });
    let rules = ToolSpec::new("search", &schema)
        .defaults(Annotations::new().read_only(true))
        .rules("when(limit >= 1000) => (slow_execution)")
        .compile()
        .unwrap();
    assert_eq!(resolve(&rules, json!({"query": "a"})).slow_execution, None);
    assert_eq!(
        resolve(&rules, json!({"query": "a", "limit": 5000})).slow_execution,
        Some(true)
    );
    assert_eq!(rules.actions()[0].name, "search");

    let schema = files_schema();
    let rules = ToolSpec::new("files", &schema)
        .discriminator("action")
        .rules(r#"when(action == "delete") => (read_only = false, destructive)"#)
        .compile()
        .unwrap();
    let names: Vec<&str> = rules.actions().iter().map(|action| action.name).collect();
    assert_eq!(names, ["read", "write", "delete"]);
    let delete = resolve(&rules, json!({"action": "delete", "path": "a", "size": 0}));
    assert_eq!(delete.destructive, Some(true));
}

#[test]
fn bad_arguments_are_errors_not_guesses() {
    let rules = files("").unwrap();
    let message = |arguments: Value| rules.evaluate(&arguments).unwrap_err().to_string();
    assert!(message(json!([])).contains("must be a JSON object"));
    assert!(message(json!({"path": "a", "size": 1})).contains("missing field `action`"));
    assert!(
        message(json!({"action": "move", "path": "a", "size": 1}))
            .contains("unknown action `move`")
    );
    // The fields the rules read are checked as their schema types them.
    assert!(message(json!({"action": "write", "path": "a", "size": "big"})).contains("`size`"));
    assert!(message(json!({"action": "write", "path": "a", "size": -1})).contains("out of range"));
    assert!(message(json!({"action": "write", "path": "a"})).contains("missing field `size`"));
}

#[test]
fn an_unknown_operator_is_placed_with_its_suggestion() {
    let found = errors(files(
        r#"when(path mathces "^/tmp/") => (destructive = false)"#,
    ));
    assert_eq!(found.len(), 1);
    let error = &found[0];
    assert_eq!(error.origin, "rules of tool `files`");
    assert!(
        error
            .message
            .starts_with("unknown operator `mathces`; did you mean `matches`?")
    );
    let at = error.location.as_ref().unwrap();
    assert_eq!((at.line, at.column, at.end_column), (1, 11, 18));
    assert_eq!(at.snippet, "mathces");
    let shown = error.to_string();
    assert!(
        shown.contains("--> rules of tool `files`, line 1, column 11"),
        "{shown}"
    );
    assert!(shown.contains("1 | when(path mathces"), "{shown}");
    assert!(shown.contains("  |           ^^^^^^^\n"), "{shown}");
}

#[test]
fn every_error_of_every_text_is_reported_at_its_place() {
    let found = errors(files(
        "when(pth matches \"x\") => (sensitive_data)\n\
         when(size == \"big\") => (open_wrld)\n\
         when(ratio matches \"(\") => (slow_execution)",
    ));
    let summary: Vec<(usize, usize, &str)> = found
        .iter()
        .map(|error| {
            let at = error.location.as_ref().unwrap();
            (at.line, at.column, at.snippet.as_str())
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, 6, "pth"),
            (2, 14, "\"big\""),
            (2, 25, "open_wrld"),
            (3, 6, "ratio")
        ]
    );
    assert!(
        found[0]
            .message
            .starts_with("no field `pth` in the tool; did you mean `path`?")
    );
    assert!(
        found[2]
            .message
            .starts_with("unknown hint `open_wrld` in a rule; did you mean `open_world`?")
    );
    assert!(
        found[1]
            .message
            .starts_with("`size` is `integer`: compare it with an integer, not a string")
    );
    assert!(
        found[3]
            .message
            .starts_with("`matches` tests a string field; `ratio` is `number`")
    );
}

#[test]
fn grammar_errors_name_what_was_expected() {
    let first = |text: &str| {
        let found = errors(files(text));
        (found[0].message.clone(), found[0].location.clone())
    };
    let (message, at) = first("when(path matches \"x\") (sensitive_data)");
    assert!(
        message.contains("expected `=> (<hints>)` after `when(...)`"),
        "{message}"
    );
    assert_eq!(at.unwrap().column, 24);
    let (message, _) = first("when(path matches \"x\" => (sensitive_data)");
    assert!(message.contains("does not lex"), "{message}");
    let (message, at) = first("unless(path matches \"x\") => (sensitive_data)");
    assert!(
        message.starts_with("expected a rule, `when(<predicate>) => (<hints>)`"),
        "{message}"
    );
    assert_eq!(at.unwrap().snippet, "unless");
    let (message, _) = first("when(size = 3) => (slow_execution)");
    assert!(message.starts_with("write `==` to compare"), "{message}");
    let (message, _) = first("when(path matches \"[\") => (slow_execution)");
    assert!(message.starts_with("invalid regex"), "{message}");
    let (message, _) = first("when(path matches \"x\") => ()");
    assert!(
        message.starts_with("a rule must set at least one hint"),
        "{message}"
    );
    let (message, _) = first("when(path matches \"x\") => (read_only, destructive)");
    assert!(message.contains("contradicts `read_only`"), "{message}");
}

#[test]
fn what_text_cannot_say_is_refused_by_name() {
    let first = |text: &str| errors(files(text))[0].message.clone();
    assert!(first("when(path matches \"x\") => (scopes = [\"repo\"])").contains("authorization"));
    assert!(first("when(path matches \"x\") => (results(sensitive))").contains("`results(...)`"));
    // A rule of every action setting a write-only hint reaches `read`.
    let message = first("when(path matches \"x\") => (destructive)");
    assert!(
        message.starts_with("`destructive` does nothing on read-only action `read`"),
        "{message}"
    );
    // An action's own rules apply to it alone.
    let schema = files_schema();
    let result = ToolSpec::new("files", &schema)
        .discriminator("action")
        .action(
            "read",
            Annotations::new(),
            "when(action == \"read\") => (sensitive_data)",
        )
        .compile();
    let message = errors(result)[0].message.clone();
    assert!(
        message.contains("action `read` has no field `action`"),
        "{message}"
    );
    assert!(
        message.contains("already applies to that action only"),
        "{message}"
    );
}

#[test]
fn a_bad_tool_description_is_its_own_error() {
    let schema = files_schema();
    let missing = ToolSpec::new("files", &schema)
        .discriminator("verb")
        .compile();
    assert!(matches!(missing, Err(CompileError::Tool { .. })));
    let not_object = json!(true);
    let error = ToolSpec::new("files", &not_object).compile().unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `files`: an inputSchema is a JSON object"
    );
}

#[test]
fn compiled_rules_can_be_shared_across_threads() {
    fn shared<T: Send + Sync + 'static>(_: &T) {}
    let rules = files("").unwrap();
    shared(&rules);
    let handle = std::thread::spawn(move || {
        let call = json!({"action": "read", "path": "a", "size": 1});
        rules.evaluate(&call).unwrap().annotations()
    });
    assert_eq!(handle.join().unwrap().read_only, Some(true));
}
