//! Who is signed in to the approvals page. A browser cannot attach a bearer
//! token to a form, so the token is checked once, at sign-in, and the
//! browser gets a session cookie (`HttpOnly`, `SameSite=Strict`, path
//! `/approvals`) that lasts no longer than the token. Each session has its
//! own token against cross-site requests, sent back in every form.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, header};

use crate::digest;

/// The session cookie's name.
pub const COOKIE: &str = "annot-approvals";

/// The longest a sign-in lasts, whatever the token's expiry.
const LONGEST: u64 = 12 * 3600;

/// Sessions kept at most; the oldest go first (each is a sign-in).
const MOST: usize = 1000;

/// One signed-in browser.
#[derive(Clone, Debug)]
pub struct PageSession {
    /// Who decides: the token's subject.
    pub approver: String,
    /// The token every form carries.
    pub csrf: String,
    /// Seconds since the epoch when it ends.
    pub expires: u64,
    /// A line to show once on the next page (what the last action did).
    pub flash: Option<String>,
}

/// The signed-in browsers, by cookie value.
#[derive(Default)]
pub struct PageSessions {
    sessions: Mutex<HashMap<String, PageSession>>,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

impl PageSessions {
    /// Signs `approver` in until `until` (seconds since the epoch) at the
    /// latest: the cookie's value and its `Set-Cookie` header.
    pub fn open(&self, approver: String, until: u64) -> String {
        let now = now();
        let expires = until.min(now + LONGEST);
        let id = digest::random_id();
        let mut sessions = self.sessions.lock().expect("page sessions lock");
        sessions.retain(|_, session| session.expires > now);
        if sessions.len() >= MOST
            && let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, session)| session.expires)
                .map(|(id, _)| id.clone())
        {
            sessions.remove(&oldest);
        }
        sessions.insert(
            id.clone(),
            PageSession {
                approver,
                csrf: digest::random_id(),
                expires,
                flash: None,
            },
        );
        set_cookie(&id, expires.saturating_sub(now))
    }

    /// The session of a request's cookie, while it lasts.
    pub fn find(&self, headers: &HeaderMap) -> Option<(String, PageSession)> {
        let id = cookie(headers)?;
        let mut sessions = self.sessions.lock().expect("page sessions lock");
        match sessions.get(&id) {
            Some(session) if session.expires > now() => Some((id, session.clone())),
            Some(_) => {
                sessions.remove(&id);
                None
            }
            None => None,
        }
    }

    /// Takes the session's line to show once.
    pub fn take_flash(&self, id: &str) -> Option<String> {
        let mut sessions = self.sessions.lock().expect("page sessions lock");
        sessions.get_mut(id)?.flash.take()
    }

    /// Sets the line the next page shows.
    pub fn flash(&self, id: &str, line: String) {
        if let Some(session) = self
            .sessions
            .lock()
            .expect("page sessions lock")
            .get_mut(id)
        {
            session.flash = Some(line);
        }
    }

    /// Signs out: the `Set-Cookie` header that clears the cookie.
    pub fn close(&self, id: &str) -> String {
        self.sessions.lock().expect("page sessions lock").remove(id);
        set_cookie("", 0)
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
