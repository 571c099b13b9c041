//! A SQL tool whose risk is read from the statement itself, by a parser
//! (annot's `sql` feature): the SQLite dialect of `examples/sql.rs`, which
//! serves it.
//!
//! | statement (every statement of a batch counts; the riskiest wins) | readOnlyHint | destructiveHint | privilegedAccessHint |
//! |---|---|---|---|
//! | a read: `SELECT` of pure functions, `EXPLAIN` without `ANALYZE` | true | false | false |
//! | a plain `INSERT` | false | false | false |
//! | `UPDATE`, `DELETE`, upserts, `REPLACE`, `INSERT OR REPLACE` | false | true | false |
//! | anything else: DDL, `ATTACH`, `PRAGMA`, `VACUUM`, an unknown function, text that does not parse | false | true | true |
//!
//! Every write is `reversibleHint: false`. `Explain` only plans its
//! statement (`EXPLAIN QUERY PLAN`): it is read-only whatever the text, and
//! the SQLite guard of `examples/sql.rs` holds its handler to that (a second
//! statement after a `;`, which SQLite would run unexplained, is refused).

use annot::mcp_tool;

/// Run SQL against the application database.
#[mcp_tool(
    name = "sql",
    title = "SQL",
    open_world = false,
    sensitive_data,
    display = "{action} SQL: {statement}"
)]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sql {
    /// Run one statement, or several separated by `;`.
    #[annotate(
        destructive,
        reversible = false,
        privileged_access,
        title = "Run SQL",
        display = "run SQL: {statement}",
        when(statement is sql(sqlite, read)) => (read_only, privileged_access = false),
        when(statement is sql(sqlite, insert))
            => (destructive = false, privileged_access = false),
        when(statement is sql(sqlite, destructive))
            => (destructive, privileged_access = false),
    )]
    Run {
        /// The SQL text.
        statement: String,
    },
    /// Show the query plan of a statement (`EXPLAIN QUERY PLAN`) without
    /// running it.
    #[annotate(read_only, title = "Explain SQL", display = "explain SQL: {statement}")]
    Explain {
        /// The SQL text.
        statement: String,
    },
}
