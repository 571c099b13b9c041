//! Server profiles (`ServerBuilder::profile`) through the public API: what
//! each profile leaves of the example tools in `tools/list` (names, narrowed
//! `inputSchema`, joined static annotations), and how calls and resolutions
//! outside it are answered in every dialect (A `tools/annotations`, B
//! `tools/resolve`, C the extension, and MCP 2026-07-28 per request). The
//! expectations are written out by hand from the tools' declarations.

use crate::robust_support;
use crate::schema_support;
use crate::server_support;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use annot::AnnotatedTool;
use annot::server::{Profile, Server, ToolOutput};
use robust_support::{github_api, http_api, manage_files, sql};
use serde_json::{Value, json};
use server_support::{Client, ModernClient, extension_capabilities};

use manage_files::ManageFiles;

/// Every example tool under `profile`; each call counts in `ran`.
fn example_server(profile: Profile, ran: &Arc<AtomicUsize>) -> Server {
    let count = server_support::counting_handler;
    let (a, b, c, d) = (count(ran), count(ran), count(ran), count(ran));
    Server::builder("annot-test", "1.2.3")
        .profile(profile)
        .tool(move |_: ManageFiles| a())
        .tool(move |_: http_api::HttpApi| b())
        .tool(move |_: github_api::GithubApi| c())
        .tool(move |_: sql::Sql| d())
        .build()
        .expect("the example server builds under any profile")
}

/// For each profile, the tools listed and the actions each keeps, in order:
/// an action is dropped when no call of it can pass, whatever the arguments
/// (its declared hints, and the rules that can fire on it).
#[allow(clippy::type_complexity)]
const LISTINGS: &[(&str, fn() -> Profile, &[(&str, &[&str])])] = &[
    (
        "any",
        Profile::any,
        &[
            ("manage_files", &["read", "append", "replace", "delete"]),
            (
                "http_request",
                &["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
            ),
            (
                "github_api",
                &["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
            ),
            ("sql", &["run", "explain"]),
        ],
    ),
    (
        "read_only",
        Profile::read_only,
        &[
            ("manage_files", &["read"]),
            ("http_request", &["GET", "HEAD", "OPTIONS"]),
            ("github_api", &["GET", "HEAD", "OPTIONS"]),
            // `run` stays: a rule sets `read_only` on a SELECT.
            ("sql", &["run", "explain"]),
        ],
    ),
    (
        "no_destructive",
        Profile::no_destructive,
        &[
            ("manage_files", &["read", "append"]),
            ("http_request", &["GET", "HEAD", "OPTIONS", "POST"]),
            // PUT and PATCH are not destructive in annot's table (the
            // issue-editing rule makes one PATCH so, checked per call);
            // DELETE stays: removing a label is not destructive.
            (
                "github_api",
                &["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
            ),
            ("sql", &["run", "explain"]),
        ],
    ),
    (
        "closed_world",
        Profile::closed_world,
        &[
            ("manage_files", &["read", "append", "replace", "delete"]),
            ("sql", &["run", "explain"]),
        ],
    ),
    (
        "no_privileged",
        Profile::no_privileged,
        &[
            // The path rule only raises privileges from the declared `false`.
            ("manage_files", &["read", "append", "replace", "delete"]),
            (
                "github_api",
                &["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
            ),
            // The SQL rules clear privileges for a read, an insert or a
            // destructive statement, so `run` can pass; `explain` and
            // http_request say nothing of privileges: silence is risky.
            ("sql", &["run"]),
        ],
    ),
];

fn listed_tools(list: &Value) -> Vec<Value> {
    list["tools"].as_array().expect("a tools array").clone()
}

fn discriminator(tool: &Value) -> &'static str {
    match tool["name"].as_str().unwrap() {
        "manage_files" | "sql" => "action",
        _ => "method",
    }
}

#[test]
fn each_profile_lists_the_actions_that_can_pass_it() {
    let ran = Arc::new(AtomicUsize::new(0));
    for (name, profile, expected) in LISTINGS {
        let server = example_server(profile(), &ran);
        assert_eq!(server.profile().to_string(), *name);
        let forms = [
            Client::initialized(&server, json!({})).result("tools/list", json!({})),
            Client::initialized(&server, extension_capabilities()).result("tools/list", json!({})),
            ModernClient::new(&server).result("tools/list", json!({}), json!({})),
        ];
        for list in forms {
            let tools = listed_tools(&list);
            let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
            let wanted: Vec<&str> = expected.iter().map(|(tool, _)| *tool).collect();
            assert_eq!(names, wanted, "{name}");
            for (tool, (_, actions)) in tools.iter().zip(expected.iter()) {
                let schema = &tool["inputSchema"];
                let field = discriminator(tool);
                assert_eq!(
                    schema["properties"][field]["enum"],
                    json!(actions),
                    "{name}: {tool}"
                );
                // Still a schema, still portable: no subset the tool's full
                // schema fits is left by the narrowing.
                jsonschema::draft202012::new(schema).expect("the narrowed schema compiles");
                let full = full_schema(tool["name"].as_str().unwrap());
                let was = schema_support::failed_subsets(&full);
                for subset in schema_support::failed_subsets(schema) {
                    assert!(was.contains(&subset), "{name}: {subset}: {schema}");
                }
                assert!(schema.get("oneOf").is_none() && schema.get("anyOf").is_none());
            }
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

fn full_schema(tool: &str) -> Value {
    let text = match tool {
        "manage_files" => ManageFiles::input_schema(),
        "http_request" => http_api::HttpApi::input_schema(),
        "github_api" => github_api::GithubApi::input_schema(),
        "sql" => sql::Sql::input_schema(),
        other => panic!("{other}"),
    };
    serde_json::from_str(text).unwrap()
}

/// The listed Tool of `name`, in a session without the extension.
fn listed(server: &Server, name: &str) -> Value {
    let list = Client::initialized(server, json!({})).result("tools/list", json!({}));
    listed_tools(&list)
        .into_iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed: {list}"))
}

#[test]
fn read_only_lists_manage_files_as_a_read() {
    let ran = Arc::new(AtomicUsize::new(0));
    let tool = listed(&example_server(Profile::read_only(), &ran), "manage_files");
    assert_eq!(
        tool["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "action": {
                    "type": "string",
                    "enum": ["read"],
                    "description": "`read`: Return the contents of the file. Requires `path`."
                },
                "path": {
                    "description": "Path of the file, relative to the server's root.",
                    "type": "string"
                }
            },
            "required": ["action", "path"],
            "additionalProperties": false
        })
    );
    // The read's bound: read-only, closed world, and the system-path rule.
    assert_eq!(
        tool["annotations"],
        json!({
            "title": "Manage files",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
            "sensitiveDataHint": true,
            "privilegedAccessHint": true
        })
    );
    let validator = jsonschema::draft202012::new(&tool["inputSchema"]).unwrap();
    assert!(validator.is_valid(&json!({"action": "read", "path": "a"})));
    assert!(!validator.is_valid(&json!({"action": "delete", "path": "a"})));
    assert!(!validator.is_valid(&json!({"action": "append", "path": "a", "content": "x"})));
}

#[test]
fn no_destructive_joins_the_read_and_the_append() {
    let ran = Arc::new(AtomicUsize::new(0));
    let tool = listed(
        &example_server(Profile::no_destructive(), &ran),
        "manage_files",
    );
    let schema = &tool["inputSchema"];
    assert_eq!(
        schema["properties"]["action"]["enum"],
        json!(["read", "append"])
    );
    assert_eq!(
        schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["action", "content", "path"]
    );
    // `content` is the append's only: not required of every action.
    assert_eq!(schema["required"], json!(["action", "path"]));
    assert_eq!(
        tool["annotations"],
        json!({
            "title": "Manage files",
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": false,
            "openWorldHint": false,
            "sensitiveDataHint": true,
            "privilegedAccessHint": true
        })
    );
}

#[test]
fn a_tool_with_nothing_left_is_not_listed_but_answers_why() {
    let ran = Arc::new(AtomicUsize::new(0));
    let server = example_server(Profile::closed_world(), &ran);
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result(
        "tools/call",
        json!({"name": "github_api", "arguments": {"method": "GET", "path": "/repos/o/r"}}),
    );
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "refused: this call of `github_api` is outside the server's profile `closed_world`: \
         openWorldHint is true, and closed_world needs false"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

/// How one request is sent: its method, whether the session took up the
/// extension, and whether it is a 2026-07-28 request.
const DIALECTS: [(&str, &str, bool, bool); 5] = [
    ("A", "tools/annotations", false, false),
    ("B", "tools/resolve", false, false),
    ("C", "tools/resolve", true, false),
    ("2026-07-28 A", "tools/annotations", false, true),
    ("2026-07-28 C", "tools/resolve", true, true),
];

/// Sends `method` for `arguments` of `manage_files` in one dialect; the
/// whole JSON-RPC response.
fn ask(server: &Server, dialect: (&str, &str, bool, bool), arguments: &Value) -> Value {
    let (_, method, extension, modern) = dialect;
    let params = json!({"name": "manage_files", "arguments": arguments});
    let capabilities = if extension {
        extension_capabilities()
    } else {
        json!({})
    };
    if modern {
        ModernClient::new(server).request(method, params, capabilities)
    } else {
        Client::initialized(server, capabilities).request(method, params)
    }
}

/// Resolutions and calls: `(profile, arguments, the hint it breaks or
/// `None` when inside)`, for `manage_files`.
#[allow(clippy::type_complexity)]
const CALLS: &[(fn() -> Profile, &str, &str, Option<(&str, &str)>)] = &[
    (
        Profile::read_only,
        "read_only",
        r#"{"action":"read","path":"notes.txt"}"#,
        None,
    ),
    (
        Profile::read_only,
        "read_only",
        r#"{"action":"append","path":"notes.txt","content":"x"}"#,
        Some(("readOnlyHint is false", "read_only needs true")),
    ),
    (
        Profile::no_destructive,
        "no_destructive",
        r#"{"action":"append","path":"notes.txt","content":"x"}"#,
        None,
    ),
    (
        Profile::no_destructive,
        "no_destructive",
        r#"{"action":"delete","path":"notes.txt"}"#,
        Some(("destructiveHint is true", "no_destructive needs false")),
    ),
    (
        Profile::no_privileged,
        "no_privileged",
        r#"{"action":"delete","path":"notes.txt"}"#,
        None,
    ),
    // A kept action, outside the profile for this value only.
    (
        Profile::no_privileged,
        "no_privileged",
        r#"{"action":"read","path":"/etc/passwd"}"#,
        Some(("privilegedAccessHint is true", "no_privileged needs false")),
    ),
];

#[test]
fn resolutions_outside_the_profile_are_refused_in_every_dialect() {
    let ran = Arc::new(AtomicUsize::new(0));
    for (profile, name, arguments, broken) in CALLS {
        let server = example_server(profile(), &ran);
        let arguments: Value = serde_json::from_str(arguments).unwrap();
        for dialect in DIALECTS {
            let response = ask(&server, dialect, &arguments);
            match broken {
                None => {
                    assert!(response.get("error").is_none(), "{}: {response}", dialect.0);
                    let expected = robust_support::reference::manage_files(&arguments);
                    // A and C answer `annotations`, B a whole Tool.
                    let result = &response["result"];
                    let hints = match result.get("tool") {
                        Some(tool) => &tool["annotations"],
                        None => &result["annotations"],
                    };
                    assert_eq!(
                        hints["readOnlyHint"],
                        json!(expected.read_only.unwrap()),
                        "{}: {response}",
                        dialect.0
                    );
                }
                Some((hint, needs)) => {
                    assert_eq!(
                        response["error"]["code"], -32602,
                        "{}: {response}",
                        dialect.0
                    );
                    assert_eq!(
                        response["error"]["message"],
                        format!(
                            "this call of `manage_files` is outside the server's profile \
                             `{name}`: {hint}, and {needs}"
                        ),
                        "{}",
                        dialect.0
                    );
                }
            }
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0, "a resolution ran a handler");
}

#[test]
fn calls_outside_the_profile_never_reach_the_handler() {
    for (profile, name, arguments, broken) in CALLS {
        let ran = Arc::new(AtomicUsize::new(0));
        let server = example_server(profile(), &ran);
        let arguments: Value = serde_json::from_str(arguments).unwrap();
        let params = json!({"name": "manage_files", "arguments": arguments});
        let legacy = Client::initialized(&server, json!({})).result("tools/call", params.clone());
        let modern = ModernClient::new(&server).result("tools/call", params, json!({}));
        for result in [legacy, modern] {
            match broken {
                None => assert_eq!(result["content"][0]["text"], "ran", "{result}"),
                Some((hint, needs)) => {
                    assert_eq!(result["isError"], true, "{result}");
                    assert_eq!(
                        result["content"][0]["text"],
                        format!(
                            "refused: this call of `manage_files` is outside the server's \
                             profile `{name}`: {hint}, and {needs}"
                        )
                    );
                }
            }
        }
        let expected_runs = if broken.is_none() { 2 } else { 0 };
        assert_eq!(ran.load(Ordering::SeqCst), expected_runs, "{arguments}");
    }
}

#[test]
fn profiles_combine() {
    let ran = Arc::new(AtomicUsize::new(0));
    // Two calls of `profile` add up, like `and`.
    let server: Server = Server::builder("annot-test", "1.2.3")
        .profile(Profile::read_only())
        .profile(Profile::no_privileged())
        .tool(|_: ManageFiles| Ok(ToolOutput::text("ran")))
        .build()
        .unwrap();
    assert_eq!(
        server.profile(),
        Profile::read_only().and(Profile::no_privileged())
    );
    assert_eq!(server.profile().to_string(), "read_only+no_privileged");
    assert_eq!(
        listed(&server, "manage_files")["inputSchema"]["properties"]["action"]["enum"],
        json!(["read"])
    );
    let response = ask(
        &server,
        DIALECTS[0],
        &json!({"action": "read", "path": "/etc/shadow"}),
    );
    assert_eq!(
        response["error"]["message"],
        "this call of `manage_files` is outside the server's profile `read_only+no_privileged`: \
         privilegedAccessHint is true, and no_privileged needs false"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

/// The scopes a tool lists under a profile are those its kept actions can
/// need: a read-only GitHub tool never deletes a repository nor writes to a
/// public one, so it does not ask for `delete_repo` or `public_repo`.
#[test]
fn a_narrowed_tool_lists_only_the_scopes_its_kept_actions_need() {
    let ran = Arc::new(AtomicUsize::new(0));
    let scopes = |profile: Profile| {
        let tool = listed(&example_server(profile, &ran), "github_api");
        let mut scopes: Vec<String> = tool["securitySchemes"]
            .as_array()
            .unwrap_or_else(|| panic!("securitySchemes in {tool}"))
            .iter()
            .flat_map(|scheme| scheme["scopes"].as_array().cloned().unwrap_or_default())
            .map(|scope| scope.as_str().unwrap().to_owned())
            .collect();
        scopes.sort();
        scopes.dedup();
        scopes
    };
    // Seed 003's table: every method, every scope.
    assert_eq!(
        scopes(Profile::any()),
        ["admin:org", "delete_repo", "public_repo", "repo"]
    );
    // Reads: a private repository (`repo`), an organisation (`admin:org`).
    assert_eq!(scopes(Profile::read_only()), ["admin:org", "repo"]);
    // No destruction: `DELETE` stays (taking a label off an issue destroys
    // nothing), and with it every scope a rule on it can ask for; the bound
    // is per action, never finer.
    assert_eq!(
        scopes(Profile::no_destructive()),
        ["admin:org", "delete_repo", "public_repo", "repo"]
    );
    // Closed world: no GitHub call is, so nothing is listed at all.
    let server = example_server(Profile::closed_world(), &ran);
    let list = Client::initialized(&server, json!({})).result("tools/list", json!({}));
    assert!(
        listed_tools(&list)
            .iter()
            .all(|tool| tool["name"] != "github_api")
    );
}

/// A tool of one action and no rules, which a read-only profile drops.
#[annot::mcp_tool(destructive, open_world = false)]
#[allow(dead_code)]
struct Wipe {
    target: String,
}

#[test]
fn a_dropped_tool_without_rules_answers_the_profiles_refusal() {
    let server = Server::builder("annot-test", "1.2.3")
        .profile(Profile::read_only())
        .tool(|_: Wipe| Ok(ToolOutput::text("wiped")))
        .build()
        .unwrap();
    let mut client = Client::initialized(&server, json!({}));
    let params = json!({"name": "wipe", "arguments": {"target": "everything"}});
    for method in ["tools/resolve", "tools/annotations"] {
        let error = client.error(method, params.clone());
        assert_eq!(error["code"], -32602, "{method}: {error}");
        assert_eq!(
            error["message"],
            "this call of `wipe` is outside the server's profile `read_only`: readOnlyHint is \
             false, and read_only needs true",
            "{method}"
        );
    }
    // Arguments that do not fit still say so.
    let error = client.error(
        "tools/annotations",
        json!({"name": "wipe", "arguments": {}}),
    );
    assert_eq!(error["code"], -32602);
    // Without a profile the tool is served and, having one value, is not
    // resolvable.
    let open = Server::builder("annot-test", "1.2.3")
        .tool(|_: Wipe| Ok(ToolOutput::text("wiped")))
        .build()
        .unwrap();
    let mut client = Client::initialized(&open, json!({}));
    let error = client.error("tools/annotations", params);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("is not resolvable"),
        "{error}"
    );
}
