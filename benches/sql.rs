//! SQL judged by a parser against the regex set it replaced, in one run:
//! the `sql` example tool (`is sql(sqlite, ...)`, `examples/tools/sql.rs`)
//! and the keyword rules it had before (`support/keyword_sql.rs`), resolving
//! the same statements; and the classifier alone against one search of the
//! five keyword patterns as a `regex::RegexSet`.
//!
//! ```sh
//! cargo bench --bench sql -- --warm-up-time 1 --measurement-time 2
//! ```

mod support;

use std::hint::black_box;

use annot::AnnotatedTool;
use annot::rules::sql::{SqlDialect, classify};
use criterion::{Criterion, criterion_group, criterion_main};
use regex::RegexSet;
use serde_json::json;
use support::keyword_sql::KeywordSql;

#[path = "../examples/tools/sql.rs"]
mod sql;

/// Statements of each class, short and long.
const STATEMENTS: &[(&str, &str)] = &[
    ("read", "SELECT name, email FROM users WHERE id = 42"),
    (
        "read (join, aggregate, comment)",
        "-- weekly report\nSELECT u.name, count(n.id) AS notes FROM users u \
         LEFT JOIN notes n ON n.user_id = u.id WHERE n.body LIKE '%milk%' \
         GROUP BY u.name ORDER BY notes DESC LIMIT 10",
    ),
    (
        "insert",
        "INSERT INTO notes (user_id, body) VALUES (1, 'buy milk')",
    ),
    ("destructive", "DELETE FROM notes WHERE id = 3"),
    ("riskiest (batch)", "SELECT 1; DROP TABLE notes"),
];

/// The five patterns of `support/keyword_sql.rs`.
const KEYWORD_PATTERNS: [&str; 5] = [
    r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*(?:select|show)\b",
    r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*select\b[^;]*\binto\b",
    r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*insert\b",
    r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*(?:update|delete|merge|alter)\b",
    r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*(?:drop|truncate)\b",
];

fn sql(c: &mut Criterion) {
    let keywords = RegexSet::new(KEYWORD_PATTERNS).expect("the patterns compile");
    for (name, statement) in STATEMENTS {
        let arguments = json!({"action": "run", "statement": statement});
        let parsed = sql::Sql::from_arguments(&arguments).expect("valid arguments");
        let keyword = KeywordSql::from_arguments(&arguments).expect("valid arguments");
        c.bench_function(&format!("resolve/{name}/parser"), |b| {
            b.iter(|| black_box(&parsed).resolve())
        });
        c.bench_function(&format!("resolve/{name}/regex"), |b| {
            b.iter(|| black_box(&keyword).resolve())
        });
        c.bench_function(&format!("classify/{name}/parser"), |b| {
            b.iter(|| classify(black_box(statement), SqlDialect::Sqlite))
        });
        c.bench_function(&format!("classify/{name}/parser generic"), |b| {
            b.iter(|| classify(black_box(statement), SqlDialect::Generic))
        });
        c.bench_function(&format!("classify/{name}/regex set"), |b| {
            b.iter(|| keywords.matches(black_box(statement)))
        });
    }
}

criterion_group! {
    name = benches;
    config = support::short_runs();
    targets = sql
}
criterion_main!(benches);
