//! The red-team table of the `is sql(...)` predicate: SQL texts that a
//! regex over keywords misjudges, each with its dialect and its class
//! written by hand. The classifier must give each its class (or, where
//! marked, a riskier one), and no tool that uses the predicate (the example
//! `examples/tools/sql.rs` and the README's `RunQuery`) may resolve any text
//! as less risky than its class. (The example's `explain` action plans its
//! statement and never runs it: it is read-only whatever the text, a claim
//! the SQLite guard holds its handler to, see tests/guard/sqlite_file.rs.)

use crate::sql_support;
use annot::rules::sql::{MAX_SQL_LEN, SqlClass, SqlDialect, classify};
use annot::{AnnotatedTool, Annotations, mcp_tool};
use serde_json::json;
use sql_support::sql::Sql;
use sql_support::{check_rows, resolve};

use SqlClass::{Destructive, Insert, Read, Riskiest};
use SqlDialect::{Generic, MySql, Postgres, Sqlite};

/// Whether the classifier must find the class exactly, or may find a
/// riskier one (a reading it cannot make precise, which errs on the safe
/// side).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Match {
    Exactly,
    AtLeast,
}
use Match::{AtLeast, Exactly};

/// `(text, dialect, class, match)`: the class a server of that dialect
/// gives the text, judged by hand.
const TABLE: &[(&str, SqlDialect, SqlClass, Match)] = &[
    // Reads.
    (
        "SELECT name FROM users WHERE id = 1",
        Postgres,
        Read,
        Exactly,
    ),
    ("select count(*) from users", Generic, Read, Exactly),
    (
        "SELECT lower(name), length(name) FROM users",
        Sqlite,
        Read,
        Exactly,
    ),
    ("SHOW TABLES", MySql, Read, Exactly),
    ("SHOW VARIABLES", MySql, Read, Exactly),
    ("EXPLAIN SELECT * FROM t", Postgres, Read, Exactly),
    // Planned, not run.
    ("EXPLAIN DELETE FROM t", Postgres, Read, Exactly),
    ("EXPLAIN QUERY PLAN SELECT * FROM t", Sqlite, Read, Exactly),
    ("EXPLAIN ANALYZE SELECT * FROM t", Postgres, Read, Exactly),
    (
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        Postgres,
        Read,
        Exactly,
    ),
    (
        "SELECT * FROM generate_series(1, 10)",
        Postgres,
        Read,
        Exactly,
    ),
    (
        "SELECT a FROM t UNION SELECT b FROM u",
        MySql,
        Read,
        Exactly,
    ),
    ("SELECT 1; SELECT 2", Sqlite, Read, Exactly),
    ("SELECT 'DROP TABLE t'", Generic, Read, Exactly),
    ("SELECT 'it''s; DELETE FROM t'", Postgres, Read, Exactly),
    // Comments.
    ("SELECT 1 -- ; DROP TABLE t", Postgres, Read, Exactly),
    ("SELECT 1 /* ; DROP TABLE t */", Sqlite, Read, Exactly),
    (
        "DELETE FROM t -- just a comment",
        MySql,
        Destructive,
        Exactly,
    ),
    // PostgreSQL nests block comments, SQLite does not: there the comment
    // ends at the first `*/` and `DROP TABLE t` runs.
    (
        "SELECT /* /* nested */ 1; DROP TABLE t; */ 1",
        Postgres,
        Read,
        Exactly,
    ),
    (
        "SELECT /* /* nested */ 1; DROP TABLE t; */ 1",
        Sqlite,
        Riskiest,
        Exactly,
    ),
    // MySQL needs a space after `--`: `--1` is minus minus one.
    ("SELECT 1 --1; DROP TABLE t", MySql, Riskiest, Exactly),
    // MySQL's `#` comment.
    ("SELECT 1 # ; DROP TABLE t", MySql, Read, AtLeast),
    // MySQL runs the inside of an executable comment.
    ("SELECT 1 /*! ; DROP TABLE t */", MySql, Riskiest, Exactly),
    ("SELECT /*!50000 SLEEP(10), */ 1", MySql, Riskiest, Exactly),
    ("/*! DROP TABLE t */", Generic, Riskiest, Exactly),
    ("SELECT 1 /*! */", Postgres, Riskiest, Exactly),
    // Quoting: a backslash escapes a quote in MySQL, not in PostgreSQL.
    ("SELECT 'a\\'; DROP TABLE t; -- '", MySql, Read, Exactly),
    (
        "SELECT 'a\\'; DROP TABLE t; -- '",
        Postgres,
        Riskiest,
        Exactly,
    ),
    // Dollar quoting.
    ("SELECT $$; DROP TABLE t; $$", Postgres, Read, Exactly),
    (
        "SELECT $tag$ '; DELETE FROM t; $tag$",
        Postgres,
        Read,
        Exactly,
    ),
    ("SELECT $$a$$; DROP TABLE t", Postgres, Riskiest, Exactly),
    (
        "DO $$ BEGIN DELETE FROM t; END $$",
        Postgres,
        Riskiest,
        Exactly,
    ),
    // Inserts.
    ("INSERT INTO t (a) VALUES (1)", Sqlite, Insert, Exactly),
    (
        "INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING",
        Postgres,
        Insert,
        Exactly,
    ),
    ("INSERT IGNORE INTO t VALUES (1)", MySql, Insert, Exactly),
    (
        "SELECT 1; INSERT INTO t VALUES (2)",
        Generic,
        Insert,
        Exactly,
    ),
    ("insert into t select * from u", Postgres, Insert, Exactly),
    (
        "EXPLAIN ANALYZE INSERT INTO t VALUES (1)",
        Postgres,
        Insert,
        Exactly,
    ),
    // Destructive writes, upserts and replaces.
    ("UPDATE t SET a = 1", Postgres, Destructive, Exactly),
    ("DELETE FROM t WHERE id = 3", Sqlite, Destructive, Exactly),
    ("DELETE FROM t; SELECT 1", Generic, Destructive, Exactly),
    ("SELECT 1; DELETE FROM t", Postgres, Destructive, Exactly),
    (
        "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
        Postgres,
        Destructive,
        Exactly,
    ),
    (
        "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = excluded.a",
        Sqlite,
        Destructive,
        Exactly,
    ),
    (
        "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2",
        MySql,
        Destructive,
        Exactly,
    ),
    ("REPLACE INTO t VALUES (1)", MySql, Destructive, Exactly),
    ("REPLACE INTO t VALUES (1)", Sqlite, Destructive, AtLeast),
    (
        "INSERT OR REPLACE INTO t VALUES (1)",
        Sqlite,
        Destructive,
        Exactly,
    ),
    // Rolls back the transaction, and every write before it.
    (
        "INSERT OR ROLLBACK INTO t VALUES (1)",
        Sqlite,
        Destructive,
        Exactly,
    ),
    (
        "MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE",
        Postgres,
        Destructive,
        Exactly,
    ),
    // EXPLAIN ANALYZE runs the statement.
    (
        "EXPLAIN ANALYZE DELETE FROM t",
        Postgres,
        Destructive,
        Exactly,
    ),
    (
        "EXPLAIN (ANALYZE) UPDATE t SET a = 1",
        Postgres,
        Destructive,
        Exactly,
    ),
    (
        "EXPLAIN ANALYZE SELECT pg_terminate_backend(1)",
        Postgres,
        Riskiest,
        Exactly,
    ),
    // CTEs with DML.
    (
        "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        Postgres,
        Destructive,
        AtLeast,
    ),
    (
        "WITH i AS (INSERT INTO t VALUES (1) RETURNING id) SELECT id FROM i",
        Postgres,
        Insert,
        AtLeast,
    ),
    // Side-effecting functions, anywhere in the statement.
    (
        "select pg_terminate_backend(42)",
        Postgres,
        Riskiest,
        Exactly,
    ),
    ("SELECT nextval('s')", Postgres, Riskiest, Exactly),
    (
        "SELECT * FROM purge_all_users()",
        Postgres,
        Riskiest,
        Exactly,
    ),
    ("SELECT lo_unlink(1234)", Postgres, Riskiest, Exactly),
    (
        "select set_config('x','y',false)",
        Postgres,
        Riskiest,
        Exactly,
    ),
    (
        "SELECT dblink_exec('drop table t')",
        Postgres,
        Riskiest,
        Exactly,
    ),
    (
        "SELECT * FROM t WHERE a = (SELECT pg_sleep(10))",
        Postgres,
        Riskiest,
        Exactly,
    ),
    (
        "SELECT count(*) FROM t GROUP BY nextval('s')",
        Postgres,
        Riskiest,
        Exactly,
    ),
    (
        "INSERT INTO t VALUES (nextval('s'))",
        Postgres,
        Riskiest,
        Exactly,
    ),
    (
        "SELECT public.lower(name) FROM t",
        Postgres,
        Riskiest,
        Exactly,
    ),
    // The built-in `lower`, quoted: judged as a possible user function.
    ("SELECT \"lower\"(name) FROM t", Postgres, Read, AtLeast),
    ("SELECT sleep(5)", MySql, Riskiest, Exactly),
    ("SELECT LOAD_FILE('/etc/passwd')", MySql, Riskiest, Exactly),
    ("SELECT load_extension('evil')", Sqlite, Riskiest, Exactly),
    ("CALL purge()", Postgres, Riskiest, Exactly),
    // Locking clauses.
    ("SELECT * FROM t FOR UPDATE", Postgres, Riskiest, Exactly),
    ("SELECT * FROM t FOR SHARE", Postgres, Riskiest, Exactly),
    (
        "SELECT * FROM t LOCK IN SHARE MODE",
        MySql,
        Riskiest,
        Exactly,
    ),
    (
        "UPDATE t SET a = 1 WHERE id IN (SELECT id FROM u FOR UPDATE)",
        Postgres,
        Riskiest,
        Exactly,
    ),
    ("LOCK TABLE t", Postgres, Riskiest, Exactly),
    // INTO.
    ("SELECT * INTO backup FROM t", Postgres, Riskiest, Exactly),
    (
        "SELECT * FROM t INTO OUTFILE '/tmp/t.csv'",
        MySql,
        Riskiest,
        Exactly,
    ),
    // Files, databases, settings.
    ("COPY t TO '/tmp/t.csv'", Postgres, Riskiest, Exactly),
    (
        "COPY t FROM PROGRAM 'rm -rf /'",
        Postgres,
        Riskiest,
        Exactly,
    ),
    (
        "ATTACH DATABASE '/tmp/x.db' AS x",
        Sqlite,
        Riskiest,
        Exactly,
    ),
    ("PRAGMA writable_schema = 1", Sqlite, Riskiest, Exactly),
    (
        "SELECT * FROM t; PRAGMA query_only = 0",
        Sqlite,
        Riskiest,
        Exactly,
    ),
    ("VACUUM INTO '/tmp/copy.db'", Sqlite, Riskiest, Exactly),
    ("SET ROLE admin", Postgres, Riskiest, Exactly),
    ("GRANT ALL ON t TO public", Postgres, Riskiest, Exactly),
    // DDL, drop and truncate, batches.
    ("SELECT 1; DROP TABLE t", Postgres, Riskiest, Exactly),
    ("DROP TABLE t", Generic, Riskiest, Exactly),
    ("TRUNCATE TABLE t", Postgres, Riskiest, Exactly),
    ("CREATE TABLE t (a INT)", Sqlite, Riskiest, Exactly),
    ("ALTER TABLE t ADD COLUMN b INT", MySql, Riskiest, Exactly),
    (
        "SELECT 1; INSERT INTO t VALUES (1); DROP TABLE t",
        Sqlite,
        Riskiest,
        Exactly,
    ),
    // Text that does not parse, or holds no statement.
    ("SELEC 1", Generic, Riskiest, Exactly),
    ("SELECT 'unterminated", Postgres, Riskiest, Exactly),
    ("SELECT (1", Sqlite, Riskiest, Exactly),
    ("", Sqlite, Riskiest, Exactly),
    ("-- only a comment", Postgres, Riskiest, Exactly),
];

#[test]
fn the_table_is_large_and_covers_every_dialect() {
    assert!(TABLE.len() >= 60, "{} texts", TABLE.len());
    for dialect in SqlDialect::ALL {
        assert!(TABLE.iter().any(|row| row.1 == dialect), "{dialect}");
    }
    for class in [Read, Insert, Destructive, Riskiest] {
        assert!(TABLE.iter().any(|row| row.2 == class), "{class}");
    }
}

#[test]
fn the_classifier_gives_each_text_its_class() {
    check_rows(TABLE, |&(text, dialect, class, matching)| {
        let found = classify(text, dialect);
        let ok = match matching {
            Exactly => found == class,
            AtLeast => found >= class,
        };
        ok.then_some(()).ok_or_else(|| {
            format!("{text:?} in {dialect}: {found}, expected {class} ({matching:?})")
        })
    });
}

#[test]
fn generic_is_never_less_risky_than_any_dialect() {
    check_rows(TABLE, |&(text, dialect, class, _)| {
        let generic = classify(text, Generic);
        if generic < class {
            return Err(format!("{text:?} ({dialect}): generic {generic}"));
        }
        match SqlDialect::ALL
            .into_iter()
            .find(|&one| generic < classify(text, one))
        {
            Some(one) => Err(format!("{text:?}: generic below {one}")),
            None => Ok(()),
        }
    });
}

/// Whether `resolved` claims at least the risk of `class`: its hints, and
/// for the riskiest class the action's own worst case.
fn at_least(resolved: &Annotations, class: SqlClass, action_worst: &Annotations) -> bool {
    match class {
        Read => true,
        Insert => resolved.read_only == Some(false),
        Destructive => resolved.read_only == Some(false) && resolved.destructive == Some(true),
        Riskiest => resolved == action_worst,
    }
}

#[test]
fn the_example_tool_resolves_no_text_below_its_class() {
    // The example speaks SQLite: the rows of SQLite, and those written for
    // any server.
    let worst = Sql::ACTIONS[0].annotations;
    check_rows(TABLE, |&(text, dialect, class, _)| {
        if !matches!(dialect, Sqlite | Generic) {
            return Ok(());
        }
        let resolved = resolve("run", text);
        if !at_least(&resolved, class, &worst) {
            return Err(format!("{text:?}: {resolved:?} below {class}"));
        }
        if !resolved.is_within(&Sql::STATIC_ANNOTATIONS) {
            return Err(format!("{text:?}: {resolved:?} beyond the static bound"));
        }
        Ok(())
    });
}

/// What the README's first example becomes: a single-action tool whose
/// statement is judged in the generic dialect (every dialect's reading, the
/// riskiest winning), for a server whose dialect the author does not name.
#[mcp_tool(
    open_world = false,
    destructive,
    when(sql is sql(generic, read)) => (read_only),
    when(sql is sql(generic, insert)) => (destructive = false),
)]
struct RunQuery {
    /// The statement.
    sql: String,
}

#[test]
fn the_readme_tool_resolves_no_text_below_its_class() {
    let worst = RunQuery::ACTIONS[0].annotations;
    check_rows(TABLE, |&(text, dialect, class, _)| {
        let resolved = RunQuery::from_arguments(&json!({ "sql": text }))
            .map_err(|error| format!("{text:?}: {error}"))?
            .resolve();
        at_least(&resolved, class, &worst)
            .then_some(())
            .ok_or_else(|| format!("{text:?} ({dialect}): {resolved:?} below {class}"))
    });
}

#[test]
fn the_issue_examples_are_not_read_only() {
    for text in [
        "SELECT 1; DROP TABLE t",
        "EXPLAIN ANALYZE DELETE FROM t",
        "select pg_terminate_backend(42)",
        "SELECT pg_terminate_backend(42)",
        "SELECT nextval('s')",
        "SELECT * FROM purge_all_users()",
        "SELECT lo_unlink(1234)",
        "select set_config('x','y',false)",
        "SELECT dblink_exec('drop table t')",
        "SELECT * FROM t FOR UPDATE",
    ] {
        let readme = RunQuery::from_arguments(&json!({ "sql": text }))
            .unwrap()
            .resolve();
        assert_eq!(readme.read_only, Some(false), "{text}");
        let example = resolve("run", text);
        assert_eq!(example.read_only, Some(false), "{text}");
        assert_eq!(example.destructive, Some(true), "{text}");
    }
}

#[test]
fn long_and_deep_texts_are_judged_without_overflowing() {
    // Nesting past the parser's limit does not parse.
    let parens = format!("SELECT {}1{}", "(".repeat(5_000), ")".repeat(5_000));
    // A long flat chain parses into a deep tree, walked and dropped: as
    // long as the classifier judges, and one byte longer.
    let prefix = "SELECT 1 FROM t WHERE a = ";
    let chain = format!(
        "{prefix}{}1",
        "1+".repeat((MAX_SQL_LEN - prefix.len() - 1) / 2)
    );
    assert!(chain.len() <= MAX_SQL_LEN && chain.len() + 2 > MAX_SQL_LEN);
    let too_long = format!("{chain}{}", " ".repeat(MAX_SQL_LEN + 1 - chain.len()));
    let batch = "SELECT 1; ".repeat(MAX_SQL_LEN / 10);
    let mut handles = Vec::new();
    for dialect in SqlDialect::ALL {
        let texts = [
            parens.clone(),
            chain.clone(),
            too_long.clone(),
            batch.clone(),
        ];
        // The stack of a thread the server might run a handler on.
        handles.push(
            std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || texts.map(|text| classify(&text, dialect)))
                .unwrap(),
        );
    }
    for handle in handles {
        let classes = handle.join().expect("no overflow, no panic");
        assert_eq!(classes, [Riskiest, Read, Riskiest, Read]);
    }
}
