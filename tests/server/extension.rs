//! The tool-resolution extension to the letter, through `Connection::handle`:
//! which tools are marked and for whom, the listing's shape for a client that
//! negotiated the extension, and every case that gets `-32021`.

use crate::server_support;
use annot::protocol::error_code;
use annot::server::{Server, ToolOutput};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError, Authorization, Scopes};
use serde_json::{Value, json};
use server_support::tools::{self, Files};
use server_support::{
    Client, ModernClient, assert_extension, assert_mcp_2026, extension_capabilities, modern_meta,
    request_capabilities,
};

const EXTENSION: &str = "io.modelcontextprotocol/tool-resolution";
const READ_ONLY: Annotations = Annotations::new().read_only(true).effective();

/// One action, no rules: its annotations never vary.
struct Clock;

impl AnnotatedTool for Clock {
    const NAME: &'static str = "clock";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[Action {
        name: "now",
        annotations: READ_ONLY,
    }];
    const STATIC_ANNOTATIONS: Annotations = READ_ONLY;
    const STATIC_AUTHORIZATION: Option<Authorization> =
        Some(Authorization::OAuth2(Scopes::new(&["time:read"], 1)));

    fn input_schema() -> &'static str {
        r#"{"type":"object"}"#
    }

    fn resolve(&self) -> Annotations {
        READ_ONLY
    }

    fn from_arguments(_: &Value) -> Result<Self, ArgumentError> {
        Ok(Clock)
    }
}

/// Two actions, both equal to the static bound: nothing varies either.
struct Steady;

impl AnnotatedTool for Steady {
    const NAME: &'static str = "steady";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[
        Action {
            name: "look",
            annotations: READ_ONLY,
        },
        Action {
            name: "glance",
            annotations: READ_ONLY,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations = READ_ONLY;

    fn input_schema() -> &'static str {
        r#"{"type":"object"}"#
    }

    fn resolve(&self) -> Annotations {
        READ_ONLY
    }

    fn from_arguments(_: &Value) -> Result<Self, ArgumentError> {
        Ok(Steady)
    }
}

fn server() -> Server {
    tools::builder(Files::default())
        .tool(|_: Clock| Ok(ToolOutput::text("noon")))
        .tool(|_: Steady| Ok(ToolOutput::text("calm")))
        .build()
        .unwrap()
}

fn tool<'a>(listing: &'a Value, name: &str) -> &'a Value {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed"))
}

fn read() -> Value {
    json!({"name": "manage_files", "arguments": {"action": "read", "path": "a"}})
}

fn missing_capability(error: &Value) {
    assert_eq!(error["code"], error_code::MISSING_CAPABILITY, "{error}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"extensions": {EXTENSION: {}}}),
        "{error}"
    );
    let response = json!({"jsonrpc": "2.0", "id": 1, "error": error});
    assert_mcp_2026("MissingRequiredClientCapabilityError", &response);
}

#[test]
fn only_tools_whose_annotations_vary_are_marked() {
    let server = server();
    let legacy = Client::initialized(&server, json!({})).result("tools/list", json!({}));
    let extension =
        Client::initialized(&server, extension_capabilities()).result("tools/list", json!({}));
    let modern =
        ModernClient::new(&server).result("tools/list", json!({}), extension_capabilities());
    for listing in [&legacy, &extension, &modern] {
        for name in ["clock", "steady"] {
            let tool = tool(listing, name);
            for marker in ["dynamicAnnotations", "resolve"] {
                assert!(tool.get(marker).is_none(), "{tool}");
            }
            assert!(
                tool.pointer(&format!("/_meta/{}", EXTENSION.replace('/', "~1")))
                    .is_none(),
                "{tool}"
            );
        }
    }
    assert_eq!(tool(&legacy, "manage_files")["resolve"], true);
    assert_eq!(
        tool(&extension, "counter")["_meta"][EXTENSION]["resolvable"],
        true
    );
    assert_eq!(
        tool(&modern, "liar")["_meta"][EXTENSION]["resolvable"],
        true
    );
}

#[test]
fn an_unmarked_or_unknown_tool_is_invalid_params_in_every_dialect() {
    let server = server();
    let mut legacy = Client::initialized(&server, json!({}));
    let mut negotiated = Client::initialized(&server, extension_capabilities());
    let mut modern = ModernClient::new(&server);
    for name in ["clock", "steady", "no_such_tool"] {
        let params = json!({"name": name, "arguments": {}});
        for method in ["tools/resolve", "tools/annotations"] {
            assert_eq!(
                legacy.error(method, params.clone())["code"],
                error_code::INVALID_PARAMS
            );
            assert_eq!(
                negotiated.error(method, params.clone())["code"],
                error_code::INVALID_PARAMS
            );
        }
        let error = modern.error("tools/resolve", params.clone(), extension_capabilities());
        assert_eq!(error["code"], error_code::INVALID_PARAMS, "{name}");
    }
    // They are still called as usual.
    let result = legacy.result("tools/call", json!({"name": "clock", "arguments": {}}));
    assert_eq!(result["content"][0]["text"], "noon");
}

#[test]
fn the_marker_is_listed_only_for_requests_or_sessions_that_advertise_the_extension() {
    let server = server();
    let marked = |listing: &Value| {
        tool(listing, "manage_files")["_meta"][EXTENSION] == json!({"resolvable": true})
    };

    let mut plain = Client::initialized(&server, json!({}));
    assert!(!marked(&plain.result("tools/list", json!({}))));
    // The request's own capabilities decide when it carries some.
    let own = json!({"_meta": request_capabilities(extension_capabilities())});
    assert!(marked(&plain.result("tools/list", own)));

    let mut negotiated = Client::initialized(&server, extension_capabilities());
    assert!(marked(&negotiated.result("tools/list", json!({}))));
    let without = json!({"_meta": request_capabilities(json!({"extensions": {}}))});
    assert!(!marked(&negotiated.result("tools/list", without)));

    // Settings the extension does not define: not advertised.
    let mut picky = Client::initialized(&server, json!({"extensions": {EXTENSION: {"x": 1}}}));
    assert!(!marked(&picky.result("tools/list", json!({}))));

    let mut modern = ModernClient::new(&server);
    assert!(!marked(&modern.result("tools/list", json!({}), json!({}))));
    assert!(marked(&modern.result(
        "tools/list",
        json!({}),
        extension_capabilities()
    )));
}

#[test]
fn an_extension_listing_fits_resolvable_tool_with_schemes_under_meta() {
    let server = server();
    let listings = [
        Client::initialized(&server, extension_capabilities()).result("tools/list", json!({})),
        ModernClient::new(&server).result("tools/list", json!({}), extension_capabilities()),
    ];
    for listing in &listings {
        for tool in listing["tools"].as_array().unwrap() {
            if tool["_meta"].get(EXTENSION).is_some() {
                assert_extension("ResolvableTool", tool);
            } else {
                assert_extension("Tool", tool);
            }
        }
        let clock = tool(listing, "clock");
        assert!(clock.get("securitySchemes").is_none(), "{clock}");
        assert_eq!(
            clock["_meta"]["dev.annot/authorization"],
            json!({"securitySchemes": [{"type": "oauth2", "scopes": ["time:read"]}]})
        );
    }
    // A legacy client without the extension keeps them beside the annotations.
    let legacy = Client::initialized(&server, json!({})).result("tools/list", json!({}));
    assert_eq!(
        tool(&legacy, "clock")["securitySchemes"],
        json!([{"type": "oauth2", "scopes": ["time:read"]}])
    );
}

#[test]
fn a_2026_request_without_the_extension_gets_32021() {
    let server = server();
    let mut client = ModernClient::new(&server);
    for capabilities in [
        json!({}),
        json!({"extensions": {"com.example/other": {}}}),
        json!({"extensions": {EXTENSION: {"mode": "strict"}}}),
        json!({"extensions": {EXTENSION: true}}),
        json!("not an object"),
        json!(null),
    ] {
        missing_capability(&client.error("tools/resolve", read(), capabilities));
    }
}

#[test]
fn a_legacy_request_whose_own_capabilities_omit_the_extension_gets_32021() {
    let server = server();
    for session in [json!({}), extension_capabilities()] {
        let mut client = Client::initialized(&server, session);
        for capabilities in [
            json!({}),
            json!({"extensions": {"com.example/other": {}}}),
            json!({"extensions": {EXTENSION: {"mode": "strict"}}}),
            json!([1]),
        ] {
            let mut params = read();
            params["_meta"] = request_capabilities(capabilities);
            missing_capability(&client.error("tools/resolve", params));
        }
    }
}

#[test]
fn initialize_naming_the_extension_with_settings_gets_32021() {
    let server = server();
    for settings in [json!({"mode": "strict"}), json!(true), json!([])] {
        let mut client = Client::initialized(&server, json!({"extensions": {EXTENSION: settings}}));
        missing_capability(&client.error("tools/resolve", read()));
    }
}

#[test]
fn the_capability_is_checked_before_the_parameters() {
    let server = server();
    let malformed = [
        json!({"name": "manage_files", "arguments": "junk"}),
        json!({"arguments": {}}),
        json!({"name": 7}),
        json!({"name": "no_such_tool", "arguments": {}}),
        json!({"name": "manage_files", "arguments": {"action": "chmod"}}),
    ];
    let mut modern = ModernClient::new(&server);
    let mut legacy = Client::initialized(&server, extension_capabilities());
    let mut picky = Client::initialized(&server, json!({"extensions": {EXTENSION: {"x": 1}}}));
    for params in malformed {
        missing_capability(&modern.error("tools/resolve", params.clone(), json!({})));
        let mut own = params.clone();
        own["_meta"] = request_capabilities(json!({}));
        missing_capability(&legacy.error("tools/resolve", own));
        missing_capability(&picky.error("tools/resolve", params));
    }
}

#[test]
fn sep_1862_stays_for_legacy_clients_that_did_not_ask_for_the_extension() {
    let server = server();
    let mut client = Client::initialized(&server, json!({}));
    let result = client.result("tools/resolve", read());
    assert_eq!(result["tool"]["name"], "manage_files");
    assert_eq!(result["tool"]["annotations"]["readOnlyHint"], true);
    assert_eq!(result["tool"]["resolve"], true);
    assert!(result.get("resultType").is_none());
}

#[test]
fn annot_extras_need_their_own_extension_with_empty_settings() {
    let server = server();
    let explain = |capabilities: Value| {
        let mut params = json!({"name": "counter", "arguments": {"action": "bump", "by": 0}});
        params["_meta"] = modern_meta(capabilities);
        params["_meta"]["dev.annot/resolution"] = json!({"explain": true});
        let mut client = ModernClient::new(&server);
        let response = client.send("tools/resolve", params);
        let result = response["result"].clone();
        assert_eq!(result["resultType"], "complete", "{response}");
        assert_extension("ResolveToolResult", &result);
        result
    };
    // Asked for without negotiating it: the result says nothing beyond the core.
    let result = explain(extension_capabilities());
    assert_eq!(
        result["_meta"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["io.modelcontextprotocol/serverInfo"]
    );
    // Negotiated with settings it does not define: the same.
    let result =
        explain(json!({"extensions": {EXTENSION: {}, "dev.annot/resolution": {"deep": true}}}));
    assert!(
        result["_meta"].get("dev.annot/resolution").is_none(),
        "{result}"
    );
}
