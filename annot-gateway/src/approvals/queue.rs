//! The calls waiting for a person on the approvals page.
//!
//! A stand-in in this process for the shared store's approval operations,
//! with their names, types and semantics (`request_approval`,
//! `pending_approvals`, `decide_approval`, `approval_state`): once the
//! store's `Store` offers them, its callers switch from this queue to the
//! store and this file goes. A decision is taken once, before the deadline;
//! after it, the request is expired.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::store::{ApprovalRequest, ApprovalState, StoreError, now_ms};

/// The queue, in this process.
#[derive(Default)]
pub struct ApprovalQueue {
    entries: Mutex<BTreeMap<String, Entry>>,
    /// Woken on every change, so a waiting call looks at once.
    changed: Notify,
}

struct Entry {
    request: ApprovalRequest,
    /// Approved or not, and by whom.
    decision: Option<(bool, String)>,
}

impl ApprovalQueue {
    /// Queues a call for a decision; requests past their deadline go.
    pub async fn request_approval(&self, request: &ApprovalRequest) -> Result<(), StoreError> {
        let now = now_ms();
        let mut entries = self.entries.lock().expect("approvals lock");
        entries.retain(|_, entry| entry.request.deadline_ms > now);
        entries.insert(
            request.id.clone(),
            Entry {
                request: request.clone(),
                decision: None,
            },
        );
        drop(entries);
        self.changed.notify_waiters();
        Ok(())
    }

    /// The calls nobody has decided on before their deadline, oldest first.
    pub async fn pending_approvals(&self) -> Result<Vec<ApprovalRequest>, StoreError> {
        let now = now_ms();
        let entries = self.entries.lock().expect("approvals lock");
        let mut pending: Vec<ApprovalRequest> = entries
            .values()
            .filter(|entry| entry.decision.is_none() && entry.request.deadline_ms > now)
            .map(|entry| entry.request.clone())
            .collect();
        pending.sort_by(|one, other| (one.created_ms, &one.id).cmp(&(other.created_ms, &other.id)));
        Ok(pending)
    }

    /// Decides request `id`; `false` when it is unknown, decided or past its
    /// deadline, in which case nothing changes.
    pub async fn decide_approval(
        &self,
        id: &str,
        approve: bool,
        by: &str,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let mut entries = self.entries.lock().expect("approvals lock");
        let Some(entry) = entries.get_mut(id) else {
            return Ok(false);
        };
        if entry.decision.is_some() || entry.request.deadline_ms <= now {
            return Ok(false);
        }
        entry.decision = Some((approve, by.to_owned()));
        drop(entries);
        self.changed.notify_waiters();
        Ok(true)
    }

    /// Where request `id` stands (`None`: no such request).
    pub async fn approval_state(&self, id: &str) -> Result<Option<ApprovalState>, StoreError> {
        let now = now_ms();
        let entries = self.entries.lock().expect("approvals lock");
        Ok(entries.get(id).map(|entry| match &entry.decision {
            Some((true, by)) => ApprovalState::Approved {
                by: by.clone(),
                spent: false,
            },
            Some((false, by)) => ApprovalState::Denied { by: by.clone() },
            None if entry.request.deadline_ms <= now => ApprovalState::Expired,
            None => ApprovalState::Pending,
        }))
    }

    /// Resolves at the next change of the queue; a waiter polls as well,
    /// since a shared store's changes come from other processes too.
    pub fn changed(&self) -> &Notify {
        &self.changed
    }
}
