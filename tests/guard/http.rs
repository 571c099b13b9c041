//! The HTTP guard against a real HTTP server on 127.0.0.1: each request and
//! each redirect is sent only when the call's resolution claims it, and a
//! refused one never reaches the server. Expectations come from the table in
//! docs/guards.md, written here by hand.

use crate::guard_support;
use annot::Annotations;
use annot::guard::Claims;
use annot::guard::http::{HttpGuard, Url};
use guard_support::http_server::HttpServer;

const READ: Annotations = Annotations::new().read_only(true).open_world(false);
const APPEND: Annotations = Annotations::new()
    .read_only(false)
    .destructive(false)
    .open_world(false);
const WRITE: Annotations = Annotations::new()
    .read_only(false)
    .destructive(true)
    .open_world(false);

fn guard(annotations: Annotations, server: &HttpServer) -> HttpGuard {
    HttpGuard::new(Claims::of("api", &annotations)).allow_host(&server.host())
}

/// `Ok(body)` of the answer, or the refused hint's wire name.
fn send(guard: &HttpGuard, method: &str, url: &str, body: Option<&str>) -> Result<String, String> {
    match guard.send(method, url, &[], body.map(str::as_bytes)) {
        Ok(response) => Ok(String::from_utf8(response.body).unwrap()),
        Err(error) => Err(error
            .refusal()
            .map_or_else(|| error.to_string(), |r| r.hint.wire_name().to_owned())),
    }
}

#[test]
fn methods_follow_the_resolution() {
    let server = HttpServer::start();
    let url = server.url("/items/1");
    // method, then what READ, APPEND and WRITE calls get: Ok or the hint.
    let table: [(&str, [Result<(), &str>; 3]); 7] = [
        ("GET", [Ok(()), Ok(()), Ok(())]),
        ("HEAD", [Ok(()), Ok(()), Ok(())]),
        ("OPTIONS", [Ok(()), Ok(()), Ok(())]),
        ("POST", [Err("readOnlyHint"), Ok(()), Ok(())]),
        ("PUT", [Err("readOnlyHint"), Err("destructiveHint"), Ok(())]),
        (
            "PATCH",
            [Err("readOnlyHint"), Err("destructiveHint"), Ok(())],
        ),
        (
            "DELETE",
            [Err("readOnlyHint"), Err("destructiveHint"), Ok(())],
        ),
    ];
    for (method, expected) in table {
        for (annotations, expected) in [READ, APPEND, WRITE].into_iter().zip(expected) {
            let before = server.log().len();
            let sent = send(&guard(annotations, &server), method, &url, Some("x"));
            match expected {
                Ok(()) => {
                    assert!(sent.is_ok(), "{method} {annotations}: {sent:?}");
                    assert_eq!(server.log().len(), before + 1, "{method}");
                }
                Err(hint) => {
                    assert_eq!(sent, Err(hint.to_owned()), "{method} {annotations}");
                    assert_eq!(server.log().len(), before, "{method} was sent");
                }
            }
        }
    }
    // An extension method is as risky as DELETE.
    let purge = send(&guard(APPEND, &server), "PURGE", &url, None);
    assert_eq!(purge, Err("destructiveHint".to_owned()));
}

#[test]
fn a_closed_world_call_reaches_only_the_configured_hosts() {
    let (home, elsewhere) = (HttpServer::start(), HttpServer::start());
    let closed = guard(READ, &home);
    assert!(send(&closed, "GET", &home.url("/a"), None).is_ok());
    assert_eq!(
        send(&closed, "GET", &elsewhere.url("/a"), None),
        Err("openWorldHint".to_owned())
    );
    assert!(elsewhere.log().is_empty());
    // The same host on another port is another host.
    let other_port = format!("http://localhost:{}/a", elsewhere.address.port());
    assert_eq!(
        send(&closed, "GET", &other_port, None),
        Err("openWorldHint".to_owned())
    );
    // An open-world call may go anywhere.
    let open = guard(READ.open_world(true), &home);
    assert_eq!(
        send(&open, "GET", &elsewhere.url("/a"), None),
        Ok("GET /a".to_owned())
    );
    // Never another scheme.
    assert!(open.check("GET", "file:///etc/passwd").is_err());
}

#[test]
fn redirects_are_followed_only_within_the_resolution() {
    let (home, elsewhere) = (HttpServer::start(), HttpServer::start());
    let redirect = |status: u16, to: &str| home.url(&format!("/redirect?status={status}&to={to}"));

    // Within the host: followed, and 307/308 keep the method and the body.
    let append = guard(APPEND, &home);
    for status in [307, 308] {
        assert_eq!(
            send(&append, "POST", &redirect(status, "/posted"), Some("b")),
            Ok("POST /posted b".to_owned()),
            "{status}"
        );
    }
    // 303 turns it into a GET, and so do 301 and 302 for a POST.
    for status in [301, 302, 303] {
        assert_eq!(
            send(&append, "POST", &redirect(status, "/seen"), Some("b")),
            Ok("GET /seen".to_owned()),
            "{status}"
        );
    }
    // A 307 keeps a DELETE a DELETE: refused for an append, before it is sent.
    let write = guard(WRITE, &home);
    assert_eq!(
        send(&write, "DELETE", &redirect(307, "/gone"), None),
        Ok("DELETE /gone".to_owned())
    );
    let before = home.log().len();
    assert_eq!(
        send(&append, "POST", &redirect(307, "/x"), None),
        Ok("POST /x".to_owned())
    );
    assert_eq!(home.log().len(), before + 2);

    // To another host: refused for a closed-world call, which never reaches it.
    let away = redirect(302, &elsewhere.url("/away"));
    assert_eq!(
        send(&guard(READ, &home), "GET", &away, None),
        Err("openWorldHint".to_owned())
    );
    assert!(elsewhere.log().is_empty());
    // Configured, it is followed.
    let both = guard(READ, &home).allow_host(&elsewhere.host());
    assert_eq!(send(&both, "GET", &away, None), Ok("GET /away".to_owned()));

    // The check a handler calls itself says the same.
    let from = Url::parse(&home.url("/redirect")).unwrap();
    let refused = append
        .check_redirect("DELETE", &from, 308, "/x")
        .unwrap_err();
    assert_eq!(
        refused.refusal().unwrap().hint.wire_name(),
        "destructiveHint"
    );
    assert_eq!(
        append.check_redirect("GET", &from, 200, "/x").unwrap(),
        None
    );
}

#[test]
fn too_many_redirects_end_with_an_error() {
    let server = HttpServer::start();
    let looping = server.url("/loop");
    let error = guard(READ, &server)
        .send("GET", &looping, &[], None)
        .unwrap_err();
    assert!(error.refusal().is_none());
    assert!(error.to_string().contains("redirects"), "{error}");
    // The first request and ten redirects were sent, no more.
    assert_eq!(server.log().len(), 11);
}

#[test]
fn a_path_argument_stays_below_its_base() {
    let base = Url::parse("https://api.example.com/").unwrap();
    assert_eq!(
        HttpGuard::url_below(&base, "/repos/a/b").unwrap().as_str(),
        "https://api.example.com/repos/a/b"
    );
    let api = Url::parse("http://127.0.0.1:8080/api/v1/").unwrap();
    assert_eq!(
        HttpGuard::url_below(&api, "/items/a b?page=2#top")
            .unwrap()
            .as_str(),
        "http://127.0.0.1:8080/api/v1/items/a%20b?page=2"
    );
    for path in [
        "//evil.example/repos",
        "https://evil.example/repos",
        "repos/a",
        "/\\evil.example",
        "",
    ] {
        assert!(HttpGuard::url_below(&base, path).is_err(), "{path}");
    }
    for path in ["/../admin", "/x/../../admin", "/%2e%2e/admin"] {
        assert!(HttpGuard::url_below(&api, path).is_err(), "{path}");
    }
}

#[allow(dead_code)] // Its `main` is the example's own.
#[path = "../../examples/http_api.rs"]
mod http_api_example;

/// `examples/http_api.rs` end to end: MCP calls through `Connection::handle`
/// reach the local API through the guard, redirects included; a `path`
/// that would leave the API is refused before anything is sent.
#[test]
fn the_http_api_example_sends_through_the_guard() {
    use annot::server::Profile;
    let (api, elsewhere) = (HttpServer::start(), HttpServer::start());
    let base = Url::parse(&api.url("/")).unwrap();
    let server = http_api_example::server(base, Profile::any());
    let mut connection = server.connect();
    let mut call = |arguments: serde_json::Value| {
        let message = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "http_request", "arguments": arguments}
        });
        let response = connection.handle(message.to_string().as_bytes()).unwrap();
        let response: serde_json::Value = serde_json::from_slice(&response).unwrap();
        let result = &response["result"];
        let text = result["content"][0]["text"].as_str().unwrap().to_owned();
        (result["isError"] == true, text)
    };
    let (failed, text) = call(serde_json::json!({"method": "GET", "path": "/items"}));
    assert!(!failed && text.ends_with("GET /items"), "{text}");
    let (failed, text) = call(serde_json::json!({
        "method": "POST", "path": "/redirect?status=307&to=/created", "body": "new"
    }));
    assert!(!failed && text.ends_with("POST /created new"), "{text}");
    // The tool is open-world: a redirect to another host is followed.
    let away = format!("/redirect?status=302&to={}", elsewhere.url("/away"));
    let (failed, text) = call(serde_json::json!({"method": "GET", "path": away}));
    assert!(!failed && text.ends_with("GET /away"), "{text}");
    // A path that names another host never leaves the process.
    let sent = api.log().len() + elsewhere.log().len();
    for path in [format!("//{}/x", elsewhere.host()), elsewhere.url("/x")] {
        let (failed, text) = call(serde_json::json!({"method": "DELETE", "path": path}));
        assert!(failed, "{path}: {text}");
    }
    assert_eq!(api.log().len() + elsewhere.log().len(), sent);
}
