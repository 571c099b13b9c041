//! The decision log and the pinned tool definitions: one SQLite file in WAL
//! mode.
//!
//! A call's record is committed before its answer is written to the host, so
//! a gateway killed at any moment has logged every call the host got an
//! answer for. WAL with `synchronous = NORMAL` keeps every commit through a
//! killed process (not through a power cut, which would need `FULL`).

use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Map, Value, json};

/// Why the log could not be opened or written.
pub type LogError = rusqlite::Error;

/// One call as the log keeps it.
#[derive(Clone, Debug, Default)]
pub struct CallRecord {
    /// The host session.
    pub session: String,
    /// The upstream server.
    pub upstream: String,
    /// The tool's upstream name.
    pub tool: String,
    /// The name the host called (a per-action tool's name, or the tool's).
    pub called_as: String,
    /// `sha256:` digest of the arguments' canonical JSON (RFC 8785).
    pub arguments_digest: String,
    /// The arguments, unless the log is told not to keep them.
    pub arguments: Option<Value>,
    /// The annotations the decision was taken on (defaults applied).
    pub annotations: Value,
    /// Where they came from.
    pub source: String,
    /// `allow`, `confirm` or `deny`.
    pub decision: String,
    /// Why, as the host was told.
    pub reason: String,
    /// What the confirmation came to, when one was needed.
    pub confirmation: Option<String>,
    /// `ok`, `tool-error`, `rpc-error`, `refused`, `upstream-failed` or
    /// `cancelled` (by the host, while upstream).
    pub outcome: String,
    /// The result's trust claims, if any.
    pub claims: Option<Value>,
}

/// What [`Log::pin`] found for a tool definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PinState {
    /// The definition is the pinned one (or was just pinned, being the first).
    Pinned,
    /// It differs from the pinned one and is withheld until an operator
    /// accepts it.
    Changed {
        /// The digest of the pinned definition.
        pinned: String,
    },
}

/// The log file.
pub struct Log {
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
";

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

/// One event row, on a connection the caller holds (a pin's check and its
/// event under one lock).
fn insert_event(
    connection: &Connection,
    upstream: &str,
    kind: &str,
    detail: &str,
) -> Result<(), LogError> {
    connection.execute(
        "INSERT INTO events (time_ms, upstream, kind, detail) VALUES (?1, ?2, ?3, ?4)",
        params![now_ms(), upstream, kind, detail],
    )?;
    Ok(())
}

impl Log {
    /// Opens (or creates) the log at `path`.
    pub fn open(path: &Path) -> Result<Log, LogError> {
        let connection = Connection::open(path)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        connection.execute_batch(SCHEMA)?;
        Ok(Log {
            connection: Mutex::new(connection),
        })
    }

    /// Commits one call's record.
    pub fn record(&self, record: &CallRecord) -> Result<(), LogError> {
        let text = |value: &Option<Value>| value.as_ref().map(Value::to_string);
        self.connection.lock().expect("log lock").execute(
            "INSERT INTO calls (time_ms, session, upstream, tool, called_as, arguments_digest, \
             arguments, annotations, source, decision, reason, confirmation, outcome, claims) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
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
        Ok(())
    }

    /// Commits an event that is not a call: a changed definition, an
    /// override, a restart.
    pub fn event(&self, upstream: &str, kind: &str, detail: &str) -> Result<(), LogError> {
        insert_event(
            &self.connection.lock().expect("log lock"),
            upstream,
            kind,
            detail,
        )
    }

    /// Checks `definition` (digest `digest`) of `tool` against the accepted
    /// one, pinning it when the tool has none yet. A changed definition is
    /// kept as pending, for [`accept`](Self::accept).
    pub fn pin(
        &self,
        upstream: &str,
        tool: &str,
        digest: &str,
        definition: &Value,
    ) -> Result<PinState, LogError> {
        let connection = self.connection.lock().expect("log lock");
        let accepted: Option<String> = connection
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
        let newly = connection.execute(
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
                &connection,
                upstream,
                "definition-changed",
                &detail.to_string(),
            )?;
        }
        Ok(state)
    }

    /// Accepts the definitions of `tool` seen but not accepted (an
    /// operator's decision); returns how many.
    pub fn accept(&self, upstream: &str, tool: &str) -> Result<usize, LogError> {
        let connection = self.connection.lock().expect("log lock");
        let accepted = connection.execute(
            "UPDATE pins SET accepted = 1, first_seen_ms = ?3 \
             WHERE upstream = ?1 AND tool = ?2 AND accepted = 0",
            params![upstream, tool, now_ms()],
        )?;
        if accepted > 0 {
            let detail = json!({"tool": tool}).to_string();
            insert_event(&connection, upstream, "definition-accepted", &detail)?;
        }
        Ok(accepted)
    }

    /// The definitions waiting for an operator: upstream, tool, digest.
    pub fn pending_pins(&self) -> Result<Vec<(String, String, String)>, LogError> {
        let connection = self.connection.lock().expect("log lock");
        let mut statement = connection
            .prepare("SELECT upstream, tool, digest FROM pins WHERE accepted = 0 ORDER BY tool")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect()
    }

    /// Every call, in order, as JSON objects (the JSON Lines export).
    pub fn export(&self) -> Result<Vec<Value>, LogError> {
        let connection = self.connection.lock().expect("log lock");
        let mut statement = connection.prepare(
            "SELECT seq, strftime('%Y-%m-%dT%H:%M:%fZ', time_ms / 1000.0, 'unixepoch'), session, \
             upstream, tool, called_as, arguments_digest, arguments, annotations, source, \
             decision, reason, confirmation, outcome, claims FROM calls ORDER BY seq",
        )?;
        let rows = statement.query_map([], |row| {
            let json_column = |index: usize| -> rusqlite::Result<Value> {
                let text: Option<String> = row.get(index)?;
                Ok(text
                    .and_then(|text| serde_json::from_str(&text).ok())
                    .unwrap_or(Value::Null))
            };
            let mut object = Map::new();
            object.insert("seq".into(), json!(row.get::<_, i64>(0)?));
            for (index, name) in [
                (1, "time"),
                (2, "session"),
                (3, "upstream"),
                (4, "tool"),
                (5, "calledAs"),
                (6, "argumentsDigest"),
                (9, "source"),
                (10, "decision"),
                (11, "reason"),
                (12, "confirmation"),
                (13, "outcome"),
            ] {
                object.insert(name.into(), json!(row.get::<_, Option<String>>(index)?));
            }
            object.insert("arguments".into(), json_column(7)?);
            object.insert("annotations".into(), json_column(8)?);
            object.insert("claims".into(), json_column(14)?);
            Ok(Value::Object(object))
        })?;
        rows.collect()
    }

    /// The latest calls, newest first: when, the tool as called, the
    /// decision, the confirmation (who approved on the page) and the outcome.
    pub fn recent_decisions(&self, limit: usize) -> Result<Vec<Value>, LogError> {
        let connection = self.connection.lock().expect("log lock");
        let mut statement = connection.prepare(
            "SELECT strftime('%Y-%m-%d %H:%M:%S', time_ms / 1000.0, 'unixepoch'), upstream, \
             called_as, decision, confirmation, outcome FROM calls ORDER BY seq DESC LIMIT ?1",
        )?;
        let rows = statement.query_map(params![limit as i64], |row| {
            Ok(json!({
                "time": row.get::<_, String>(0)?,
                "upstream": row.get::<_, String>(1)?,
                "tool": row.get::<_, String>(2)?,
                "decision": row.get::<_, String>(3)?,
                "confirmation": row.get::<_, Option<String>>(4)?,
                "outcome": row.get::<_, String>(5)?,
            }))
        })?;
        rows.collect()
    }
}
