//! Typed resolve and evaluation allocate nothing: every action of every
//! example tool is resolved (and evaluated: annotations and authorization
//! read from one outcome) under a global allocator that counts the heap
//! operations of the current thread, fields tested against several regex
//! patterns included. The `sql` example is the exception: its `is sql(...)`
//! rules parse the statement into a syntax tree, on the heap; the keyword
//! rules it had before stand in for it as the tool of several patterns on
//! one field.
//!
//! The count is per thread, so whatever the test harness does on its own
//! threads meanwhile cannot make a test pass or fail.

#[path = "../examples/tools/github_api.rs"]
mod github_api;
#[path = "../examples/tools/http_api.rs"]
mod http_api;
#[path = "../benches/support/keyword_sql.rs"]
mod keyword_sql;
#[path = "../examples/tools/manage_files.rs"]
mod manage_files;
#[allow(dead_code)] // Only some of the resolvers are used here.
#[path = "../fuzz/src/reference.rs"]
mod reference;

#[path = "support/alloc/mod.rs"]
mod alloc_support;
use alloc_support::heap_operations_during;
use std::hint::black_box;

use annot::{AnnotatedTool, mcp_tool};
use github_api::GithubApi;
use http_api::HttpApi;
use keyword_sql::KeywordSql;
use manage_files::ManageFiles;
use serde_json::{Value, json};

/// Parses `arguments` (which must name every action of `T`, so that a new
/// action cannot be missed), resolves each once to warm up what rules compile
/// on first use, then resolves them all many times while counting.
fn assert_resolve_allocates_nothing<T: AnnotatedTool>(arguments: &[Value]) {
    for action in T::ACTIONS {
        assert!(
            arguments
                .iter()
                .any(|arguments| T::DISCRIMINATOR
                    .is_none_or(|field| arguments[field] == action.name)),
            "no arguments for the action `{}`",
            action.name
        );
    }
    let values: Vec<T> = arguments
        .iter()
        .map(|arguments| T::from_arguments(arguments).expect("valid arguments"))
        .collect();
    // What is counted is real work: each answer is the hand-written resolver's.
    for (value, arguments) in values.iter().zip(arguments) {
        let expected = reference::resolver(T::NAME)(arguments);
        assert_eq!(value.resolve(), expected, "{}: {arguments}", T::NAME);
    }

    let operations = heap_operations_during(|| {
        for _ in 0..100 {
            for value in black_box(values.as_slice()) {
                black_box(value.resolve());
                let outcome = black_box((T::GENERATED.evaluate)(value));
                black_box((outcome.annotations(), outcome.authorization()));
            }
        }
    });
    assert_eq!(operations, 0, "resolving {} touched the heap", T::NAME);
}

#[test]
fn the_counter_sees_allocations_of_this_thread() {
    let operations = heap_operations_during(|| {
        let boxed = black_box(Box::new(7_u64));
        drop(boxed);
    });
    assert_eq!(operations, 2, "one allocation and one deallocation");
    let operations = heap_operations_during(|| {
        black_box(ManageFiles::from_arguments(&json!({"action": "read", "path": "a"})).unwrap());
    });
    assert!(operations > 0, "parsing allocates the path");
}

#[test]
fn the_counter_ignores_other_threads() {
    let spawn = |allocations: usize| {
        heap_operations_during(|| {
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    for _ in 0..allocations {
                        black_box(vec![1_u8; 64]);
                    }
                });
            });
        })
    };
    // Spawning and joining make a few heap operations on this thread (how
    // many depends on which thread drops the shared state last); the other
    // thread's thousand allocations and deallocations must not be among them.
    let with_work = spawn(1000);
    assert!(with_work < 100, "{with_work} heap operations counted");
}

#[test]
fn a_tool_without_rules_resolves_without_allocating() {
    assert!(HttpApi::RULES.is_empty());
    let arguments: Vec<Value> = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
        .iter()
        .map(|method| {
            json!({
                "method": method,
                "path": "/v1/orders/42",
                "headers": {"accept": "application/json"},
                "body": "{}",
            })
        })
        .collect();
    assert_resolve_allocates_nothing::<HttpApi>(&arguments);
}

#[test]
fn a_rule_of_one_pattern_resolves_without_allocating() {
    // One rule on `path`: a set of one pattern, tested without a set of results.
    assert_eq!(ManageFiles::RULES.len(), 1);
    let arguments: Vec<Value> = ["notes.txt", "/etc/passwd"]
        .iter()
        .flat_map(|path| {
            [
                json!({"action": "read", "path": path}),
                json!({"action": "append", "path": path, "content": "more"}),
                json!({"action": "replace", "path": path, "content": "new"}),
                json!({"action": "delete", "path": path}),
            ]
        })
        .collect();
    assert_resolve_allocates_nothing::<ManageFiles>(&arguments);
}

/// An action without rules next to one with a rule.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Notes {
    #[annotate(read_only)]
    List { folder: String },
    #[annotate(destructive, when(folder matches "^tmp/") => (destructive = false))]
    Clear { folder: String },
}

#[test]
fn actions_without_rules_resolve_without_allocating() {
    let list = Notes::from_arguments(&json!({"action": "list", "folder": "tmp/a"}))
        .expect("valid arguments");
    black_box(list.resolve());
    let operations = heap_operations_during(|| {
        for _ in 0..100 {
            black_box(black_box(&list).resolve());
        }
    });
    assert_eq!(operations, 0);
}

/// Several patterns on one field are tested in one pass, whose results are
/// collected in storage the thread reuses: nothing per call, per pattern or
/// per rule.
#[test]
fn rules_of_several_patterns_resolve_without_allocating() {
    // `run` has five patterns on `statement`; batches fire several at once.
    let arguments: Vec<Value> = [
        "SELECT 1",
        "select x into y from z",
        "DROP TABLE t; INSERT INTO t VALUES (1)",
        "UPDATE t SET a = 1",
        "VACUUM",
    ]
    .iter()
    .map(|statement| json!({"action": "run", "statement": statement}))
    .collect();
    assert_resolve_allocates_nothing::<KeywordSql>(&arguments);
}

/// Path templates on one field, tests of the action and of a boolean, and
/// rules that name authorization: every method, on paths that fire each rule.
#[test]
fn path_templates_and_authorization_resolve_without_allocating() {
    let methods = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];
    let paths = [
        "/repos/o/r",
        "/repos/o/r/issues/1/labels/bug",
        "/repos/o/r/issues/1",
        "/orgs/acme/settings",
        "/user",
    ];
    let arguments: Vec<Value> = methods
        .iter()
        .flat_map(|method| {
            paths.iter().flat_map(move |path| {
                [true, false]
                    .map(|public| json!({"method": method, "path": path, "public": public}))
            })
        })
        .collect();
    assert_resolve_allocates_nothing::<GithubApi>(&arguments);
}

/// Arguments text to annotations through the borrowing path: no `Value`,
/// no owned `String`, nothing on the heap, for every example tool (a map of
/// headers is checked, not built).
#[test]
fn the_borrowing_path_allocates_nothing() {
    fn check<T: AnnotatedTool>(texts: &[&str]) {
        for text in texts {
            let outcome =
                (T::GENERATED.evaluate_view)(text).expect("the view reads valid arguments");
            let parsed = T::from_arguments_str(text).expect("valid arguments");
            assert_eq!(outcome.annotations(), parsed.resolve(), "{text}");
        }
        let operations = heap_operations_during(|| {
            for _ in 0..100 {
                for text in black_box(texts) {
                    let outcome = black_box((T::GENERATED.evaluate_view)(text));
                    black_box(
                        outcome.map(|outcome| (outcome.annotations(), outcome.authorization())),
                    );
                }
            }
        });
        assert_eq!(operations, 0, "reading {} touched the heap", T::NAME);
    }
    check::<ManageFiles>(&[
        r#"{"action":"read","path":"/etc/passwd"}"#,
        r#"{"action":"append","path":"notes.txt","content":"more"}"#,
        r#"{"action":"replace","path":"/root/x","content":"new"}"#,
        r#"{"action":"delete","path":"/home/../etc/x"}"#,
    ]);
    check::<KeywordSql>(&[
        r#"{"action":"run","statement":"SELECT 1"}"#,
        r#"{"action":"run","statement":"DROP TABLE t; INSERT INTO t VALUES (1)"}"#,
    ]);
    check::<HttpApi>(&[
        r#"{"method":"GET","path":"/v1/orders/42"}"#,
        r#"{"method":"POST","path":"/v1/orders","headers":{"content-type":"application/json","x-a\"b":"c\nd"},"body":"{}","timeout_seconds":10}"#,
        r#"{"method":"DELETE","path":"/v1/orders/42","headers":null,"body":null,"timeout_seconds":10.0}"#,
    ]);
    check::<GithubApi>(&[
        r#"{"method":"GET","path":"/repos/o/r","public":true}"#,
        r#"{"method":"DELETE","path":"/repos/o/r"}"#,
        r#"{"method":"PATCH","path":"/repos/o/r/issues/1","public":false}"#,
        r#"{"method":"POST","path":"/orgs/acme/settings"}"#,
    ]);
}
