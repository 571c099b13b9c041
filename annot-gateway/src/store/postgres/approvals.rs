//! The approvals queue on PostgreSQL.

use serde_json::Value;

use super::PostgresStore;
use crate::store::records::{ApprovalRequest, ApprovalState, StoreError, approval_state, now_ms};

fn json_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

impl PostgresStore {
    pub async fn request_approval(&self, request: &ApprovalRequest) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "INSERT INTO approvals (id, call_digest, risk_key, session, upstream, tool, \
                 arguments, annotations, source, reason, preview, created_ms, deadline_ms, \
                 state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, \
                 'pending')",
                &[
                    &request.id,
                    &request.call_digest,
                    &request.risk_key,
                    &request.session,
                    &request.upstream,
                    &request.tool,
                    &request.arguments.to_string(),
                    &request.annotations.to_string(),
                    &request.source,
                    &request.reason,
                    &request.preview,
                    &request.created_ms,
                    &request.deadline_ms,
                ],
            )
            .await?;
        Ok(())
    }

    pub async fn pending_approvals(
        &self,
        of_call: Option<(&str, &str)>,
    ) -> Result<Vec<ApprovalRequest>, StoreError> {
        let (call_digest, risk_key) = of_call.unzip();
        let rows = self
            .client()
            .await?
            .query(
                "SELECT id, call_digest, risk_key, session, upstream, tool, arguments, \
                 annotations, source, reason, preview, created_ms, deadline_ms FROM approvals \
                 WHERE state = 'pending' AND deadline_ms > $1 \
                 AND ($2::TEXT IS NULL OR (call_digest = $2 AND risk_key = $3)) \
                 ORDER BY created_ms, id",
                &[&now_ms(), &call_digest, &risk_key],
            )
            .await?;
        rows.iter()
            .map(|row| {
                Ok(ApprovalRequest {
                    id: row.try_get(0)?,
                    call_digest: row.try_get(1)?,
                    risk_key: row.try_get(2)?,
                    session: row.try_get(3)?,
                    upstream: row.try_get(4)?,
                    tool: row.try_get(5)?,
                    arguments: json_text(row.try_get(6)?),
                    annotations: json_text(row.try_get(7)?),
                    source: row.try_get(8)?,
                    reason: row.try_get(9)?,
                    preview: row.try_get(10)?,
                    created_ms: row.try_get(11)?,
                    deadline_ms: row.try_get(12)?,
                })
            })
            .collect()
    }

    pub async fn decide_approval(
        &self,
        id: &str,
        approve: bool,
        by: &str,
    ) -> Result<Option<String>, StoreError> {
        let state = if approve { "approved" } else { "denied" };
        let row = self
            .client()
            .await?
            .query_opt(
                "UPDATE approvals SET state = $2, decided_by = $3, decided_ms = $4 \
                 WHERE id = $1 AND state = 'pending' AND deadline_ms > $4 RETURNING tool",
                &[&id, &state, &by, &now_ms()],
            )
            .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }

    pub async fn approval_state(&self, id: &str) -> Result<Option<ApprovalState>, StoreError> {
        let now = now_ms();
        let row = self
            .client()
            .await?
            .query_opt(
                "SELECT state, decided_by, spent_ms IS NOT NULL, deadline_ms FROM approvals \
                 WHERE id = $1",
                &[&id],
            )
            .await?;
        row.map(|row| {
            let state: String = row.try_get(0)?;
            Ok(approval_state(
                &state,
                row.try_get(1)?,
                row.try_get(2)?,
                row.try_get(3)?,
                now,
            ))
        })
        .transpose()
    }

    pub async fn claim_approved(
        &self,
        call_digest: &str,
        risk_key: &str,
    ) -> Result<Option<String>, StoreError> {
        // The row is locked by the first claimer; a second one skips it, and
        // the outer `spent_ms IS NULL` is checked again on the row as
        // committed, so one approval is spent once.
        let row = self
            .client()
            .await?
            .query_opt(
                "UPDATE approvals SET spent_ms = $3 WHERE id = (SELECT id FROM approvals \
                 WHERE call_digest = $1 AND risk_key = $2 AND state = 'approved' \
                 AND spent_ms IS NULL AND deadline_ms > $3 ORDER BY created_ms LIMIT 1 \
                 FOR UPDATE SKIP LOCKED) AND spent_ms IS NULL RETURNING id",
                &[&call_digest, &risk_key, &now_ms()],
            )
            .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }
}
