//! The SQLite guard: a connection wrapper that holds one call to its
//! resolved annotations, so that the database itself refuses what the
//! resolution did not claim, even where a classifier of SQL text was wrong
//! (views, triggers, a statement it misread).
//!
//! Built from the call's [`Claims`] (its resolved annotations, defaults applied):
//!
//! - `readOnlyHint: true`: SQLite's authorizer denies every write action
//!   (insert, update, delete, DDL, `ATTACH`, `PRAGMA`, transaction control),
//!   `PRAGMA query_only` is set for the call, and a statement that SQLite
//!   says may write (`VACUUM` included) is refused before it runs.
//! - `destructiveHint: false`: `DELETE`, `UPDATE` (upserts' `DO UPDATE`
//!   included), `DROP` and `ALTER` are denied. SQLite's authorizer reports
//!   the deletion `REPLACE` performs (`REPLACE INTO`, `INSERT OR REPLACE`, a
//!   table's `ON CONFLICT REPLACE`) as an insert, so `REPLACE` is denied
//!   outright: a statement whose text holds the word (a string or the
//!   `replace()` function too: the guard errs on the safe side), an insert
//!   into a table whose schema holds it, and any write by a trigger whose
//!   text holds it.
//! - `privilegedAccessHint` not `true`: `ATTACH`, `DETACH`, `PRAGMA` and
//!   `load_extension` are denied.
//!
//! The guard owns the call's transaction: `BEGIN`, `COMMIT`, `SAVEPOINT`
//! and the like are refused inside it ([`Error::Reserved`]). A refusal is
//! the guards' one [`Error::Refused`] naming the hint, which a handler
//! returns as an `isError` result; SQLite's own failures are
//! [`Error::Sqlite`].

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

pub use rusqlite;
use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::types::Value;
use rusqlite::{Batch, Connection};

use super::{Claims, Error};
use crate::Hint;
use crate::server::Call;

/// What the call's resolution allows, read once from its claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Policy {
    read_only: bool,
    destructive: bool,
    privileged: bool,
}

impl Policy {
    fn of(claims: &Claims) -> Policy {
        Policy {
            read_only: !claims.may_write(),
            destructive: claims.may_destroy(),
            privileged: claims.annotations().privileged_access == Some(true),
        }
    }
}

/// What the authorizer denied, before it becomes the guards' [`Error`]: the
/// hint that would have to be at its risky value (`None` for the
/// transaction control the guard keeps for itself), and what the SQL tried.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Denial {
    hint: Option<Hint>,
    effect: String,
}

impl Denial {
    fn into_error(self, claims: &Claims) -> Error {
        match self.hint {
            Some(hint) => Error::Refused(claims.refusal(self.effect, hint)),
            None => Error::Reserved(self.effect),
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Self {
        Error::Sqlite(error)
    }
}

/// The rows one statement returned.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// The column names.
    pub columns: Vec<String>,
    /// Each row's values, in column order.
    pub rows: Vec<Vec<Value>>,
}

/// A connection held to one call's resolution. See the [module](self)
/// documentation.
pub struct SqliteGuard<'c> {
    connection: &'c Connection,
    claims: Claims,
    policy: Policy,
    /// The first denial of the authorizer during
    /// the statement being run.
    refused: Arc<Mutex<Option<Denial>>>,
    /// `PRAGMA query_only` before the guard set it.
    query_only_before: Option<bool>,
    /// Under a resolution that is not destructive: the tables and triggers
    /// whose schema text holds `REPLACE` (lowercase names).
    replacing: Arc<Replacing>,
}

/// The tables that replace rows on conflict and the triggers that may.
#[derive(Debug, Default)]
struct Replacing {
    tables: HashSet<String>,
    triggers: HashSet<String>,
}

impl Replacing {
    fn of(connection: &Connection) -> Result<Replacing, rusqlite::Error> {
        let mut replacing = Replacing::default();
        for schema in ["sqlite_master", "sqlite_temp_master"] {
            let mut statement = connection.prepare(&format!(
                "SELECT type, name FROM {schema} \
                 WHERE type IN ('table', 'trigger') AND lower(sql) LIKE '%replace%'"
            ))?;
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                let kind: String = row.get(0)?;
                let name: String = row.get(1)?;
                let name = name.to_lowercase();
                if kind == "table" {
                    replacing.tables.insert(name);
                } else {
                    replacing.triggers.insert(name);
                }
            }
        }
        Ok(replacing)
    }
}

const SAVEPOINT: &str = "annot_guard";

impl<'c> SqliteGuard<'c> {
    /// Guards `connection` for one call that claims `claims` (built from
    /// its resolved annotations, as [`Claims::of`] does).
    pub fn new(connection: &'c Connection, claims: Claims) -> Result<SqliteGuard<'c>, Error> {
        let policy = Policy::of(&claims);
        let mut query_only_before = None;
        if policy.read_only {
            let before: bool = connection.query_row("PRAGMA query_only", [], |row| row.get(0))?;
            connection.pragma_update(None, "query_only", true)?;
            query_only_before = Some(before);
        }
        let replacing = if policy.read_only || policy.destructive {
            Replacing::default()
        } else {
            Replacing::of(connection)?
        };
        Ok(SqliteGuard {
            connection,
            claims,
            policy,
            refused: Arc::new(Mutex::new(None)),
            query_only_before,
            replacing: Arc::new(replacing),
        })
    }

    /// Guards `connection` for a handler's call (see
    /// [`ServerBuilder::tool_with_call`](crate::server::ServerBuilder::tool_with_call)).
    pub fn for_call(connection: &'c Connection, call: &Call) -> Result<SqliteGuard<'c>, Error> {
        SqliteGuard::new(connection, Claims::of_call(call))
    }

    /// What the call claims, which the guard holds it to.
    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    /// Runs every statement of `sql` in order, inside one savepoint, and
    /// returns the rows of each that returns rows. On any refusal or error,
    /// nothing any of them did is kept.
    pub fn run_batch(&self, sql: &str) -> Result<Vec<Rows>, Error> {
        if !self.policy.read_only {
            self.connection
                .execute_batch(&format!("SAVEPOINT {SAVEPOINT}"))?;
        }
        self.install()?;
        let result = self.run_statements(sql);
        let uninstalled = self.uninstall();
        if !self.policy.read_only {
            let end = if result.is_ok() && uninstalled.is_ok() {
                format!("RELEASE {SAVEPOINT}")
            } else {
                format!("ROLLBACK TO {SAVEPOINT}; RELEASE {SAVEPOINT}")
            };
            self.connection.execute_batch(&end)?;
        }
        uninstalled?;
        result
    }

    fn run_statements(&self, sql: &str) -> Result<Vec<Rows>, Error> {
        let mut results = Vec::new();
        let mut batch = Batch::new(self.connection, sql);
        loop {
            let next = batch.next();
            let mut statement = match next {
                Ok(Some(statement)) => statement,
                Ok(None) => return Ok(results),
                Err(error) => return Err(self.refusal_or(error)),
            };
            if self.policy.read_only && !statement.readonly() {
                return Err(Error::Refused(self.claims.refusal(
                    "a statement that writes to the database",
                    Hint::ReadOnly,
                )));
            }
            let text = statement.expanded_sql().unwrap_or_default();
            if !self.policy.destructive
                && !self.policy.read_only
                && (text.is_empty() || text.to_lowercase().contains("replace"))
            {
                return Err(Error::Refused(self.claims.refusal(
                    "REPLACE, which deletes the rows it conflicts with",
                    Hint::Destructive,
                )));
            }
            let columns: Vec<String> = statement
                .column_names()
                .into_iter()
                .map(str::to_owned)
                .collect();
            if columns.is_empty() {
                statement.raw_execute().map_err(|e| self.refusal_or(e))?;
            } else {
                let mut rows = Vec::new();
                let mut cursor = statement.raw_query();
                while let Some(row) = cursor.next().map_err(|e| self.refusal_or(e))? {
                    let values = (0..columns.len())
                        .map(|index| row.get::<_, Value>(index))
                        .collect::<Result<Vec<_>, _>>()?;
                    rows.push(values);
                }
                results.push(Rows { columns, rows });
            }
            if let Some(denial) = self.take_denial() {
                return Err(denial.into_error(&self.claims));
            }
        }
    }

    /// The denial recorded while `error` happened, if any, else `error`.
    fn refusal_or(&self, error: rusqlite::Error) -> Error {
        match self.take_denial() {
            Some(denial) => denial.into_error(&self.claims),
            None => Error::Sqlite(error),
        }
    }

    fn take_denial(&self) -> Option<Denial> {
        self.refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn install(&self) -> Result<(), Error> {
        let policy = self.policy;
        let refused = Arc::clone(&self.refused);
        let replacing = Arc::clone(&self.replacing);
        self.connection
            .authorizer(Some(move |context: AuthContext<'_>| {
                match decide(policy, &replacing, &context) {
                    Ok(()) => Authorization::Allow,
                    Err(denial) => {
                        record(&refused, denial);
                        Authorization::Deny
                    }
                }
            }))?;
        Ok(())
    }

    fn uninstall(&self) -> Result<(), Error> {
        self.connection
            .authorizer(None::<fn(AuthContext<'_>) -> Authorization>)?;
        Ok(())
    }
}

impl Drop for SqliteGuard<'_> {
    fn drop(&mut self) {
        if let Some(before) = self.query_only_before {
            // Best effort: a connection that cannot reset the pragma stays
            // read-only, the safe side.
            let _ = self.connection.pragma_update(None, "query_only", before);
        }
    }
}

fn record(slot: &Mutex<Option<Denial>>, denial: Denial) {
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if slot.is_none() {
        *slot = Some(denial);
    }
}

/// Whether `policy` allows what `context` asks, as SQLite's authorizer asks
/// while it prepares a statement (the statements of triggers and views
/// included): [`decide_action`], and under a resolution that is not
/// destructive, no insert into a table that replaces on conflict and no
/// write at all by a trigger that may replace.
fn decide(policy: Policy, replacing: &Replacing, context: &AuthContext<'_>) -> Result<(), Denial> {
    decide_action(policy, &context.action)?;
    if policy.read_only || policy.destructive {
        return Ok(());
    }
    let replaces = |effect: String| {
        Err(Denial {
            hint: Some(Hint::Destructive),
            effect,
        })
    };
    if let Some(trigger) = context.accessor
        && replacing.triggers.contains(&trigger.to_lowercase())
        && !matches!(
            context.action,
            AuthAction::Select | AuthAction::Read { .. } | AuthAction::Function { .. }
        )
    {
        return replaces(format!(
            "a write by trigger \"{trigger}\", which may REPLACE rows"
        ));
    }
    if let AuthAction::Insert { table_name } = context.action
        && replacing.tables.contains(&table_name.to_lowercase())
    {
        return replaces(format!(
            "insert into table \"{table_name}\", which replaces the rows it conflicts with"
        ));
    }
    Ok(())
}

/// Whether `policy` allows `action` in itself.
fn decide_action(policy: Policy, action: &AuthAction<'_>) -> Result<(), Denial> {
    use AuthAction as A;
    let refuse = |hint: Hint, effect: String| {
        Err(Denial {
            hint: Some(hint),
            effect,
        })
    };
    let write = |effect: String| {
        if policy.read_only {
            refuse(Hint::ReadOnly, effect)
        } else {
            Ok(())
        }
    };
    let destroy = |effect: String| {
        if policy.read_only {
            refuse(Hint::ReadOnly, effect)
        } else if !policy.destructive {
            refuse(Hint::Destructive, effect)
        } else {
            Ok(())
        }
    };
    let privileged = |effect: String| {
        if policy.read_only {
            refuse(Hint::ReadOnly, effect)
        } else if !policy.privileged {
            refuse(Hint::PrivilegedAccess, effect)
        } else {
            Ok(())
        }
    };
    match action {
        A::Select | A::Read { .. } | A::Recursive => Ok(()),
        // SQLite's own tables (the schema, `sqlite_sequence`, statistics)
        // change with the DDL, `AUTOINCREMENT` insert or `ANALYZE` that the
        // authorizer judges in its own right.
        A::Insert { table_name } | A::Delete { table_name } | A::Update { table_name, .. }
            if is_internal(table_name) =>
        {
            write(format!("a change of \"{table_name}\""))
        }
        A::Function { function_name } if function_name.eq_ignore_ascii_case("load_extension") => {
            privileged(format!("the function {function_name}"))
        }
        A::Function { .. } => Ok(()),
        A::Insert { table_name } => write(format!("insert into table \"{table_name}\"")),
        A::Delete { table_name } => destroy(format!("delete from table \"{table_name}\"")),
        A::Update {
            table_name,
            column_name,
        } => destroy(format!("update of \"{table_name}\".\"{column_name}\"")),
        A::CreateIndex { index_name, .. } | A::CreateTempIndex { index_name, .. } => {
            write(format!("create index \"{index_name}\""))
        }
        A::CreateTable { table_name } | A::CreateTempTable { table_name } => {
            write(format!("create table \"{table_name}\""))
        }
        A::CreateTrigger { trigger_name, .. } | A::CreateTempTrigger { trigger_name, .. } => {
            write(format!("create trigger \"{trigger_name}\""))
        }
        A::CreateView { view_name } | A::CreateTempView { view_name } => {
            write(format!("create view \"{view_name}\""))
        }
        A::CreateVtable { table_name, .. } => {
            write(format!("create virtual table \"{table_name}\""))
        }
        A::Reindex { index_name } => write(format!("reindex \"{index_name}\"")),
        A::Analyze { table_name } => write(format!("analyze \"{table_name}\"")),
        A::DropIndex { index_name, .. } | A::DropTempIndex { index_name, .. } => {
            destroy(format!("drop index \"{index_name}\""))
        }
        A::DropTable { table_name } | A::DropTempTable { table_name } => {
            destroy(format!("drop table \"{table_name}\""))
        }
        A::DropTrigger { trigger_name, .. } | A::DropTempTrigger { trigger_name, .. } => {
            destroy(format!("drop trigger \"{trigger_name}\""))
        }
        A::DropView { view_name } | A::DropTempView { view_name } => {
            destroy(format!("drop view \"{view_name}\""))
        }
        A::DropVtable { table_name, .. } => destroy(format!("drop virtual table \"{table_name}\"")),
        A::AlterTable { table_name, .. } => destroy(format!("alter table \"{table_name}\"")),
        A::Pragma { pragma_name, .. } => privileged(format!("PRAGMA {pragma_name}")),
        A::Attach { filename } => privileged(format!("ATTACH of \"{filename}\"")),
        A::Detach { database_name } => privileged(format!("DETACH of \"{database_name}\"")),
        A::Transaction { .. } | A::Savepoint { .. } => {
            let effect = "transaction control (BEGIN, COMMIT, SAVEPOINT...)".to_owned();
            if policy.read_only {
                refuse(Hint::ReadOnly, effect)
            } else {
                Err(Denial { hint: None, effect })
            }
        }
        // An action this version of the guard does not know: allowed only
        // where the resolution allows everything.
        _ => {
            let effect = "an action the guard does not know".to_owned();
            if policy.read_only {
                refuse(Hint::ReadOnly, effect)
            } else if !policy.destructive {
                refuse(Hint::Destructive, effect)
            } else if !policy.privileged {
                refuse(Hint::PrivilegedAccess, effect)
            } else {
                Ok(())
            }
        }
    }
}

/// SQLite's own tables: `sqlite_master`, `sqlite_sequence`, `sqlite_stat1`...
fn is_internal(table: &str) -> bool {
    table
        .get(..7)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("sqlite_"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Annotations;

    const READ: Policy = Policy {
        read_only: true,
        destructive: false,
        privileged: false,
    };
    const APPEND: Policy = Policy {
        read_only: false,
        destructive: false,
        privileged: false,
    };
    const ALL: Policy = Policy {
        read_only: false,
        destructive: true,
        privileged: true,
    };

    fn hint(policy: Policy, action: AuthAction<'_>) -> Option<Option<Hint>> {
        decide_action(policy, &action)
            .err()
            .map(|denial| denial.hint)
    }

    #[test]
    fn each_policy_refuses_what_it_does_not_claim() {
        let delete = || AuthAction::Delete { table_name: "t" };
        let insert = || AuthAction::Insert { table_name: "t" };
        let drop = || AuthAction::DropTable { table_name: "t" };
        let attach = || AuthAction::Attach { filename: "x.db" };
        // (policy, action, the hint refused or None when allowed)
        assert_eq!(hint(READ, AuthAction::Select), None);
        assert_eq!(hint(READ, insert()), Some(Some(Hint::ReadOnly)));
        assert_eq!(hint(READ, delete()), Some(Some(Hint::ReadOnly)));
        assert_eq!(hint(READ, attach()), Some(Some(Hint::ReadOnly)));
        assert_eq!(hint(APPEND, insert()), None);
        assert_eq!(hint(APPEND, delete()), Some(Some(Hint::Destructive)));
        assert_eq!(hint(APPEND, drop()), Some(Some(Hint::Destructive)));
        assert_eq!(hint(APPEND, attach()), Some(Some(Hint::PrivilegedAccess)));
        assert_eq!(hint(ALL, delete()), None);
        assert_eq!(hint(ALL, drop()), None);
        assert_eq!(hint(ALL, attach()), None);
        let begin = AuthAction::Transaction {
            operation: rusqlite::hooks::TransactionOperation::Begin,
        };
        assert_eq!(hint(ALL, begin), Some(None));
    }

    #[test]
    fn policies_follow_the_effective_annotations() {
        let policy = |annotations: Annotations| Policy::of(&Claims::of("sql", &annotations));
        assert_eq!(policy(Annotations::new().read_only(true)), READ);
        // Unset core hints take the specification's defaults: destructive.
        assert!(policy(Annotations::new()).destructive);
        assert!(!policy(Annotations::new()).privileged);
        let append = Annotations::new().read_only(false).destructive(false);
        assert_eq!(policy(append), APPEND);
    }
}
