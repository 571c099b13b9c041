//! The store every gateway process shares: the decision log, pinned tool
//! definitions, each risk key's trifecta legs, the 2026-07-28 confirmations
//! asked and not yet answered, and the approvals queue.
//!
//! One enum over the backends rather than a trait object: the set is closed
//! (SQLite embedded, PostgreSQL networked), and an enum's async methods need
//! no boxing of their futures. Both backends keep the same tables and the
//! same semantics, and every write that must be atomic is one transaction or
//! one statement on either.

mod postgres;
mod records;
mod sqlite;

use std::path::PathBuf;

use postgres::PostgresStore;
pub use records::{
    ApprovalRequest, ApprovalState, CallRecord, LoggedDecision, PageSession, PinState, Risk,
    StoreError, now_ms, rfc3339,
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
    /// `postgres://…` or `postgresql://…` is a PostgreSQL server, and so is
    /// libpq's key-value form when it starts with `host=` (`host=/run/postgresql
    /// dbname=annot`); anything else a SQLite file's path (`sqlite://` may
    /// prefix it).
    pub fn parse(text: &str) -> StoreLocation {
        let postgres = ["postgres://", "postgresql://", "host="];
        if postgres.iter().any(|prefix| text.starts_with(prefix)) {
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

/// `url` with the password of its user info (or a key-value string's
/// `password=`), if any, replaced by `***`.
fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        let pairs = url.split_whitespace().map(|pair| {
            if pair.starts_with("password=") {
                "password=***"
            } else {
                pair
            }
        });
        return pairs.collect::<Vec<_>>().join(" ");
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
    /// A PostgreSQL server.
    Postgres(PostgresStore),
}

/// Calls `method` on the backend: SQLite's is synchronous (a local file, a
/// short lock), PostgreSQL's is awaited.
macro_rules! on_backend {
    ($store:expr, $method:ident($($argument:expr),*)) => {
        match $store {
            Store::Sqlite(store) => store.$method($($argument),*),
            Store::Postgres(store) => store.$method($($argument),*).await,
        }
    };
}

impl Store {
    /// Opens the store at `location`, creating its tables on first use.
    pub async fn open(location: &StoreLocation) -> Result<Store, StoreError> {
        match location {
            StoreLocation::Sqlite(path) => Ok(Store::Sqlite(SqliteStore::open(path)?)),
            StoreLocation::Postgres(url) => Ok(Store::Postgres(PostgresStore::open(url).await?)),
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
        on_backend!(self, record(record, risk))
    }

    /// The legs risk key `key` has so far (none for a key never seen).
    pub async fn risk(&self, key: &str) -> Result<Risk, StoreError> {
        on_backend!(self, risk(key))
    }

    /// Commits an event that is not a call: a changed definition, an
    /// override, a restart.
    pub async fn event(&self, upstream: &str, kind: &str, detail: &str) -> Result<(), StoreError> {
        on_backend!(self, event(upstream, kind, detail))
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
        on_backend!(self, pin(upstream, tool, digest, definition))
    }

    /// Accepts the definitions of `tool` seen but not accepted (an
    /// operator's decision); returns how many.
    pub async fn accept(&self, upstream: &str, tool: &str) -> Result<usize, StoreError> {
        on_backend!(self, accept(upstream, tool))
    }

    /// The definitions waiting for an operator: upstream, tool, digest.
    pub async fn pending_pins(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        on_backend!(self, pending_pins())
    }

    /// Every call, in order, as JSON objects (the JSON Lines export).
    pub async fn export(&self) -> Result<Vec<Value>, StoreError> {
        on_backend!(self, export())
    }

    /// The latest `limit` calls of the log, newest first.
    pub async fn recent_decisions(&self, limit: usize) -> Result<Vec<LoggedDecision>, StoreError> {
        on_backend!(self, recent_decisions(limit))
    }

    /// Keeps a 2026-07-28 confirmation's `requestState`, for the call of
    /// `call_digest`, until `deadline_ms`.
    pub async fn issue_round_trip(
        &self,
        state: &str,
        call_digest: &str,
        deadline_ms: i64,
    ) -> Result<(), StoreError> {
        on_backend!(self, issue_round_trip(state, call_digest, deadline_ms))
    }

    /// Spends a `requestState`: the digest of its call, once; `None` when it
    /// was never issued, is spent (by any process) or expired.
    pub async fn spend_round_trip(&self, state: &str) -> Result<Option<String>, StoreError> {
        on_backend!(self, spend_round_trip(state))
    }

    /// Puts a confirmation on the approvals queue.
    pub async fn request_approval(&self, request: &ApprovalRequest) -> Result<(), StoreError> {
        on_backend!(self, request_approval(request))
    }

    /// The approvals waiting for a person (before their deadline), oldest
    /// first.
    pub async fn pending_approvals(&self) -> Result<Vec<ApprovalRequest>, StoreError> {
        on_backend!(self, pending_approvals(None))
    }

    /// The oldest approval waiting for the call of `call_digest` by
    /// `risk_key` (before its deadline), if any.
    pub async fn pending_approval_for(
        &self,
        call_digest: &str,
        risk_key: &str,
    ) -> Result<Option<ApprovalRequest>, StoreError> {
        let pending = on_backend!(self, pending_approvals(Some((call_digest, risk_key))))?;
        Ok(pending.into_iter().next())
    }

    /// Approves or denies approval `id` as `by`: the tool of the call, when
    /// it was pending and before its deadline and is now decided (of two
    /// deciders, one); `None` otherwise.
    pub async fn decide_approval(
        &self,
        id: &str,
        approve: bool,
        by: &str,
    ) -> Result<Option<String>, StoreError> {
        on_backend!(self, decide_approval(id, approve, by))
    }

    /// Where approval `id` stands; `None` for an id never asked.
    pub async fn approval_state(&self, id: &str) -> Result<Option<ApprovalState>, StoreError> {
        on_backend!(self, approval_state(id))
    }

    /// Spends an approved, unspent approval of the call of `call_digest` for
    /// `risk_key`, before its deadline: its id, once (of two processes, one
    /// gets it). This is how a confirmation outlives the process that asked.
    pub async fn claim_approved(
        &self,
        call_digest: &str,
        risk_key: &str,
    ) -> Result<Option<String>, StoreError> {
        on_backend!(self, claim_approved(call_digest, risk_key))
    }

    /// Keeps a browser signed in to the approvals page under `key` (a digest
    /// of its cookie, never the cookie itself), dropping the sessions that
    /// ended and, past `most`, those that end first.
    pub async fn open_page_session(
        &self,
        key: &str,
        session: &PageSession,
        most: usize,
    ) -> Result<(), StoreError> {
        on_backend!(self, open_page_session(key, session, most))
    }

    /// The page session under `key`, while it lasts.
    pub async fn page_session(&self, key: &str) -> Result<Option<PageSession>, StoreError> {
        on_backend!(self, page_session(key))
    }

    /// Sets the line the session's next page shows once.
    pub async fn set_page_flash(&self, key: &str, line: &str) -> Result<(), StoreError> {
        on_backend!(self, set_page_flash(key, line))
    }

    /// Takes the line the session's page shows once.
    pub async fn take_page_flash(&self, key: &str) -> Result<Option<String>, StoreError> {
        on_backend!(self, take_page_flash(key))
    }

    /// Signs the session under `key` out, on every process.
    pub async fn close_page_session(&self, key: &str) -> Result<(), StoreError> {
        on_backend!(self, close_page_session(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_a_url_a_key_value_string_or_a_path() {
        let url = "postgresql://annot:secret@db:5432/annot?sslmode=disable";
        assert_eq!(
            StoreLocation::parse(url),
            StoreLocation::Postgres(url.into())
        );
        let socket = "host=/run/postgresql dbname=annot";
        assert_eq!(
            StoreLocation::parse(socket),
            StoreLocation::Postgres(socket.into())
        );
        assert_eq!(
            StoreLocation::parse("sqlite://state/log.sqlite3"),
            StoreLocation::Sqlite("state/log.sqlite3".into())
        );
        assert_eq!(
            StoreLocation::parse("log.sqlite3"),
            StoreLocation::Sqlite("log.sqlite3".into())
        );
    }

    #[test]
    fn a_described_url_leaves_its_password_out() {
        let described = StoreLocation::parse("postgres://annot:secret@db/annot").describe();
        assert_eq!(described, "postgres://annot:***@db/annot");
        let described = StoreLocation::parse("postgres://annot@db/annot").describe();
        assert_eq!(described, "postgres://annot@db/annot");
        let described = StoreLocation::parse("host=db password=secret dbname=annot").describe();
        assert_eq!(described, "host=db password=*** dbname=annot");
    }
}
