//! `--http` as one of several processes behind a load balancer: session ids
//! that carry the process's tag (`--tag`), and 2026-07-28 requests served
//! without a session, the caller's risk kept across them.

use serde_json::{Value, json};

use crate::rules::Setup;
use crate::support::{HttpGateway, Reply, exported, text};
use crate::tokens::{Issuer, auth_section, claims};

const MODERN: &str = "2026-07-28";

/// `notes` as a mailbox: a read brings private data and mail from strangers
/// (untrusted content) into the context, an append sends a message out.
pub const MAILBOX_NOTES: &str = include_str!("../fixtures/mailbox.toml");

fn started(config: &str, options: &[&str]) -> (Setup, HttpGateway) {
    let setup = Setup::new(config);
    let args = setup.args(options, &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = HttpGateway::start(&args);
    (setup, gateway)
}

/// A 2026-07-28 request: no session, the version in a header and in `_meta`.
fn modern(
    gateway: &HttpGateway,
    token: Option<&str>,
    id: Value,
    method: &str,
    params: Value,
) -> Reply {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "modern-http-host", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![("mcp-protocol-version", MODERN)];
    if let Some(bearer) = &bearer {
        headers.push(("authorization", bearer));
    }
    gateway.post_raw(&message.to_string(), &headers)
}

fn notes(action: &str, text: Option<&str>) -> Value {
    let mut arguments = json!({"action": action, "name": "todo"});
    if let Some(text) = text {
        arguments["text"] = json!(text);
    }
    json!({"name": "notes", "arguments": arguments})
}

#[test]
fn a_tag_starts_every_session_id() {
    let (_setup, gateway) = started(MAILBOX_NOTES, &["--tag", "g1"]);
    let first = gateway.initialize(json!({}));
    let second = gateway.initialize(json!({}));
    for session in [&first, &second] {
        let (tag, random) = session.split_once('.').expect("TAG.HEX");
        assert_eq!(tag, "g1", "{session}");
        assert_eq!(random.len(), 32, "128 random bits in hex: {session}");
        assert!(random.chars().all(|c| c.is_ascii_hexdigit()), "{session}");
    }
    assert_ne!(first, second);
    let listed = gateway.request(&first, 1, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

#[test]
fn a_tag_that_cannot_start_a_session_id_stops_the_gateway() {
    for tag in ["g 1", "g1.x", ""] {
        let output = std::process::Command::new(crate::support::GATEWAY)
            .args(["--http", "127.0.0.1:0", "--tag", tag, "--", "true"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{tag:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("a tag is 1 to 32 letters"),
            "{tag:?}: {stderr}"
        );
    }
}

#[test]
fn a_2026_host_is_served_over_http_without_a_session() {
    let (_setup, gateway) = started(
        MAILBOX_NOTES,
        &["--exposure", "resolvable", "--confirm", "host"],
    );
    let listed = modern(&gateway, None, json!(1), "tools/list", json!({}));
    assert_eq!(listed.status, 200, "{listed:?}");
    assert_eq!(listed.session, None, "no session is started");
    let result = &listed.messages[0]["result"];
    assert_eq!(result["resultType"], json!("complete"), "{listed:?}");
    assert_eq!(result["tools"][0]["name"], json!("notes"));
    assert_eq!(listed.messages[0]["id"], json!(1), "the host's own id");

    // Two hosts may use the same ids: each answer carries its request's.
    for id in [json!("same"), json!("same"), json!(7)] {
        let read = modern(
            &gateway,
            None,
            id.clone(),
            "tools/call",
            notes("read", None),
        );
        assert_eq!(read.status, 200, "{read:?}");
        assert_eq!(read.messages[0]["id"], id, "{read:?}");
        assert_eq!(text(&read.messages[0]["result"]), "buy milk\n", "{read:?}");
    }
    // Without the header, `_meta` alone says 2026-07-28; without either, a
    // request still needs a session.
    let message = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let by_meta = gateway.post_raw(&message.to_string(), &[]);
    assert_eq!(by_meta.status, 200, "{by_meta:?}");
    let legacy = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    assert_eq!(gateway.post_raw(&legacy.to_string(), &[]).status, 400);
}

#[test]
fn a_callers_risk_holds_across_requests_without_a_session() {
    let issuer = Issuer::new(9, "k1");
    let setup = Setup::new(MAILBOX_NOTES);
    let auth = auth_section(&issuer, setup.directory.path());
    let config = setup.directory.path().join("gateway.toml");
    std::fs::write(config, format!("{MAILBOX_NOTES}\n{auth}")).unwrap();
    let args = setup.args(&["--exposure", "resolvable", "--confirm", "host"], &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = HttpGateway::start(&args);
    let alice = issuer.mint("k1", &claims("alice", "files:write"));
    let bob = issuer.mint("k1", &claims("bob", "files:write"));
    let alice_reader = issuer.mint("k1", &claims("alice", "files:read"));

    let read = modern(
        &gateway,
        Some(&alice),
        json!(1),
        "tools/call",
        notes("read", None),
    );
    assert_eq!(text(&read.messages[0]["result"]), "buy milk\n", "{read:?}");
    // Alice read private data and mail from strangers: sending out is refused.
    let send = modern(
        &gateway,
        Some(&alice),
        json!(2),
        "tools/call",
        notes("append", Some("leak\n")),
    );
    let refused = &send.messages[0]["result"];
    assert_eq!(refused["isError"], json!(true), "{send:?}");
    assert!(text(refused).contains("lethal trifecta"), "{send:?}");
    // Her sessions share her risk: the same send in a session is refused too.
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "legacy-host", "version": "1"}}});
    let bearer = format!("Bearer {alice}");
    let opened = gateway.post_raw(&initialize.to_string(), &[("authorization", &bearer)]);
    let session = opened.session.expect("a session id");
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": notes("append", Some("leak\n"))});
    let in_session = gateway.post_raw(
        &message.to_string(),
        &[("authorization", &bearer), ("mcp-session-id", &session)],
    );
    let refused = &in_session.messages[0]["result"];
    assert!(text(refused).contains("lethal trifecta"), "{in_session:?}");
    // Bob read nothing: his message goes out.
    let sent = modern(
        &gateway,
        Some(&bob),
        json!(2),
        "tools/call",
        notes("append", Some("hi\n")),
    );
    assert_eq!(text(&sent.messages[0]["result"]), "appended", "{sent:?}");
    // Each call is judged by its own token's scopes, not by the caller's last.
    let write_by_reader = modern(
        &gateway,
        Some(&alice_reader),
        json!(3),
        "tools/call",
        notes("append", Some("x\n")),
    );
    let result = &write_by_reader.messages[0]["result"];
    assert!(text(result).contains("files:read"), "{write_by_reader:?}");
    assert_eq!(
        std::fs::read_to_string(setup.notes().join("todo")).unwrap(),
        "buy milk\nhi\n"
    );
    let none = modern(&gateway, None, json!(4), "tools/list", json!({}));
    assert_eq!(none.status, 401, "{none:?}");

    drop(gateway);
    let outcomes: Vec<Value> = exported(setup.log())
        .into_iter()
        .map(|call| call["outcome"].clone())
        .collect();
    let (ok, refused) = (json!("ok"), json!("refused"));
    assert_eq!(
        outcomes,
        [ok.clone(), refused.clone(), refused.clone(), ok, refused]
    );
}
