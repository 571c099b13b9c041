//! Property: for generated arguments of every example tool, the resolution
//! stays within the static annotations (and within its own action's bound),
//! the authorization within the static one, and the explanation agrees with
//! the resolution. The strategies aim at the rules: each run must see calls
//! where rules fire and calls where none does.

#[path = "../../examples/tools/github_api.rs"]
mod github_api;
#[path = "../../examples/tools/http_api.rs"]
mod http_api;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
use crate::rules_support;
#[path = "../../examples/tools/sql.rs"]
mod sql;

use std::cell::Cell;

use annot::AnnotatedTool;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rules_support::{CASES, assert_rules_hit, file_path, segment};
use serde_json::{Value, json};

/// Runs the property over `strategy`; returns how many calls fired a rule.
fn property<T: AnnotatedTool>(strategy: impl Strategy<Value = Value>) -> (u32, u32) {
    let fired = Cell::new(0u32);
    let quiet = Cell::new(0u32);
    let mut runner = TestRunner::new(Config::with_cases(CASES));
    let result = runner.run(&strategy, |arguments| {
        let parsed = T::from_arguments(&arguments)
            .map_err(|error| TestCaseError::fail(format!("{arguments}: {error}")))?;
        let resolved = parsed.resolve();
        let declared = T::STATIC_ANNOTATIONS;
        prop_assert!(
            resolved.is_within(&declared),
            "{}: {arguments} resolves to {resolved}, outside {declared}",
            T::NAME
        );
        let explanation = parsed.explain();
        prop_assert_eq!(explanation.annotations, resolved);
        let action = T::ACTIONS
            .iter()
            .find(|action| Some(action.name) == explanation.action)
            .ok_or_else(|| TestCaseError::fail("the explanation names an action"))?;
        prop_assert!(
            resolved.is_within(&action.annotations),
            "{}: {arguments} resolves to {resolved}, outside its action's {}",
            T::NAME,
            action.annotations
        );
        match (T::STATIC_AUTHORIZATION, parsed.resolve_authorization()) {
            (Some(declared), Some(needed)) => prop_assert!(needed.is_within(&declared)),
            (None, None) => {}
            (declared, needed) => {
                return Err(TestCaseError::fail(format!(
                    "authorization {needed:?} against a declaration of {declared:?}"
                )));
            }
        }
        if explanation.fired.is_empty() {
            quiet.set(quiet.get() + 1);
        } else {
            fired.set(fired.get() + 1);
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{}: {error}", T::NAME);
    }
    (fired.get(), quiet.get())
}

#[test]
fn manage_files_stays_within_its_bound() {
    let strategy = (
        prop::sample::select(vec!["read", "append", "replace", "delete"]),
        file_path(),
        ".{0,12}",
    )
        .prop_map(|(action, path, content)| match action {
            "read" | "delete" => json!({"action": action, "path": path}),
            _ => json!({"action": action, "path": path, "content": content}),
        });
    assert_rules_hit(
        "manage_files",
        property::<manage_files::ManageFiles>(strategy),
    );
}

const METHODS: [&str; 7] = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];

#[test]
fn http_api_stays_within_its_bound() {
    let strategy = (
        prop::sample::select(METHODS.to_vec()),
        file_path(),
        prop::option::of(".{0,8}"),
        prop::option::of(any::<u16>()),
    )
        .prop_map(|(method, path, body, timeout)| {
            let mut arguments = json!({"method": method, "path": path});
            if let Some(body) = body {
                arguments["body"] = json!(body);
            }
            if let Some(timeout) = timeout {
                arguments["timeout_seconds"] = json!(timeout);
            }
            arguments
        });
    // http_api has no rules: every call is quiet, and still within its bound.
    let (fired, quiet) = property::<http_api::HttpApi>(strategy);
    assert_eq!((fired, quiet), (0, CASES));
}

fn github_path() -> impl Strategy<Value = String> {
    let template = prop::sample::select(vec![
        "/repos/{a}/{b}",
        "/repos/{a}/{b}/",
        "/repos/{a}/{b}/issues/{n}",
        "/repos/{a}/{b}/issues/{n}/labels/{c}",
        "/repos/{a}/{b}/issues/{n}/lock",
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
fn github_api_stays_within_its_bound() {
    let strategy = (
        prop::sample::select(METHODS.to_vec()),
        github_path(),
        any::<bool>(),
        prop::option::of(Just(json!({"title": "t"}))),
    )
        .prop_map(|(method, path, public, body)| {
            let mut arguments = json!({"method": method, "path": path, "public": public});
            if let Some(body) = body {
                arguments["body"] = body;
            }
            arguments
        });
    assert_rules_hit("github_api", property::<github_api::GithubApi>(strategy));
}

/// A keyword in a random case.
fn keyword() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "select", "show", "insert", "update", "delete", "merge", "alter", "drop", "truncate",
        "create", "with", "vacuum", "grant",
    ]);
    (word, any::<u16>()).prop_map(|(word, mask)| {
        word.chars()
            .enumerate()
            .map(|(i, c)| {
                if mask & (1 << (i % 16)) != 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect()
    })
}

fn statement() -> impl Strategy<Value = String> {
    let lead = prop::sample::select(vec!["", " ", "\n\t", "-- note\n", "/* a\n b */ ", "--\n  "]);
    let rest = prop::sample::select(vec![
        " * FROM t",
        " INTO u SELECT 1",
        " t SET a = 1",
        " TABLE t",
        " 'x; drop table t'",
        "",
        "ed FROM t",
    ]);
    prop::collection::vec((lead, keyword(), rest), 1..4).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(lead, keyword, rest)| format!("{lead}{keyword}{rest}"))
            .collect::<Vec<_>>()
            .join(";")
    })
}

#[test]
fn sql_stays_within_its_bound() {
    let strategy = (prop::sample::select(vec!["run", "explain"]), statement())
        .prop_map(|(action, statement)| json!({"action": action, "statement": statement}));
    assert_rules_hit("sql", property::<sql::Sql>(strategy));
}
