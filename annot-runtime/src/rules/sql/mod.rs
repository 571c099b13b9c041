//! SQL judged by a parser: the classes of the `is sql(<dialect>, <class>)`
//! rule predicate, and (with the `sql` feature) the classifier behind it,
//! whose items named below exist with that feature only.
//!
//! `classify` parses a text with [`sqlparser`](https://docs.rs/sqlparser)
//! in the [`SqlDialect`] the rule names and gives the riskiest
//! [`SqlClass`] of its statements. It is conservative: a text is
//! [`SqlClass::Read`] only when every statement parses and is a query (or
//! `EXPLAIN` without `ANALYZE`, `SHOW`, `DESCRIBE`) that calls no function
//! outside the dialect's allowlist of pure functions (see
//! `pure_functions`), has no `INTO`, no locking clause, no data-modifying
//! CTE, and is not the `EXPLAIN ANALYZE` of a write. Whatever the classifier
//! cannot place is [`SqlClass::Riskiest`], and so is a text longer than
//! `MAX_SQL_LEN`.
//!
//! What a parser cannot see (views, triggers, rules, user-defined operators,
//! a `search_path` that shadows a built-in function) is out of its reach: the
//! SQLite guard (`annot::guard::sqlite`, feature `guard-sqlite`) is the
//! backstop that makes the database itself refuse what a call's resolution
//! did not claim.

#[cfg(feature = "sql")]
mod allowlist;
#[cfg(feature = "sql")]
mod classify;

#[cfg(feature = "sql")]
pub use allowlist::pure_functions;
#[cfg(feature = "sql")]
pub use classify::{MAX_SQL_LEN, classify};

use core::fmt;

use super::Tri;

/// The SQL dialect a text is parsed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SqlDialect {
    /// Any of the others: the text is classified in each and the riskiest
    /// class wins, with the functions pure in all of them. For a server
    /// whose dialect is not known.
    Generic,
    /// PostgreSQL.
    Postgres,
    /// MySQL (and MariaDB).
    MySql,
    /// SQLite.
    Sqlite,
}

impl SqlDialect {
    /// Every dialect, in the order of their names in rules.
    pub const ALL: [SqlDialect; 4] = [
        SqlDialect::Generic,
        SqlDialect::Postgres,
        SqlDialect::MySql,
        SqlDialect::Sqlite,
    ];

    /// The name a rule gives it: `generic`, `postgres`, `mysql`, `sqlite`.
    pub const fn name(self) -> &'static str {
        match self {
            SqlDialect::Generic => "generic",
            SqlDialect::Postgres => "postgres",
            SqlDialect::MySql => "mysql",
            SqlDialect::Sqlite => "sqlite",
        }
    }
}

impl fmt::Display for SqlDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a SQL text may do, from the safest to the riskiest. A batch has the
/// class of its riskiest statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SqlClass {
    /// Reads only: a query as described in the [module](self)
    /// documentation, `EXPLAIN` without `ANALYZE`, `SHOW`, `DESCRIBE`.
    /// Its hints: `read_only`.
    Read,
    /// Adds rows and changes none: a plain `INSERT` (`ON CONFLICT DO
    /// NOTHING`, `INSERT IGNORE` included). Its hints: `read_only = false,
    /// destructive = false`.
    Insert,
    /// Changes or removes existing rows: `UPDATE`, `DELETE`, `MERGE`,
    /// upserts (`ON CONFLICT DO UPDATE`, `ON DUPLICATE KEY UPDATE`),
    /// `REPLACE`, `INSERT OR REPLACE`. Its hints: `read_only = false,
    /// destructive`.
    Destructive,
    /// Everything else: DDL, `DROP`, `TRUNCATE`, `COPY`, `ATTACH`,
    /// `PRAGMA`, `SET`, text that does not parse, a function outside the
    /// allowlist, a locking clause, `INTO`, MySQL's executable comments
    /// `/*! */`. Its hints are the action's own: no class rule fires.
    Riskiest,
}

impl SqlClass {
    /// The name a rule gives it: `read`, `insert`, `destructive`,
    /// `riskiest`.
    pub const fn name(self) -> &'static str {
        match self {
            SqlClass::Read => "read",
            SqlClass::Insert => "insert",
            SqlClass::Destructive => "destructive",
            SqlClass::Riskiest => "riskiest",
        }
    }

    /// The riskier of two classes: how the statements of a batch combine.
    pub fn join(self, other: SqlClass) -> SqlClass {
        self.max(other)
    }
}

impl fmt::Display for SqlClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The truth of `is sql(<dialect>, <class>)` for a text classified
/// `found`: it holds when `found` is `class`, fails when `found` is another
/// class the classifier is sure of, and is undecided (a rule that can only
/// raise risk) on [`SqlClass::Riskiest`], so that no rule, not even one
/// under `not(...)`, lowers the risk of a text the classifier could not
/// place. Absent (`None`, an `Option` field left out) it fails, like every
/// test of an absent field.
pub const fn sql_tri(found: Option<SqlClass>, class: SqlClass) -> Tri {
    match found {
        None => Tri::Never,
        Some(SqlClass::Riskiest) => Tri::Maybe,
        Some(found) => Tri::from_bool(found as u8 == class as u8),
    }
}

/// The class of `text`, for generated code: with the `sql` feature off
/// nothing calls it (the rule does not build, see
/// [`require_sql_feature`](crate::require_sql_feature)), and it answers the
/// riskiest class.
#[doc(hidden)]
pub fn sql_class(text: &str, dialect: SqlDialect) -> SqlClass {
    #[cfg(feature = "sql")]
    {
        classify(text, dialect)
    }
    #[cfg(not(feature = "sql"))]
    {
        let _ = (text, dialect);
        SqlClass::Riskiest
    }
}

/// Expands to nothing with the `sql` feature, to a clear compile error
/// without it: generated code invokes it, spanned on the rule's `sql`, for
/// every `is sql(...)` test.
#[cfg(feature = "sql")]
#[doc(hidden)]
#[macro_export]
macro_rules! require_sql_feature {
    () => {};
}

/// See the other definition.
#[cfg(not(feature = "sql"))]
#[doc(hidden)]
#[macro_export]
macro_rules! require_sql_feature {
    () => {
        ::core::compile_error!(
            "`is sql(...)` needs annot's `sql` feature: in Cargo.toml, \
             `annot = { version = \"...\", features = [\"sql\"] }`"
        );
    };
}
