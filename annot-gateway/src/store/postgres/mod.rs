//! The store on a PostgreSQL server: the networked backend, for gateway
//! processes on several machines (or a team that already runs one).
//!
//! The same tables as the SQLite backend, created on first open, and the
//! same semantics: a call's record and its risk in one transaction, a pin's
//! check and its event in one transaction serialized per tool by an advisory
//! lock, a `requestState` or an approval spent by one statement (of two
//! processes, one gets it). A small pool of connections: a connection the
//! server dropped is replaced on its next use, so a restarted server is used
//! again without restarting the gateway.

mod approvals;
mod page_sessions;

use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{
    GenericClient, Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime,
};
use serde_json::{Value, json};
use tokio_postgres::{NoTls, Row};

use super::records::{
    CALL_COLUMNS, CallRecord, CallRow, LoggedDecision, PinState, Risk, StoreError, now_ms,
};

/// The PostgreSQL store.
pub struct PostgresStore {
    pool: Pool,
}

/// Connections per gateway process: calls wait for one rather than open
/// more (a server's connection slots are shared by every process).
const POOL_SIZE: usize = 4;

/// How long a call waits for a connection, or to open one, before the
/// store counts as down and the call is refused.
const CONNECTION_PATIENCE: Duration = Duration::from_secs(10);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS calls (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    time_ms BIGINT NOT NULL,
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
    accepted BOOLEAN NOT NULL,
    first_seen_ms BIGINT NOT NULL,
    PRIMARY KEY (upstream, tool, digest)
);
CREATE TABLE IF NOT EXISTS events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    time_ms BIGINT NOT NULL,
    upstream TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS risk (
    risk_key TEXT PRIMARY KEY,
    private_data_from TEXT,
    untrusted_content_from TEXT,
    updated_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS round_trips (
    state TEXT PRIMARY KEY,
    call_digest TEXT NOT NULL,
    deadline_ms BIGINT NOT NULL
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
    created_ms BIGINT NOT NULL,
    deadline_ms BIGINT NOT NULL,
    state TEXT NOT NULL,
    decided_by TEXT,
    decided_ms BIGINT,
    spent_ms BIGINT
);
CREATE INDEX IF NOT EXISTS approvals_by_call ON approvals (call_digest, risk_key);
CREATE TABLE IF NOT EXISTS page_sessions (
    key TEXT PRIMARY KEY,
    approver TEXT NOT NULL,
    csrf TEXT NOT NULL,
    expires_ms BIGINT NOT NULL,
    flash TEXT
);
";

/// An arbitrary constant naming the advisory lock under which the schema is
/// created (two processes creating one table at once would collide).
const SCHEMA_LOCK: i64 = 0x616e_6e6f_7400_0001;

async fn insert_event(
    client: &impl GenericClient,
    upstream: &str,
    kind: &str,
    detail: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO events (time_ms, upstream, kind, detail) VALUES ($1, $2, $3, $4)",
            &[&now_ms(), &upstream, &kind, &detail],
        )
        .await?;
    Ok(())
}

fn call_row(row: &Row) -> Result<CallRow, StoreError> {
    let mut text: [Option<String>; 13] = Default::default();
    for (index, column) in text.iter_mut().enumerate() {
        *column = row.try_get(index + 2)?;
    }
    Ok(CallRow {
        seq: row.try_get(0)?,
        time_ms: row.try_get(1)?,
        text,
    })
}

impl PostgresStore {
    /// Connects to the server `url` names and creates the tables it lacks.
    pub async fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let mut config = tokio_postgres::Config::from_str(url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECTION_PATIENCE);
        }
        if config.get_application_name().is_none() {
            config.application_name("annot-gateway");
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(CONNECTION_PATIENCE))
            .create_timeout(Some(CONNECTION_PATIENCE))
            .build()
            .map_err(|error| StoreError::Invalid(format!("cannot make the pool: {error}")))?;
        let store = PostgresStore { pool };
        let mut client = store.client().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])
            .await?;
        transaction.batch_execute(SCHEMA).await?;
        transaction.commit().await?;
        Ok(store)
    }

    pub(super) async fn client(&self) -> Result<Object, StoreError> {
        self.pool.get().await.map_err(|error| match error {
            deadpool_postgres::PoolError::Backend(error) => StoreError::Postgres(error),
            other => StoreError::Invalid(format!("no connection to the server: {other}")),
        })
    }

    pub async fn record(
        &self,
        record: &CallRecord,
        risk: Option<(&str, &Risk)>,
    ) -> Result<(), StoreError> {
        let text = |value: &Option<Value>| value.as_ref().map(Value::to_string);
        let (arguments, claims) = (text(&record.arguments), text(&record.claims));
        let annotations = record.annotations.to_string();
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute(
                &format!(
                    "INSERT INTO calls (time_ms, {CALL_COLUMNS}) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
                ),
                &[
                    &now_ms(),
                    &record.session,
                    &record.upstream,
                    &record.tool,
                    &record.called_as,
                    &record.arguments_digest,
                    &arguments,
                    &annotations,
                    &record.source,
                    &record.decision,
                    &record.reason,
                    &record.confirmation,
                    &record.outcome,
                    &claims,
                ],
            )
            .await?;
        if let Some((key, risk)) = risk {
            transaction
                .execute(
                    "INSERT INTO risk (risk_key, private_data_from, untrusted_content_from, \
                     updated_ms) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (risk_key) DO UPDATE SET \
                     private_data_from = \
                     COALESCE(risk.private_data_from, EXCLUDED.private_data_from), \
                     untrusted_content_from = \
                     COALESCE(risk.untrusted_content_from, EXCLUDED.untrusted_content_from), \
                     updated_ms = EXCLUDED.updated_ms",
                    &[
                        &key,
                        &risk.private_data_from,
                        &risk.untrusted_content_from,
                        &now_ms(),
                    ],
                )
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }

    pub async fn risk(&self, key: &str) -> Result<Risk, StoreError> {
        let row = self
            .client()
            .await?
            .query_opt(
                "SELECT private_data_from, untrusted_content_from FROM risk WHERE risk_key = $1",
                &[&key],
            )
            .await?;
        match row {
            Some(row) => Ok(Risk {
                private_data_from: row.try_get(0)?,
                untrusted_content_from: row.try_get(1)?,
            }),
            None => Ok(Risk::default()),
        }
    }

    pub async fn event(&self, upstream: &str, kind: &str, detail: &str) -> Result<(), StoreError> {
        insert_event(&self.client().await?, upstream, kind, detail).await
    }

    pub async fn pin(
        &self,
        upstream: &str,
        tool: &str,
        digest: &str,
        definition: &Value,
    ) -> Result<PinState, StoreError> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        // One process at a time checks and pins one tool, as SQLite's
        // IMMEDIATE transaction has it.
        transaction
            .execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 0))",
                &[&upstream, &tool],
            )
            .await?;
        let accepted: Option<String> = transaction
            .query_opt(
                "SELECT digest FROM pins WHERE upstream = $1 AND tool = $2 AND accepted \
                 ORDER BY first_seen_ms DESC LIMIT 1",
                &[&upstream, &tool],
            )
            .await?
            .map(|row| row.try_get(0))
            .transpose()?;
        let state = match accepted {
            Some(pinned) if pinned == digest => return Ok(PinState::Pinned),
            Some(pinned) => PinState::Changed { pinned },
            None => PinState::Pinned,
        };
        let newly = transaction
            .execute(
                "INSERT INTO pins (upstream, tool, digest, definition, accepted, first_seen_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                &[
                    &upstream,
                    &tool,
                    &digest,
                    &definition.to_string(),
                    &(state == PinState::Pinned),
                    &now_ms(),
                ],
            )
            .await?;
        if let (1.., PinState::Changed { pinned }) = (newly, &state) {
            let detail = json!({"tool": tool, "pinned": pinned, "seen": digest});
            insert_event(
                &transaction,
                upstream,
                "definition-changed",
                &detail.to_string(),
            )
            .await?;
        }
        transaction.commit().await?;
        Ok(state)
    }

    pub async fn accept(&self, upstream: &str, tool: &str) -> Result<usize, StoreError> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        let accepted = transaction
            .execute(
                "UPDATE pins SET accepted = TRUE, first_seen_ms = $3 \
                 WHERE upstream = $1 AND tool = $2 AND NOT accepted",
                &[&upstream, &tool, &now_ms()],
            )
            .await?;
        if accepted > 0 {
            let detail = json!({"tool": tool}).to_string();
            insert_event(&transaction, upstream, "definition-accepted", &detail).await?;
        }
        transaction.commit().await?;
        Ok(accepted as usize)
    }

    pub async fn pending_pins(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        let rows = self
            .client()
            .await?
            .query(
                "SELECT upstream, tool, digest FROM pins WHERE NOT accepted ORDER BY tool",
                &[],
            )
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
            .collect()
    }

    pub async fn export(&self) -> Result<Vec<Value>, StoreError> {
        let rows = self
            .client()
            .await?
            .query(
                &format!("SELECT seq, time_ms, {CALL_COLUMNS} FROM calls ORDER BY seq"),
                &[],
            )
            .await?;
        rows.iter()
            .map(|row| Ok(call_row(row)?.to_json()))
            .collect()
    }

    pub async fn recent_decisions(&self, limit: usize) -> Result<Vec<LoggedDecision>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .client()
            .await?
            .query(
                &format!(
                    "SELECT seq, time_ms, {CALL_COLUMNS} FROM calls ORDER BY seq DESC LIMIT $1"
                ),
                &[&limit],
            )
            .await?;
        rows.iter()
            .map(|row| Ok(call_row(row)?.to_decision()))
            .collect()
    }

    pub async fn issue_round_trip(
        &self,
        state: &str,
        call_digest: &str,
        deadline_ms: i64,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        // Spent or expired states go as new ones come.
        client
            .execute(
                "DELETE FROM round_trips WHERE deadline_ms <= $1",
                &[&now_ms()],
            )
            .await?;
        client
            .execute(
                "INSERT INTO round_trips (state, call_digest, deadline_ms) VALUES ($1, $2, $3)",
                &[&state, &call_digest, &deadline_ms],
            )
            .await?;
        Ok(())
    }

    pub async fn spend_round_trip(&self, state: &str) -> Result<Option<String>, StoreError> {
        let row = self
            .client()
            .await?
            .query_opt(
                "DELETE FROM round_trips WHERE state = $1 AND deadline_ms > $2 \
                 RETURNING call_digest",
                &[&state, &now_ms()],
            )
            .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }
}
