//! Properties of every example tool over generated arguments, valid and invalid:
//!
//! - the exact `inputSchema` (`exact_input_schema`) accepts a value if and
//!   only if `from_arguments` does, and the advertised one (portable) accepts
//!   it when `from_arguments` does (the `jsonschema` crate is the oracle);
//! - a resolution is deterministic: the same arguments get the same response
//!   bytes through `Connection::handle`, for `tools/annotations` and for
//!   `tools/resolve` in both of its shapes, on the same connection, on a new
//!   one, on a second server built the same way, and whatever the order of the
//!   argument keys; a success carries exactly the hints the hand-written
//!   resolver of `fuzz/src/reference.rs` gives, and so does `resolve()`;
//! - the borrowing path from text (`evaluate_view`) accepts exactly what
//!   `from_arguments` accepts, and resolves as the hand-written resolver does;
//! - a `tools/call` hands its handler the value `from_arguments_str` gives, or
//!   answers its error (the members reader, `from_members`, agrees with it).

use crate::examples_support;
use crate::robust_support;
use std::sync::OnceLock;

use annot::protocol::Dialect;
use annot::server::{Connection, Server};
use annot::{AnnotatedTool, Annotations};
use examples_support::example_tool_files;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use robust_support::generate::{arguments, fields};
use robust_support::{
    COVERED_EXAMPLE_TOOLS, assert_wire_hints, call_answer, echo_server, example_server, expected,
    expected_call, github_api, http_api, manage_files, request, sql,
};
use serde_json::{Value, json};

/// Two servers built alike, so a difference between builds would show.
fn servers() -> &'static [Server; 2] {
    static SERVERS: OnceLock<[Server; 2]> = OnceLock::new();
    SERVERS.get_or_init(|| [example_server(&Dialect::ALL), example_server(&Dialect::ALL)])
}

/// The server whose calls answer with the value their handler got.
fn echo() -> &'static Server {
    static ECHO: OnceLock<Server> = OnceLock::new();
    ECHO.get_or_init(echo_server)
}

/// The validators of the advertised schema and of the exact one.
fn validators<T: AnnotatedTool>() -> [jsonschema::Validator; 2] {
    [T::input_schema(), T::exact_input_schema()].map(|text| {
        let schema: Value = serde_json::from_str(text).expect("inputSchema is JSON");
        jsonschema::draft202012::new(&schema).expect("inputSchema compiles")
    })
}

/// The exact schema: its branches give the generators each action's fields.
fn schema_of<T: AnnotatedTool>() -> Value {
    serde_json::from_str(T::exact_input_schema()).expect("inputSchema is JSON")
}

/// The tool's arguments generator: its schema and its rules.
fn generator<T: AnnotatedTool>() -> BoxedStrategy<Value> {
    let rules: Vec<&str> = T::RULES.iter().map(|rule| rule.source).collect();
    arguments(&schema_of::<T>(), &rules)
}

/// A connection that has run `initialize`, taking up the tool-resolution
/// extension (so `tools/resolve` answers in its shape) or not.
fn connection(server: &Server, extension: bool) -> Connection {
    let mut connection = server.connect();
    let capabilities = if extension {
        json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
    } else {
        json!({})
    };
    let initialize = request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
               "clientInfo": {"name": "properties", "version": "0"}}),
    );
    let response = connection
        .handle(initialize.as_bytes())
        .expect("initialize is answered");
    assert!(!String::from_utf8_lossy(&response).contains("\"error\""));
    connection
}

/// The arguments as JSON text with the keys of the outer object in reverse order.
fn reversed_text(arguments: &Value) -> String {
    match arguments {
        Value::Object(object) => {
            let members: Vec<String> = object
                .iter()
                .rev()
                .map(|(key, value)| format!("{}:{value}", Value::from(key.as_str())))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        other => other.to_string(),
    }
}

fn resolution_request(method: &str, tool: &str, arguments_text: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{"name":"{tool}","arguments":{arguments_text}}}}}"#
    )
    .into_bytes()
}

/// The exact schema and the parser agree on `arguments`; the advertised
/// schema accepts them if the parser does (it may accept more where its shape
/// cannot state a per-action rule).
fn check_agreement<T: AnnotatedTool + std::fmt::Debug + PartialEq>(
    [advertised, exact]: &[jsonschema::Validator; 2],
    arguments: &Value,
) -> Result<(), TestCaseError> {
    let schema_accepts = exact.is_valid(arguments);
    let parsed = T::from_arguments(arguments);
    prop_assert_eq!(
        schema_accepts,
        parsed.is_ok(),
        "{}: exact schema says {}, parser says {:?}, for {}",
        T::NAME,
        schema_accepts,
        parsed,
        arguments
    );
    prop_assert!(
        !schema_accepts || advertised.is_valid(arguments),
        "{}: the advertised schema refuses {}",
        T::NAME,
        arguments
    );
    // The text entry point agrees with the value one.
    let from_text = T::from_arguments_str(&arguments.to_string());
    prop_assert_eq!(from_text.is_ok(), parsed.is_ok());
    // The borrowing path accepts exactly what the parser accepts, and
    // resolves as the hand-written resolver (and the parsed value) does.
    let text = arguments.to_string();
    let view = (T::GENERATED.evaluate_view)(&text);
    prop_assert_eq!(
        view.is_some(),
        parsed.is_ok(),
        "{}: the borrowing path disagrees with the parser on {}",
        T::NAME,
        arguments
    );
    let evaluated = (T::GENERATED.evaluate_arguments_str)(&text);
    prop_assert_eq!(evaluated.is_ok(), parsed.is_ok());
    // The members reader gives the parser's value, or leaves it the text.
    if let Some(read) = (T::GENERATED.from_members)(&text, None) {
        prop_assert_eq!(Ok(read), T::from_arguments_str(&text), "{}", text);
    }
    if let (Some(view), Ok(tool)) = (view, &parsed) {
        prop_assert_eq!(
            view.annotations(),
            expected::<T>(arguments),
            "{}",
            arguments
        );
        prop_assert_eq!(view.authorization(), tool.resolve_authorization());
        prop_assert_eq!(view.explain(), tool.explain());
    }
    // What the generated `resolve()` says, the hand-written resolver says.
    if let Ok(tool) = &parsed {
        prop_assert_eq!(
            tool.resolve(),
            expected::<T>(arguments),
            "{}: resolution of {}",
            T::NAME,
            arguments
        );
    }
    Ok(())
}

/// Same arguments, same bytes, in every dialect; and a success says what
/// `resolve` says.
fn check_determinism<T: AnnotatedTool + std::fmt::Debug>(
    arguments: &Value,
) -> Result<(), TestCaseError> {
    // The hand-written resolver, for the arguments the exact schema accepts
    // (the parser's verdict, see `check_agreement`).
    let [_, exact] = validators::<T>();
    let expected: Option<Annotations> = exact.is_valid(arguments).then(|| expected::<T>(arguments));
    let texts = [arguments.to_string(), reversed_text(arguments)];
    // A call gets the value (or the error) the owned path reads (arguments
    // that are no object are refused before any tool sees them).
    let mut calls = connection(echo(), false);
    for text in texts.iter().filter(|_| arguments.is_object()) {
        prop_assert_eq!(
            call_answer(&mut calls, T::NAME, text),
            expected_call::<T>(text),
            "tools/call of {}",
            text
        );
    }
    let asks = [
        ("tools/annotations", false),
        ("tools/resolve", false),
        ("tools/resolve", true),
    ];
    for (method, extension) in asks {
        let mut answers = Vec::new();
        for server in servers() {
            let mut first = connection(server, extension);
            let mut second = connection(server, extension);
            for text in &texts {
                let message = resolution_request(method, T::NAME, text);
                answers.push(first.handle(&message).expect("answered"));
                answers.push(first.handle(&message).expect("answered"));
                answers.push(second.handle(&message).expect("answered"));
            }
        }
        for answer in &answers[1..] {
            prop_assert_eq!(
                answer,
                &answers[0],
                "{} (extension: {}) differs for {}",
                method,
                extension,
                arguments
            );
        }
        let response: Value = serde_json::from_slice(&answers[0]).expect("JSON");
        match (&expected, response.get("result")) {
            (Some(expected), Some(result)) => {
                let annotations = result
                    .get("annotations")
                    .or_else(|| result["tool"].get("annotations"))
                    .expect("annotations in every shape");
                // Dialect C carries exactly the four core hints.
                let core_only = extension && method == "tools/resolve";
                assert_wire_hints(annotations, expected, core_only, &response.to_string());
            }
            (None, None) => prop_assert_eq!(&response["error"]["code"], &json!(-32602)),
            _ => prop_assert!(false, "parser {:?} but {}", expected, response),
        }
    }
    Ok(())
}

/// Runs generated arguments of `T` through both properties: the cheap
/// schema/parser agreement on many, determinism (36 requests each) on fewer.
fn check_tool<T: AnnotatedTool + std::fmt::Debug + PartialEq>() {
    let validators = validators::<T>();
    let run = |cases: u32, test: &dyn Fn(Value) -> Result<(), TestCaseError>| {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(failure) = runner.run(&generator::<T>(), test) {
            panic!("{}: {failure}", T::NAME);
        }
    };
    run(2048, &|arguments| {
        check_agreement::<T>(&validators, &arguments)
    });
    run(192, &|arguments| check_determinism::<T>(&arguments));
}

/// The generator reaches both sides of the boundary, every action, every field
/// both in valid and in invalid arguments, and every rule.
fn check_coverage<T: AnnotatedTool>() {
    let schema = schema_of::<T>();
    let strategy = generator::<T>();
    let mut runner = TestRunner::deterministic();
    let (mut valid, mut invalid) = (Vec::new(), Vec::new());
    for _ in 0..2000 {
        let value = strategy.new_tree(&mut runner).expect("a value").current();
        match T::from_arguments(&value) {
            Ok(_) => valid.push(value),
            Err(_) => invalid.push(value),
        }
    }
    let share = valid.len() * 100 / 2000;
    assert!((15..=85).contains(&share), "{}: {share}% valid", T::NAME);
    for action in T::ACTIONS {
        let count = valid
            .iter()
            .filter(|value| T::DISCRIMINATOR.is_none_or(|field| value[field] == action.name))
            .count();
        assert!(
            count >= 5,
            "{}: action {} valid {count} times",
            T::NAME,
            action.name
        );
    }
    for field in fields(&schema).keys() {
        let present = |values: &[Value]| values.iter().filter(|v| v.get(field).is_some()).count();
        assert!(
            present(&valid) >= 5,
            "{}: `{field}` seldom in valid arguments",
            T::NAME
        );
        assert!(
            present(&invalid) >= 5,
            "{}: `{field}` seldom in invalid arguments",
            T::NAME
        );
    }
    let not_objects = invalid.iter().filter(|value| !value.is_object()).count();
    assert!(not_objects > 0, "{}: no non-object arguments", T::NAME);
    for rule in T::RULES {
        let fired = valid
            .iter()
            .filter(|value| {
                let tool = T::from_arguments(value).expect("valid");
                tool.explain()
                    .fired
                    .iter()
                    .any(|fired| fired.index == rule.index)
            })
            .count();
        assert!(
            fired >= 5,
            "{}: rule fired {fired} times: {}",
            T::NAME,
            rule.source
        );
    }
}

#[test]
fn manage_files_schema_parser_and_resolution() {
    check_tool::<manage_files::ManageFiles>();
}

#[test]
fn http_api_schema_parser_and_resolution() {
    check_tool::<http_api::HttpApi>();
}

#[test]
fn github_api_schema_parser_and_resolution() {
    check_tool::<github_api::GithubApi>();
}

#[test]
fn sql_schema_parser_and_resolution() {
    check_tool::<sql::Sql>();
}

#[test]
fn generators_cover_every_tool_both_ways() {
    check_coverage::<manage_files::ManageFiles>();
    check_coverage::<http_api::HttpApi>();
    check_coverage::<github_api::GithubApi>();
    check_coverage::<sql::Sql>();
}

/// A new file in `examples/tools/` must get its properties checked here.
#[test]
fn every_example_tool_is_covered() {
    assert_eq!(
        example_tool_files(),
        COVERED_EXAMPLE_TOOLS,
        "add each example tool to tests/support/robust/mod.rs, tests/robust/properties.rs and fuzz/"
    );
}
