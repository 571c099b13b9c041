//! The store every gateway process shares: the decision log, pinned tool
//! definitions, each risk key's trifecta legs, the 2026-07-28 confirmations
//! asked and not yet answered, and the approvals queue.
//!
//! One enum over the backends rather than a trait object: the set is closed
//! (SQLite embedded, PostgreSQL networked), and an enum's async methods need
//! no boxing of their futures. Both backends keep the same tables and the
//! same semantics, and every write that must be atomic is one transaction or
//! one statement on either.

mod records;
mod sqlite;

use std::path::PathBuf;

pub use records::{
    ApprovalRequest, ApprovalState, CallRecord, LoggedDecision, PinState, Risk, StoreError, now_ms,
    rfc3339,
};
use serde_json::Value;
use sqlite::SqliteStore;

/// Where the store is: a SQLite file, or a PostgreSQL server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreLocation {
    /// A SQLite file (created if need be).
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL (`postgres://` or `postgresql://`).
    Postgres(String),
}

impl StoreLocation {
    /// `postgres://…` or `postgresql://…` is a PostgreSQL server; anything
    /// else a SQLite file's path (`sqlite://` may prefix it).
    pub fn parse(text: &str) -> StoreLocation {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return StoreLocation::Postgres(text.to_owned());
        }
        let path = text.strip_prefix("sqlite://").unwrap_or(text);
        StoreLocation::Sqlite(PathBuf::from(path))
    }

    /// How messages name it (a URL's password left out).
    pub fn describe(&self) -> String {
        match self {
            StoreLocation::Sqlite(path) => path.display().to_string(),
            StoreLocation::Postgres(url) => redact_password(url),
        }
    }
}

/// `url` with the password of its user info, if any, replaced by `***`.
fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) if user_info.contains(':') => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}{tail}")
        }
        _ => url.to_owned(),
    }
}

/// The store, on one of its backends.
pub enum Store {
    /// One SQLite file in WAL mode.
    Sqlite(SqliteStore),
}

impl Store {
    /// Opens the store at `location`, creating its tables on first use.
    pub async fn open(location: &StoreLocation) -> Result<Store, StoreError> {
        match location {
            StoreLocation::Sqlite(path) => Ok(Store::Sqlite(SqliteStore::open(path)?)),
            StoreLocation::Postgres(url) => Err(StoreError::Invalid(format!(
                "{}: PostgreSQL is not supported yet",
                redact_password(url)
            ))),
        }
    }

    /// Commits one call's record and, for a call that ran, the legs it
    /// added to `risk`'s key, in one transaction: a second process sees
    /// both or neither.
    pub async fn record(
        &self,
        record: &CallRecord,
        risk: Option<(&str, &Risk)>,
    ) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(store) => store.record(record, risk),
        }
    }

    /// The legs risk key `key` has so far (none for a key never seen).
    pub async fn risk(&self, key: &str) -> Result<Risk, StoreError> {
        match self {
            Store::Sqlite(store) => store.risk(key),
        }
    }

    /// Commits an event that is not a call: a changed definition, an
    /// override, a restart.
    pub async fn event(&self, upstream: &str, kind: &str, detail: &str) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(store) => store.event(upstream, kind, detail),
        }
    }

    /// Checks `definition` (digest `digest`) of `tool` against the accepted
    /// one, pinning it when the tool has none yet. A changed definition is
    /// kept as pending, for [`accept`](Self::accept).
    pub async fn pin(
        &self,
        upstream: &str,
        tool: &str,
        digest: &str,
        definition: &Value,
    ) -> Result<PinState, StoreError> {
        match self {
            Store::Sqlite(store) => store.pin(upstream, tool, digest, definition),
        }
    }

    /// Accepts the definitions of `tool` seen but not accepted (an
    /// operator's decision); returns how many.
    pub async fn accept(&self, upstream: &str, tool: &str) -> Result<usize, StoreError> {
        match self {
            Store::Sqlite(store) => store.accept(upstream, tool),
        }
    }

    /// The definitions waiting for an operator: upstream, tool, digest.
    pub async fn pending_pins(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        match self {
            Store::Sqlite(store) => store.pending_pins(),
        }
    }

    /// Every call, in order, as JSON objects (the JSON Lines export).
    pub async fn export(&self) -> Result<Vec<Value>, StoreError> {
        match self {
            Store::Sqlite(store) => store.export(),
        }
    }

    /// The latest `limit` calls of the log, newest first.
    pub async fn recent_decisions(&self, limit: usize) -> Result<Vec<LoggedDecision>, StoreError> {
        match self {
            Store::Sqlite(store) => store.recent_decisions(limit),
        }
    }

    /// Keeps a 2026-07-28 confirmation's `requestState`, for the call of
    /// `call_digest`, until `deadline_ms`.
    pub async fn issue_round_trip(
        &self,
        state: &str,
        call_digest: &str,
        deadline_ms: i64,
    ) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(store) => store.issue_round_trip(state, call_digest, deadline_ms),
        }
    }

    /// Spends a `requestState`: the digest of its call, once; `None` when it
    /// was never issued, is spent (by any process) or expired.
    pub async fn spend_round_trip(&self, state: &str) -> Result<Option<String>, StoreError> {
        match self {
            Store::Sqlite(store) => store.spend_round_trip(state),
        }
    }
}
