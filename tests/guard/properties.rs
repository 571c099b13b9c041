//! The guards hold a handler to its call's resolution: for generated
//! arguments of every example tool, a handler served with `tool_with_call`
//! attempts every effect the file, HTTP and SQLite guards expose, and
//! succeeds in exactly those its call's resolution claims.
//!
//! The resolution is what the server answers to `tools/annotations` for the
//! same arguments; what each effect needs is the hand-written table
//! [`EFFECTS`] (from docs/guards.md and docs/sql.md), not the guards' code.
//! Every refused file effect leaves the sandbox byte-identical, every
//! refused statement leaves its real SQLite database file byte-identical,
//! and a refused request never reaches the HTTP server.

use crate::examples_support;
use crate::guard_support;
use crate::robust_support;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use annot::AnnotatedTool;
use annot::guard::http::HttpGuard;
use annot::guard::sqlite::SqliteGuard;
use annot::guard::sqlite::rusqlite::Connection;
use annot::guard::{self, Claims, fs::GuardedDir};
use annot::server::{Call, Server, ToolError, ToolOutput};
use examples_support::example_tool_files;
use guard_support::http_server::HttpServer;
use guard_support::{TempDir, snapshot};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use robust_support::generate::arguments;
use robust_support::{COVERED_EXAMPLE_TOOLS, github_api, http_api, manage_files, sql};
use serde_json::{Value, json};

/// What an effect needs the call's resolution (defaults applied) to claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// `readOnlyHint: false`.
    Write,
    /// `readOnlyHint: false` and `destructiveHint: true`.
    Destroy,
    /// `openWorldHint: true`.
    OpenWorld,
    /// `readOnlyHint: false` and `privilegedAccessHint: true`.
    Privileged,
}

/// Every effect the guards expose, and what it needs.
const EFFECTS: &[(&str, Needs)] = &[
    ("read a file", Needs::Nothing),
    ("list a directory", Needs::Nothing),
    ("create a file", Needs::Write),
    ("append to a file", Needs::Write),
    ("extend a file opened for appending", Needs::Write),
    ("create a directory", Needs::Write),
    ("rename onto a free name", Needs::Write),
    ("overwrite a file", Needs::Destroy),
    ("truncate a file opened for appending", Needs::Destroy),
    ("delete a file", Needs::Destroy),
    ("delete a directory", Needs::Destroy),
    ("rename onto an existing name", Needs::Destroy),
    ("GET a configured host", Needs::Nothing),
    ("HEAD a configured host", Needs::Nothing),
    ("POST to a configured host", Needs::Write),
    ("PUT to a configured host", Needs::Destroy),
    ("PATCH a configured host", Needs::Destroy),
    ("DELETE on a configured host", Needs::Destroy),
    ("GET another host", Needs::OpenWorld),
    ("SELECT rows", Needs::Nothing),
    ("INSERT a row", Needs::Write),
    ("CREATE a table", Needs::Write),
    ("UPDATE a row", Needs::Destroy),
    ("DELETE a row", Needs::Destroy),
    ("REPLACE a row", Needs::Destroy),
    ("DROP a table", Needs::Destroy),
    ("PRAGMA user_version", Needs::Privileged),
];

/// The statement of each SQLite effect, on the tables of [`SQL_SEED`].
const STATEMENTS: &[(&str, &str)] = &[
    ("SELECT rows", "SELECT id, body FROM notes ORDER BY id"),
    ("INSERT a row", "INSERT INTO notes (body) VALUES ('three')"),
    ("CREATE a table", "CREATE TABLE tags (name TEXT)"),
    (
        "UPDATE a row",
        "UPDATE notes SET body = 'changed' WHERE id = 1",
    ),
    ("DELETE a row", "DELETE FROM notes WHERE id = 1"),
    (
        "REPLACE a row",
        "REPLACE INTO notes (id, body) VALUES (1, 'replaced')",
    ),
    ("DROP a table", "DROP TABLE notes"),
    ("PRAGMA user_version", "PRAGMA user_version = 7"),
];

const SQL_SEED: &str = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
    INSERT INTO notes (body) VALUES ('one'), ('two');";

/// Whether `annotations` (the wire JSON of a resolution) claim `needs`.
fn claims(annotations: &Value, needs: Needs) -> bool {
    let hint = |name: &str, default: bool| annotations[name].as_bool().unwrap_or(default);
    let read_only = hint("readOnlyHint", false);
    match needs {
        Needs::Nothing => true,
        Needs::Write => !read_only,
        Needs::Destroy => !read_only && hint("destructiveHint", true),
        Needs::OpenWorld => hint("openWorldHint", true),
        Needs::Privileged => !read_only && hint("privilegedAccessHint", false),
    }
}

/// The two HTTP servers: the configured host, and another.
fn http_servers() -> &'static (HttpServer, HttpServer) {
    static SERVERS: OnceLock<(HttpServer, HttpServer)> = OnceLock::new();
    SERVERS.get_or_init(|| (HttpServer::start(), HttpServer::start()))
}

/// A sandbox with a file, another, and an empty directory.
fn prepared(root: &Path) {
    std::fs::write(root.join("existing.txt"), "old").unwrap();
    std::fs::write(root.join("other.txt"), "other").unwrap();
    std::fs::create_dir(root.join("empty")).unwrap();
}

/// Runs one file effect on a fresh sandbox: `Ok(true)` done, `Ok(false)`
/// refused with the sandbox unchanged.
fn file_effect(effect: &str, call: &Call) -> Result<bool, String> {
    let sandbox = TempDir::new("effect");
    prepared(&sandbox.path);
    let before = snapshot(&sandbox.path);
    let root = guard::fs::Root::open_ambient(&sandbox.path).map_err(|e| e.to_string())?;
    let files: GuardedDir = root.for_call(call).map_err(|e| e.to_string())?;
    let done: Result<(), guard::Error> = match effect {
        "read a file" => files.read("existing.txt").map(drop),
        "list a directory" => files.entries(".").map(drop),
        "create a file" => files.create_new("new.txt").map(drop),
        "append to a file" => files.append("existing.txt").and_then(|mut file| {
            use std::io::Write;
            Ok(file.write_all(b"more")?)
        }),
        "extend a file opened for appending" => files
            .append("existing.txt")
            .and_then(|file| file.set_len(10)),
        "create a directory" => files.create_dir("made"),
        "rename onto a free name" => files.rename("existing.txt", "moved.txt"),
        "overwrite a file" => files.write("existing.txt", "new"),
        "truncate a file opened for appending" => files
            .append("existing.txt")
            .and_then(|file| file.set_len(0)),
        "delete a file" => files.remove_file("existing.txt"),
        "delete a directory" => files.remove_dir("empty"),
        "rename onto an existing name" => files.rename("existing.txt", "other.txt"),
        other => return Err(format!("no file effect {other}")),
    };
    match done {
        Ok(()) => Ok(true),
        Err(guard::Error::Refused(_)) if snapshot(&sandbox.path) == before => Ok(false),
        Err(guard::Error::Refused(refusal)) => Err(format!("{refusal}, and the sandbox changed")),
        Err(error) => Err(format!("{effect}: {error}")),
    }
}

/// Runs one HTTP effect: `Ok(true)` answered, `Ok(false)` refused and
/// never sent.
fn http_effect(effect: &str, call: &Call) -> Result<bool, String> {
    let (home, elsewhere) = http_servers();
    let guard = HttpGuard::for_call(call).allow_host(&home.host());
    let (method, server) = match effect {
        "GET another host" => ("GET", elsewhere),
        other => (other.split(' ').next().unwrap_or_default(), home),
    };
    // Each request carries a unique path, to find it in the server's log.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let path = format!(
        "/effect/{}",
        NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    let sent = |server: &HttpServer| {
        server
            .log()
            .iter()
            .any(|line| line.split(' ').nth(1) == Some(path.as_str()))
    };
    match guard.send(method, &server.url(&path), &[], Some(b"x")) {
        Ok(response) if response.status == 200 => Ok(true),
        Ok(response) => Err(format!("{effect}: status {}", response.status)),
        Err(guard::Error::Refused(_)) if !sent(home) && !sent(elsewhere) => Ok(false),
        Err(error) => Err(format!("{effect}: {error}")),
    }
}

/// Runs one statement through the SQLite guard on a fresh, seeded database
/// file: `Ok(true)` done, `Ok(false)` refused with the file byte-identical.
fn sqlite_effect(effect: &str, call: &Call) -> Result<bool, String> {
    let statement = STATEMENTS
        .iter()
        .find(|(name, _)| *name == effect)
        .map(|(_, statement)| *statement)
        .ok_or_else(|| format!("no statement for {effect}"))?;
    let sandbox = TempDir::new("sqlite-effect");
    let path = sandbox.path.join("notes.db");
    let connection = Connection::open(&path).map_err(|e| e.to_string())?;
    connection
        .execute_batch(SQL_SEED)
        .map_err(|e| e.to_string())?;
    let before = std::fs::read(&path).map_err(|e| e.to_string())?;
    let done =
        SqliteGuard::for_call(&connection, call).and_then(|guard| guard.run_batch(statement));
    drop(connection);
    match done {
        Ok(_) => Ok(true),
        Err(guard::Error::Refused(_)) if std::fs::read(&path).ok() == Some(before) => Ok(false),
        Err(guard::Error::Refused(refusal)) => Err(format!("{refusal}, and the file changed")),
        Err(error) => Err(format!("{effect}: {error}")),
    }
}

/// The handler of every tool: every effect, and how it went.
fn attempt_everything(call: &Call) -> Result<ToolOutput, ToolError> {
    let mut outcomes = serde_json::Map::new();
    for &(effect, _) in EFFECTS {
        let outcome = if effect.contains("host") {
            http_effect(effect, call)
        } else if STATEMENTS.iter().any(|(name, _)| *name == effect) {
            sqlite_effect(effect, call)
        } else {
            file_effect(effect, call)
        };
        outcomes.insert(
            effect.to_owned(),
            match outcome {
                Ok(done) => json!(done),
                Err(problem) => json!(problem),
            },
        );
    }
    // The claims the guards read, for the message of a failure.
    let claims = Claims::of_call(call);
    outcomes.insert("claims".to_owned(), json!(format!("{claims:?}")));
    Ok(ToolOutput::structured(outcomes))
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let handler = Arc::new(attempt_everything);
        let (a, b, c, d) = (
            Arc::clone(&handler),
            Arc::clone(&handler),
            Arc::clone(&handler),
            handler,
        );
        Server::builder("annot-guards", "0")
            .tool_with_call(move |_: manage_files::ManageFiles, call: &Call| a(call))
            .tool_with_call(move |_: http_api::HttpApi, call: &Call| b(call))
            .tool_with_call(move |_: github_api::GithubApi, call: &Call| c(call))
            .tool_with_call(move |_: sql::Sql, call: &Call| d(call))
            .build()
            .expect("a consistent server")
    })
}

fn request(method: &str, params: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = server()
        .connect()
        .handle(message.to_string().as_bytes())
        .expect("a response");
    serde_json::from_slice(&response).expect("JSON")
}

/// Calls `T` with `arguments` (when valid) and checks every effect against
/// the resolution the server answers for them.
fn check<T: AnnotatedTool>(arguments: &Value) -> Result<(), TestCaseError> {
    if T::from_arguments(arguments).is_err() {
        return Ok(());
    }
    let params = json!({"name": T::NAME, "arguments": arguments});
    let resolved = request("tools/annotations", params.clone());
    let annotations = &resolved["result"]["annotations"];
    prop_assert!(annotations.is_object(), "{}", resolved);
    let called = request("tools/call", params);
    let outcomes = &called["result"]["structuredContent"];
    for &(effect, needs) in EFFECTS {
        prop_assert_eq!(
            &outcomes[effect],
            &json!(claims(annotations, needs)),
            "{} {}: {} under {} ({})",
            T::NAME,
            arguments,
            effect,
            annotations,
            outcomes["claims"]
        );
    }
    Ok(())
}

fn run<T: AnnotatedTool>() {
    let schema: Value = serde_json::from_str(T::exact_input_schema()).unwrap();
    let rules: Vec<&str> = T::RULES.iter().map(|rule| rule.source).collect();
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&arguments(&schema, &rules), |arguments| {
            check::<T>(&arguments)
        })
        .unwrap();
}

#[test]
fn every_example_tool_is_covered() {
    assert_eq!(example_tool_files(), COVERED_EXAMPLE_TOOLS);
}

#[test]
fn manage_files_effects_follow_the_resolution() {
    run::<manage_files::ManageFiles>();
}

#[test]
fn http_api_effects_follow_the_resolution() {
    run::<http_api::HttpApi>();
}

#[test]
fn github_api_effects_follow_the_resolution() {
    run::<github_api::GithubApi>();
}

#[test]
fn sql_effects_follow_the_resolution() {
    run::<sql::Sql>();
}

/// The example tools resolve to every class of resolution the table
/// distinguishes (and the generator offers SQL of each class, see
/// `robust_support::generate::rule_values`), so the properties above are
/// not vacuous.
#[test]
fn the_example_tools_cover_reads_appends_writes_and_both_worlds() {
    let examples = [
        (json!({"action": "read", "path": "a"}), "manage_files"),
        (
            json!({"action": "append", "path": "a", "content": "x"}),
            "manage_files",
        ),
        (json!({"action": "delete", "path": "a"}), "manage_files"),
        (json!({"method": "GET", "path": "/a"}), "http_request"),
        (json!({"action": "run", "statement": "SELECT 1"}), "sql"),
        (
            json!({"action": "run", "statement": "INSERT INTO t VALUES (1)"}),
            "sql",
        ),
        (
            json!({"action": "run", "statement": "DELETE FROM t"}),
            "sql",
        ),
        (json!({"action": "run", "statement": "DROP TABLE t"}), "sql"),
    ];
    let mut seen = Vec::new();
    for (arguments, tool) in examples {
        let resolved = request(
            "tools/annotations",
            json!({"name": tool, "arguments": arguments}),
        );
        let annotations = &resolved["result"]["annotations"];
        seen.push(
            [
                Needs::Write,
                Needs::Destroy,
                Needs::OpenWorld,
                Needs::Privileged,
            ]
            .map(|needs| claims(annotations, needs)),
        );
    }
    assert_eq!(
        seen,
        [
            [false, false, false, false],
            [true, false, false, false],
            [true, true, false, false],
            [false, false, true, false],
            [false, false, false, false],
            [true, false, false, false],
            [true, true, false, false],
            [true, true, false, true],
        ]
    );
}
