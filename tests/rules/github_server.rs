//! The `github_api` example server, driven over JSON-RPC: `securitySchemes`
//! in `tools/list` and in dialect B, explanations under
//! `_meta["dev.annot/resolution"]`, dialect C extras only for negotiated
//! extensions, and calls that run with the authorization they resolve to.

#[allow(dead_code)]
#[path = "../../examples/github_api.rs"]
mod example;
use crate::server_support;
use annot::protocol::{ANNOT_META, AUTHORIZATION_EXTENSION, TOOL_RESOLUTION_EXTENSION};
use example::fake::FakeGithub;
use serde_json::{Value, json};
use server_support::{Client, assert_extension, assert_mcp};

fn server() -> annot::server::Server {
    example::server(FakeGithub::seeded(), example::TOKEN_SCOPES)
}

fn arguments(method: &str, path: &str, public: bool) -> Value {
    json!({"method": method, "path": path, "public": public})
}

fn resolve_params(method: &str, path: &str, public: bool, explain: bool) -> Value {
    let mut params = json!({"name": "github_api", "arguments": arguments(method, path, public)});
    if explain {
        params["_meta"] = json!({ANNOT_META: {"explain": true}});
    }
    params
}

#[test]
fn tools_list_declares_the_union_of_scopes() {
    let mut client = Client::initialized(&server(), json!({}));
    let list = client.result("tools/list", json!({}));
    let tool = &list["tools"][0];
    assert_mcp("Tool", tool);
    assert_eq!(tool["name"], "github_api");
    assert_eq!(
        tool["securitySchemes"],
        json!([{"type": "oauth2", "scopes": ["repo", "public_repo", "delete_repo", "admin:org"]}])
    );
    assert_eq!(tool["annotations"]["destructiveHint"], true);
    assert_eq!(tool["annotations"]["privilegedAccessHint"], true);
}

#[test]
fn dialect_b_returns_argument_specific_security_schemes() {
    let mut client = Client::initialized(&server(), json!({}));
    let public = client.result(
        "tools/resolve",
        resolve_params("GET", "/repos/octo/hello", true, false),
    );
    assert_mcp("Tool", &public["tool"]);
    assert_eq!(
        public["tool"]["securitySchemes"],
        json!([{"type": "noauth"}])
    );
    assert_eq!(public["tool"]["annotations"]["readOnlyHint"], true);
    assert_eq!(public["tool"]["annotations"]["sensitiveDataHint"], false);
    assert!(public.get("_meta").is_none(), "no explanation unless asked");

    let private = client.result(
        "tools/resolve",
        resolve_params("GET", "/repos/octo/secret", false, false),
    );
    assert_eq!(
        private["tool"]["securitySchemes"],
        json!([{"type": "oauth2", "scopes": ["repo"]}])
    );
    assert_eq!(private["tool"]["annotations"]["sensitiveDataHint"], true);

    let delete = client.result(
        "tools/resolve",
        resolve_params("DELETE", "/repos/octo/hello", false, false),
    );
    assert_eq!(
        delete["tool"]["securitySchemes"],
        json!([{"type": "oauth2", "scopes": ["delete_repo"]}])
    );
    assert_eq!(delete["tool"]["annotations"]["reversibleHint"], false);
}

#[test]
fn explanations_when_asked_in_dialects_a_and_b() {
    let mut client = Client::initialized(&server(), json!({}));
    let resolved = client.result(
        "tools/resolve",
        resolve_params(
            "DELETE",
            "/repos/octo/hello/issues/1/labels/bug",
            false,
            true,
        ),
    );
    let explanation = &resolved["_meta"][ANNOT_META];
    assert_eq!(explanation["action"], "DELETE");
    assert_eq!(
        explanation["hints"]["destructiveHint"],
        json!({"value": false, "source": "rules", "rules": [3]})
    );
    assert_eq!(
        explanation["hints"]["idempotentHint"],
        json!({"value": true, "source": "action"})
    );
    assert_eq!(
        explanation["hints"]["openWorldHint"],
        json!({"value": true, "source": "toolDefault"})
    );
    assert_eq!(
        explanation["hints"]["aiProcessingHint"],
        json!({"value": null, "source": "specificationDefault"})
    );
    assert_eq!(explanation["authorization"]["source"], "toolDefault");
    assert_eq!(explanation["rules"][0]["index"], 3);
    assert!(
        explanation["rules"][0]["rule"]
            .as_str()
            .unwrap()
            .starts_with("when(all(method == \"DELETE\", path matches_template")
    );

    let annotations = client.result(
        "tools/annotations",
        resolve_params("GET", "/repos/octo/hello", true, true),
    );
    assert_eq!(annotations["annotations"]["readOnlyHint"], true);
    let explanation = &annotations["_meta"][ANNOT_META];
    assert_eq!(
        explanation["authorization"]["securitySchemes"],
        json!([{"type": "noauth"}])
    );
    assert_eq!(explanation["authorization"]["rules"], json!([0]));
}

#[test]
fn dialect_c_carries_extras_only_for_negotiated_extensions() {
    let server = server();
    // The server advertises both of this project's extensions.
    let mut client = Client::new(&server);
    let initialized = client.initialize(
        "2025-11-25",
        json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}}),
    );
    let extensions = &initialized["capabilities"]["extensions"];
    assert_eq!(extensions[ANNOT_META], json!({}));
    assert_eq!(extensions[AUTHORIZATION_EXTENSION], json!({}));

    // Negotiated the tool-resolution extension only: no _meta at all, even
    // when the explanation is asked for.
    let plain = client.result(
        "tools/resolve",
        resolve_params("GET", "/repos/octo/hello", true, true),
    );
    assert_extension("ResolveToolResult", &plain);
    assert!(plain.get("_meta").is_none(), "{plain}");

    // The same session, asking per request with both extensions.
    let mut params = resolve_params("DELETE", "/repos/octo/hello", false, true);
    params["_meta"] = json!({
        ANNOT_META: {"explain": true},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {
            TOOL_RESOLUTION_EXTENSION: {}, ANNOT_META: {}, AUTHORIZATION_EXTENSION: {}
        }}
    });
    let full = client.result("tools/resolve", params);
    assert_extension("ResolveToolResult", &full);
    assert_eq!(
        full["_meta"][AUTHORIZATION_EXTENSION],
        json!({"securitySchemes": [{"type": "oauth2", "scopes": ["delete_repo"]}]})
    );
    assert_eq!(full["_meta"][ANNOT_META]["action"], "DELETE");
    assert_eq!(full["annotations"]["destructiveHint"], true);

    // Negotiated in initialize: authorization always, explanation when asked.
    let mut negotiated = Client::new(&server);
    negotiated.initialize(
        "2025-11-25",
        json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}, AUTHORIZATION_EXTENSION: {}}}),
    );
    let result = negotiated.result(
        "tools/resolve",
        resolve_params("GET", "/repos/octo/hello", true, true),
    );
    assert_extension("ResolveToolResult", &result);
    assert_eq!(
        result["_meta"],
        json!({AUTHORIZATION_EXTENSION: {"securitySchemes": [{"type": "noauth"}]}})
    );
}

fn call(client: &mut Client, method: &str, path: &str, public: bool, body: Value) -> Value {
    let mut arguments = arguments(method, path, public);
    if !body.is_null() {
        arguments["body"] = body;
    }
    client.result(
        "tools/call",
        json!({"name": "github_api", "arguments": arguments}),
    )
}

#[test]
fn calls_run_with_the_authorization_they_resolve_to() {
    let mut client = Client::initialized(&server(), json!({}));
    let repo = call(&mut client, "GET", "/repos/octo/hello", true, Value::Null);
    assert_eq!(repo["structuredContent"]["full_name"], "octo/hello");

    // Anonymous: a private repository is not there.
    let hidden = call(&mut client, "GET", "/repos/octo/secret", true, Value::Null);
    assert_eq!(hidden["isError"], true);
    assert_eq!(hidden["content"][0]["text"], "404 Not Found");
    let seen = call(&mut client, "GET", "/repos/octo/secret", false, Value::Null);
    assert_eq!(seen["structuredContent"]["private"], true);

    let created = call(
        &mut client,
        "POST",
        "/repos/octo/hello/issues",
        true,
        json!({"title": "Add Spanish"}),
    );
    assert_eq!(created["structuredContent"]["number"], 2);
    let unlabeled = call(
        &mut client,
        "DELETE",
        "/repos/octo/hello/issues/1/labels/good first issue",
        false,
        Value::Null,
    );
    assert_eq!(unlabeled["structuredContent"]["labels"], json!([]));
    let closed = call(
        &mut client,
        "PATCH",
        "/repos/octo/hello/issues/1",
        false,
        json!({"state": "closed"}),
    );
    assert_eq!(closed["structuredContent"]["state"], "closed");

    // The token lacks `delete_repo`: refused before anything changes.
    let refused = call(
        &mut client,
        "DELETE",
        "/repos/octo/hello",
        false,
        Value::Null,
    );
    assert_eq!(refused["isError"], true);
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("needs the `delete_repo` scope"),
        "{refused}"
    );
    let still = call(&mut client, "GET", "/repos/octo/hello", true, Value::Null);
    assert_eq!(still["structuredContent"]["full_name"], "octo/hello");

    let members = call(&mut client, "GET", "/orgs/octo/members", false, Value::Null);
    assert!(
        members["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("admin:org")
    );
}

#[test]
fn a_token_with_every_scope_may_delete() {
    let server = example::server(
        FakeGithub::seeded(),
        &["repo", "public_repo", "delete_repo", "admin:org"],
    );
    let mut client = Client::initialized(&server, json!({}));
    let deleted = call(
        &mut client,
        "DELETE",
        "/repos/octo/secret",
        false,
        Value::Null,
    );
    assert_eq!(deleted["structuredContent"]["deleted"], "octo/secret");
    let gone = call(&mut client, "GET", "/repos/octo/secret", false, Value::Null);
    assert_eq!(gone["content"][0]["text"], "404 Not Found");
    let members = call(&mut client, "GET", "/orgs/octo/members", false, Value::Null);
    assert_eq!(
        members["structuredContent"]["members"],
        json!(["ann", "bob"])
    );
}

/// A path that names another host, or a whole URL, is what a real client
/// would send elsewhere: the example checks the request it would send with
/// the HTTP guard, which refuses it before the fake GitHub acts.
#[test]
fn a_path_that_leaves_the_api_is_refused_before_anything_changes() {
    let mut client = Client::initialized(&server(), json!({}));
    for path in [
        "//api.github.com/repos/octo/hello/issues/1",
        "https://api.github.com/repos/octo/hello/issues/1",
        "//evil.example/repos/octo/hello/issues/1",
    ] {
        let refused = call(
            &mut client,
            "PATCH",
            path,
            false,
            json!({"state": "closed"}),
        );
        assert_eq!(refused["isError"], true, "{path}: {refused}");
        assert!(
            refused["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("is not a path from the root"),
            "{refused}"
        );
    }
    let issue = call(
        &mut client,
        "GET",
        "/repos/octo/hello/issues/1",
        true,
        Value::Null,
    );
    assert_eq!(issue["structuredContent"]["state"], "open", "{issue}");
}
