//! What the store keeps, as both backends read and write it.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// Why the store could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The SQLite file.
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The PostgreSQL server.
    #[error("PostgreSQL: {}", with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The store's location cannot be used.
    #[error("{0}")]
    Invalid(String),
}

/// An error and its causes, which tokio-postgres keeps out of its message
/// (`error connecting to server` alone says not which, nor why).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(source) = cause {
        message.push_str(&format!(": {source}"));
        cause = source.source();
    }
    message
}

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

/// What [`Store::pin`](super::Store::pin) found for a tool definition.
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

/// The lethal trifecta's legs one risk key has so far: the first tool that
/// brought each in. Legs only add: the first writer of a leg keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Risk {
    /// The first tool whose call read private data.
    pub private_data_from: Option<String>,
    /// The first tool whose call brought in untrusted content.
    pub untrusted_content_from: Option<String>,
}

/// A confirmation waiting for a person on the approvals page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApprovalRequest {
    /// Its id (unguessable).
    pub id: String,
    /// The digest of the call it is for (upstream, tool, arguments,
    /// annotations): an approval holds for that call alone.
    pub call_digest: String,
    /// Whose risk the call adds to (the token's subject, or the session).
    pub risk_key: String,
    /// The gateway session that asked.
    pub session: String,
    /// The upstream server.
    pub upstream: String,
    /// The tool's upstream name.
    pub tool: String,
    /// The arguments.
    pub arguments: Value,
    /// The resolved annotations the decision was taken on.
    pub annotations: Value,
    /// Where the annotations came from, and the rule that wants a person.
    pub source: String,
    /// Why a person must confirm.
    pub reason: String,
    /// The call's one-line preview.
    pub preview: String,
    /// When it was asked (ms since the epoch).
    pub created_ms: i64,
    /// After this (ms since the epoch) it can no longer be decided or used.
    pub deadline_ms: i64,
}

/// Where an approval stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalState {
    /// Waiting for a person, before its deadline.
    Pending,
    /// Approved by this person.
    Approved {
        /// Who approved.
        by: String,
        /// Whether the call it approved has been made with it.
        spent: bool,
    },
    /// Denied by this person.
    Denied {
        /// Who denied.
        by: String,
    },
    /// Nobody decided before the deadline.
    Expired,
}

/// One browser signed in to the approvals page, kept in the store so that
/// every gateway process behind one address knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageSession {
    /// Who decides: the token's subject.
    pub approver: String,
    /// The token every form carries, against cross-site requests.
    pub csrf: String,
    /// Milliseconds since the Unix epoch when it ends.
    pub expires_ms: i64,
}

/// The milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

/// An approval's stored columns read back: its state, by whom, whether
/// spent, its deadline.
pub(crate) fn approval_state(
    state: &str,
    by: Option<String>,
    spent: bool,
    deadline_ms: i64,
    now: i64,
) -> ApprovalState {
    match state {
        "approved" => ApprovalState::Approved {
            by: by.unwrap_or_default(),
            spent,
        },
        "denied" => ApprovalState::Denied {
            by: by.unwrap_or_default(),
        },
        _ if deadline_ms <= now => ApprovalState::Expired,
        _ => ApprovalState::Pending,
    }
}

/// One decision of the log, as `recent_decisions` gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedDecision {
    /// Its place in the log.
    pub seq: i64,
    /// When (ms since the epoch).
    pub time_ms: i64,
    /// The gateway session.
    pub session: String,
    /// The upstream server.
    pub upstream: String,
    /// The name the host called.
    pub called_as: String,
    /// `allow`, `confirm` or `deny`.
    pub decision: String,
    /// Why.
    pub reason: String,
    /// What the confirmation came to.
    pub confirmation: Option<String>,
    /// How the call ended.
    pub outcome: String,
}

/// `time_ms` as RFC 3339 UTC with milliseconds (`2026-07-28T09:30:00.250Z`).
pub fn rfc3339(time_ms: i64) -> String {
    let (days, in_day) = (
        time_ms.div_euclid(86_400_000),
        time_ms.rem_euclid(86_400_000),
    );
    // Howard Hinnant's days-to-civil algorithm.
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    let (hours, minutes) = (in_day / 3_600_000, in_day / 60_000 % 60);
    let (seconds, millis) = (in_day / 1000 % 60, in_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{hours:02}:{minutes:02}:{seconds:02}.{millis:03}Z")
}

/// The columns of one `calls` row, read back by either backend.
pub(crate) struct CallRow {
    pub seq: i64,
    pub time_ms: i64,
    /// session, upstream, tool, called_as, arguments_digest, arguments,
    /// annotations, source, decision, reason, confirmation, outcome, claims.
    pub text: [Option<String>; 13],
}

impl CallRow {
    /// The row as the JSON Lines export writes it.
    pub fn to_json(&self) -> Value {
        let json_column = |index: usize| {
            self.text[index]
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null)
        };
        let mut object = serde_json::Map::new();
        object.insert("seq".into(), json!(self.seq));
        object.insert("time".into(), json!(rfc3339(self.time_ms)));
        for (index, name) in [
            (0, "session"),
            (1, "upstream"),
            (2, "tool"),
            (3, "calledAs"),
            (4, "argumentsDigest"),
            (7, "source"),
            (8, "decision"),
            (9, "reason"),
            (10, "confirmation"),
            (11, "outcome"),
        ] {
            object.insert(name.into(), json!(self.text[index]));
        }
        object.insert("arguments".into(), json_column(5));
        object.insert("annotations".into(), json_column(6));
        object.insert("claims".into(), json_column(12));
        Value::Object(object)
    }

    /// The row as a [`LoggedDecision`].
    pub fn to_decision(&self) -> LoggedDecision {
        let text = |index: usize| self.text[index].clone().unwrap_or_default();
        LoggedDecision {
            seq: self.seq,
            time_ms: self.time_ms,
            session: text(0),
            upstream: text(1),
            called_as: text(3),
            decision: text(8),
            reason: text(9),
            confirmation: self.text[10].clone(),
            outcome: text(11),
        }
    }
}

/// The `calls` columns after `seq` and `time_ms`, in [`CallRow`]'s order.
pub(crate) const CALL_COLUMNS: &str = "session, upstream, tool, called_as, arguments_digest, \
     arguments, annotations, source, decision, reason, confirmation, outcome, claims";
