//! The SQLite guard on a real database file: under a read-only resolution
//! every kind of write is refused and the file stays byte-identical; under
//! a resolution that is not destructive, deletions (REPLACE's included) are
//! refused and nothing of the call is kept, while inserts go through; and
//! the example server
//! `examples/sql.rs`, driven over stdio as a client would, keeps serving
//! after each refusal, its database file unchanged by every refused call.

use crate::robust_support;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use annot::guard::sqlite::SqliteGuard;
use annot::guard::sqlite::rusqlite::Connection;
use annot::guard::{Claims, Error};
use annot::{Annotations, Hint};
use robust_support::{TempDir, example_binary, initialize_with_extension, parse_response, request};
use serde_json::{Value, json};

const SEED: &str = "
    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE);
    CREATE TABLE tags (name TEXT PRIMARY KEY ON CONFLICT REPLACE, color TEXT NOT NULL);
    INSERT INTO notes (body) VALUES ('one'), ('two');
    INSERT INTO tags VALUES ('urgent', 'red');
";

fn seeded(dir: &TempDir, name: &str) -> (PathBuf, Connection) {
    let path = dir.path.join(name);
    let connection = Connection::open(&path).unwrap();
    connection.execute_batch(SEED).unwrap();
    (path, connection)
}

fn count(connection: &Connection, table: &str) -> i64 {
    connection
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
}

/// Every kind of write, as a handler might try it.
const WRITES: &[&str] = &[
    "INSERT INTO notes (body) VALUES ('three')",
    "UPDATE notes SET body = 'x' WHERE id = 1",
    "DELETE FROM notes",
    "REPLACE INTO notes (id, body) VALUES (1, 'replaced')",
    "INSERT OR REPLACE INTO notes (id, body) VALUES (1, 'replaced')",
    "INSERT INTO notes (id, body) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET body = 'y'",
    "INSERT INTO tags VALUES ('urgent', 'blue')",
    "CREATE TABLE more (a)",
    "CREATE INDEX notes_body ON notes (body)",
    "CREATE VIEW v AS SELECT * FROM notes",
    "CREATE TRIGGER t AFTER INSERT ON notes BEGIN DELETE FROM tags; END",
    "DROP TABLE tags",
    "ALTER TABLE notes ADD COLUMN extra TEXT",
    "ALTER TABLE notes RENAME TO renamed",
    "PRAGMA user_version = 7",
    "PRAGMA query_only = 0",
    "ATTACH DATABASE 'other.db' AS other",
    "VACUUM",
    "VACUUM INTO 'copy.db'",
    "REINDEX",
    "ANALYZE",
    "BEGIN; DELETE FROM notes; COMMIT",
    "SAVEPOINT s; DELETE FROM notes; RELEASE s",
    "SELECT 1; DELETE FROM notes",
    "SELECT count(*) FROM notes; INSERT INTO notes (body) VALUES ('late')",
];

#[test]
fn a_read_only_call_refuses_every_write_and_leaves_the_file_byte_identical() {
    let dir = TempDir::new("guard-sqlite-read");
    let (path, connection) = seeded(&dir, "read.db");
    let before = std::fs::read(&path).unwrap();
    let read_only = Claims::of("sql", &Annotations::new().read_only(true));
    for sql in WRITES {
        let guard = SqliteGuard::new(&connection, read_only).unwrap();
        match guard.run_batch(sql) {
            Err(Error::Refused(refusal)) => {
                assert_eq!(refusal.hint, Hint::ReadOnly, "{sql}");
                assert!(
                    refusal.to_string().contains("readOnlyHint: true"),
                    "{sql}: {refusal}"
                );
            }
            other => panic!("{sql}: {other:?}"),
        }
        // The guard holds reads as they were.
        let rows = guard
            .run_batch("SELECT body FROM notes ORDER BY id")
            .unwrap();
        assert_eq!(rows[0].rows.len(), 2, "{sql}");
        drop(guard);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{sql} changed the file"
        );
    }
    assert!(!dir.path.join("copy.db").exists());
    assert!(!dir.path.join("other.db").exists());
    // Once the guard is gone, the connection writes again.
    connection.execute("DELETE FROM tags", []).unwrap();
    assert_eq!(count(&connection, "tags"), 0);
}

#[test]
fn a_call_that_is_not_destructive_may_insert_but_not_delete_or_replace() {
    let dir = TempDir::new("guard-sqlite-append");
    let (_, connection) = seeded(&dir, "append.db");
    // A trigger that may replace rows: the parser of a statement never sees it.
    connection
        .execute_batch(
            "CREATE TABLE log (line TEXT);
             CREATE TRIGGER log_tags AFTER INSERT ON log
             BEGIN INSERT OR REPLACE INTO tags VALUES ('urgent', new.line); END;",
        )
        .unwrap();
    let append = Annotations::new().read_only(false).destructive(false);
    let guard = SqliteGuard::new(&connection, Claims::of("sql", &append)).unwrap();
    guard
        .run_batch("INSERT INTO notes (body) VALUES ('three')")
        .unwrap();
    guard
        .run_batch("CREATE TABLE more (a); INSERT INTO more VALUES (1)")
        .unwrap();
    assert_eq!(
        (count(&connection, "notes"), count(&connection, "tags")),
        (3, 1)
    );
    // (statement, the hint refused)
    let refused: &[(&str, Hint)] = &[
        ("DELETE FROM notes", Hint::Destructive),
        ("UPDATE notes SET body = 'x'", Hint::Destructive),
        ("DROP TABLE tags", Hint::Destructive),
        (
            "INSERT INTO notes (id, body) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET body = 'y'",
            Hint::Destructive,
        ),
        // SQLite reports REPLACE's deletions as inserts: the guard refuses
        // REPLACE outright, conflict or not.
        (
            "REPLACE INTO notes (id, body) VALUES (1, 'replaced')",
            Hint::Destructive,
        ),
        (
            "REPLACE INTO notes (id, body) VALUES (10, 'ten')",
            Hint::Destructive,
        ),
        (
            "INSERT OR REPLACE INTO notes (body) VALUES ('two')",
            Hint::Destructive,
        ),
        // The schema says `ON CONFLICT REPLACE`; the statement does not.
        (
            "INSERT INTO tags VALUES ('urgent', 'blue')",
            Hint::Destructive,
        ),
        (
            "INSERT INTO tags VALUES ('later', 'grey')",
            Hint::Destructive,
        ),
        // The trigger replaces.
        ("INSERT INTO log VALUES ('blue')", Hint::Destructive),
        (
            "INSERT INTO notes (body) VALUES ('four'); INSERT INTO tags VALUES ('urgent', 'x')",
            Hint::Destructive,
        ),
        (
            "ATTACH DATABASE 'other.db' AS other",
            Hint::PrivilegedAccess,
        ),
        ("PRAGMA user_version = 7", Hint::PrivilegedAccess),
    ];
    for (sql, hint) in refused {
        match guard.run_batch(sql) {
            Err(Error::Refused(refusal)) => assert_eq!(refusal.hint, *hint, "{sql}"),
            other => panic!("{sql}: {other:?}"),
        }
        assert_eq!(
            (count(&connection, "notes"), count(&connection, "tags")),
            (3, 1),
            "{sql} left a change behind"
        );
    }
    assert_eq!(count(&connection, "log"), 0);
    let colors = guard
        .run_batch("SELECT color FROM tags WHERE name = 'urgent'")
        .unwrap();
    assert_eq!(colors[0].rows[0][0], "red".to_owned().into());
    // A destructive resolution may delete.
    drop(guard);
    let destructive = Annotations::new().read_only(false).destructive(true);
    let guard = SqliteGuard::new(&connection, Claims::of("sql", &destructive)).unwrap();
    guard.run_batch("DELETE FROM notes WHERE id = 3").unwrap();
    assert_eq!(count(&connection, "notes"), 2);
    // Whatever the resolution, the guard keeps transaction control for itself.
    match guard.run_batch("BEGIN; DELETE FROM notes; COMMIT") {
        Err(Error::Reserved(effect)) => assert!(effect.contains("transaction"), "{effect}"),
        other => panic!("BEGIN under a destructive resolution: {other:?}"),
    }
    assert_eq!(count(&connection, "notes"), 2);
}

fn call(id: i64, action: &str, statement: &str) -> String {
    request(
        id,
        "tools/call",
        json!({"name": "sql", "arguments": {"action": action, "statement": statement}}),
    )
}

/// Runs the example server on `database`, sends `messages`, closes stdin;
/// the responses by id.
fn session(database: &Path, messages: &[String]) -> Vec<Value> {
    let mut child = Command::new(example_binary("sql"))
        .arg(database)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the example");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for message in messages {
            writeln!(stdin, "{message}").expect("the server reads");
        }
    }
    let output = child.wait_with_output().expect("the example exits");
    assert!(output.status.success());
    let mut responses: Vec<Value> = output
        .stdout
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(parse_response)
        .collect();
    // Calls run beside the session, answered as they finish.
    responses.sort_by_key(|response| response["id"].as_i64());
    responses
}

fn text(response: &Value) -> (&str, bool) {
    let result = &response["result"];
    (
        result["content"][0]["text"]
            .as_str()
            .expect("a text result"),
        result["isError"] == json!(true),
    )
}

#[test]
fn the_example_server_refuses_writes_of_read_only_calls_and_keeps_serving() {
    let dir = TempDir::new("guard-sqlite-example");
    let database = dir.path.join("app.db");
    // The first run creates and seeds the file.
    let first = session(
        &database,
        &[
            initialize_with_extension(1),
            call(2, "run", "SELECT name FROM users ORDER BY id"),
        ],
    );
    assert_eq!(text(&first[1]), ("name\nann\nbob\ncy\n", false));
    let before = std::fs::read(&database).unwrap();

    // `explain` is read-only whatever its text: what follows a `;` runs
    // unexplained, and the guard refuses each write there.
    let mut messages = vec![initialize_with_extension(1)];
    for (index, write) in WRITES.iter().enumerate() {
        messages.push(call(
            10 + index as i64,
            "explain",
            &format!("SELECT 1; {write}"),
        ));
    }
    // A plain insert is not destructive; into `tags` it replaces a row,
    // which the parser cannot see and the guard refuses.
    messages.push(call(
        100,
        "run",
        "INSERT INTO tags (name, color) VALUES ('urgent', 'blue')",
    ));
    messages.push(call(
        101,
        "explain",
        "SELECT * FROM notes WHERE user_id = 1",
    ));
    messages.push(call(
        102,
        "run",
        "SELECT color FROM tags WHERE name = 'urgent'",
    ));
    let responses = session(&database, &messages);
    assert_eq!(responses.len(), messages.len());
    for (response, write) in responses[1..=WRITES.len()].iter().zip(WRITES) {
        let (message, is_error) = text(response);
        assert!(is_error, "{write}: {message}");
        assert!(message.contains("readOnlyHint: true"), "{write}: {message}");
    }
    let (message, is_error) = text(&responses[WRITES.len() + 1]);
    assert!(
        is_error && message.contains("destructiveHint: false"),
        "{message}"
    );
    let (plan, is_error) = text(&responses[WRITES.len() + 2]);
    assert!(!is_error && plan.contains("SCAN notes"), "{plan}");
    assert_eq!(text(&responses[WRITES.len() + 3]), ("color\nred\n", false));
    assert_eq!(
        std::fs::read(&database).unwrap(),
        before,
        "the file changed"
    );
    assert!(!dir.path.join("copy.db").exists() && !dir.path.join("other.db").exists());
}
