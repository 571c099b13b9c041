//! `HttpMethod` as the action field of an annotated struct, and rules on the
//! discriminator overriding its table per method.

use annot::{AnnotatedActions, AnnotatedTool, Annotations, HttpMethod, mcp_actions, mcp_tool};
use serde_json::json;

/// A cache in front of an HTTP service.
#[mcp_tool(
    discriminator = "method",
    open_world = false,
    // Evicting an entry loses nothing the origin cannot give again.
    when(method == "DELETE") => (destructive = false, reversible),
    // This service's POST and PATCH are idempotent.
    when(method in ["POST", "PATCH"]) => (idempotent),
    // Except a PUT that appends to a log.
    when(all(method == "PUT", path matches_template "/logs/*")) => (idempotent = false),
    when(all(method != "GET", timeout > 60)) => (slow_execution),
)]
#[derive(Debug)]
#[allow(dead_code)]
struct Cache {
    method: HttpMethod,
    path: String,
    timeout: Option<u32>,
}

fn call(method: &str, path: &str) -> Annotations {
    Cache::from_arguments(&json!({"method": method, "path": path}))
        .unwrap()
        .resolve()
}

fn hints(a: Annotations) -> (Option<bool>, Option<bool>, Option<bool>) {
    (a.read_only, a.destructive, a.idempotent)
}

#[test]
fn the_table_with_overrides() {
    let (t, f) = (Some(true), Some(false));
    assert_eq!(hints(call("GET", "/a")), (t, f, t));
    assert_eq!(hints(call("POST", "/a")), (f, f, t));
    assert_eq!(hints(call("PATCH", "/a")), (f, f, t));
    assert_eq!(hints(call("PUT", "/a")), (f, f, t));
    assert_eq!(hints(call("PUT", "/logs/today")), (f, f, f));
    assert_eq!(hints(call("DELETE", "/a")), (f, f, t));
    assert_eq!(call("DELETE", "/a").reversible, t);
    assert_eq!(call("GET", "/a").open_world, f);
}

#[test]
fn an_override_that_always_fires_replaces_the_tables_value_in_the_bound() {
    let action = |name: &str| {
        Cache::ACTIONS
            .iter()
            .find(|action| action.name == name)
            .unwrap()
            .annotations
    };
    // DELETE is destructive in the table, but the override always fires.
    assert_eq!(action("DELETE").destructive, Some(false));
    assert_eq!(action("DELETE").reversible, Some(true));
    assert_eq!(action("POST").idempotent, Some(true));
    // The log rule may fire on a PUT: its bound is not idempotent.
    assert_eq!(action("PUT").idempotent, Some(false));
    assert_eq!(action("GET").slow_execution, None);
    assert_eq!(action("POST").slow_execution, Some(true));
    // No method of this cache is destructive, so the tool is not either.
    assert_eq!(Cache::STATIC_ANNOTATIONS.destructive, Some(false));
    assert_eq!(Cache::STATIC_ANNOTATIONS.idempotent, Some(false));
    assert_eq!(
        Cache::ACTIONS.iter().map(|a| a.name).collect::<Vec<_>>(),
        HttpMethod::NAMES
    );
}

#[test]
fn optional_numbers_are_false_when_absent() {
    let slow = Cache::from_arguments(&json!({"method": "POST", "path": "/", "timeout": 61}))
        .unwrap()
        .resolve();
    assert_eq!(slow.slow_execution, Some(true));
    let quick = Cache::from_arguments(&json!({"method": "POST", "path": "/", "timeout": 60}))
        .unwrap()
        .resolve();
    assert_eq!(quick.slow_execution, None);
    assert_eq!(call("POST", "/").slow_execution, None);
    let get = Cache::from_arguments(&json!({"method": "GET", "path": "/", "timeout": 99}))
        .unwrap()
        .resolve();
    assert_eq!(get.slow_execution, None);
}

#[test]
fn the_schema_lists_the_methods() {
    let schema: serde_json::Value = serde_json::from_str(Cache::input_schema()).unwrap();
    assert_eq!(
        schema["properties"]["method"]["enum"],
        json!(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"])
    );
    assert!(Cache::from_arguments(&json!({"method": "TRACE", "path": "/"})).is_err());
}

/// Rules on the discriminator work the same with an `#[mcp_actions]` enum.
#[mcp_actions]
#[serde(rename_all = "kebab-case")]
enum Queue {
    #[annotate(read_only)]
    Peek,
    #[annotate(destructive, idempotent = false)]
    PopFront,
}

#[mcp_tool(
    discriminator = "op",
    when(all(op == "pop-front", count <= 0)) => (destructive = false, idempotent),
)]
#[allow(dead_code)]
struct Queues {
    op: Queue,
    count: i64,
}

#[test]
fn rules_on_an_actions_enum() {
    let pop = |count: i64| {
        Queues::from_arguments(&json!({"op": "pop-front", "count": count}))
            .unwrap()
            .resolve()
    };
    assert_eq!(pop(3).destructive, Some(true));
    assert_eq!(pop(0).destructive, Some(false));
    assert_eq!(pop(-1).idempotent, Some(true));
    // The rule may not fire: the bound keeps the action's own values.
    assert_eq!(Queues::STATIC_ANNOTATIONS.destructive, Some(true));
    assert_eq!(Queues::STATIC_ANNOTATIONS.idempotent, Some(false));
}

#[mcp_tool(
    discriminator = "method",
    when(not(method != "DELETE")) => (reversible = false),
    when(not(all(method == "GET", not(size > 10)))) => (slow_execution),
)]
#[allow(dead_code)]
struct Negations {
    method: HttpMethod,
    size: u32,
}

#[test]
fn negations_apply_to_whole_tests() {
    let resolve = |method: &str, size: u32| {
        Negations::from_arguments(&json!({"method": method, "size": size}))
            .unwrap()
            .resolve()
    };
    assert_eq!(resolve("DELETE", 0).reversible, Some(false));
    assert_eq!(resolve("PUT", 0).reversible, None);
    assert_eq!(resolve("GET", 5).slow_execution, None);
    assert_eq!(resolve("GET", 11).slow_execution, Some(true));
    assert_eq!(resolve("PUT", 0).slow_execution, Some(true));
}
