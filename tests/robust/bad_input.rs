//! The bad-input table (tests/support/robust/cases.rs) through the server core,
//! `Connection::handle`, and bad input that only the core can be given: tools
//! and dialects the stdio example does not serve, and arguments checked straight
//! by the parser.

use crate::robust_support;
use annot::AnnotatedTool;
use annot::protocol::Dialect;
use annot::server::{Connection, Server};
use robust_support::cases::{self, Case, DEEP, Expect, HUGE, Id, nested_objects};
use robust_support::{
    binary_like_server, example_server, http_api, initialize_with_extension, manage_files,
    parse_response, reference, request,
};
use serde_json::{Value, json};

/// A connection as the table expects it: initialized, extension taken up.
fn session(server: &Server) -> Connection {
    let mut connection = server.connect();
    let response = connection
        .handle(initialize_with_extension(0).as_bytes())
        .expect("initialize is answered");
    assert!(parse_response(&response).get("result").is_some());
    assert!(
        connection
            .handle(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .is_none()
    );
    connection
}

/// Checks one answer against what the case expects.
pub fn check_answer(case: &str, expect: &Expect, response: Option<&[u8]>) {
    match (expect, response) {
        (Expect::Silence, None) => {}
        (Expect::Silence, Some(response)) => {
            panic!("{case}: answered {}", String::from_utf8_lossy(response))
        }
        (_, None) => panic!("{case}: no answer"),
        (Expect::Error { code, id }, Some(response)) => {
            let value = parse_response(response);
            assert_eq!(value["error"]["code"], *code, "{case}: {value}");
            assert!(
                value["error"]["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty()),
                "{case}: {value}"
            );
            match id {
                Id::Echo(id) => assert_eq!(value.get("id"), Some(id), "{case}: {value}"),
                Id::Absent => assert_eq!(value.get("id"), None, "{case}: {value}"),
            }
            // Client input is quoted back in bounded pieces, never whole.
            assert!(
                response.len() < 2048,
                "{case}: a {} byte error",
                response.len()
            );
        }
        (Expect::Success { id, check }, Some(response)) => {
            let value = parse_response(response);
            assert_eq!(value.get("id"), Some(id), "{case}: {value}");
            check(
                value
                    .get("result")
                    .unwrap_or_else(|| panic!("{case}: {value}")),
            );
        }
    }
}

/// The connection still serves: a ping and a resolution succeed.
fn still_serves(case: &str, connection: &mut Connection) {
    let ping = connection.handle(br#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    assert_eq!(
        ping.as_deref(),
        Some(&br#"{"jsonrpc":"2.0","id":"after","result":{}}"#[..]),
        "{case}: ping after"
    );
    let resolve = request(
        "again",
        "tools/resolve",
        json!({"name": "manage_files", "arguments": {"action": "delete", "path": "a"}}),
    );
    let response = parse_response(&connection.handle(resolve.as_bytes()).expect("answered"));
    assert_eq!(
        response["result"]["annotations"]["destructiveHint"], true,
        "{case}: {response}"
    );
}

#[test]
fn the_table_has_at_least_thirty_cases_with_distinct_names() {
    let table = cases::table();
    assert!(table.len() >= 30, "{} cases", table.len());
    let mut names: Vec<&str> = table.iter().map(|case| case.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), table.len(), "case names are unique");
}

#[test]
fn every_case_on_a_fresh_session() {
    let server = binary_like_server();
    for Case {
        name,
        message,
        core,
        ..
    } in cases::table()
    {
        let mut connection = session(&server);
        check_answer(name, &core, connection.handle(&message).as_deref());
        still_serves(name, &mut connection);
    }
}

#[test]
fn every_case_in_one_long_session() {
    let server = binary_like_server();
    let mut connection = session(&server);
    for Case {
        name,
        message,
        core,
        ..
    } in cases::table()
    {
        check_answer(name, &core, connection.handle(&message).as_deref());
        still_serves(name, &mut connection);
    }
}

/// A tool is marked for a dialect only when the server enables it; a request in
/// a dialect the server does not enable finds no method.
#[test]
fn dialects_the_server_does_not_enable() {
    let read = json!({"name": "manage_files", "arguments": {"action": "read", "path": "a"}});
    let plans: [(&[Dialect], &str); 4] = [
        (&[Dialect::ResolveTool], "tools/annotations"),
        (&[Dialect::ToolResolutionExtension], "tools/annotations"),
        (&[Dialect::DynamicAnnotations], "tools/resolve"),
        (&[], "tools/resolve"),
    ];
    for (dialects, method) in plans {
        let server = example_server(dialects);
        let mut connection = session(&server);
        let case = format!("{method} on {dialects:?}");
        let answer = connection.handle(request(3, method, read.clone()).as_bytes());
        let expect = Expect::Error {
            code: cases::METHOD_NOT_FOUND,
            id: Id::Echo(json!(3)),
        };
        check_answer(&case, &expect, answer.as_deref());
        let ping = connection.handle(br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
        assert_eq!(
            ping.as_deref(),
            Some(&br#"{"jsonrpc":"2.0","id":4,"result":{}}"#[..])
        );
    }
    // Dialect C alone: a client that did not take the extension up has no dialect to use.
    let server = example_server(&[Dialect::ToolResolutionExtension]);
    let mut connection = server.connect();
    let answer = connection.handle(request(5, "tools/resolve", read).as_bytes());
    let value = parse_response(&answer.expect("answered"));
    assert_eq!(value["id"], 5);
    assert_eq!(value["error"]["code"], -32021, "{value}");
    assert_eq!(
        value["error"]["data"],
        json!({"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tool-resolution": {}}}}),
        "{value}"
    );
}

/// Integer bounds, optional fields and nested maps of the struct-shaped tool.
#[test]
fn http_api_arguments() {
    let server = example_server(&Dialect::ALL);
    let mut connection = session(&server);
    let table = [
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": 65535}),
            true,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": 65535.0}),
            true,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": 65536}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": -1}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": 1.5}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": 1e300}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": "30"}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "timeout_seconds": null}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "headers": null, "body": null}),
            true,
        ),
        (
            json!({"method": "GET", "path": "/", "headers": {"a": 1}}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "headers": [["a", "b"]]}),
            false,
        ),
        (
            json!({"method": "GET", "path": "/", "body": {"raw": "x"}}),
            false,
        ),
        (json!({"method": "get", "path": "/"}), false),
        (json!({"method": "DELETE"}), false),
        (json!({"path": "/"}), false),
    ];
    for (number, (arguments, valid)) in table.into_iter().enumerate() {
        let message = request(
            number,
            "tools/annotations",
            json!({"name": "http_request", "arguments": arguments}),
        );
        let expect = if valid {
            Expect::Success {
                id: json!(number),
                // Every valid row is a GET: read-only, in an open world.
                check: |result| {
                    assert_eq!(
                        result["annotations"],
                        json!({"readOnlyHint": true, "destructiveHint": false,
                               "idempotentHint": true, "openWorldHint": true})
                    )
                },
            }
        } else {
            Expect::Error {
                code: cases::INVALID_PARAMS,
                id: Id::Echo(json!(number)),
            }
        };
        check_answer(
            &arguments.to_string(),
            &expect,
            connection.handle(message.as_bytes()).as_deref(),
        );
    }
    still_serves("http_api arguments", &mut connection);
}

/// Odd values for the tools with rules on argument values: huge and deep
/// values reach the rules (or the recursion limit) and get the right answer.
#[test]
fn rule_tools_with_odd_arguments() {
    let server = example_server(&Dialect::ALL);
    let mut connection = session(&server);
    let padding = " ".repeat(HUGE / 10);
    let deep_body = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let table: Vec<(&str, String, Result<bool, i64>)> = vec![
        // (tool, arguments as JSON text, Ok(destructiveHint) or Err(code))
        (
            "sql",
            json!({"action": "run", "statement": format!("select 1;{padding}drop table t")})
                .to_string(),
            Ok(true),
        ),
        (
            "sql",
            // Longer than the SQL classifier judges (16 KiB): the riskiest class.
            json!({"action": "run", "statement": format!("{padding}select 1")}).to_string(),
            Ok(true),
        ),
        (
            "sql",
            json!({"action": "run", "statement": "\0drop table t"}).to_string(),
            Ok(true),
        ),
        (
            "sql",
            json!({"action": "explain", "statement": "drop table t"}).to_string(),
            Ok(false),
        ),
        (
            "sql",
            json!({"action": "run", "statement": ["select 1"]}).to_string(),
            Err(cases::INVALID_PARAMS),
        ),
        (
            "sql",
            json!({"action": "run"}).to_string(),
            Err(cases::INVALID_PARAMS),
        ),
        (
            "github_api",
            json!({"method": "DELETE", "path": format!("/repos/a/b{padding}")}).to_string(),
            Ok(true),
        ),
        (
            "github_api",
            json!({"method": "GET", "path": "/repos/a/b", "public": "true"}).to_string(),
            Err(cases::INVALID_PARAMS),
        ),
        (
            "github_api",
            json!({"method": "GET", "path": "/repos/a/b", "public": null}).to_string(),
            Err(cases::INVALID_PARAMS),
        ),
        (
            "github_api",
            json!({"method": "GET", "path": "/repos/a/b", "public": 1}).to_string(),
            Err(cases::INVALID_PARAMS),
        ),
        (
            "github_api",
            format!(
                r#"{{"method":"POST","path":"/repos/a/b/issues","body":{}}}"#,
                deep_body(100)
            ),
            Ok(false),
        ),
        (
            "github_api",
            format!(
                r#"{{"method":"POST","path":"/repos/a/b/issues","body":{}}}"#,
                deep_body(DEEP)
            ),
            // The arguments' parser stops at its recursion limit.
            Err(cases::INVALID_PARAMS),
        ),
        (
            "github_api",
            r#"{"method":"DELETE","path":"/repos/a/b","method":"GET"}"#.to_owned(),
            Ok(false),
        ),
        (
            "manage_files",
            json!({"action": "read", "path": "/etc/shadow"}).to_string(),
            Ok(false),
        ),
    ];
    for (number, (tool, arguments, expected)) in table.into_iter().enumerate() {
        let message = format!(
            r#"{{"jsonrpc":"2.0","id":{number},"method":"tools/annotations","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
        );
        let case = format!("{tool} case {number}");
        let response = connection.handle(message.as_bytes());
        match expected {
            Ok(destructive) => {
                let value = parse_response(response.as_deref().expect("answered"));
                let annotations = &value["result"]["annotations"];
                let hint = if annotations["readOnlyHint"] == true {
                    false
                } else {
                    annotations["destructiveHint"] == true
                };
                assert_eq!(hint, destructive, "{case}: {value}");
            }
            Err(code) => {
                let id = if code == cases::PARSE_ERROR {
                    Id::Absent
                } else {
                    Id::Echo(json!(number))
                };
                check_answer(&case, &Expect::Error { code, id }, response.as_deref());
            }
        }
    }
    still_serves("rule tools", &mut connection);
}

/// The parser's own entry points: nesting beyond serde_json's recursion limit
/// is a syntax error, never a stack overflow; a 10 MB string is just a string.
#[test]
fn argument_text_of_any_depth_and_size() {
    fn check<T: AnnotatedTool + std::fmt::Debug>() {
        for text in [
            format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP)),
            nested_objects(DEEP, "0"),
            "[".repeat(DEEP),
        ] {
            let error = T::from_arguments_str(&text).unwrap_err();
            assert!(
                error.to_string().contains("recursion limit"),
                "{}: {error}",
                T::NAME
            );
        }
        // A 10 MB action name is an unknown action, named by its field. (The
        // error keeps the value whole; the server quotes 64 characters of it.)
        let huge = "é".repeat(HUGE / 2);
        let discriminator = T::DISCRIMINATOR.expect("these tools have actions");
        let value = json!({discriminator: huge, "path": huge});
        let error = T::from_arguments(&value).unwrap_err();
        assert_eq!(error.path(), Some(discriminator), "{}", T::NAME);
    }
    check::<manage_files::ManageFiles>();
    check::<http_api::HttpApi>();
    let huge = "x".repeat(HUGE);
    let read = manage_files::ManageFiles::from_arguments(&json!({"action": "read", "path": huge}))
        .expect("a 10 MB path is a path");
    assert_eq!(read, manage_files::ManageFiles::Read { path: huge });
    assert_eq!(
        read.resolve(),
        reference::manage_files(&json!({"action": "read", "path": "notes"}))
    );
}

/// Through the in-process stdio loop, the cap is whatever the builder says: a
/// server raised to 16 MiB reads the 10 MB argument the default cap refuses.
#[test]
fn the_message_cap_is_configurable() {
    let huge = "x".repeat(HUGE);
    let message = request(
        1,
        "tools/annotations",
        json!({"name": "manage_files",
        "arguments": {"action": "append", "path": "a", "content": huge}}),
    );
    let input = format!("{message}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n");
    let answers = |server: Server| -> Vec<Value> {
        let mut output = Vec::new();
        server.serve(input.as_bytes(), &mut output).expect("serves");
        output
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(parse_response)
            .collect()
    };
    let build = |cap: Option<usize>| {
        let builder = Server::builder("capped", "0")
            .tool(|_: manage_files::ManageFiles| Ok(annot::server::ToolOutput::text("ok")));
        match cap {
            Some(cap) => builder.max_message_size(cap),
            None => builder,
        }
        .build()
        .expect("builds")
    };
    let raised = answers(build(Some(16 << 20)));
    assert_eq!(
        raised[0]["result"]["annotations"]["destructiveHint"], false,
        "{:?}",
        raised[0]
    );
    assert_eq!(raised[1]["id"], 2);
    let default = answers(build(None));
    assert_eq!(default[0]["error"]["code"], -32600);
    assert_eq!(default[0].get("id"), None);
    assert!(
        default[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("4194304"),
        "{:?}",
        default[0]
    );
    assert_eq!(default[1]["result"], json!({}));
    // A line of exactly the cap is read; one byte more is not.
    let ping = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    let mut output = Vec::new();
    build(Some(ping.len()))
        .serve(
            &[&ping[..], b"\n", &ping[..], b" \n"].concat()[..],
            &mut output,
        )
        .unwrap();
    let lines: Vec<Value> = output
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(parse_response)
        .collect();
    assert_eq!(lines[0]["result"], json!({}));
    assert_eq!(lines[1]["error"]["code"], -32600);
    assert!(matches!(
        Server::builder("zero", "0").max_message_size(0).build(),
        Err(annot::server::BuildError::ZeroMessageSize)
    ));
}
