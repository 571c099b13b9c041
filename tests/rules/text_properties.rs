//! Property: for every example tool with rules, the same rules given as text
//! (`annot::rules::text`), checked against the tool's own `inputSchema`,
//! resolve every generated call exactly as the macro's code does: the same
//! annotations, the same rules in play, the same explanation.
//!
//! github_api's rules also set authorization, which rule text leaves to the
//! tool's own server: its text rules are the same rules without `scopes`
//! and `no_auth`, and only what they decide (the hints) is compared.

#[path = "../../examples/tools/github_api.rs"]
mod github_api;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
use crate::rules_support;
#[path = "../../examples/tools/sql.rs"]
mod sql;

use std::cell::Cell;

use annot::AnnotatedTool;
use annot::rules::text::{TextRules, ToolSpec};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rules_support::{CASES, assert_rules_hit, file_path, segment};
use serde_json::{Value, json};

/// Action `name`'s rules as text, if it has any.
type ActionRules<'a> = &'a [(&'a str, &'a str)];

/// `T`'s rules compiled from text: its schema, its defaults and its actions'
/// own annotations as the macro's table holds them, `tool_rules` for the
/// whole tool and `action_rules` per action.
fn from_text<T: AnnotatedTool>(
    schema: &Value,
    discriminator: Option<&str>,
    tool_rules: &str,
    action_rules: ActionRules,
) -> TextRules {
    let table = T::GENERATED
        .rule_table
        .expect("a tool with rules has a table");
    let mut spec = ToolSpec::new(T::NAME, schema)
        .defaults(table.defaults)
        .rules(tool_rules);
    if let Some(field) = discriminator {
        spec = spec.discriminator(field);
        for row in table.actions {
            let rules = action_rules
                .iter()
                .find(|(name, _)| *name == row.name)
                .map_or("", |(_, rules)| *rules);
            spec = spec.action(row.name, row.declared, rules);
        }
    }
    spec.compile()
        .unwrap_or_else(|error| panic!("{}:\n{error}", T::NAME))
}

/// Runs the property over `strategy`; returns how many calls fired a rule
/// and how many fired none.
/// With `same_sources`, the rules' normal forms and the explanation of
/// each hint must be the same too.
fn same_resolution<T: AnnotatedTool>(
    text: &TextRules,
    same_sources: bool,
    strategy: impl Strategy<Value = Value>,
) -> (u32, u32) {
    let (fired, quiet) = (Cell::new(0u32), Cell::new(0u32));
    let mut runner = TestRunner::new(Config::with_cases(CASES));
    let result = runner.run(&strategy, |arguments| {
        let value = T::from_arguments(&arguments)
            .map_err(|error| TestCaseError::fail(format!("{arguments}: {error}")))?;
        let compiled = (T::GENERATED.evaluate)(&value);
        let written = text
            .evaluate(&arguments)
            .map_err(|error| TestCaseError::fail(format!("{arguments}: {error}")))?;
        prop_assert_eq!(
            written.annotations(),
            compiled.annotations(),
            "{}: {}",
            T::NAME,
            &arguments
        );
        prop_assert_eq!(written.rules_in_play(), compiled.rules_in_play());
        let (written, compiled) = (written.explain(), compiled.explain());
        prop_assert_eq!(written.action, compiled.action);
        prop_assert_eq!(written.annotations, compiled.annotations);
        let sources = |rules: &[&annot::Rule]| -> Vec<(usize, &'static str)> {
            rules.iter().map(|rule| (rule.index, rule.source)).collect()
        };
        if same_sources {
            prop_assert_eq!(sources(&written.fired), sources(&compiled.fired));
            prop_assert_eq!(sources(&written.undecided), sources(&compiled.undecided));
            prop_assert_eq!(&written.hints, &compiled.hints);
        }
        let count = if compiled.fired.is_empty() {
            &quiet
        } else {
            &fired
        };
        count.set(count.get() + 1);
        Ok(())
    });
    if let Err(error) = result {
        panic!("{}: {error}", T::NAME);
    }
    (fired.get(), quiet.get())
}

fn schema_of<T: AnnotatedTool>() -> Value {
    serde_json::from_str(T::input_schema()).expect("the macro's schema is JSON")
}

#[test]
fn manage_files_resolves_as_the_macro() {
    let schema = schema_of::<manage_files::ManageFiles>();
    let text = from_text::<manage_files::ManageFiles>(
        &schema,
        Some("action"),
        r#"when(path path_matches "^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)")
            => (privileged_access, sensitive_data)"#,
        &[],
    );
    let strategy = (
        prop::sample::select(vec!["read", "append", "replace", "delete"]),
        file_path(),
        ".{0,12}",
    )
        .prop_map(|(action, path, content)| match action {
            "read" | "delete" => json!({"action": action, "path": path}),
            _ => json!({"action": action, "path": path, "content": content}),
        });
    let counts = same_resolution::<manage_files::ManageFiles>(&text, true, strategy);
    assert_rules_hit("manage_files", counts);
}

const METHODS: [&str; 7] = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];

fn github_path() -> impl Strategy<Value = String> {
    let template = prop::sample::select(vec![
        "/repos/{a}/{b}",
        "/repos/{a}/{b}/",
        "/repos/{a}/{b}/issues/{n}",
        "/repos/{a}/{b}/issues/{n}/labels/{c}",
        "/repos/{a}/{b}/pulls",
        "/orgs/{a}/{c}",
        "/orgs/{a}",
        "/user/{c}",
        "{a}",
    ]);
    let query = prop::sample::select(vec!["", "?page=2", "#top"]);
    (template, segment(), segment(), 0u32..50, segment(), query).prop_map(
        |(template, a, b, n, c, query)| {
            let path = template
                .replace("{a}", &a)
                .replace("{b}", &b)
                .replace("{n}", &n.to_string())
                .replace("{c}", &c);
            format!("{path}{query}")
        },
    )
}

#[test]
fn github_api_resolves_as_the_macro() {
    let mut schema = schema_of::<github_api::GithubApi>();
    // `#[serde(default)] public: bool`: absent, it is `false`, which the
    // macro knows from the type and text from the schema's `default`.
    schema["properties"]["public"]["default"] = json!(false);
    let text = from_text::<github_api::GithubApi>(
        &schema,
        Some("method"),
        r#"
        when(all(public == true, method in ["GET", "HEAD", "OPTIONS"]))
            => (sensitive_data = false),
        when(all(public == true, not(method in ["GET", "HEAD", "OPTIONS"])))
            => (sensitive_data = false),
        when(all(method == "DELETE", path matches_template "/repos/:owner/:repo"))
            => (reversible = false),
        when(all(method == "DELETE", path matches_template "/repos/:owner/:repo/issues/:number/labels/:name"))
            => (destructive = false, reversible),
        when(all(method == "PATCH", path matches_template "/repos/:owner/:repo/issues/:number"))
            => (destructive, reversible),
        when(path matches_template "/orgs/:org/*") => (privileged_access),
        "#,
        &[],
    );
    let strategy = (
        prop::sample::select(METHODS.to_vec()),
        github_path(),
        prop::option::of(any::<bool>()),
        prop::option::of(Just(json!({"title": "t"}))),
    )
        .prop_map(|(method, path, public, body)| {
            let mut arguments = json!({"method": method, "path": path});
            if let Some(public) = public {
                arguments["public"] = json!(public);
            }
            if let Some(body) = body {
                arguments["body"] = body;
            }
            arguments
        });
    let counts = same_resolution::<github_api::GithubApi>(&text, false, strategy);
    assert_rules_hit("github_api", counts);
}

fn statement() -> impl Strategy<Value = String> {
    let keyword = prop::sample::select(vec![
        "select", "SHOW", "insert", "Update", "delete", "drop", "create", "with", "vacuum",
    ]);
    let rest = prop::sample::select(vec![
        " * FROM t",
        " INTO u SELECT 1",
        " t SET a = 1",
        " TABLE t",
        " 'x; drop table t'",
        "",
    ]);
    prop::collection::vec((keyword, rest), 1..3).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(keyword, rest)| format!("{keyword}{rest}"))
            .collect::<Vec<_>>()
            .join(";")
    })
}

#[test]
fn sql_resolves_as_the_macro() {
    let schema = schema_of::<sql::Sql>();
    let text = from_text::<sql::Sql>(
        &schema,
        Some("action"),
        "",
        &[(
            "run",
            "when(statement is sql(sqlite, read)) => (read_only, privileged_access = false)
             when(statement is sql(sqlite, insert)) => (destructive = false, privileged_access = false)
             when(statement is sql(sqlite, destructive)) => (destructive, privileged_access = false)",
        )],
    );
    let strategy = (prop::sample::select(vec!["run", "explain"]), statement())
        .prop_map(|(action, statement)| json!({"action": action, "statement": statement}));
    let counts = same_resolution::<sql::Sql>(&text, true, strategy);
    assert_rules_hit("sql", counts);
}
