//! A real MCP server over stdio whose `sql` tool runs SQL against a SQLite
//! database file, created and seeded on first run. Each call's risk is read
//! from its statement by the parser rule of `tools/sql.rs`, and the handler
//! runs the statement through the SQLite guard built from that resolution:
//! a call resolved read-only cannot write, one resolved not destructive
//! cannot delete or overwrite, whatever the statement turns out to do.
//!
//! ```sh
//! cargo run --example sql -- ./notes.db
//! ```
//!
//! A refusal is an `isError` result naming the hint; the server keeps
//! serving. Logs go to stderr; stdout carries only protocol messages.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use annot::guard::sqlite::rusqlite::Connection;
use annot::guard::sqlite::rusqlite::types::Value;
use annot::guard::sqlite::{Rows, SqliteGuard};
use annot::server::{Call, Server, ToolError, ToolOutput};
use sql::Sql;

#[path = "common/exposure.rs"]
mod exposure_flag;
#[path = "tools/sql.rs"]
mod sql;

/// The schema and rows of a new database. `INTEGER PRIMARY KEY` without
/// `AUTOINCREMENT`: an insert touches no bookkeeping table. `tags` replaces
/// on conflict, which no parser of the statement can see: a plain `INSERT`
/// there may delete a row, and the guard refuses it under a resolution that
/// is not destructive.
const SEED: &str = "
    CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, email TEXT);
    CREATE TABLE notes (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                        body TEXT NOT NULL);
    CREATE TABLE tags (name TEXT PRIMARY KEY ON CONFLICT REPLACE, color TEXT NOT NULL);
    INSERT INTO users (name, email) VALUES
        ('ann', 'ann@example.com'), ('bob', 'bob@example.com'), ('cy', NULL);
    INSERT INTO notes (user_id, body) VALUES
        (1, 'buy milk'), (1, 'call bob'), (2, 'review the report');
    INSERT INTO tags (name, color) VALUES ('urgent', 'red'), ('later', 'grey');
";

fn main() -> ExitCode {
    let usage = format!("usage: sql {} <database-file>", exposure_flag::USAGE);
    let (exposure, arguments) = match exposure_flag::take_exposure(std::env::args_os().skip(1)) {
        Ok(parsed) => parsed,
        Err(error) => {
            eprintln!("sql: {error}\n{usage}");
            return ExitCode::from(2);
        }
    };
    let [path] = arguments.as_slice() else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let connection = match open(Path::new(path)) {
        Ok(connection) => connection,
        Err(error) => {
            eprintln!("sql: cannot use {}: {error}", Path::new(path).display());
            return ExitCode::from(2);
        }
    };
    let connection = Mutex::new(connection);
    let server = Server::builder("annot-sql", env!("CARGO_PKG_VERSION"))
        .title("annot example: sql")
        .exposure(exposure)
        .tool_with_call(move |arguments: Sql, call: &Call| run(&connection, &arguments, call))
        .build()
        .expect("the sql server is consistent");
    eprintln!("sql: serving {} over stdio", Path::new(path).display());
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sql: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the database at `path`, creating and seeding it if it does not
/// exist yet.
fn open(path: &Path) -> Result<Connection, annot::guard::sqlite::rusqlite::Error> {
    let existed = path.exists();
    let connection = Connection::open(path)?;
    if !existed {
        connection.execute_batch(&format!("BEGIN; {SEED} COMMIT;"))?;
        eprintln!("sql: created and seeded {}", path.display());
    }
    Ok(connection)
}

/// Runs one call through the guard built from its resolution, which the
/// server hands the handler with the arguments.
fn run(
    connection: &Mutex<Connection>,
    arguments: &Sql,
    call: &Call,
) -> Result<ToolOutput, ToolError> {
    let connection = connection
        .lock()
        .map_err(|_| ToolError::new("the database connection is unusable"))?;
    let guard = SqliteGuard::for_call(&connection, call)?;
    let output = match arguments {
        Sql::Run { statement } => guard.run_batch(statement)?,
        Sql::Explain { statement } => {
            guard.run_batch(&format!("EXPLAIN QUERY PLAN {statement}"))?
        }
    };
    Ok(ToolOutput::text(render(&output)))
}

/// The rows of each statement as tab-separated lines, a header first.
fn render(results: &[Rows]) -> String {
    let mut text = String::new();
    for rows in results {
        text.push_str(&rows.columns.join("\t"));
        text.push('\n');
        for row in &rows.rows {
            let cells: Vec<String> = row.iter().map(cell).collect();
            text.push_str(&cells.join("\t"));
            text.push('\n');
        }
    }
    if text.is_empty() {
        text.push_str("ok\n");
    }
    text
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_owned(),
        Value::Integer(number) => number.to_string(),
        Value::Real(number) => number.to_string(),
        Value::Text(text) => text.clone(),
        Value::Blob(bytes) => format!("<{} bytes>", bytes.len()),
    }
}
