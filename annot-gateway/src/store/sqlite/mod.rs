//! The store in one SQLite file in WAL mode: the embedded default, for the
//! gateway processes of one machine.
//!
//! A call's record is committed before its answer is written to the host, so
//! a gateway killed at any moment has logged every call the host got an
//! answer for. WAL with `synchronous = NORMAL` keeps every commit through a
//! killed process (not through a power cut, which would need `FULL`).
//! Several processes share the file: WAL lets readers run beside the one
//! writer, every read-then-write runs in an `IMMEDIATE` transaction (it takes
//! the write lock first, so two processes never both read the old row), and
//! a writer waits up to the busy timeout for another's commit.

mod page_sessions;

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::{Value, json};

use super::records::{
    ApprovalRequest, ApprovalState, CALL_COLUMNS, CallRecord, CallRow, LoggedDecision, PinState,
    Risk, StoreError, approval_state, now_ms,
};

/// The SQLite store.
pub struct SqliteStore {
    connection: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS calls (
    seq INTEGER PRIMARY KEY,
    time_ms INTEGER NOT NULL,
    session TEXT NOT NULL,
    upstream TEXT NOT NULL,
    tool TEXT NOT NULL,
    called_as TEXT NOT NULL,
    arguments_digest TEXT NOT NULL,
    arguments TEXT,
    annotations TEXT NOT NULL,
    source TEXT NOT NULL,
    decision TEXT NOT NULL,
    reason TEXT NOT NULL,
    confirmation TEXT,
    outcome TEXT NOT NULL,
    claims TEXT
);
CREATE TABLE IF NOT EXISTS pins (
    upstream TEXT NOT NULL,
    tool TEXT NOT NULL,
    digest TEXT NOT NULL,
    definition TEXT NOT NULL,
    accepted INTEGER NOT NULL,
    first_seen_ms INTEGER NOT NULL,
    PRIMARY KEY (upstream, tool, digest)
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    time_ms INTEGER NOT NULL,
    upstream TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS risk (
    risk_key TEXT PRIMARY KEY,
    private_data_from TEXT,
    untrusted_content_from TEXT,
    updated_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS round_trips (
    state TEXT PRIMARY KEY,
    call_digest TEXT NOT NULL,
    deadline_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    call_digest TEXT NOT NULL,
    risk_key TEXT NOT NULL,
    session TEXT NOT NULL,
    upstream TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    annotations TEXT NOT NULL,
    source TEXT NOT NULL,
    reason TEXT NOT NULL,
    preview TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    deadline_ms INTEGER NOT NULL,
    state TEXT NOT NULL,
    decided_by TEXT,
    decided_ms INTEGER,
    spent_ms INTEGER
);
CREATE INDEX IF NOT EXISTS approvals_by_call ON approvals (call_digest, risk_key);
CREATE TABLE IF NOT EXISTS page_sessions (
    key TEXT PRIMARY KEY,
    approver TEXT NOT NULL,
    csrf TEXT NOT NULL,
    expires_ms INTEGER NOT NULL,
    flash TEXT
);
";

/// One event row, on a connection the caller holds (a pin's check and its
/// event in one transaction).
fn insert_event(
    connection: &Connection,
    upstream: &str,
    kind: &str,
    detail: &str,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO events (time_ms, upstream, kind, detail) VALUES (?1, ?2, ?3, ?4)",
        params![now_ms(), upstream, kind, detail],
    )?;
    Ok(())
}

fn call_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<CallRow> {
    let mut text: [Option<String>; 13] = Default::default();
    for (index, column) in text.iter_mut().enumerate() {
        *column = row.get(index + 2)?;
    }
    Ok(CallRow {
        seq: row.get(0)?,
        time_ms: row.get(1)?,
        text,
    })
}

impl SqliteStore {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let connection = Connection::open(path)?;
        // A writer waits for another process's commit rather than failing.
        connection.busy_timeout(Duration::from_secs(10))?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        connection.execute_batch(SCHEMA)?;
        Ok(SqliteStore {
            connection: Mutex::new(connection),
        })
    }

    fn connection(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves the connection usable: every
        // write is one transaction, rolled back if it did not commit.
        self.connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn record(
        &self,
        record: &CallRecord,
        risk: Option<(&str, &Risk)>,
    ) -> Result<(), StoreError> {
        let text = |value: &Option<Value>| value.as_ref().map(Value::to_string);
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        transaction.execute(
            &format!(
                "INSERT INTO calls (time_ms, {CALL_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
            ),
            params![
                now_ms(),
                record.session,
                record.upstream,
                record.tool,
                record.called_as,
                record.arguments_digest,
                text(&record.arguments),
                record.annotations.to_string(),
                record.source,
                record.decision,
                record.reason,
                record.confirmation,
                record.outcome,
                text(&record.claims),
            ],
        )?;
        if let Some((key, risk)) = risk {
            transaction.execute(
                "INSERT INTO risk (risk_key, private_data_from, untrusted_content_from, \
                 updated_ms) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (risk_key) DO UPDATE SET \
                 private_data_from = COALESCE(risk.private_data_from, excluded.private_data_from), \
                 untrusted_content_from = \
                 COALESCE(risk.untrusted_content_from, excluded.untrusted_content_from), \
                 updated_ms = excluded.updated_ms",
                params![
                    key,
                    risk.private_data_from,
                    risk.untrusted_content_from,
                    now_ms()
                ],
            )?;
        }
        transaction.commit()?;
        Ok(())
    }

    pub fn risk(&self, key: &str) -> Result<Risk, StoreError> {
        let risk = self
            .connection()
            .query_row(
                "SELECT private_data_from, untrusted_content_from FROM risk WHERE risk_key = ?1",
                params![key],
                |row| {
                    Ok(Risk {
                        private_data_from: row.get(0)?,
                        untrusted_content_from: row.get(1)?,
                    })
                },
            )
            .optional()?;
        Ok(risk.unwrap_or_default())
    }

    pub fn event(&self, upstream: &str, kind: &str, detail: &str) -> Result<(), StoreError> {
        insert_event(&self.connection(), upstream, kind, detail)
    }

    pub fn pin(
        &self,
        upstream: &str,
        tool: &str,
        digest: &str,
        definition: &Value,
    ) -> Result<PinState, StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let accepted: Option<String> = transaction
            .query_row(
                "SELECT digest FROM pins WHERE upstream = ?1 AND tool = ?2 AND accepted = 1 \
                 ORDER BY first_seen_ms DESC LIMIT 1",
                params![upstream, tool],
                |row| row.get(0),
            )
            .optional()?;
        let state = match accepted {
            Some(pinned) if pinned == digest => return Ok(PinState::Pinned),
            Some(pinned) => PinState::Changed { pinned },
            None => PinState::Pinned,
        };
        let newly = transaction.execute(
            "INSERT OR IGNORE INTO pins (upstream, tool, digest, definition, accepted, \
             first_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                upstream,
                tool,
                digest,
                definition.to_string(),
                state == PinState::Pinned,
                now_ms()
            ],
        )?;
        if let (1.., PinState::Changed { pinned }) = (newly, &state) {
            let detail = json!({"tool": tool, "pinned": pinned, "seen": digest});
            insert_event(
                &transaction,
                upstream,
                "definition-changed",
                &detail.to_string(),
            )?;
        }
        transaction.commit()?;
        Ok(state)
    }

    pub fn accept(&self, upstream: &str, tool: &str) -> Result<usize, StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let accepted = transaction.execute(
            "UPDATE pins SET accepted = 1, first_seen_ms = ?3 \
             WHERE upstream = ?1 AND tool = ?2 AND accepted = 0",
            params![upstream, tool, now_ms()],
        )?;
        if accepted > 0 {
            let detail = json!({"tool": tool}).to_string();
            insert_event(&transaction, upstream, "definition-accepted", &detail)?;
        }
        transaction.commit()?;
        Ok(accepted)
    }

    pub fn pending_pins(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        let connection = self.connection();
        let mut statement = connection
            .prepare("SELECT upstream, tool, digest FROM pins WHERE accepted = 0 ORDER BY tool")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn export(&self) -> Result<Vec<Value>, StoreError> {
        let connection = self.connection();
        let mut statement = connection.prepare(&format!(
            "SELECT seq, time_ms, {CALL_COLUMNS} FROM calls ORDER BY seq"
        ))?;
        let rows = statement.query_map([], call_row)?;
        rows.map(|row| Ok(row?.to_json())).collect()
    }

    pub fn recent_decisions(&self, limit: usize) -> Result<Vec<LoggedDecision>, StoreError> {
        let connection = self.connection();
        let mut statement = connection.prepare(&format!(
            "SELECT seq, time_ms, {CALL_COLUMNS} FROM calls ORDER BY seq DESC LIMIT ?1"
        ))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement.query_map(params![limit], call_row)?;
        rows.map(|row| Ok(row?.to_decision())).collect()
    }

    pub fn issue_round_trip(
        &self,
        state: &str,
        call_digest: &str,
        deadline_ms: i64,
    ) -> Result<(), StoreError> {
        let connection = self.connection();
        // Spent or expired states go as new ones come.
        connection.execute(
            "DELETE FROM round_trips WHERE deadline_ms <= ?1",
            params![now_ms()],
        )?;
        connection.execute(
            "INSERT INTO round_trips (state, call_digest, deadline_ms) VALUES (?1, ?2, ?3)",
            params![state, call_digest, deadline_ms],
        )?;
        Ok(())
    }

    pub fn spend_round_trip(&self, state: &str) -> Result<Option<String>, StoreError> {
        // One statement: of two processes spending one state, one deletes it.
        let digest = self
            .connection()
            .query_row(
                "DELETE FROM round_trips WHERE state = ?1 AND deadline_ms > ?2 \
                 RETURNING call_digest",
                params![state, now_ms()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(digest)
    }

    pub fn request_approval(&self, request: &ApprovalRequest) -> Result<(), StoreError> {
        self.connection().execute(
            "INSERT INTO approvals (id, call_digest, risk_key, session, upstream, tool, \
             arguments, annotations, source, reason, preview, created_ms, deadline_ms, state) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'pending')",
            params![
                request.id,
                request.call_digest,
                request.risk_key,
                request.session,
                request.upstream,
                request.tool,
                request.arguments.to_string(),
                request.annotations.to_string(),
                request.source,
                request.reason,
                request.preview,
                request.created_ms,
                request.deadline_ms,
            ],
        )?;
        Ok(())
    }

    pub fn pending_approvals(
        &self,
        of_call: Option<(&str, &str)>,
    ) -> Result<Vec<ApprovalRequest>, StoreError> {
        let connection = self.connection();
        let mut statement = connection.prepare(
            "SELECT id, call_digest, risk_key, session, upstream, tool, arguments, annotations, \
             source, reason, preview, created_ms, deadline_ms FROM approvals \
             WHERE state = 'pending' AND deadline_ms > ?1 \
             AND (?2 IS NULL OR (call_digest = ?2 AND risk_key = ?3)) ORDER BY created_ms, id",
        )?;
        let (call_digest, risk_key) = of_call.unzip();
        let rows = statement.query_map(params![now_ms(), call_digest, risk_key], |row| {
            let json_column = |index: usize| -> rusqlite::Result<Value> {
                let text: String = row.get(index)?;
                Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
            };
            Ok(ApprovalRequest {
                id: row.get(0)?,
                call_digest: row.get(1)?,
                risk_key: row.get(2)?,
                session: row.get(3)?,
                upstream: row.get(4)?,
                tool: row.get(5)?,
                arguments: json_column(6)?,
                annotations: json_column(7)?,
                source: row.get(8)?,
                reason: row.get(9)?,
                preview: row.get(10)?,
                created_ms: row.get(11)?,
                deadline_ms: row.get(12)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn decide_approval(
        &self,
        id: &str,
        approve: bool,
        by: &str,
    ) -> Result<Option<String>, StoreError> {
        let tool = self
            .connection()
            .query_row(
                "UPDATE approvals SET state = ?2, decided_by = ?3, decided_ms = ?4 \
                 WHERE id = ?1 AND state = 'pending' AND deadline_ms > ?4 RETURNING tool",
                params![
                    id,
                    if approve { "approved" } else { "denied" },
                    by,
                    now_ms()
                ],
                |row| row.get(0),
            )
            .optional()?;
        Ok(tool)
    }

    pub fn approval_state(&self, id: &str) -> Result<Option<ApprovalState>, StoreError> {
        let now = now_ms();
        let state = self
            .connection()
            .query_row(
                "SELECT state, decided_by, spent_ms IS NOT NULL, deadline_ms FROM approvals \
                 WHERE id = ?1",
                params![id],
                |row| {
                    let state: String = row.get(0)?;
                    Ok(approval_state(
                        &state,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        now,
                    ))
                },
            )
            .optional()?;
        Ok(state)
    }

    pub fn claim_approved(
        &self,
        call_digest: &str,
        risk_key: &str,
    ) -> Result<Option<String>, StoreError> {
        // One statement: of two processes claiming one approval, one gets it.
        let id = self
            .connection()
            .query_row(
                "UPDATE approvals SET spent_ms = ?3 WHERE id = (SELECT id FROM approvals \
                 WHERE call_digest = ?1 AND risk_key = ?2 AND state = 'approved' \
                 AND spent_ms IS NULL AND deadline_ms > ?3 ORDER BY created_ms LIMIT 1) \
                 AND spent_ms IS NULL RETURNING id",
                params![call_digest, risk_key, now_ms()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(id)
    }
}
