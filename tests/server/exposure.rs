//! Per-action exposure (`ServerBuilder::exposure`) through the public API:
//! what each mode lists in every era, what `Auto` lists per negotiation
//! (per session before 2026-07-28, per request at it), calls and resolutions
//! by both name forms reaching the same typed value, profiles, pagination,
//! bad calls, and name collisions. Expectations are written out by hand from
//! the example tools' declarations (`examples/tools/`).

use crate::robust_support;
use crate::server_support;
use std::sync::{Arc, Mutex};

use annot::server::{BuildError, Exposure, Profile, Server, ToolOutput};
use annot::{ToolNameError, mcp_tool};
use robust_support::{manage_files, sql};
use serde_json::{Value, json};
use server_support::{Client, ModernClient, assert_mcp, assert_mcp_2026, extension_capabilities};

use manage_files::ManageFiles;

/// Count the words of a text.
#[mcp_tool(read_only, open_world = false)]
#[derive(Debug)]
struct CountWords {
    /// The text.
    text: String,
}

const PER_ACTION: &[&str] = &[
    "manage_files_read",
    "manage_files_append",
    "manage_files_replace",
    "manage_files_delete",
    "sql_run",
    "sql_explain",
    "count_words",
];
const RESOLVABLE: &[&str] = &["manage_files", "sql", "count_words"];

/// `manage_files`, `sql` and the single-action `count_words` under
/// `exposure` and `profile`; every `ManageFiles` value a handler receives is
/// recorded in `seen`.
fn server(exposure: Exposure, profile: Profile, seen: &Arc<Mutex<Vec<ManageFiles>>>) -> Server {
    let seen = Arc::clone(seen);
    Server::builder("annot-test", "1.2.3")
        .exposure(exposure)
        .profile(profile)
        .page_size(100)
        .tool(move |files: ManageFiles| {
            seen.lock().unwrap().push(files);
            Ok(ToolOutput::text("ran"))
        })
        .tool(|_: sql::Sql| Ok(ToolOutput::text("ran sql")))
        .tool(|words: CountWords| {
            Ok(ToolOutput::text(
                words.text.split_whitespace().count().to_string(),
            ))
        })
        .build()
        .expect("the exposure test server builds")
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed in {list}"))
}

fn legacy_list(server: &Server, version: &str, capabilities: Value) -> Value {
    let mut client = Client::new(server);
    client.initialize(version, capabilities);
    let list = client.result("tools/list", json!({}));
    assert_mcp("ListToolsResult", &list);
    list
}

fn seen() -> Arc<Mutex<Vec<ManageFiles>>> {
    Arc::new(Mutex::new(Vec::new()))
}

#[test]
fn each_mode_lists_its_form_in_every_era() {
    let seen = seen();
    // (mode, what a client without the extension sees, what one with it sees)
    let cases: [(Exposure, &[&str], &[&str]); 3] = [
        (Exposure::Resolvable, RESOLVABLE, RESOLVABLE),
        (Exposure::PerAction, PER_ACTION, PER_ACTION),
        (Exposure::Auto, PER_ACTION, RESOLVABLE),
    ];
    for (exposure, without, with) in cases {
        let server = server(exposure, Profile::any(), &seen);
        for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            let plain = legacy_list(&server, version, json!({}));
            assert_eq!(names(&plain), without, "{exposure} {version}");
            let negotiated = legacy_list(&server, version, extension_capabilities());
            assert_eq!(names(&negotiated), with, "{exposure} {version} extension");
        }
        let mut modern = ModernClient::new(&server);
        let plain = modern.result("tools/list", json!({}), json!({}));
        assert_mcp_2026("ListToolsResult", &plain);
        assert_eq!(names(&plain), without, "{exposure} 2026-07-28");
        let negotiated = modern.result("tools/list", json!({}), extension_capabilities());
        assert_eq!(names(&negotiated), with, "{exposure} 2026-07-28 extension");
    }
}

#[test]
fn auto_follows_each_request_at_2026_07_28_and_the_request_over_the_session() {
    let seen = seen();
    let server = server(Exposure::Auto, Profile::any(), &seen);
    // One connection, alternating: each request is judged alone.
    let mut modern = ModernClient::new(&server);
    for _ in 0..2 {
        let with = modern.result("tools/list", json!({}), extension_capabilities());
        assert_eq!(names(&with), RESOLVABLE);
        let without = modern.result("tools/list", json!({}), json!({}));
        assert_eq!(names(&without), PER_ACTION);
    }
    // A handshake session without the extension, whose request carries it.
    let mut client = Client::new(&server);
    client.initialize("2025-11-25", json!({}));
    let meta =
        json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": extension_capabilities()}});
    assert_eq!(names(&client.result("tools/list", meta)), RESOLVABLE);
    assert_eq!(names(&client.result("tools/list", json!({}))), PER_ACTION);
}

#[test]
fn a_per_action_tool_is_its_action_by_hand() {
    let seen = seen();
    let server = server(Exposure::PerAction, Profile::any(), &seen);
    let list = legacy_list(&server, "2025-11-25", json!({}));
    let read = tool(&list, "manage_files_read");
    assert_eq!(read["title"], "Read a file");
    assert_eq!(
        read["description"],
        "Return the contents of the file. Requires `path`."
    );
    assert_eq!(
        read["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "path": {"description": "Path of the file, relative to the server's root.", "type": "string"}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    );
    // The action's own worst case: read-only, idempotent, closed world; the
    // path rule can raise privileges and sensitivity, so those stay risky and
    // the tool stays resolvable.
    assert_eq!(
        read["annotations"],
        json!({
            "title": "Read a file",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
            "sensitiveDataHint": true,
            "privilegedAccessHint": true
        })
    );
    assert_eq!(read["dynamicAnnotations"], true);
    let append = tool(&list, "manage_files_append");
    assert_eq!(append["annotations"]["readOnlyHint"], false);
    assert_eq!(append["annotations"]["destructiveHint"], false);
    assert_eq!(
        append["inputSchema"]["properties"]["content"]["description"],
        "Text to add."
    );
    assert_eq!(
        append["inputSchema"]["required"],
        json!(["path", "content"])
    );
    let delete = tool(&list, "manage_files_delete");
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    // `explain` has no rule: one value, so not resolvable.
    let explain = tool(&list, "sql_explain");
    assert_eq!(explain["annotations"]["readOnlyHint"], true);
    assert!(explain.get("dynamicAnnotations").is_none(), "{explain}");
    assert_eq!(explain["title"], "Explain SQL");
    // `run`'s rules can lower its worst case: resolvable, listed at worst.
    let run = tool(&list, "sql_run");
    assert_eq!(run["annotations"]["readOnlyHint"], false);
    assert_eq!(run["annotations"]["privilegedAccessHint"], true);
    assert_eq!(run["dynamicAnnotations"], true);
    // A tool of one action is listed as it is in every mode.
    let resolvable = legacy_list(
        &self::server(Exposure::Resolvable, Profile::any(), &seen),
        "2025-11-25",
        json!({}),
    );
    assert_eq!(tool(&list, "count_words"), tool(&resolvable, "count_words"));
    for tool in list["tools"].as_array().unwrap() {
        assert!(
            tool["inputSchema"]["properties"].get("action").is_none(),
            "{tool}"
        );
    }
}

#[test]
fn both_name_forms_reach_the_same_typed_value() {
    let seen = seen();
    let server = server(Exposure::Auto, Profile::any(), &seen);
    let mut client = Client::initialized(&server, json!({}));
    let by_action = client.result(
        "tools/call",
        json!({"name": "manage_files_append", "arguments": {"path": "a.txt", "content": "hi"}}),
    );
    let by_tool = client.result(
        "tools/call",
        json!({"name": "manage_files", "arguments": {"action": "append", "path": "a.txt", "content": "hi"}}),
    );
    assert_eq!(by_action, by_tool);
    assert_eq!(by_action["content"][0]["text"], "ran");
    let expected = ManageFiles::Append {
        path: "a.txt".into(),
        content: "hi".into(),
    };
    assert_eq!(*seen.lock().unwrap(), [expected.clone(), expected]);
    // The same at 2026-07-28, from a client that lists either form.
    let mut modern = ModernClient::new(&server);
    for capabilities in [json!({}), extension_capabilities()] {
        let result = modern.result(
            "tools/call",
            json!({"name": "manage_files_delete", "arguments": {"path": "b.txt"}}),
            capabilities,
        );
        assert_eq!(result["content"][0]["text"], "ran");
    }
    assert_eq!(
        seen.lock().unwrap()[2..],
        [
            ManageFiles::Delete {
                path: "b.txt".into()
            },
            ManageFiles::Delete {
                path: "b.txt".into()
            }
        ]
    );
}

#[test]
fn a_name_no_listing_shows_is_unknown() {
    let seen = seen();
    let cases = [
        (Exposure::Resolvable, "manage_files_read"),
        (Exposure::PerAction, "manage_files"),
    ];
    for (exposure, name) in cases {
        let server = server(exposure, Profile::any(), &seen);
        let mut client = Client::initialized(&server, extension_capabilities());
        let arguments = json!({"action": "read", "path": "a"});
        let error = client.error("tools/call", json!({"name": name, "arguments": arguments}));
        assert_eq!(error["code"], -32602, "{exposure}: {error}");
        assert_eq!(error["message"], format!("unknown tool `{name}`"));
        let error = client.error(
            "tools/resolve",
            json!({"name": name, "arguments": arguments}),
        );
        assert_eq!(error["code"], -32602, "{exposure}: {error}");
    }
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn a_per_action_call_naming_the_discriminator_is_refused() {
    let seen = seen();
    let server = server(Exposure::PerAction, Profile::any(), &seen);
    let bad = [
        json!({"action": "delete", "path": "a"}),
        json!({"action": "read", "path": "a"}),
        json!({"path": "a", "action": 7}),
    ];
    for arguments in &bad {
        // Before 2025-11-25, invalid arguments are -32602.
        let mut old = Client::new(&server);
        old.initialize("2025-06-18", json!({}));
        let error = old.error(
            "tools/call",
            json!({"name": "manage_files_read", "arguments": arguments}),
        );
        assert_eq!(error["code"], -32602, "{arguments}: {error}");
        assert_eq!(error["data"]["path"], "action", "{error}");
        // From 2025-11-25 on, the model reads them in an `isError` result.
        let mut new = Client::initialized(&server, json!({}));
        let result = new.result(
            "tools/call",
            json!({"name": "manage_files_read", "arguments": arguments}),
        );
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("invalid arguments: ") && text.contains("leave `action` out"),
            "{text}"
        );
        // A resolution is -32602 in every era.
        let error = new.error(
            "tools/annotations",
            json!({"name": "manage_files_read", "arguments": arguments}),
        );
        assert_eq!(error["code"], -32602, "{error}");
    }
    // Other bad arguments as the registered tool's: a missing field, an
    // unknown one (`content` belongs to other actions).
    let mut old = Client::new(&server);
    old.initialize("2025-06-18", json!({}));
    for arguments in [json!({}), json!({"path": "a", "content": "x"})] {
        let error = old.error(
            "tools/call",
            json!({"name": "manage_files_read", "arguments": arguments}),
        );
        assert_eq!(error["code"], -32602, "{arguments}: {error}");
    }
    assert!(seen.lock().unwrap().is_empty(), "no handler ran");
    // The server keeps serving.
    let result = old.result(
        "tools/call",
        json!({"name": "manage_files_read", "arguments": {"path": "a"}}),
    );
    assert_eq!(result["content"][0]["text"], "ran");
}

#[test]
fn every_dialect_resolves_a_per_action_tool_within_its_listing() {
    let seen = seen();
    let server = server(Exposure::PerAction, Profile::any(), &seen);
    let mut client = Client::initialized(&server, json!({}));
    let list = client.result("tools/list", json!({}));
    // (tool, arguments, what the value rules make of them, by hand)
    let cases = [
        (
            "manage_files_read",
            json!({"path": "notes.txt"}),
            json!({"privilegedAccessHint": false, "sensitiveDataHint": false, "readOnlyHint": true}),
        ),
        (
            "manage_files_read",
            json!({"path": "/etc/shadow"}),
            json!({"privilegedAccessHint": true, "sensitiveDataHint": true, "readOnlyHint": true}),
        ),
        (
            "sql_run",
            json!({"statement": "SELECT 1"}),
            json!({"readOnlyHint": true, "privilegedAccessHint": false}),
        ),
        (
            "sql_run",
            json!({"statement": "DROP TABLE users"}),
            json!({"readOnlyHint": false, "destructiveHint": true, "privilegedAccessHint": true}),
        ),
    ];
    let mut extension = Client::initialized(&server, extension_capabilities());
    for (name, arguments, expected) in cases {
        let params = json!({"name": name, "arguments": arguments});
        let a = client.result("tools/annotations", params.clone())["annotations"].clone();
        let b = client.result("tools/resolve", params.clone())["tool"].clone();
        let c = extension.result("tools/resolve", params)["annotations"].clone();
        assert_eq!(b["name"], name);
        assert_eq!(b["annotations"], a, "{name}");
        for (hint, value) in expected.as_object().unwrap() {
            assert_eq!(a[hint], *value, "{name} {arguments} {hint}");
            // The extension's result has the four core hints only.
            if hint != "privilegedAccessHint" && hint != "sensitiveDataHint" {
                assert_eq!(c[hint], *value, "{name} {arguments} {hint} (C)");
            }
        }
        // Every hint the listing gives its safe value, the resolution keeps.
        let listed = &tool(&list, name)["annotations"];
        for (hint, safe) in [
            ("readOnlyHint", true),
            ("destructiveHint", false),
            ("idempotentHint", true),
            ("openWorldHint", false),
            ("sensitiveDataHint", false),
            ("privilegedAccessHint", false),
        ] {
            if listed[hint] == safe {
                assert_eq!(a[hint], safe, "{name} {arguments} {hint}");
            }
        }
    }
}

#[test]
fn profiles_drop_per_action_tools_and_still_refuse_per_call() {
    let seen = seen();
    let server = server(Exposure::PerAction, Profile::read_only(), &seen);
    let list = legacy_list(&server, "2025-11-25", json!({}));
    // By hand, as `tests/server/profiles.rs` lists read_only: `read`, and
    // both SQL actions (a rule makes a SELECT read-only).
    assert_eq!(
        names(&list),
        ["manage_files_read", "sql_run", "sql_explain", "count_words"]
    );
    let mut client = Client::initialized(&server, json!({}));
    // A dropped action, called by its per-action name: refused by the profile.
    let refused = client.result(
        "tools/call",
        json!({"name": "manage_files_delete", "arguments": {"path": "a"}}),
    );
    assert_eq!(refused["isError"], true);
    assert_eq!(
        refused["content"][0]["text"],
        "refused: this call of `manage_files_delete` is outside the server's profile `read_only`: \
         readOnlyHint is false, and read_only needs true"
    );
    // A value rule still decides per call: a DROP through `sql_run`.
    let drop = client.result(
        "tools/call",
        json!({"name": "sql_run", "arguments": {"statement": "DROP TABLE t"}}),
    );
    assert_eq!(drop["isError"], true, "{drop}");
    let select = client.result(
        "tools/call",
        json!({"name": "sql_run", "arguments": {"statement": "SELECT 1"}}),
    );
    assert_eq!(select["content"][0]["text"], "ran sql");
    assert!(seen.lock().unwrap().is_empty());
    // Under no_privileged, the path rule refuses a system path per call.
    let server = self::server(Exposure::Auto, Profile::no_privileged(), &seen);
    let mut client = Client::initialized(&server, json!({}));
    let system = client.result(
        "tools/call",
        json!({"name": "manage_files_read", "arguments": {"path": "/etc/shadow"}}),
    );
    assert_eq!(system["isError"], true, "{system}");
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn pages_hold_the_form_a_client_gets() {
    let seen = seen();
    let small = Server::builder("annot-test", "1.2.3")
        .exposure(Exposure::Auto)
        .page_size(3)
        .tool({
            let seen = Arc::clone(&seen);
            move |files: ManageFiles| {
                seen.lock().unwrap().push(files);
                Ok(ToolOutput::text("ran"))
            }
        })
        .tool(|_: sql::Sql| Ok(ToolOutput::text("ran sql")))
        .tool(|_: CountWords| Ok(ToolOutput::text("0")))
        .build()
        .unwrap();
    let all_pages = |client: &mut Client| {
        let mut all = Vec::new();
        let mut cursors = Vec::new();
        let mut params = json!({});
        loop {
            let page = client.result("tools/list", params);
            all.extend(names(&page));
            match page["nextCursor"].as_str() {
                Some(cursor) => {
                    cursors.push(cursor.to_owned());
                    params = json!({"cursor": cursor});
                }
                None => return (all, cursors),
            }
        }
    };
    let mut plain = Client::initialized(&small, json!({}));
    let (listed, plain_cursors) = all_pages(&mut plain);
    assert_eq!(listed, PER_ACTION);
    assert_eq!(plain_cursors.len(), 2, "7 tools in pages of 3");
    let mut negotiated = Client::initialized(&small, extension_capabilities());
    let (listed, cursors) = all_pages(&mut negotiated);
    assert_eq!(listed, RESOLVABLE);
    assert!(cursors.is_empty(), "3 tools fit one page");
    // A cursor of the per-action listing names no page of the other.
    let error = negotiated.error("tools/list", json!({"cursor": plain_cursors[0]}));
    assert_eq!(error["code"], -32602);
}

#[test]
fn a_per_action_name_another_tool_has_is_a_build_error() {
    /// Stands in the way of `manage_files_read`.
    #[mcp_tool(name = "manage_files_read", read_only)]
    #[derive(Debug)]
    struct Impostor {
        /// Anything.
        #[allow(dead_code)]
        path: String,
    }
    let build = |exposure| {
        Server::builder("annot-test", "1.2.3")
            .exposure(exposure)
            .tool(|_: ManageFiles| Ok(ToolOutput::text("ran")))
            .tool(|_: Impostor| Ok(ToolOutput::text("ran")))
            .build()
    };
    assert!(build(Exposure::Resolvable).is_ok());
    for exposure in [Exposure::PerAction, Exposure::Auto] {
        let error = build(exposure).unwrap_err();
        assert!(
            matches!(
                error,
                BuildError::DuplicateTool { .. } | BuildError::ActionNameTaken { .. }
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("manage_files_read"), "{error}");
    }
    // A scheme that names two actions alike.
    let error = Server::builder("annot-test", "1.2.3")
        .exposure(Exposure::PerAction)
        .action_names(|tool, _| tool.to_owned())
        .tool(|_: ManageFiles| Ok(ToolOutput::text("ran")))
        .build()
        .unwrap_err();
    assert_eq!(
        error,
        BuildError::ActionNameTaken {
            name: "manage_files".into(),
            tool: "manage_files".into(),
            action: "append".into()
        }
    );
    assert_eq!(
        Server::builder("annot-test", "1.2.3")
            .exposure(Exposure::Auto)
            .action_names(|_, _| String::new())
            .tool(|_: ManageFiles| Ok(ToolOutput::text("ran")))
            .build()
            .unwrap_err(),
        BuildError::InvalidActionName {
            name: String::new(),
            tool: "manage_files".into(),
            action: "read".into(),
            problem: ToolNameError::Length(0),
        }
    );
}

#[test]
fn a_naming_scheme_names_the_tools_and_their_calls() {
    let server = Server::builder("annot-test", "1.2.3")
        .exposure(Exposure::PerAction)
        .action_names(|tool, action| format!("{action}-{}", tool.replace('_', "-")))
        .tool(|files: ManageFiles| Ok(ToolOutput::text(format!("{files:?}"))))
        .build()
        .unwrap();
    let list = legacy_list(&server, "2025-11-25", json!({}));
    assert_eq!(
        names(&list),
        [
            "read-manage-files",
            "append-manage-files",
            "replace-manage-files",
            "delete-manage-files"
        ]
    );
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/call",
        json!({"name": "read-manage-files", "arguments": {"path": "x"}}),
    );
    assert_eq!(result["content"][0]["text"], r#"Read { path: "x" }"#);
    assert_eq!(server.tool_names().collect::<Vec<_>>(), ["manage_files"]);
}
