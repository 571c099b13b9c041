//! `--http` with `[auth]`: the gateway as an OAuth 2.1 resource server. Each
//! token's scopes choose what its calls may do, per action and argument.

use serde_json::{Value, json};

use crate::rules::{SPLIT_NOTES, Setup};
use crate::support::{HttpGateway, Reply, snapshot, text};
use crate::tokens::{Issuer, auth_section, bad_tokens, claims};

fn started(issuer: &Issuer) -> (Setup, HttpGateway) {
    let setup = Setup::new(SPLIT_NOTES);
    let auth = auth_section(issuer, setup.directory.path());
    let config = setup.directory.path().join("gateway.toml");
    std::fs::write(config, format!("{SPLIT_NOTES}\n{auth}")).unwrap();
    let args = setup.args(&["--exposure", "resolvable", "--confirm", "host"], &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = HttpGateway::start(&args);
    (setup, gateway)
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "oauth-test", "version": "1"}}})
    .to_string()
}

/// A session opened with `token`.
fn session(gateway: &HttpGateway, token: &str) -> String {
    let bearer = format!("Bearer {token}");
    let reply = gateway.post_raw(&initialize(), &[("authorization", &bearer)]);
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.session.expect("a session id")
}

fn call(gateway: &HttpGateway, session: &str, token: &str, arguments: Value) -> Reply {
    let bearer = format!("Bearer {token}");
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "notes", "arguments": arguments}});
    gateway.post_raw(
        &message.to_string(),
        &[("authorization", &bearer), ("mcp-session-id", session)],
    )
}

#[test]
fn a_request_without_a_good_token_is_refused_with_www_authenticate() {
    let issuer = Issuer::new(7, "k1");
    let (_setup, gateway) = started(&issuer);
    let missing = gateway.post_raw(&initialize(), &[]);
    assert_eq!(missing.status, 401, "{missing:?}");
    let challenge = missing.www_authenticate.clone().expect("WWW-Authenticate");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("resource_metadata names the document");
    let document = gateway.get_json(metadata_url);
    assert_eq!(
        document["authorization_servers"],
        json!([crate::tokens::ISSUER])
    );
    assert!(document["resource"].as_str().unwrap().ends_with("/mcp"));

    for (name, token) in bad_tokens(&issuer) {
        let bearer = format!("Bearer {token}");
        let reply = gateway.post_raw(&initialize(), &[("authorization", &bearer)]);
        assert_eq!(reply.status, 401, "{name}: {reply:?}");
        let challenge = reply.www_authenticate.unwrap_or_default();
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{name}: {challenge}"
        );
    }
    let no_scope = issuer.mint("k1", &claims("alice", "openid"));
    let reply = gateway.post_raw(
        &initialize(),
        &[("authorization", &format!("Bearer {no_scope}"))],
    );
    assert_eq!(reply.status, 403, "{reply:?}");
}

#[test]
fn a_read_scope_reads_and_nothing_else_a_write_scope_writes_but_never_deletes() {
    let issuer = Issuer::new(7, "k1");
    let (setup, gateway) = started(&issuer);
    let reader = issuer.mint("k1", &claims("alice", "files:read"));
    let session_of_reader = session(&gateway, &reader);
    let read = call(
        &gateway,
        &session_of_reader,
        &reader,
        json!({"action": "read", "name": "todo"}),
    );
    assert_eq!(text(&read.messages[0]["result"]), "buy milk\n", "{read:?}");
    let before = snapshot(&setup.notes());
    let append = call(
        &gateway,
        &session_of_reader,
        &reader,
        json!({"action": "append", "name": "todo", "text": "x"}),
    );
    let result = &append.messages[0]["result"];
    assert_eq!(result["isError"], json!(true), "{append:?}");
    assert!(text(result).contains("files:read"), "{append:?}");
    assert_eq!(snapshot(&setup.notes()), before);

    let writer = issuer.mint("k1", &claims("bob", "files:write"));
    let session_of_writer = session(&gateway, &writer);
    let append = call(
        &gateway,
        &session_of_writer,
        &writer,
        json!({"action": "append", "name": "todo", "text": "eggs\n"}),
    );
    assert_eq!(
        text(&append.messages[0]["result"]),
        "appended",
        "{append:?}"
    );
    let delete = call(
        &gateway,
        &session_of_writer,
        &writer,
        json!({"action": "delete", "name": "todo"}),
    );
    assert_eq!(
        delete.messages[0]["result"]["isError"],
        json!(true),
        "{delete:?}"
    );
    assert!(setup.notes().join("todo").exists());

    // Another subject's token cannot drive alice's session.
    let stolen = call(
        &gateway,
        &session_of_reader,
        &writer,
        json!({"action": "read", "name": "todo"}),
    );
    assert_eq!(stolen.status, 403, "{stolen:?}");

    // Tokens are never written to the log.
    let log = std::fs::read(setup.log()).unwrap();
    for token in [&reader, &writer] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(
            !log.windows(signature.len())
                .any(|window| window == signature.as_bytes())
        );
    }
}
