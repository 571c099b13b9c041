//! What the SQL rule suites share (tests/rules/sql_redteam.rs,
//! tests/rules/examples.rs): the example `sql` tool, one statement resolved
//! through it, and a hand-written table checked row by row.

#![allow(dead_code)] // Each suite uses a different part.

#[path = "../../../examples/tools/sql.rs"]
pub mod sql;

use annot::{AnnotatedTool, Annotations};
use serde_json::json;

/// What the example `sql` tool resolves for `action` (`run` or `explain`)
/// on `statement`, through its public parser and rules.
pub fn resolve(action: &str, statement: &str) -> Annotations {
    sql::Sql::from_arguments(&json!({"action": action, "statement": statement}))
        .unwrap_or_else(|error| panic!("{action} {statement:?}: {error}"))
        .resolve()
}

/// Checks every row of `table` with `check`, which says what is wrong with
/// a row; panics once, listing every wrong row, so that one run shows the
/// whole damage of a change rather than its first row.
pub fn check_rows<Row>(table: &[Row], mut check: impl FnMut(&Row) -> Result<(), String>) {
    let wrong: Vec<String> = table.iter().filter_map(|row| check(row).err()).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} rows are wrong:\n{}",
        wrong.len(),
        table.len(),
        wrong.join("\n")
    );
}
