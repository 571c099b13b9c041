//! Narrowed `inputSchema`s of the schema builder's test tools: a field two
//! actions type differently, an action without fields, and the exact shape.
//! Each narrowed schema is compiled with the `jsonschema` crate and judged on
//! arguments of kept and dropped actions, next to the parser; and, over
//! generated arguments, every narrowing of every example tool.

use crate::robust_support;
use crate::schema_support;
use annot::AnnotatedTool;
use annot::server::{Profile, Server, ToolOutput};
use proptest::test_runner::{Config, TestRunner};
use robust_support::generate::arguments;
use robust_support::{github_api, http_api, manage_files, sql};
use schema_support::tools::{Mixed, MixedExact};
use serde_json::{Value, json};

fn listed_schema<T: AnnotatedTool + 'static>(profile: Profile) -> Value {
    let server = Server::builder("annot-test", "0.0.0")
        .profile(profile)
        .tool(|_: T| Ok(ToolOutput::text("ran")))
        .build()
        .unwrap();
    let mut connection = server.connect();
    let list = connection
        .handle(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .unwrap();
    let list: Value = serde_json::from_slice(&list).unwrap();
    list["result"]["tools"][0]["inputSchema"].clone()
}

#[test]
fn read_only_keeps_find_and_ping_of_mixed() {
    let schema = listed_schema::<Mixed>(Profile::read_only());
    let action = &schema["properties"]["action"];
    assert_eq!(action["enum"], json!(["find", "ping"]));
    assert_eq!(
        action["description"],
        "`find`: Look something up. Requires `target`, `tags`. Optional: `limit`.\n\
         `ping`: No other fields."
    );
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["action", "limit", "tags", "target"]);
    // `ping` takes nothing, so nothing but the action is required of all.
    assert_eq!(schema["required"], json!(["action"]));
    // The shared field keeps its union type, and only `find`'s line.
    assert_eq!(
        schema["properties"]["target"]["description"],
        "`find`: What to look for."
    );
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for (arguments, valid) in [
        (json!({"action": "find", "target": "x", "tags": []}), true),
        (json!({"action": "ping"}), true),
        (
            json!({"action": "store", "target": 1, "values": {}, "flags": {}}),
            false,
        ),
        (
            json!({"action": "mark", "letter": "a", "weight": 1.0}),
            false,
        ),
        (json!({"action": "ping", "weight": 1.0}), false),
    ] {
        assert_eq!(validator.is_valid(&arguments), valid, "{arguments}");
        if valid {
            Mixed::from_arguments(&arguments).unwrap();
        }
    }
}

#[test]
fn an_exact_schema_stays_exact_for_what_remains() {
    let schema = listed_schema::<MixedExact>(Profile::no_destructive());
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["find", "store", "ping"])
    );
    assert!(schema["properties"].get("letter").is_none());
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for arguments in [
        json!({"action": "find", "target": "x", "tags": []}),
        json!({"action": "store", "target": 1, "values": {}, "flags": {}}),
        json!({"action": "ping"}),
        // Refused by the parser, and by the exact branches left in place.
        json!({"action": "find", "target": 1, "tags": []}),
        json!({"action": "store", "target": "x", "values": {}, "flags": {}}),
        json!({"action": "ping", "target": "x"}),
        // A dropped action.
        json!({"action": "mark", "letter": "a", "weight": 1.0}),
    ] {
        let parsed = MixedExact::from_arguments(&arguments).is_ok();
        let kept = arguments["action"] != "mark";
        assert_eq!(
            validator.is_valid(&arguments),
            parsed && kept,
            "{arguments}"
        );
    }
}

/// For every non-empty set of `T`'s actions, over generated arguments: the
/// schema narrowed to the set (`input_schema_for`) accepts what the parser
/// accepts for a kept action, and refuses every call of a dropped one.
fn narrowing_keeps_exactly_the_kept_actions<T: AnnotatedTool>() {
    let count = T::ACTIONS.len();
    let discriminator = T::DISCRIMINATOR.expect("a tool of several actions");
    let validators: Vec<jsonschema::Validator> = (1..1u32 << count)
        .map(|mask| {
            let kept: Vec<usize> = (0..count).filter(|i| mask & (1 << i) != 0).collect();
            let schema: Value = serde_json::from_str(&T::input_schema_for(&kept)).unwrap();
            jsonschema::draft202012::new(&schema).expect("the narrowed schema compiles")
        })
        .collect();
    let schema: Value = serde_json::from_str(T::exact_input_schema()).unwrap();
    let rules: Vec<&str> = T::RULES.iter().map(|rule| rule.source).collect();
    let strategy = (1..1u32 << count, arguments(&schema, &rules));
    let mut runner = TestRunner::new(Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(mask, arguments)| {
            let validator = &validators[mask as usize - 1];
            let action = arguments.get(discriminator).and_then(Value::as_str);
            let index = T::ACTIONS.iter().position(|a| Some(a.name) == action);
            match index {
                Some(index) if mask & (1 << index) == 0 => {
                    assert!(!validator.is_valid(&arguments), "{mask:b}: {arguments}");
                }
                Some(_) if T::from_arguments(&arguments).is_ok() => {
                    assert!(validator.is_valid(&arguments), "{mask:b}: {arguments}");
                }
                _ => {}
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn narrowed_schemas_of_the_example_tools() {
    narrowing_keeps_exactly_the_kept_actions::<manage_files::ManageFiles>();
    narrowing_keeps_exactly_the_kept_actions::<http_api::HttpApi>();
    narrowing_keeps_exactly_the_kept_actions::<github_api::GithubApi>();
    narrowing_keeps_exactly_the_kept_actions::<sql::Sql>();
    narrowing_keeps_exactly_the_kept_actions::<MixedExact>();
    narrowing_keeps_exactly_the_kept_actions::<Mixed>();
}
