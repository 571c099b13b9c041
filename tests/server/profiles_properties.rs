//! Under any profile (every combination of the four), over generated
//! arguments of every example tool: a `tools/call` reaches its handler if and
//! only if the call's annotations, by the hand-written resolvers of
//! `fuzz/src/reference.rs`, are inside the profile, judged by a predicate
//! written here (not `Profile::check`); and a `tools/annotations` succeeds,
//! with exactly the reference's hints, under the same condition. And the
//! listing drops an action only if no generated arguments of it pass.

use crate::robust_support;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use annot::server::{Connection, Profile, Server, ToolOutput};
use annot::{AnnotatedTool, Annotations};
use proptest::prelude::*;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use robust_support::generate::arguments;
use robust_support::{
    assert_wire_hints, expected, github_api, http_api, manage_files, parse_response, request, sql,
};
use serde_json::{Value, json};

/// The profile of a bit set: 1 read_only, 2 no_destructive, 4 closed_world,
/// 8 no_privileged.
fn profile(bits: u8) -> Profile {
    let parts = [
        Profile::read_only(),
        Profile::no_destructive(),
        Profile::closed_world(),
        Profile::no_privileged(),
    ];
    (0..4)
        .filter(|bit| bits & (1 << bit) != 0)
        .fold(Profile::any(), |profile, bit| profile.and(parts[bit]))
}

/// Whether hints the reference spelt out pass the profile of `bits`: each
/// restriction wants its hint at the safe value, stated (absent is risky).
fn inside(bits: u8, hints: &Annotations) -> bool {
    let read = hints.read_only == Some(true);
    (bits & 1 == 0 || read)
        && (bits & 2 == 0 || read || hints.destructive == Some(false))
        && (bits & 4 == 0 || hints.open_world == Some(false))
        && (bits & 8 == 0 || hints.privileged_access == Some(false))
}

/// A server of `T` alone under the profile of `bits`, counting handler runs.
fn server<T: AnnotatedTool + 'static>(bits: u8) -> (Server, Arc<AtomicUsize>) {
    let ran = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&ran);
    let server = Server::builder("annot-properties", "0.0.0")
        .profile(profile(bits))
        .tool(move |_: T| {
            count.fetch_add(1, Ordering::SeqCst);
            Ok(ToolOutput::text("ran"))
        })
        .build()
        .expect("builds under any profile");
    (server, ran)
}

fn connection(server: &Server) -> Connection {
    let mut connection = server.connect();
    let initialize = request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "properties", "version": "0"}}),
    );
    connection.handle(initialize.as_bytes()).expect("answered");
    connection
}

fn check<T: AnnotatedTool + 'static>(
    servers: &[(Server, Arc<AtomicUsize>)],
    bits: u8,
    arguments: &Value,
) -> Result<(), TestCaseError> {
    let (server, ran) = &servers[usize::from(bits)];
    let mut connection = connection(server);
    let params = json!({"name": T::NAME, "arguments": arguments});
    let before = ran.load(Ordering::SeqCst);
    let call = connection
        .handle(request(1, "tools/call", params.clone()).as_bytes())
        .expect("answered");
    let call = parse_response(&call);
    let reached = ran.load(Ordering::SeqCst) - before;
    let Ok(_) = T::from_arguments(arguments) else {
        prop_assert_eq!(reached, 0, "invalid arguments ran: {}", arguments);
        return Ok(());
    };
    let hints = expected::<T>(arguments);
    let allowed = inside(bits, &hints);
    prop_assert_eq!(
        reached,
        usize::from(allowed),
        "{} under {}: {} -> {}",
        T::NAME,
        profile(bits),
        arguments,
        call
    );
    if !allowed {
        prop_assert_eq!(&call["result"]["isError"], &json!(true), "{}", call);
        let text = call["result"]["content"][0]["text"].as_str().unwrap_or("");
        prop_assert!(
            text.contains(&format!("profile `{}`", profile(bits))),
            "{}",
            text
        );
    }
    let resolved = connection
        .handle(request(2, "tools/annotations", params).as_bytes())
        .expect("answered");
    let resolved = parse_response(&resolved);
    if resolved["error"]["message"]
        .as_str()
        .is_some_and(|message| message.contains("is not resolvable"))
    {
        return Ok(()); // not a resolvable tool: nothing to resolve
    }
    if allowed {
        prop_assert!(resolved.get("error").is_none(), "{}", resolved);
        assert_wire_hints(
            &resolved["result"]["annotations"],
            &hints,
            false,
            &arguments.to_string(),
        );
    } else {
        prop_assert_eq!(&resolved["error"]["code"], &json!(-32602), "{}", resolved);
    }
    Ok(())
}

fn run<T: AnnotatedTool + 'static>(cases: u32) {
    let servers: Vec<(Server, Arc<AtomicUsize>)> = (0..16).map(server::<T>).collect();
    let schema: Value = serde_json::from_str(T::exact_input_schema()).unwrap();
    let rules: Vec<&str> = T::RULES.iter().map(|rule| rule.source).collect();
    let strategy = (0u8..16, arguments(&schema, &rules));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(bits, arguments)| {
            check::<T>(&servers, bits, &arguments)
        })
        .unwrap();
}

#[test]
fn manage_files_calls_reach_the_handler_only_inside_the_profile() {
    run::<manage_files::ManageFiles>(400);
}

#[test]
fn http_request_calls_reach_the_handler_only_inside_the_profile() {
    run::<http_api::HttpApi>(300);
}

#[test]
fn github_api_calls_reach_the_handler_only_inside_the_profile() {
    run::<github_api::GithubApi>(400);
}

#[test]
fn sql_calls_reach_the_handler_only_inside_the_profile() {
    run::<sql::Sql>(400);
}

/// The actions `tools/list` keeps of `T` under the profile of `bits`
/// (`None`: the tool is not listed; an empty list for a single action).
fn kept<T: AnnotatedTool + 'static>(server: &Server) -> Option<Vec<String>> {
    let mut connection = connection(server);
    let list = connection
        .handle(request(1, "tools/list", json!({})).as_bytes())
        .expect("answered");
    let list = parse_response(&list);
    let tool = list["result"]["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .find(|tool| tool["name"] == T::NAME)?;
    let Some(field) = T::DISCRIMINATOR else {
        return Some(Vec::new());
    };
    let names = tool["inputSchema"]["properties"][field]["enum"]
        .as_array()
        .expect("a discriminator enum");
    Some(
        names
            .iter()
            .map(|name| name.as_str().unwrap().to_owned())
            .collect(),
    )
}

/// Over `cases` generated arguments of `T`: whenever the reference resolves
/// valid arguments inside a profile, their action is listed under it.
fn dropped_only_if_nothing_passes<T: AnnotatedTool + 'static>(cases: u32) {
    let listings: Vec<Option<Vec<String>>> = (0..16)
        .map(|bits| kept::<T>(&server::<T>(bits).0))
        .collect();
    let schema: Value = serde_json::from_str(T::exact_input_schema()).unwrap();
    let rules: Vec<&str> = T::RULES.iter().map(|rule| rule.source).collect();
    let strategy = arguments(&schema, &rules);
    let mut runner = TestRunner::deterministic();
    let mut passed = [0usize; 16];
    for _ in 0..cases {
        let arguments = strategy.new_tree(&mut runner).unwrap().current();
        if T::from_arguments(&arguments).is_err() {
            continue;
        }
        let hints = expected::<T>(&arguments);
        for bits in 0..16u8 {
            if !inside(bits, &hints) {
                continue;
            }
            passed[usize::from(bits)] += 1;
            let listed = listings[usize::from(bits)].as_ref();
            let Some(actions) = listed else {
                panic!(
                    "{} is not listed under {}, yet {arguments} passes it",
                    T::NAME,
                    profile(bits)
                );
            };
            if let Some(field) = T::DISCRIMINATOR {
                let action = arguments[field].as_str().unwrap();
                assert!(
                    actions.iter().any(|kept| kept == action),
                    "{} `{action}` is dropped under {}, yet {arguments} passes it",
                    T::NAME,
                    profile(bits)
                );
            }
        }
    }
    // The generator reaches calls that pass, or this proves nothing.
    assert!(passed[0] > cases as usize / 4, "{passed:?}");
}

#[test]
fn an_action_is_dropped_only_if_no_generated_call_passes() {
    dropped_only_if_nothing_passes::<manage_files::ManageFiles>(600);
    dropped_only_if_nothing_passes::<http_api::HttpApi>(600);
    dropped_only_if_nothing_passes::<github_api::GithubApi>(600);
    dropped_only_if_nothing_passes::<sql::Sql>(600);
}
