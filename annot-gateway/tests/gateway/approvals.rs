//! The approvals page (`/approvals` of `--http`): a call the host cannot
//! confirm waits there until a person signed in with an approver-scoped
//! token approves or denies it, or its time runs out. Every action is a
//! POST that needs the session's form token and the page's own origin.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::rules::{SPLIT_NOTES, Setup};
use crate::support::{GATEWAY, Host, HttpGateway, Reply, example, exported, snapshot, text};
use crate::tokens::{Issuer, auth_section, claims};

const PREVIEW: &str = "preview = \"{action} the note {name}\"\n";

/// How long the test waits for a call to show up on the page.
const PATIENCE: Duration = Duration::from_secs(60);

struct Approvals {
    setup: Setup,
    gateway: HttpGateway,
    issuer: Issuer,
    /// `http://127.0.0.1:PORT`.
    base: String,
    agent: ureq::Agent,
}

/// The gateway with `[auth]` and `[approvals]` (`wait`), in front of
/// `plain_server`, confirming through the page.
fn started(wait: &str) -> Approvals {
    let config = SPLIT_NOTES.replace("override = true\n", &format!("override = true\n{PREVIEW}"));
    let setup = Setup::new(&config);
    let issuer = Issuer::new(7, "k1");
    // `notes:all` lets a host call the delete action too (it still needs a person).
    let auth =
        auth_section(&issuer, setup.directory.path()).replace(" }", ", \"notes:all\" = \"any\" }");
    let file = format!("{config}\n{auth}\n[approvals]\nwait = \"{wait}\"\n");
    std::fs::write(setup.directory.path().join("gateway.toml"), file).unwrap();
    let args = setup.args(&["--exposure", "resolvable"], &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let gateway = HttpGateway::start(&args);
    let base = gateway.url.trim_end_matches("/mcp").to_owned();
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
    Approvals {
        setup,
        gateway,
        issuer,
        base,
        agent,
    }
}

/// Form fields or headers: names and values.
type Fields<'a> = Vec<(&'a str, &'a str)>;

/// A page answer: status, `Set-Cookie`, body.
struct PageReply {
    status: u16,
    cookie: Option<String>,
    body: String,
}

impl Approvals {
    fn get(&self, path: &str, cookie: Option<&str>) -> PageReply {
        self.get_from(&self.base, path, cookie)
    }

    /// A GET from the gateway at `base` (another process, say).
    fn get_from(&self, base: &str, path: &str, cookie: Option<&str>) -> PageReply {
        let mut request = self.agent.get(format!("{base}{path}"));
        if let Some(cookie) = cookie {
            request = request.header("cookie", cookie);
        }
        page_reply(request.call().expect("the gateway answers"))
    }

    /// POSTs a form with `headers`.
    fn post(&self, path: &str, form: &[(&str, &str)], headers: &[(&str, &str)]) -> PageReply {
        self.post_to(&self.base, path, form, headers)
    }

    /// POSTs a form to the gateway at `base`, with `headers`.
    fn post_to(
        &self,
        base: &str,
        path: &str,
        form: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> PageReply {
        let mut request = self.agent.post(format!("{base}{path}"));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        page_reply(
            request
                .send_form(form.iter().copied())
                .expect("the gateway answers"),
        )
    }

    /// A browser's headers for a POST from the page itself.
    fn own_origin(&self) -> String {
        self.base.clone()
    }

    /// Signs `subject` in with an approver token: the session cookie.
    fn sign_in(&self, subject: &str) -> String {
        let token = self.issuer.mint("k1", &claims(subject, "gateway:approve"));
        let origin = self.own_origin();
        let reply = self.post(
            "/approvals/sign-in",
            &[("token", &token)],
            &[("origin", &origin), ("sec-fetch-site", "same-origin")],
        );
        assert_eq!(reply.status, 303, "{}", reply.body);
        let cookie = reply.cookie.expect("a session cookie");
        cookie.split(';').next().unwrap().to_owned()
    }

    /// A host session of dave, whose token lets any call through, which
    /// cannot elicit.
    fn host(&self) -> (String, String) {
        let token = self.issuer.mint("k1", &claims("dave", "notes:all"));
        let bearer = format!("Bearer {token}");
        let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "approvals-test", "version": "1"}}});
        let reply = self
            .gateway
            .post_raw(&message.to_string(), &[("authorization", &bearer)]);
        assert_eq!(reply.status, 200, "{reply:?}");
        (reply.session.expect("a session id"), bearer)
    }

    /// Calls `notes` with `arguments` on a thread: the call waits for the page.
    fn call(&self, arguments: Value) -> std::thread::JoinHandle<Reply> {
        let (session, bearer) = self.host();
        let url = self.gateway.url.clone();
        std::thread::spawn(move || {
            let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                 "params": {"name": "notes", "arguments": arguments}});
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into();
            let response = agent
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("authorization", &bearer)
                .header("mcp-session-id", &session)
                .send(message.to_string())
                .expect("the gateway answers");
            let status = response.status().as_u16();
            let body = response.into_body().read_to_string().unwrap();
            Reply {
                status,
                session: None,
                www_authenticate: None,
                content_type: "application/json".into(),
                messages: vec![serde_json::from_str(&body).expect("a JSON answer")],
                body,
            }
        })
    }

    /// The pending list once it shows a call: its HTML.
    fn wait_for_pending(&self, cookie: &str) -> String {
        let started = Instant::now();
        loop {
            let reply = self.get("/approvals/pending", Some(cookie));
            assert_eq!(reply.status, 200, "{}", reply.body);
            if reply.body.contains("pending-call") {
                return reply.body;
            }
            assert!(started.elapsed() < PATIENCE, "no call came to the page");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Decides the call `id` with the page's own headers.
    fn decide(&self, cookie: &str, csrf: &str, id: &str, decision: &str) -> PageReply {
        let origin = self.own_origin();
        self.post(
            "/approvals/decide",
            &[("csrf", csrf), ("id", id), ("decision", decision)],
            &[
                ("cookie", cookie),
                ("origin", &origin),
                ("sec-fetch-site", "same-origin"),
            ],
        )
    }
}

fn page_reply(response: ureq::http::Response<ureq::Body>) -> PageReply {
    let status = response.status().as_u16();
    let cookie = response
        .headers()
        .get("set-cookie")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let body = response.into_body().read_to_string().unwrap_or_default();
    PageReply {
        status,
        cookie,
        body,
    }
}

/// The value of the first `attribute="..."` in `html`.
fn attribute(html: &str, attribute: &str) -> String {
    let start = html
        .find(&format!("{attribute}=\""))
        .unwrap_or_else(|| panic!("no {attribute} in {html}"))
        + attribute.len()
        + 2;
    html[start..].split('"').next().unwrap().to_owned()
}

fn result_of(call: std::thread::JoinHandle<Reply>) -> Value {
    let reply = call.join().expect("the host thread");
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.messages[0]["result"].clone()
}

#[test]
fn the_page_signs_in_only_a_token_with_the_approver_scope() {
    let page = started("2m");
    let anonymous = page.get("/approvals", None);
    assert_eq!(anonymous.status, 200);
    assert!(anonymous.body.contains("Sign in"), "{}", anonymous.body);
    assert!(!anonymous.body.contains("Waiting for a decision"));
    assert_eq!(page.get("/approvals/pending", None).status, 401);

    let origin = page.own_origin();
    let own = [("origin", origin.as_str())];
    let forged = page.post("/approvals/sign-in", &[("token", "abc")], &own);
    assert_eq!(forged.status, 401, "{}", forged.body);
    let writer = page.issuer.mint("k1", &claims("dave", "files:write"));
    let no_scope = page.post("/approvals/sign-in", &[("token", &writer)], &own);
    assert_eq!(no_scope.status, 403, "{}", no_scope.body);
    assert!(no_scope.body.contains("does not grant `gateway:approve`"));
    assert!(no_scope.cookie.is_none());
    let approver = page.issuer.mint("k1", &claims("carol", "gateway:approve"));
    let elsewhere = page.post(
        "/approvals/sign-in",
        &[("token", &approver)],
        &[("origin", "http://evil.example")],
    );
    assert_eq!(elsewhere.status, 403, "{}", elsewhere.body);

    let signed_in = page.post("/approvals/sign-in", &[("token", &approver)], &own);
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let cookie = signed_in.cookie.unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/approvals"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    let cookie = cookie.split(';').next().unwrap();
    let shown = page.get("/approvals", Some(cookie));
    assert_eq!(shown.status, 200);
    assert!(shown.body.contains("Signed in as"), "{}", shown.body);
    assert!(shown.body.contains("carol"), "{}", shown.body);
    assert!(shown.body.contains("No call is waiting"), "{}", shown.body);
}

#[test]
fn an_approved_call_runs_once_the_csrf_checks_pass_and_the_log_names_the_approver() {
    let page = started("2m");
    let cookie = page.sign_in("carol");
    let call = page.call(json!({"action": "append", "name": "todo", "text": "eggs\n"}));
    let pending = page.wait_for_pending(&cookie);
    assert!(pending.contains("append the note todo"), "{pending}");
    assert!(
        pending.contains("the configuration&#x27;s rules"),
        "{pending}"
    );
    assert!(pending.contains("badge notice\">writes"), "{pending}");
    assert!(pending.contains("dave"), "{pending}");
    let (id, csrf) = (attribute(&pending, "data-id"), attribute(&pending, "value"));
    let before = snapshot(&page.setup.notes());
    // The waiting call holds up nobody else.
    let (other, bearer) = page.host();
    let listed = page.gateway.post_raw(
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).to_string(),
        &[("authorization", &bearer), ("mcp-session-id", &other)],
    );
    assert!(
        listed.messages[0]["result"]["tools"].is_array(),
        "{listed:?}"
    );

    let origin = page.own_origin();
    let attempts: [(&str, Fields, Fields); 4] = [
        (
            "no form token",
            vec![("id", &id), ("decision", "approve")],
            vec![("cookie", &cookie), ("origin", &origin)],
        ),
        (
            "another form token",
            vec![("csrf", "0123"), ("id", &id), ("decision", "approve")],
            vec![("cookie", &cookie), ("origin", &origin)],
        ),
        (
            "a foreign Origin",
            vec![("csrf", &csrf), ("id", &id), ("decision", "approve")],
            vec![("cookie", &cookie), ("origin", "http://evil.example")],
        ),
        (
            "a cross-site fetch",
            vec![("csrf", &csrf), ("id", &id), ("decision", "approve")],
            vec![("cookie", &cookie), ("sec-fetch-site", "cross-site")],
        ),
    ];
    for (name, form, headers) in attempts {
        let refused = page.post("/approvals/decide", &form, &headers);
        assert_eq!(refused.status, 403, "{name}: {}", refused.body);
    }
    let no_session = page.post(
        "/approvals/decide",
        &[("csrf", &csrf), ("id", &id), ("decision", "approve")],
        &[("origin", &origin)],
    );
    assert_eq!(no_session.status, 401, "{}", no_session.body);
    assert!(
        page.get("/approvals/pending", Some(&cookie))
            .body
            .contains(&id)
    );
    assert_eq!(snapshot(&page.setup.notes()), before);

    let approved = page.decide(&cookie, &csrf, &id, "approve");
    assert_eq!(approved.status, 303, "{}", approved.body);
    let result = result_of(call);
    assert_eq!(text(&result), "appended", "{result}");
    assert_eq!(
        std::fs::read_to_string(page.setup.notes().join("todo")).unwrap(),
        "buy milk\neggs\n"
    );
    let shown = page.get("/approvals", Some(&cookie));
    assert!(shown.body.contains("Approved `notes`"), "{}", shown.body);
    assert!(shown.body.contains("No call is waiting"), "{}", shown.body);
    assert!(
        shown
            .body
            .contains("approved by carol on the approvals page"),
        "{}",
        shown.body
    );
    let again = page.decide(&cookie, &csrf, &id, "deny");
    assert_eq!(again.status, 303);
    let shown = page.get("/approvals", Some(&cookie));
    assert!(shown.body.contains("already decided"), "{}", shown.body);

    let calls = exported(page.setup.log());
    let confirmation = calls[0]["confirmation"].as_str().unwrap();
    assert!(
        confirmation.starts_with("approved by carol on the approvals page, for sha256:"),
        "{confirmation}"
    );
    assert_eq!(calls[0]["outcome"], json!("ok"));
}

#[test]
fn a_denied_call_is_refused_and_names_who_denied_it() {
    let page = started("2m");
    let cookie = page.sign_in("carol");
    let before = snapshot(&page.setup.notes());
    let call = page.call(json!({"action": "delete", "name": "todo"}));
    let pending = page.wait_for_pending(&cookie);
    assert!(pending.contains("delete the note todo"), "{pending}");
    assert!(pending.contains("badge danger\">destructive"), "{pending}");
    let (id, csrf) = (attribute(&pending, "data-id"), attribute(&pending, "value"));
    let denied = page.decide(&cookie, &csrf, &id, "deny");
    assert_eq!(denied.status, 303, "{}", denied.body);
    let result = result_of(call);
    assert_eq!(result["isError"], json!(true), "{result}");
    assert!(
        text(&result).contains("carol denied it on the approvals page"),
        "{result}"
    );
    assert_eq!(snapshot(&page.setup.notes()), before);
}

#[test]
fn a_call_nobody_decides_is_refused_when_its_time_runs_out() {
    let page = started("1s");
    let cookie = page.sign_in("carol");
    let before = snapshot(&page.setup.notes());
    let call = page.call(json!({"action": "append", "name": "todo", "text": "late\n"}));
    let result = result_of(call);
    assert_eq!(result["isError"], json!(true), "{result}");
    assert!(
        text(&result).contains("nobody decided on the approvals page within 1 s"),
        "{result}"
    );
    assert_eq!(snapshot(&page.setup.notes()), before);
    assert!(
        page.get("/approvals/pending", Some(&cookie))
            .body
            .contains("No call is waiting")
    );
}

#[test]
fn the_page_without_auth_is_served_on_loopback_only_and_needs_an_address() {
    let directory = tempfile::tempdir().unwrap();
    let upstream = example("plain_server");
    let log = directory.path().join("log.sqlite3");
    let run = |options: &[&str]| {
        let output = std::process::Command::new(GATEWAY)
            .args(options)
            .arg("--log")
            .arg(&log)
            .arg("--")
            .arg(&upstream)
            .arg(directory.path())
            .stdin(std::process::Stdio::null())
            .output()
            .expect("annot-gateway runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&["--http", "0.0.0.0:0", "--confirm", "page"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a loopback address"), "{stderr}");
    let (code, stderr) = run(&["--approvals-listen", "0.0.0.0:0", "--confirm", "page"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a loopback address"), "{stderr}");
    // On stdio the page needs an address of its own; with --http it has one.
    let (code, stderr) = run(&["--confirm", "page"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--approvals-listen ADDR"), "{stderr}");
    let both = ["--http", "127.0.0.1:0", "--approvals-listen", "127.0.0.1:0"];
    let (code, stderr) = run(&both);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
fn a_host_that_can_be_asked_is_asked_itself_while_the_page_is_on() {
    let page = started("2m");
    let token = page.issuer.mint("k1", &claims("dave", "notes:all"));
    let bearer = format!("Bearer {token}");
    let message = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "approvals-test", "version": "1"}}});
    let reply = page
        .gateway
        .post_raw(&message.to_string(), &[("authorization", &bearer)]);
    let session = reply.session.expect("a session id");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "notes", "arguments": {"action": "delete", "name": "todo"}}});
    let response = page
        .agent
        .post(&page.gateway.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", &bearer)
        .header("mcp-session-id", &session)
        .send(call.to_string())
        .expect("the gateway answers");
    // The host's stream carries the question (read as it comes: the stream
    // stays open for the answer); the page has nothing waiting.
    let mut lines = BufReader::new(response.into_body().into_reader()).lines();
    let question: Value = lines
        .find_map(|line| {
            let line = line.expect("a readable stream");
            serde_json::from_str(line.strip_prefix("data:")?.trim()).ok()
        })
        .expect("an event");
    assert_eq!(
        question["method"],
        json!("elicitation/create"),
        "{question}"
    );
    let cookie = page.sign_in("carol");
    let shown = page.get("/approvals/pending", Some(&cookie));
    assert!(shown.body.contains("No call is waiting"), "{}", shown.body);
}

/// A call waiting on the page outlives the process that asked: its process
/// is killed, a person approves it on another process's page (one store),
/// and the host's next try of the same call goes ahead there without asking
/// again. The approval is spent: a third try waits anew and is refused when
/// its time runs out.
#[test]
fn an_approval_outlives_the_process_that_asked_and_is_spent_once() {
    let mut page = started("2m");
    let arguments = json!({"action": "append", "name": "todo", "text": "eggs\n"});
    // The host's first try, cut by the process's death: its answer never comes.
    let (session, bearer) = page.host();
    let url = page.gateway.url.clone();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "notes", "arguments": arguments}});
    std::thread::spawn(move || {
        let _ = ureq::post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("authorization", &bearer)
            .header("mcp-session-id", &session)
            .send(message.to_string());
    });
    let cookie = page.sign_in("carol");
    let asked = attribute(&page.wait_for_pending(&cookie), "data-id");
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &page.gateway.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());

    // Another process on the same store, whose own calls wait one second.
    let config = page.setup.directory.path().join("gateway.toml");
    let text_of_config = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text_of_config.replace("wait = \"2m\"", "wait = \"1s\""),
    )
    .unwrap();
    let args = page.setup.args(&["--exposure", "resolvable"], &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    page.gateway = HttpGateway::start(&args);
    page.base = page.gateway.url.trim_end_matches("/mcp").to_owned();
    let cookie = page.sign_in("carol");
    let pending = page.wait_for_pending(&cookie);
    assert_eq!(attribute(&pending, "data-id"), asked, "{pending}");
    let csrf = attribute(&pending, "value");
    let approved = page.decide(&cookie, &csrf, &asked, "approve");
    assert_eq!(approved.status, 303, "{}", approved.body);

    let retried = result_of(page.call(arguments.clone()));
    assert_eq!(text(&retried), "appended", "{retried}");
    let third = result_of(page.call(arguments));
    assert_eq!(third["isError"], json!(true), "{third}");
    assert!(text(&third).contains("nobody decided"), "{third}");
    assert_eq!(
        std::fs::read_to_string(page.setup.notes().join("todo")).unwrap(),
        "buy milk\neggs\n",
        "appended once"
    );
}

#[test]
fn a_sign_in_holds_on_every_process_of_the_store_and_a_sign_out_ends_it_on_all() {
    let page = started("2m");
    // A second process on the same store, as behind a load balancer.
    let args = page.setup.args(&["--exposure", "resolvable"], &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let other = HttpGateway::start(&args);
    let other_base = other.url.trim_end_matches("/mcp").to_owned();

    let cookie = page.sign_in("carol");
    let shown = page.get_from(&other_base, "/approvals", Some(&cookie));
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert!(
        shown
            .body
            .contains("<strong class=\"approver\">carol</strong>"),
        "{}",
        shown.body
    );

    // A call waiting through the first process is approved through the other.
    let arguments = json!({"action": "append", "name": "todo", "text": "eggs\n"});
    let call = page.call(arguments);
    let started = Instant::now();
    let pending = loop {
        let reply = page.get_from(&other_base, "/approvals/pending", Some(&cookie));
        assert_eq!(reply.status, 200, "{}", reply.body);
        if reply.body.contains("pending-call") {
            break reply.body;
        }
        assert!(started.elapsed() < PATIENCE, "no call came to the page");
        std::thread::sleep(Duration::from_millis(50));
    };
    let (id, csrf) = (attribute(&pending, "data-id"), attribute(&pending, "value"));
    let decided = page.post_to(
        &other_base,
        "/approvals/decide",
        &[("csrf", &csrf), ("id", &id), ("decision", "approve")],
        &[
            ("cookie", &cookie),
            ("origin", &other_base),
            ("sec-fetch-site", "same-origin"),
        ],
    );
    assert_eq!(decided.status, 303, "{}", decided.body);
    assert_eq!(text(&result_of(call)), "appended");
    // The notice of the decision shows once, on whichever process serves the page next.
    let notice = page.get("/approvals", Some(&cookie));
    assert!(notice.body.contains("Approved `notes`"), "{}", notice.body);
    let again = page.get_from(&other_base, "/approvals", Some(&cookie));
    assert!(!again.body.contains("Approved `notes`"), "{}", again.body);

    let origin = page.own_origin();
    let signed_out = page.post(
        "/approvals/sign-out",
        &[("csrf", &csrf)],
        &[
            ("cookie", &cookie),
            ("origin", &origin),
            ("sec-fetch-site", "same-origin"),
        ],
    );
    assert_eq!(signed_out.status, 303, "{}", signed_out.body);
    let refused = page.get_from(&other_base, "/approvals/pending", Some(&cookie));
    assert_eq!(refused.status, 401, "{}", refused.body);
}

#[test]
fn a_host_on_stdio_has_its_calls_decided_on_the_page_at_an_address_of_its_own() {
    let config = SPLIT_NOTES.replace("override = true\n", &format!("override = true\n{PREVIEW}"));
    let setup = Setup::new(&config);
    let args = setup.args(
        &[
            "--exposure",
            "resolvable",
            "--confirm",
            "page",
            "--approvals-listen",
            "127.0.0.1:0",
        ],
        &[],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut host, base) = Host::start_with_page(&args);
    host.initialize(json!({}));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();

    // On loopback without [auth], the first visit signs in the local user.
    let visit = page_reply(agent.get(format!("{base}/approvals")).call().unwrap());
    assert_eq!(visit.status, 303, "{}", visit.body);
    let cookie = visit.cookie.expect("a session cookie");
    let cookie = cookie.split(';').next().unwrap().to_owned();

    let id = json!(7);
    host.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "notes", "arguments": {"action": "delete", "name": "todo"}}}));
    let started = Instant::now();
    let pending = loop {
        let reply = page_reply(
            agent
                .get(format!("{base}/approvals/pending"))
                .header("cookie", &cookie)
                .call()
                .unwrap(),
        );
        assert_eq!(reply.status, 200, "{}", reply.body);
        if reply.body.contains("pending-call") {
            break reply.body;
        }
        assert!(started.elapsed() < PATIENCE, "no call came to the page");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(pending.contains("delete the note todo"), "{pending}");
    let decided = page_reply(
        agent
            .post(format!("{base}/approvals/decide"))
            .header("cookie", &cookie)
            .header("origin", &base)
            .header("sec-fetch-site", "same-origin")
            .send_form([
                ("csrf", attribute(&pending, "value").as_str()),
                ("id", attribute(&pending, "data-id").as_str()),
                ("decision", "approve"),
            ])
            .unwrap(),
    );
    assert_eq!(decided.status, 303, "{}", decided.body);
    let answer = host.response(&id);
    assert_eq!(text(&answer["result"]), "deleted", "{answer}");
    assert!(!setup.notes().join("todo").exists(), "the note is deleted");
    let logged = exported(setup.log());
    let confirmation = logged.last().unwrap()["confirmation"].as_str().unwrap();
    assert!(
        confirmation.starts_with("approved by local user on the approvals page"),
        "{confirmation}"
    );
}
