//! The approvals page's signed-in browsers in SQLite.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::SqliteStore;
use crate::store::records::{PageSession, StoreError, now_ms};

impl SqliteStore {
    pub fn open_page_session(
        &self,
        key: &str,
        session: &PageSession,
        most: usize,
    ) -> Result<(), StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        transaction.execute(
            "DELETE FROM page_sessions WHERE expires_ms <= ?1",
            params![now_ms()],
        )?;
        transaction.execute(
            "INSERT INTO page_sessions (key, approver, csrf, expires_ms) VALUES (?1, ?2, ?3, ?4)",
            params![key, session.approver, session.csrf, session.expires_ms],
        )?;
        // The sessions that end first go when there are more than `most`.
        transaction.execute(
            "DELETE FROM page_sessions WHERE key IN (SELECT key FROM page_sessions \
             ORDER BY expires_ms DESC LIMIT -1 OFFSET ?1)",
            params![most as i64],
        )?;
        transaction.commit()?;
        Ok(())
    }

    pub fn page_session(&self, key: &str) -> Result<Option<PageSession>, StoreError> {
        let session = self
            .connection()
            .query_row(
                "SELECT approver, csrf, expires_ms FROM page_sessions \
                 WHERE key = ?1 AND expires_ms > ?2",
                params![key, now_ms()],
                |row| {
                    Ok(PageSession {
                        approver: row.get(0)?,
                        csrf: row.get(1)?,
                        expires_ms: row.get(2)?,
                    })
                },
            )
            .optional()?;
        Ok(session)
    }

    pub fn set_page_flash(&self, key: &str, line: &str) -> Result<(), StoreError> {
        self.connection().execute(
            "UPDATE page_sessions SET flash = ?2 WHERE key = ?1",
            params![key, line],
        )?;
        Ok(())
    }

    pub fn take_page_flash(&self, key: &str) -> Result<Option<String>, StoreError> {
        let mut connection = self.connection();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let line: Option<String> = transaction
            .query_row(
                "SELECT flash FROM page_sessions WHERE key = ?1",
                params![key],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        if line.is_some() {
            transaction.execute(
                "UPDATE page_sessions SET flash = NULL WHERE key = ?1",
                params![key],
            )?;
        }
        transaction.commit()?;
        Ok(line)
    }

    pub fn close_page_session(&self, key: &str) -> Result<(), StoreError> {
        self.connection()
            .execute("DELETE FROM page_sessions WHERE key = ?1", params![key])?;
        Ok(())
    }
}
