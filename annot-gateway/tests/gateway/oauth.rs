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

/// An annotated upstream states the scopes each call needs
/// (`dev.annot/authorization`, resolved per call): the gateway holds the
/// caller's token to them. annot's `github_api` needs no credentials to read a
/// public repository, `public_repo` to write to one, `repo` for a private one
/// and `delete_repo` to delete one.
#[test]
fn an_annotated_upstreams_scopes_per_call_are_checked_against_the_token() {
    let issuer = Issuer::new(9, "k1");
    let directory = tempfile::tempdir().unwrap();
    let jwks = directory.path().join("jwks.json");
    std::fs::write(&jwks, issuer.jwks().to_string()).unwrap();
    let config = directory.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[auth]\nissuer = \"{}\"\naudience = \"{}\"\njwks_file = \"{}\"\n\
             scopes = {{ \"public_repo\" = \"any\", \"repo\" = \"any\" }}\n\
             # Reading a repository, then writing an issue, completes the lethal trifecta;\n\
             # this test is about scopes alone.\n\
             [policy]\ntrifecta = \"allow\"\n",
            crate::tokens::ISSUER,
            crate::tokens::AUDIENCE,
            jwks.display()
        ),
    )
    .unwrap();
    let log = directory.path().join("log.sqlite");
    let upstream = crate::support::example("github_api");
    let gateway = HttpGateway::start(&[
        "--config",
        config.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--confirm",
        "host",
        "--",
        upstream.to_str().unwrap(),
    ]);
    let github = |session: &str, token: &str, arguments: Value| {
        let bearer = format!("Bearer {token}");
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "github_api", "arguments": arguments}});
        let reply = gateway.post_raw(
            &message.to_string(),
            &[("authorization", &bearer), ("mcp-session-id", session)],
        );
        reply.messages[0]["result"].clone()
    };

    let public = issuer.mint("k1", &claims("carol", "public_repo"));
    let carol = session(&gateway, &public);
    let read = github(
        &carol,
        &public,
        json!({"method": "GET", "path": "/repos/octo/hello", "public": true}),
    );
    assert_ne!(read["isError"], json!(true), "{read}");
    assert!(text(&read).contains("octo/hello"), "{read}");
    let issue = github(
        &carol,
        &public,
        json!({"method": "POST", "path": "/repos/octo/hello/issues", "public": true,
               "body": {"title": "hi"}}),
    );
    assert_ne!(issue["isError"], json!(true), "{issue}");
    let private = github(
        &carol,
        &public,
        json!({"method": "GET", "path": "/repos/octo/secret"}),
    );
    assert_eq!(private["isError"], json!(true), "{private}");
    assert!(text(&private).contains("`repo`"), "{private}");
    assert_eq!(
        private["_meta"]["dev.annot/gateway"]["by"],
        json!("token scopes")
    );

    let owner = issuer.mint("k1", &claims("dave", "repo"));
    let dave = session(&gateway, &owner);
    let private = github(
        &dave,
        &owner,
        json!({"method": "GET", "path": "/repos/octo/secret"}),
    );
    assert_ne!(private["isError"], json!(true), "{private}");
    let delete = github(
        &dave,
        &owner,
        json!({"method": "DELETE", "path": "/repos/octo/hello"}),
    );
    assert_eq!(delete["isError"], json!(true), "{delete}");
    assert!(text(&delete).contains("`delete_repo`"), "{delete}");
}

/// An issuer's JWKS served over HTTP on loopback: the document it serves now,
/// and how many times it was fetched.
struct JwksServer {
    url: String,
    document: std::sync::Arc<std::sync::Mutex<String>>,
    fetches: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl JwksServer {
    fn start(document: Value) -> JwksServer {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        let served = std::sync::Arc::new(std::sync::Mutex::new(document.to_string()));
        let fetches = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (document, counted) = (served.clone(), fetches.clone());
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let mut request = Vec::new();
                let mut buffer = [0; 1024];
                while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                    match stream.read(&mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(read) => request.extend_from_slice(&buffer[..read]),
                    }
                }
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let body = document.lock().unwrap().clone();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        JwksServer {
            url,
            document: served,
            fetches,
        }
    }

    fn fetches(&self) -> usize {
        self.fetches.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// `jwks_url`: the issuer's keys are fetched at start, and again when a token
/// names a key the gateway does not hold (the issuer rotated its keys), at most
/// once in ten seconds, so forged key ids cannot make it hammer the issuer.
#[test]
fn keys_fetched_from_the_issuers_jwks_url_follow_a_rotation() {
    let old = Issuer::new(7, "k1");
    let new = Issuer::new(8, "k2");
    let issuer = JwksServer::start(old.jwks());
    let setup = Setup::new(SPLIT_NOTES);
    let config = setup.directory.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "{SPLIT_NOTES}\n[auth]\nissuer = \"{}\"\naudience = \"{}\"\njwks_url = \"{}\"\n\
             scopes = {{ \"files:read\" = \"read-only\" }}\n",
            crate::tokens::ISSUER,
            crate::tokens::AUDIENCE,
            issuer.url
        ),
    )
    .unwrap();
    let args = setup.args(&["--confirm", "host"], &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = HttpGateway::start(&args);
    assert_eq!(issuer.fetches(), 1, "fetched once at start");
    session(&gateway, &old.mint("k1", &claims("alice", "files:read")));
    assert_eq!(issuer.fetches(), 1, "a key it holds needs no fetch");

    *issuer.document.lock().unwrap() =
        json!({"keys": [old.jwk.clone(), new.jwk.clone()]}).to_string();
    session(&gateway, &new.mint("k2", &claims("alice", "files:read")));
    assert_eq!(issuer.fetches(), 2, "a rotated key is fetched");

    let stranger = Issuer::new(9, "k3").mint("k3", &claims("mallory", "files:read"));
    let bearer = format!("Bearer {stranger}");
    let reply = gateway.post_raw(&initialize(), &[("authorization", &bearer)]);
    assert_eq!(reply.status, 401, "{reply:?}");
    assert_eq!(issuer.fetches(), 2, "not again within ten seconds");
}

#[test]
fn an_unreachable_or_unusable_jwks_url_stops_the_start() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let (code, stderr) = crate::support::refused_at_start(&format!(
        "[upstream]\ncommand = \"cat\"\n[auth]\nissuer = \"i\"\naudience = \"a\"\n\
         jwks_url = \"http://{closed}/jwks.json\"\nscopes = {{ \"s\" = \"read-only\" }}\n"
    ));
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("fetching the JWKS"), "{stderr}");
    let (code, stderr) = crate::support::refused_at_start(
        "[upstream]\ncommand = \"cat\"\n[auth]\nissuer = \"i\"\naudience = \"a\"\n\
         scopes = { \"s\" = \"read-only\" }\n",
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`jwks_file` or `jwks_url`"), "{stderr}");
}
