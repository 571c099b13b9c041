//! The classifier: a text parsed with `sqlparser`, each statement given its
//! class, every part of every statement walked for what would make it
//! riskier (a function outside the allowlist, `INTO`, a locking clause, a
//! nested data-modifying statement).

use core::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Insert, ObjectName, ObjectNamePart, OnConflictAction, OnInsert, Query, Select,
    SqliteOnConflict, Statement, TableFactor, TableObject, Visit, Visitor,
};
use sqlparser::dialect::{Dialect, GenericDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;

use super::allowlist::is_pure;
use super::{SqlClass, SqlDialect};

/// The longest text [`classify`] judges, in bytes: a longer one is of the
/// riskiest class.
pub const MAX_SQL_LEN: usize = 16 * 1024;

/// The class of `text` in `dialect`: its riskiest statement's, or
/// [`SqlClass::Riskiest`] when any part of it cannot be judged (see the
/// [module](super) documentation). [`SqlDialect::Generic`] classifies the
/// text in each of the other dialects and takes the riskiest answer.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rules::sql::{SqlClass, SqlDialect, classify};
///
/// assert_eq!(classify("SELECT name FROM users", SqlDialect::Postgres), SqlClass::Read);
/// assert_eq!(classify("SELECT 1; DROP TABLE t", SqlDialect::Postgres), SqlClass::Riskiest);
/// assert_eq!(classify("SELECT pg_terminate_backend(42)", SqlDialect::Postgres), SqlClass::Riskiest);
/// assert_eq!(classify("EXPLAIN ANALYZE DELETE FROM t", SqlDialect::Postgres), SqlClass::Destructive);
/// ```
pub fn classify(text: &str, dialect: SqlDialect) -> SqlClass {
    // A long chain of operators parses into a tree as deep as it is long,
    // which the walk and the drop recurse through: past this length the
    // text is not judged, so no call can exhaust a handler thread's stack.
    if text.len() > MAX_SQL_LEN {
        return SqlClass::Riskiest;
    }
    // MySQL runs the inside of `/*! ... */` (and `/*!50001 ... */`) as SQL;
    // anywhere else it is a comment. Such text is judged unreadable
    // whatever the dialect, so that a MySQL server behind any rule never
    // runs what the classifier took for a comment.
    if text.contains("/*!") {
        return SqlClass::Riskiest;
    }
    match dialect {
        SqlDialect::Generic => [SqlDialect::Postgres, SqlDialect::MySql, SqlDialect::Sqlite]
            .iter()
            .fold(
                classify_in(text, &GenericDialect {}, SqlDialect::Generic),
                |class, &one| {
                    if class == SqlClass::Riskiest {
                        class
                    } else {
                        class.join(classify(text, one))
                    }
                },
            ),
        SqlDialect::Postgres => classify_in(text, &PostgreSqlDialect {}, dialect),
        SqlDialect::MySql => classify_in(text, &MySqlDialect {}, dialect),
        SqlDialect::Sqlite => classify_in(text, &SQLiteDialect {}, dialect),
    }
}

fn classify_in(text: &str, parser_dialect: &dyn Dialect, dialect: SqlDialect) -> SqlClass {
    let Ok(statements) = Parser::parse_sql(parser_dialect, text) else {
        return SqlClass::Riskiest;
    };
    if statements.is_empty() {
        // Nothing but whitespace and comments: nothing to judge.
        return SqlClass::Riskiest;
    }
    let mut judge = Judge {
        dialect,
        class: SqlClass::Read,
        executes: Vec::new(),
    };
    for statement in &statements {
        if statement.visit(&mut judge).is_break() {
            return SqlClass::Riskiest;
        }
    }
    judge.class
}

/// Walks the statements of a text, joining the class of each statement
/// that runs; breaks as soon as anything is of the riskiest class.
struct Judge {
    dialect: SqlDialect,
    class: SqlClass,
    /// Per enclosing statement, whether its inner statements run: not under
    /// an `EXPLAIN` without `ANALYZE`, which only plans them.
    executes: Vec<bool>,
}

impl Judge {
    fn raise(&mut self, class: SqlClass) -> ControlFlow<()> {
        if class == SqlClass::Riskiest {
            return ControlFlow::Break(());
        }
        self.class = self.class.join(class);
        ControlFlow::Continue(())
    }

    fn function(&self, name: &ObjectName) -> ControlFlow<()> {
        if is_pure_name(name, self.dialect) {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    }
}

/// An unqualified, unquoted name on the dialect's allowlist. A quoted or
/// qualified name may be a user's function of the same spelling.
fn is_pure_name(name: &ObjectName, dialect: SqlDialect) -> bool {
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(ident)] => {
            ident.quote_style.is_none() && is_pure(&ident.value.to_ascii_lowercase(), dialect)
        }
        _ => false,
    }
}

impl Visitor for Judge {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        let runs = self.executes.last().copied().unwrap_or(true);
        let (class, inner_runs) = statement_class(statement);
        if runs {
            self.raise(class)?;
        } else if class == SqlClass::Riskiest {
            // Planned, not run; but nothing in EXPLAIN is riskier than what
            // can be run, and a statement the classifier cannot place is
            // not judged any better for being explained.
            return ControlFlow::Break(());
        }
        self.executes.push(runs && inner_runs);
        ControlFlow::Continue(())
    }

    fn post_visit_statement(&mut self, _statement: &Statement) -> ControlFlow<()> {
        self.executes.pop();
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        // Row locks (`FOR UPDATE`, `FOR SHARE`, `LOCK IN SHARE MODE`) and
        // the clauses of other engines' dialects are not reads.
        if !query.locks.is_empty()
            || query.for_clause.is_some()
            || query.settings.is_some()
            || query.format_clause.is_some()
            || !query.pipe_operators.is_empty()
        {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        // `SELECT ... INTO` creates a table (PostgreSQL) or writes variables
        // or files (MySQL).
        if select.into.is_some() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Function(function) => self.function(&function.name),
            _ => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            // A table function in `FROM`: `FROM purge_all_users()`.
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => self.function(name),
            TableFactor::Table { name, .. } => relation(name),
            // Their functions and queries are walked on their own.
            TableFactor::Derived { .. }
            | TableFactor::TableFunction { .. }
            | TableFactor::UNNEST { .. }
            | TableFactor::NestedJoin { .. } => ControlFlow::Continue(()),
            _ => ControlFlow::Break(()),
        }
    }

    fn pre_visit_relation(&mut self, name: &ObjectName) -> ControlFlow<()> {
        relation(name)
    }
}

/// A name computed by a function (`IDENTIFIER(...)`) is a call too.
fn relation(name: &ObjectName) -> ControlFlow<()> {
    if name
        .0
        .iter()
        .all(|part| matches!(part, ObjectNamePart::Identifier(_)))
    {
        ControlFlow::Continue(())
    } else {
        ControlFlow::Break(())
    }
}

/// A statement's own class, before its parts are walked, and whether the
/// statements inside it run.
fn statement_class(statement: &Statement) -> (SqlClass, bool) {
    match statement {
        Statement::Query(_) => (SqlClass::Read, true),
        Statement::Explain {
            analyze, options, ..
        } => {
            // `EXPLAIN (ANALYZE) ...` says it in its options: any option
            // list counts as `ANALYZE`, which runs the statement.
            let runs = *analyze || options.is_some();
            (SqlClass::Read, runs)
        }
        Statement::ExplainTable { .. }
        | Statement::ShowFunctions { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowCreate { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowCatalogs { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCharset(_)
        | Statement::ShowObjects(_)
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. }
        | Statement::ShowCollation { .. } => (SqlClass::Read, true),
        Statement::Insert(insert) => (insert_class(insert), true),
        Statement::Update(_) | Statement::Delete(_) | Statement::Merge(_) => {
            (SqlClass::Destructive, true)
        }
        _ => (SqlClass::Riskiest, true),
    }
}

fn insert_class(insert: &Insert) -> SqlClass {
    if !matches!(insert.table, TableObject::TableName(_)) {
        return SqlClass::Riskiest;
    }
    let replaces = insert.replace_into
        || insert.overwrite
        || matches!(
            insert.or,
            Some(SqliteOnConflict::Replace | SqliteOnConflict::Rollback)
        )
        || matches!(
            &insert.on,
            Some(OnInsert::DuplicateKeyUpdate(_))
                | Some(OnInsert::OnConflict(sqlparser::ast::OnConflict {
                    action: OnConflictAction::DoUpdate(_),
                    ..
                }))
        );
    // `OnInsert` may grow: only the forms known here are inserts.
    let known_on = matches!(
        &insert.on,
        None | Some(OnInsert::DuplicateKeyUpdate(_)) | Some(OnInsert::OnConflict(_))
    );
    if !known_on {
        SqlClass::Riskiest
    } else if replaces {
        SqlClass::Destructive
    } else {
        SqlClass::Insert
    }
}
