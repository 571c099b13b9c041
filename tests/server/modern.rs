//! MCP 2026-07-28 through `Connection::handle`: no handshake, every request
//! judged by its own `_meta`, every response checked against the official
//! 2026-07-28 schema (and the extension's where it applies).

use crate::server_support;
use annot::protocol::error_code;
use serde_json::{Value, json};
use server_support::tools;
use server_support::{
    Client, ModernClient, assert_extension, assert_mcp_2026, extension_capabilities, modern_meta,
};

const SUPPORTED: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

fn read(path: &str) -> Value {
    json!({"action": "read", "path": path})
}

#[test]
fn server_discover_answers_every_required_field() {
    let (server, _) = tools::server();
    let mut client = ModernClient::new(&server);
    let response = client.request("server/discover", json!({}), json!({}));
    assert_mcp_2026("DiscoverResultResponse", &response);
    assert_eq!(
        response["result"],
        json!({
            "supportedVersions": SUPPORTED,
            "capabilities": {
                "tools": {"dynamicAnnotations": true},
                "extensions": {
                    "io.modelcontextprotocol/tool-resolution": {},
                    "io.modelcontextprotocol/trust-annotations": {}
                }
            },
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "annot-test", "version": "1.2.3"}}
        })
    );
}

#[test]
fn a_missing_required_meta_key_is_invalid_params_naming_it() {
    let (server, _) = tools::server();
    let mut client = ModernClient::new(&server);
    let no_version = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}});
    let response = client.send("server/discover", no_version);
    assert_mcp_2026("JSONRPCErrorResponse", &response);
    let error = &response["error"];
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
    assert!(!message.contains("clientCapabilities"), "{message}");

    let no_capabilities =
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    for method in [
        "tools/list",
        "tools/call",
        "tools/resolve",
        "server/discover",
    ] {
        let error = &client.send(method, no_capabilities.clone())["error"];
        assert_eq!(error["code"], error_code::INVALID_PARAMS, "{method}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("io.modelcontextprotocol/clientCapabilities"),
            "{message}"
        );
    }

    // Present but of the wrong type is invalid too (tools/resolve reads the
    // capabilities itself: see server_extension).
    let error = client.error("tools/list", json!({}), json!("everything"));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
    let mut params = json!({});
    params["_meta"] = modern_meta(json!({}));
    params["_meta"]["io.modelcontextprotocol/clientInfo"] = json!("me");
    let error = &client.send("tools/list", params)["error"];
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
}

#[test]
fn an_unserved_version_gets_32022_with_supported_and_requested() {
    let (server, _) = tools::server();
    let mut client = ModernClient::new(&server);
    for method in ["tools/list", "server/discover", "tools/call", "ping"] {
        let mut params = json!({});
        params["_meta"] = modern_meta(json!({}));
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
        let response = client.send(method, params);
        assert_mcp_2026("UnsupportedProtocolVersionError", &response);
        assert_eq!(response["error"]["code"], -32022);
        assert_eq!(
            response["error"]["data"],
            json!({"supported": SUPPORTED, "requested": "2099-01-01"})
        );
    }
}

#[test]
fn tools_list_is_cacheable_and_marks_only_for_the_extension() {
    let (server, _) = tools::server();
    let mut client = ModernClient::new(&server);
    let plain = client.result("tools/list", json!({}), json!({}));
    assert_mcp_2026("ListToolsResult", &plain);
    assert_eq!(plain["ttlMs"], 0);
    assert_eq!(plain["cacheScope"], "private");
    let tools = plain["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 3);
    for tool in tools {
        // No extension: no extension marker; SEP-1862 is for handshake sessions.
        assert!(tool.get("_meta").is_none(), "{tool}");
        assert!(tool.get("resolve").is_none(), "{tool}");
        assert_eq!(tool["dynamicAnnotations"], true, "{tool}");
    }

    let with = client.result("tools/list", json!({}), extension_capabilities());
    assert_mcp_2026("ListToolsResult", &with);
    for tool in with["tools"].as_array().unwrap() {
        assert_extension("ResolvableTool", tool);
        assert_eq!(
            tool["_meta"],
            json!({"io.modelcontextprotocol/tool-resolution": {"resolvable": true}})
        );
    }
}

#[test]
fn tools_call_results_carry_result_type_and_server_info() {
    let (server, files) = tools::server();
    files
        .lock()
        .unwrap()
        .insert("a.txt".to_owned(), "hello".to_owned());
    let mut client = ModernClient::new(&server);
    let params = json!({"name": "manage_files", "arguments": read("a.txt")});
    let result = client.result("tools/call", params, json!({}));
    assert_mcp_2026("CallToolResult", &result);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "hello"}])
    );
    assert!(result.get("isError").is_none());

    // Invalid arguments: a tool error the model can read (SEP-1303).
    let params = json!({"name": "manage_files", "arguments": {"action": "chmod", "path": "a"}});
    let result = client.result("tools/call", params, json!({}));
    assert_mcp_2026("CallToolResult", &result);
    assert_eq!(result["isError"], true);

    let params = json!({"name": "nothing", "arguments": {}});
    let error = client.error("tools/call", params, json!({}));
    assert_eq!(error["code"], error_code::INVALID_PARAMS);
}

#[test]
fn tools_resolve_answers_the_extension_shape_with_server_info() {
    let (server, _) = tools::server();
    let mut client = ModernClient::new(&server);
    let params = json!({"name": "manage_files", "arguments": {"action": "delete", "path": "x"}});
    let result = client.result("tools/resolve", params, extension_capabilities());
    assert_extension("ResolveToolResult", &result);
    assert_mcp_2026("Result", &result);
    let mut expected = tools::manage_files_delete_resolved();
    expected["_meta"] =
        json!({"io.modelcontextprotocol/serverInfo": {"name": "annot-test", "version": "1.2.3"}});
    assert_eq!(result, expected);
    // Dialect A answers 2026-07-28 requests too, with resultType.
    let params = json!({"name": "manage_files", "arguments": read("x")});
    let result = client.result("tools/annotations", params, json!({}));
    assert_eq!(result["annotations"]["readOnlyHint"], true);
}

#[test]
fn a_modern_request_is_judged_by_its_own_meta_never_by_initialize() {
    let (server, _) = tools::server();
    // A session that negotiated the extension through initialize...
    let mut legacy = Client::initialized(&server, extension_capabilities());
    let listed = legacy.result("tools/list", json!({}));
    assert!(listed["tools"][0]["_meta"].is_object());
    // ...then sends 2026-07-28 requests on the same connection without it.
    let mut params = json!({"name": "manage_files", "arguments": read("a")});
    params["_meta"] = modern_meta(json!({}));
    let response = legacy.raw(
        json!({"jsonrpc": "2.0", "id": 50, "method": "tools/resolve", "params": params})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(
        response.unwrap()["error"]["code"],
        error_code::MISSING_CAPABILITY
    );
    let mut params = json!({});
    params["_meta"] = modern_meta(json!({}));
    let response = legacy
        .raw(
            json!({"jsonrpc": "2.0", "id": 51, "method": "tools/list", "params": params})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    assert!(response["result"]["tools"][0].get("_meta").is_none());
    // The session itself is untouched.
    let result = legacy.result(
        "tools/resolve",
        json!({"name": "manage_files", "arguments": read("a")}),
    );
    assert_eq!(result["resultType"], "complete");
    assert!(result.get("_meta").is_none(), "{result}");

    // And the other way round: a session without the extension, a request with it.
    let mut plain = Client::initialized(&server, json!({}));
    let mut params = json!({"name": "manage_files", "arguments": read("a")});
    params["_meta"] = modern_meta(extension_capabilities());
    let response = plain
        .raw(
            json!({"jsonrpc": "2.0", "id": 52, "method": "tools/resolve", "params": params})
                .to_string()
                .as_bytes(),
        )
        .unwrap();
    assert_eq!(response["result"]["annotations"]["readOnlyHint"], true);
}

#[test]
fn handshake_methods_are_not_part_of_2026_07_28() {
    let (server, _) = tools::server();
    let mut client = ModernClient::new(&server);
    for method in ["ping", "resources/list", "logging/setLevel"] {
        let error = client.error(method, json!({}), json!({}));
        assert_eq!(error["code"], error_code::METHOD_NOT_FOUND, "{method}");
    }
    // No session state was made: initialize still works afterwards.
    let mut legacy = Client::new(&server);
    legacy.connection = client.connection;
    legacy.initialize("2025-11-25", json!({}));
}
