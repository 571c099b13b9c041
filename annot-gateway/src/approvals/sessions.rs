//! Who is signed in to the approvals page. A browser cannot attach a bearer
//! token to a form, so the token is checked once, at sign-in, and the
//! browser gets a session cookie (`HttpOnly`, `SameSite=Strict`, path
//! `/approvals`) that lasts no longer than the token. Each session has its
//! own token against cross-site requests, sent back in every form.
//!
//! Sessions live in the store, as the approvals themselves do, so a browser
//! signed in through one gateway process is signed in on every process that
//! shares the store (several behind one address). The store keeps a digest
//! of the cookie, not the cookie: reading the store does not sign anyone in.

use axum::http::{HeaderMap, header};
use serde_json::Value;

use crate::digest;
use crate::store::{PageSession, Store, StoreError, now_ms};

/// The session cookie's name.
pub const COOKIE: &str = "annot-approvals";

/// The longest a sign-in lasts, whatever the token's expiry, in seconds.
const LONGEST: u64 = 12 * 3600;

/// Sessions kept at most; those that end first go (each is a sign-in).
const MOST: usize = 1000;

/// The signed-in browsers, in the store.
pub struct PageSessions<'store>(pub &'store Store);

/// The store's key for a cookie's value.
fn key(cookie: &str) -> String {
    digest::of(&Value::String(cookie.to_owned()))
}

impl PageSessions<'_> {
    /// Signs `approver` in until `until` (seconds since the epoch) at the
    /// latest: the cookie's `Set-Cookie` header.
    pub async fn open(&self, approver: String, until: u64) -> Result<String, StoreError> {
        let now_s = u64::try_from(now_ms() / 1000).unwrap_or(0);
        let expires_s = until.min(now_s + LONGEST);
        let cookie = digest::random_id();
        let session = PageSession {
            approver,
            csrf: digest::random_id(),
            expires_ms: i64::try_from(expires_s.saturating_mul(1000)).unwrap_or(i64::MAX),
        };
        self.0
            .open_page_session(&key(&cookie), &session, MOST)
            .await?;
        Ok(set_cookie(&cookie, expires_s.saturating_sub(now_s)))
    }

    /// The session of a request's cookie, while it lasts, with the store's
    /// key for it.
    pub async fn find(
        &self,
        headers: &HeaderMap,
    ) -> Result<Option<(String, PageSession)>, StoreError> {
        let Some(cookie) = cookie(headers) else {
            return Ok(None);
        };
        let key = key(&cookie);
        Ok(self
            .0
            .page_session(&key)
            .await?
            .map(|session| (key, session)))
    }

    /// Takes the session's line to show once.
    pub async fn take_flash(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.0.take_page_flash(key).await
    }

    /// Sets the line the next page shows.
    pub async fn flash(&self, key: &str, line: &str) -> Result<(), StoreError> {
        self.0.set_page_flash(key, line).await
    }

    /// Signs out: the `Set-Cookie` header that clears the cookie.
    pub async fn close(&self, key: &str) -> Result<String, StoreError> {
        self.0.close_page_session(key).await?;
        Ok(set_cookie("", 0))
    }
}

fn set_cookie(value: &str, max_age: u64) -> String {
    format!("{COOKIE}={value}; Path=/approvals; HttpOnly; SameSite=Strict; Max-Age={max_age}")
}

/// The session cookie's value in a request.
fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
}

/// Compares two tokens in time that does not depend on where they differ.
pub fn same_token(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
}
