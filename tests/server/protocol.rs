//! The session methods and the JSON-RPC envelope, through `Connection::handle`.

use crate::server_support;
use annot::protocol::{Dialect, error_code};
use annot::server::Server;
use serde_json::{Value, json};
use server_support::tools::{self, Files};
use server_support::{Client, assert_extension, extension_capabilities};

#[test]
fn initialize_echoes_a_supported_version_and_declares_every_dialect() {
    let (server, _) = tools::server();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut client = Client::new(&server);
        let result = client.initialize(version, json!({}));
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(client.connection.protocol_version(), Some(version));
        assert_eq!(
            result["capabilities"],
            json!({
                "tools": {"dynamicAnnotations": true, "resolve": true},
                "extensions": {
                    "io.modelcontextprotocol/tool-resolution": {},
                    "io.modelcontextprotocol/trust-annotations": {}
                }
            })
        );
        assert_extension("ToolResolutionServerCapabilities", &result["capabilities"]);
        assert_eq!(
            result["serverInfo"],
            json!({"name": "annot-test", "version": "1.2.3"})
        );
        assert!(client.connection.initialized_notified());
    }
}

#[test]
fn initialize_answers_an_unknown_version_with_the_latest() {
    let (server, _) = tools::server();
    // 2026-07-28 has no handshake: its clients never send initialize.
    for requested in ["2024-10-07", "2026-07-28", "2099-01-01", ""] {
        let mut client = Client::new(&server);
        let result = client.initialize(requested, json!({}));
        assert_eq!(result["protocolVersion"], "2025-11-25", "{requested}");
    }
}

#[test]
fn initialize_declares_only_the_enabled_dialects() {
    let server = tools::builder(Files::default())
        .dialects([Dialect::DynamicAnnotations])
        .title("Annot test")
        .instructions("Be careful.")
        .build()
        .unwrap();
    let result = Client::new(&server).initialize("2025-11-25", json!({}));
    assert_eq!(
        result["capabilities"],
        json!({
            "tools": {"dynamicAnnotations": true},
            "extensions": {"io.modelcontextprotocol/trust-annotations": {}}
        })
    );
    assert_eq!(result["serverInfo"]["title"], "Annot test");
    assert_eq!(result["instructions"], "Be careful.");

    // Trust-annotations is offered whatever the dialects, unless turned off.
    let plain = tools::builder(Files::default())
        .dialects([])
        .trust_annotations(false)
        .build()
        .unwrap();
    let result = Client::new(&plain).initialize("2025-06-18", json!({}));
    assert_eq!(result["capabilities"], json!({"tools": {}}));
}

#[test]
fn initialize_records_the_client_and_its_extension() {
    let (server, _) = tools::server();
    let mut client = Client::new(&server);
    assert!(!client.connection.is_initialized());
    client.initialize("2025-11-25", extension_capabilities());
    assert!(client.connection.tool_resolution_negotiated());
    assert_eq!(client.connection.client_info().unwrap()["name"], "test");
    assert_eq!(
        client.connection.client_capabilities(),
        Some(&extension_capabilities())
    );

    // Settings the extension does not define mean the client wants something
    // else: not negotiated.
    let mut picky = Client::new(&server);
    picky.initialize(
        "2025-11-25",
        json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {"mode": "x"}}}),
    );
    assert!(!picky.connection.tool_resolution_negotiated());

    // A server without dialect C negotiates nothing.
    let without_c = tools::builder(Files::default())
        .dialects([Dialect::ResolveTool])
        .build()
        .unwrap();
    let mut client = Client::new(&without_c);
    client.initialize("2025-11-25", extension_capabilities());
    assert!(!client.connection.tool_resolution_negotiated());
}

#[test]
fn initialize_refuses_bad_params_and_a_second_time() {
    let (server, _) = tools::server();
    let mut client = Client::new(&server);
    let error = client.error("initialize", json!({"capabilities": {}}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    assert_eq!(error["data"]["path"], "protocolVersion");
    let error = client.error(
        "initialize",
        json!({"protocolVersion": 2025, "capabilities": {}}),
    );
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    let error = client.error(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": []}),
    );
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    assert_eq!(error["data"]["path"], "capabilities");
    assert!(!client.connection.is_initialized());

    client.initialize("2025-11-25", json!({}));
    let error = client.error(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
    );
    assert_eq!(error["code"], error_code::INVALID_REQUEST);
    assert_eq!(client.connection.protocol_version(), Some("2025-11-25"));
}

#[test]
fn ping_answers_an_empty_object_before_and_after_initialize() {
    let (server, _) = tools::server();
    let mut client = Client::new(&server);
    assert_eq!(client.result("ping", json!({})), json!({}));
    client.initialize("2025-11-25", json!({}));
    let response = client
        .connection
        .handle(br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#)
        .unwrap();
    assert_eq!(response, br#"{"jsonrpc":"2.0","id":"p","result":{}}"#);
}

#[test]
fn notifications_never_get_a_response() {
    let (server, _) = tools::server();
    let mut client = Client::new(&server);
    for message in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such/notification"}"#,
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"manage_files"}}"#,
        r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"ping","params":42}"#,
    ] {
        assert_eq!(client.raw(message.as_bytes()), None, "{message}");
    }
    // A response from the client is dropped too.
    assert_eq!(client.raw(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#), None);
}

#[test]
fn server_discover_without_its_meta_gets_an_error_so_clients_fall_back_to_initialize() {
    let (server, _) = tools::server();
    let mut client = Client::new(&server);
    let error = client.error("server/discover", json!({}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    client.initialize("2025-11-25", json!({}));
}

#[test]
fn unknown_methods_get_method_not_found() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    for method in ["resources/list", "prompts/get", "tools/nothing", ""] {
        let error = client.error(method, json!({}));
        assert_eq!(error["code"], error_code::METHOD_NOT_FOUND, "{method}");
    }
}

/// The id (absent when the message had none readable) and error of the answer.
fn error_of(server: &Server, message: &[u8]) -> (Option<Value>, Value) {
    let mut client = Client::new(server);
    let response = client.raw(message).expect("an error response");
    (response.get("id").cloned(), response["error"].clone())
}

#[test]
fn malformed_messages_get_parse_or_invalid_request_errors() {
    let (server, _) = tools::server();
    let cases: &[(&[u8], i64, Option<Value>)] = &[
        (b"{not json", error_code::PARSE_ERROR, None),
        (b"\xff\xfe{}", error_code::PARSE_ERROR, None),
        (b"", error_code::PARSE_ERROR, None),
        (b"[]", error_code::INVALID_REQUEST, None),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            error_code::INVALID_REQUEST,
            None,
        ),
        (b"42", error_code::INVALID_REQUEST, None),
        (
            br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            None,
        ),
        (
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            None,
        ),
        (
            br#"{"jsonrpc":"2.0","id":2.5,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            None,
        ),
        (
            br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            Some(json!(3)),
        ),
        (
            br#"{"id":4,"method":"ping"}"#,
            error_code::INVALID_REQUEST,
            Some(json!(4)),
        ),
        (
            br#"{"jsonrpc":"2.0","id":5}"#,
            error_code::INVALID_REQUEST,
            Some(json!(5)),
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"method":7}"#,
            error_code::INVALID_REQUEST,
            Some(json!(6)),
        ),
        (
            br#"{"jsonrpc":"2.0","id":"s","method":"ping","params":"x"}"#,
            error_code::INVALID_REQUEST,
            Some(json!("s")),
        ),
    ];
    for (message, code, id) in cases {
        let (got_id, error) = error_of(&server, message);
        assert_eq!(
            error["code"],
            *code,
            "{}: {error}",
            String::from_utf8_lossy(message)
        );
        assert_eq!(got_id, *id, "{}", String::from_utf8_lossy(message));
    }
}

#[test]
fn params_of_the_wrong_shape_are_invalid_params() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    for method in [
        "tools/list",
        "tools/call",
        "tools/resolve",
        "tools/annotations",
    ] {
        let error = client.error(method, json!([1, 2]));
        assert_eq!(error["code"], error_code::INVALID_PARAMS, "{method}");
    }
}

#[test]
fn the_connection_keeps_serving_after_errors() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    client.raw(b"garbage");
    client.raw(b"[]");
    client.error("nope", json!({}));
    assert_eq!(client.result("ping", json!({})), json!({}));
}

#[test]
fn batches_are_answered_on_sessions_at_2025_03_26() {
    let (server, _) = tools::server();
    for version in ["2024-11-05", "2025-03-26"] {
        let mut client = Client::new(&server);
        client.initialize(version, json!({}));
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},
            {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}},
            {"jsonrpc":"2.0","id":"b","method":"ping"},
            {"jsonrpc":"2.0","id":7,"result":{}},
            {"jsonrpc":"2.0","id":3,"method":"nope"},
            [1]]"#;
        let answer = client
            .connection
            .handle(batch)
            .expect("a batch with requests");
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(
            answer,
            json!([
                {"jsonrpc": "2.0", "id": 1, "result": {}},
                {"jsonrpc": "2.0", "id": "b", "result": {}},
                {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "method not found: `nope`"}},
                {"jsonrpc": "2.0", "error": {"code": -32600, "message": "a batch cannot nest"}}
            ]),
            "{version}"
        );
        // Nothing to answer: no answer at all.
        let quiet = br#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":4,"result":{}}]"#;
        assert_eq!(client.connection.handle(quiet), None);
        let (_, error) = (None::<Value>, client.raw(b"[]").unwrap()["error"].clone());
        assert_eq!(error["code"], error_code::INVALID_REQUEST);
        // A batch can call tools.
        let call = br#"[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"counter","arguments":{"action":"peek"}}}]"#;
        let answer: Value =
            serde_json::from_slice(&client.connection.handle(call).unwrap()).unwrap();
        assert_eq!(answer[0]["result"]["content"][0]["text"], "counted 1");
    }
}

#[test]
fn batches_are_refused_where_the_version_has_none() {
    let (server, _) = tools::server();
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    let mut before = Client::new(&server);
    assert_eq!(
        before.raw(batch).unwrap()["error"]["code"],
        error_code::INVALID_REQUEST
    );
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = Client::new(&server);
        client.initialize(version, json!({}));
        let response = client.raw(batch).unwrap();
        assert_eq!(response["error"]["code"], error_code::INVALID_REQUEST);
        assert!(response.get("id").is_none());
    }
}

#[test]
fn a_response_from_the_client_is_never_answered_malformed_or_not() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    for message in [
        r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        r#"{"id":98,"result":{}}"#,
        r#"{"jsonrpc":"1.0","id":1,"result":null}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":{"odd":true},"error":"not an object"}"#,
        r#"{"result":1,"error":2}"#,
    ] {
        assert_eq!(client.raw(message.as_bytes()), None, "{message}");
    }
}

#[test]
fn a_repeated_member_anywhere_reads_as_serde_json_reads_it_the_last_wins() {
    let (server, _) = tools::server();
    let mut client = Client::initialized(&server, json!({}));
    let messages: [&[u8]; 3] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/annotations","params":{"name":"x","arguments":{"action":"read","path":"a"},"name":"manage_files"}}"#,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/annotations","params":{"name":"manage_files","arguments":{"action":"read","path":"a"},"_meta":{"dev.annot/resolution":1,"dev.annot/resolution":{}}}}"#,
        br#"{"jsonrpc":"2.0","id":3,"id":4,"method":"tools/annotations","params":{"name":"manage_files","arguments":{"action":"read","path":"a"}}}"#,
    ];
    for (message, id) in messages.into_iter().zip([1, 2, 4]) {
        let response = client.raw(message).unwrap();
        assert_eq!(response["id"], id, "{response}");
        assert_eq!(
            response["result"]["annotations"]["readOnlyHint"], true,
            "{response}"
        );
    }
}

#[test]
fn an_id_with_a_lone_surrogate_is_an_invalid_request_answered_without_id() {
    let (server, _) = tools::server();
    // No JSON parser that decodes strings can hold these ids, so echoing them
    // would hand the client an answer it cannot read: -32600, no id.
    for id in [
        r#""\ud800""#,
        r#""\uDC00""#,
        r#""a\ud83db""#,
        r#""\ud83d\u0041""#,
        r#""\ude00\ud83d""#,
        r#""\\\ud800""#,
    ] {
        let message = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let (got_id, error) = error_of(&server, message.as_bytes());
        assert_eq!(error["code"], error_code::INVALID_REQUEST, "{id}: {error}");
        assert_eq!(
            error["message"], "`id` must be a string without lone surrogate escapes",
            "{id}"
        );
        assert_eq!(got_id, None, "{id}");
    }
    // A surrogate pair, other escapes, and an escaped backslash before `u`
    // are ordinary strings: echoed byte for byte.
    for id in [
        r#""\ud83d\ude00""#,
        r#""\uD83D\uDE00x""#,
        r#""\\ud800""#,
        r#""\u00e9\n""#,
    ] {
        let message = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let answer = Client::new(&server)
            .connection
            .handle(message.as_bytes())
            .expect("a ping is answered");
        assert_eq!(
            String::from_utf8(answer).unwrap(),
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
        );
    }
    // In a batch, the element alone is refused.
    let mut client = Client::new(&server);
    client.initialize("2025-03-26", json!({}));
    let batch = br#"[{"jsonrpc":"2.0","id":"\ud800","method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#;
    let answer: Value = serde_json::from_slice(&client.connection.handle(batch).unwrap()).unwrap();
    assert_eq!(answer[0]["error"]["code"], error_code::INVALID_REQUEST);
    assert!(answer[0].get("id").is_none());
    assert_eq!(answer[1], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

/// `handle_into` answers exactly as `handle` does, after what the buffer
/// already held, and leaves the buffer as it was when there is no answer. A
/// request that fails after its answer was begun (arguments a resolution or
/// a 2025-06-18 call cannot read, a resolution outside its bound, a parser
/// that panics) leaves only its error answer.
#[test]
fn handle_into_appends_what_handle_returns() {
    let (server, _) = tools::server();
    let initialize = |version: &str| {
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": extension_capabilities(),
            "clientInfo": {"name": "t", "version": "0"}}})
        .to_string()
    };
    let request = |method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params}).to_string()
    };
    let resolve = |arguments: Value| {
        request(
            "tools/resolve",
            json!({"name": "liar", "arguments": arguments}),
        )
    };
    let read_call = |arguments: Value| {
        request(
            "tools/call",
            json!({"name": "manage_files", "arguments": arguments}),
        )
    };
    // Each message, and what its answer is: none, a result, or an error
    // with this code.
    const NONE: Option<i64> = None;
    const RESULT: Option<i64> = Some(0);
    let messages = |version: &str| {
        let batches = version == "2025-03-26";
        [
            (initialize(version), RESULT),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
                NONE,
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#.to_owned(),
                RESULT,
            ),
            (r#"{"jsonrpc":"2.0","id":4,"result":{}}"#.to_owned(), NONE),
            ("garbage".to_owned(), Some(-32700)),
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]"#
                    .to_owned(),
                if batches { RESULT } else { Some(-32600) },
            ),
            (
                r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#.to_owned(),
                if batches { NONE } else { Some(-32600) },
            ),
            (request("tools/list", json!({})), RESULT),
            (resolve(json!({"lie": false})), RESULT),
            (resolve(json!({"lie": 3})), Some(-32602)),
            (resolve(json!({"lie": true})), Some(-32603)),
            (resolve(json!({"explode": true})), Some(-32603)),
            (
                read_call(json!({"action": "read", "path": "a.txt"})),
                RESULT,
            ),
        ]
    };
    for version in ["2025-03-26", "2025-06-18"] {
        let mut returned = server.connect();
        let mut appended = server.connect();
        let mut messages = messages(version).to_vec();
        // Before 2025-11-25 a call's unreadable arguments are -32602.
        messages.push((read_call(json!({"action": "read"})), Some(-32602)));
        for (message, outcome) in &messages {
            let answer = returned.handle(message.as_bytes());
            let mut buffer = b"kept\n".to_vec();
            let answered = appended.handle_into(message.as_bytes(), &mut buffer);
            assert_eq!(answered, answer.is_some(), "{version} {message}");
            let mut expected = b"kept\n".to_vec();
            expected.extend(answer.as_deref().unwrap_or_default());
            assert_eq!(
                String::from_utf8(buffer).unwrap(),
                String::from_utf8(expected).unwrap(),
                "{version} {message}"
            );
            let answer: Option<Value> =
                answer.map(|answer| serde_json::from_slice(&answer).unwrap());
            let code = answer.map(|answer| match answer.get("error") {
                Some(error) => {
                    assert!(answer.get("result").is_none(), "{answer}");
                    error["code"].as_i64().unwrap()
                }
                None => 0,
            });
            assert_eq!(code, *outcome, "{version} {message}");
        }
    }
}
