//! The calls waiting for a person on the approvals page, and the decisions
//! taken there.
//!
//! This queue lives in the process, behind the method names of the shared
//! store's approval operations (`request_approval`, `pending_approvals`,
//! `decide_approval`, `approval_state`), so that moving
//! it into the store changes where it is kept, not its callers. A decision
//! is taken once: the first of an approver, a denier or the timeout wins.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::Notify;

use crate::log::LogError;

/// One call waiting for a decision.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ApprovalRequest {
    /// Unguessable: it names the call in the page's forms.
    pub id: String,
    /// The digest of the call (upstream, tool, arguments, annotations) an
    /// approval is bound to.
    pub digest: String,
    /// The gateway session the call came in.
    pub session: String,
    /// The caller's token subject, when tokens are checked.
    pub requested_by: Option<String>,
    /// The upstream's name.
    pub upstream: String,
    /// The tool, as the host called it.
    pub tool: String,
    /// The call's arguments (untrusted text).
    pub arguments: Value,
    /// The resolved annotations (wire names, defaults applied).
    pub annotations: Value,
    /// Where the annotations came from.
    pub source: String,
    /// Why the policy wants a person (the verdict and its class).
    pub reason: String,
    /// The display template's preview of the call, when there is one.
    pub preview: Option<String>,
    /// When it was queued, in milliseconds since the epoch.
    pub requested_ms: i64,
    /// When it is refused if nobody decides.
    pub expires_ms: i64,
}

/// Where a request stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalState {
    /// Nobody has decided yet.
    Pending,
    /// Approved, by this approver.
    Approved(String),
    /// Denied, by this approver (or by the timeout).
    Denied(String),
    /// No such request.
    Unknown,
}

/// The queue, in this process.
#[derive(Default)]
pub struct ApprovalQueue {
    entries: Mutex<BTreeMap<String, Entry>>,
    /// Woken on every change, so a waiting call looks at once.
    changed: Notify,
}

struct Entry {
    request: ApprovalRequest,
    decision: Option<(bool, String, i64)>,
}

/// Decided requests kept; older ones are forgotten (the decision log keeps
/// every call, with who decided).
const KEPT_DECISIONS: usize = 200;

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

impl ApprovalQueue {
    /// Queues a call for a decision.
    pub fn request_approval(&self, request: &ApprovalRequest) -> Result<(), LogError> {
        let mut entries = self.entries.lock().expect("approvals lock");
        entries.insert(
            request.id.clone(),
            Entry {
                request: request.clone(),
                decision: None,
            },
        );
        let decided = entries
            .values()
            .filter(|entry| entry.decision.is_some())
            .count();
        if decided > KEPT_DECISIONS {
            let oldest: Vec<String> = entries
                .iter()
                .filter(|(_, entry)| entry.decision.is_some())
                .take(decided - KEPT_DECISIONS)
                .map(|(id, _)| id.clone())
                .collect();
            for id in oldest {
                entries.remove(&id);
            }
        }
        drop(entries);
        self.changed.notify_waiters();
        Ok(())
    }

    /// The calls nobody has decided on and whose time has not run out,
    /// oldest first.
    pub fn pending_approvals(&self) -> Result<Vec<ApprovalRequest>, LogError> {
        let now = now_ms();
        let entries = self.entries.lock().expect("approvals lock");
        let mut pending: Vec<ApprovalRequest> = entries
            .values()
            .filter(|entry| entry.decision.is_none() && entry.request.expires_ms > now)
            .map(|entry| entry.request.clone())
            .collect();
        pending.sort_by_key(|request| request.requested_ms);
        Ok(pending)
    }

    /// Decides request `id`; `false` when it was already decided (or is
    /// unknown), in which case nothing changes.
    pub fn decide_approval(&self, id: &str, approve: bool, by: &str) -> Result<bool, LogError> {
        let mut entries = self.entries.lock().expect("approvals lock");
        let Some(entry) = entries.get_mut(id) else {
            return Ok(false);
        };
        if entry.decision.is_some() {
            return Ok(false);
        }
        entry.decision = Some((approve, by.to_owned(), now_ms()));
        drop(entries);
        self.changed.notify_waiters();
        Ok(true)
    }

    /// Where request `id` stands.
    pub fn approval_state(&self, id: &str) -> Result<ApprovalState, LogError> {
        let entries = self.entries.lock().expect("approvals lock");
        Ok(match entries.get(id).map(|entry| &entry.decision) {
            None => ApprovalState::Unknown,
            Some(None) => ApprovalState::Pending,
            Some(Some((true, by, _))) => ApprovalState::Approved(by.clone()),
            Some(Some((false, by, _))) => ApprovalState::Denied(by.clone()),
        })
    }

    /// Resolves at the next change of the queue; a waiter polls as well,
    /// since a shared store's changes come from other processes too.
    pub fn changed(&self) -> &Notify {
        &self.changed
    }
}
