//! The approvals page's signed-in browsers on PostgreSQL.

use super::PostgresStore;
use crate::store::records::{PageSession, StoreError, now_ms};

impl PostgresStore {
    pub async fn open_page_session(
        &self,
        key: &str,
        session: &PageSession,
        most: usize,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute(
                "DELETE FROM page_sessions WHERE expires_ms <= $1",
                &[&now_ms()],
            )
            .await?;
        transaction
            .execute(
                "INSERT INTO page_sessions (key, approver, csrf, expires_ms) \
                 VALUES ($1, $2, $3, $4)",
                &[&key, &session.approver, &session.csrf, &session.expires_ms],
            )
            .await?;
        // The sessions that end first go when there are more than `most`.
        transaction
            .execute(
                "DELETE FROM page_sessions WHERE key IN (SELECT key FROM page_sessions \
                 ORDER BY expires_ms DESC OFFSET $1)",
                &[&(most as i64)],
            )
            .await?;
        transaction.commit().await?;
        Ok(())
    }

    pub async fn page_session(&self, key: &str) -> Result<Option<PageSession>, StoreError> {
        let row = self
            .client()
            .await?
            .query_opt(
                "SELECT approver, csrf, expires_ms FROM page_sessions \
                 WHERE key = $1 AND expires_ms > $2",
                &[&key, &now_ms()],
            )
            .await?;
        row.map(|row| {
            Ok(PageSession {
                approver: row.try_get(0)?,
                csrf: row.try_get(1)?,
                expires_ms: row.try_get(2)?,
            })
        })
        .transpose()
    }

    pub async fn set_page_flash(&self, key: &str, line: &str) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute(
                "UPDATE page_sessions SET flash = $2 WHERE key = $1",
                &[&key, &line],
            )
            .await?;
        Ok(())
    }

    pub async fn take_page_flash(&self, key: &str) -> Result<Option<String>, StoreError> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        let line: Option<String> = transaction
            .query_opt(
                "SELECT flash FROM page_sessions WHERE key = $1 FOR UPDATE",
                &[&key],
            )
            .await?
            .map(|row| row.try_get(0))
            .transpose()?
            .flatten();
        if line.is_some() {
            transaction
                .execute(
                    "UPDATE page_sessions SET flash = NULL WHERE key = $1",
                    &[&key],
                )
                .await?;
        }
        transaction.commit().await?;
        Ok(line)
    }

    pub async fn close_page_session(&self, key: &str) -> Result<(), StoreError> {
        self.client()
            .await?
            .execute("DELETE FROM page_sessions WHERE key = $1", &[&key])
            .await?;
        Ok(())
    }
}
