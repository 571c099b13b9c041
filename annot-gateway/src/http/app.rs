//! What one process holds of its hosts: the MCP sessions by id, the
//! gateway sessions of requests without one (by caller), their idle ends,
//! and the checks every request passes first (its token, its origin).

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode, header};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::auth::Caller;
use crate::gateway::{Gateway, Shared};

use super::refusals::{Refused, SESSION_HEADER, Unauthorized, is_loopback_authority, plain};
use super::streams::{Routes, Session, relay};

/// Ends the sessions idle for longer than `idle`.
pub(super) async fn reap(app: Weak<App>, idle: Duration) {
    let every = (idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    loop {
        tokio::time::sleep(every).await;
        let Some(app) = app.upgrade() else { return };
        for sessions in [&app.sessions, &app.callers] {
            let ended: Vec<Arc<Session>> = {
                let mut sessions = sessions.lock().expect("sessions lock");
                let ids: Vec<String> = sessions
                    .iter()
                    .filter(|(_, session)| session.idle_for() > idle)
                    .map(|(id, _)| id.clone())
                    .collect();
                ids.iter().filter_map(|id| sessions.remove(id)).collect()
            };
            for session in ended {
                tracing::info!("ended an idle session");
                session.end();
            }
        }
    }
}

pub(super) struct App {
    pub(super) shared: Arc<Shared>,
    /// Listening on a loopback address: the `Host` must name one.
    pub(super) loopback: bool,
    /// This endpoint's protected-resource metadata (RFC 9728), when callers
    /// are authenticated: its URL and the document.
    pub(super) resource_metadata: Option<(String, Value)>,
    /// What every session id starts with, when set.
    pub(super) tag: Option<String>,
    /// MCP sessions, by id.
    pub(super) sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The gateway sessions that serve requests without an MCP session
    /// (2026-07-28), one per caller (the token's subject; `""` without one).
    pub(super) callers: Mutex<HashMap<String, Arc<Session>>>,
    /// The ids under which requests without a session are forwarded.
    pub(super) next_request: AtomicU64,
}

impl App {
    pub(super) fn end_all(&self) {
        for sessions in [&self.sessions, &self.callers] {
            let ended: Vec<Arc<Session>> = sessions
                .lock()
                .expect("sessions lock")
                .drain()
                .map(|(_, session)| session)
                .collect();
            for session in ended {
                session.end();
            }
        }
    }

    /// The gateway session of a caller's requests without a session, started
    /// on first use.
    pub(super) fn caller_session(&self, key: &str) -> Arc<Session> {
        let mut callers = self.callers.lock().expect("callers lock");
        let session = callers
            .entry(key.to_owned())
            .or_insert_with(|| self.new_session());
        session.touch();
        Arc::clone(session)
    }

    /// A new gateway session with its streams.
    pub(super) fn new_session(&self) -> Arc<Session> {
        let (host, from_gateway) = mpsc::unbounded_channel();
        let gateway = Gateway::start(Arc::clone(&self.shared), host);
        let routes = Arc::new(Mutex::new(Routes::default()));
        tokio::spawn(relay(
            Arc::downgrade(&gateway),
            Arc::clone(&routes),
            from_gateway,
        ));
        Arc::new(Session {
            gateway,
            routes,
            last_seen: Mutex::new(Instant::now()),
        })
    }

    pub(super) fn session(&self, headers: &HeaderMap) -> Result<Arc<Session>, Refused> {
        let Some(id) = headers.get(SESSION_HEADER) else {
            return Err(plain(
                StatusCode::BAD_REQUEST,
                "an Mcp-Session-Id header is required after initialize",
            ));
        };
        let session = id.to_str().ok().and_then(|id| {
            self.sessions
                .lock()
                .expect("sessions lock")
                .get(id)
                .cloned()
        });
        match session {
            Some(session) => {
                session.touch();
                Ok(session)
            }
            None => Err(plain(
                StatusCode::NOT_FOUND,
                "no such session (it ended, or never was): initialize again",
            )),
        }
    }

    /// The caller of a request, by its bearer token, when `[auth]` asks for
    /// one; a refusal with `WWW-Authenticate` otherwise. The token itself is
    /// never logged.
    pub(super) fn authenticate(&self, headers: &HeaderMap) -> Result<Option<Caller>, Unauthorized> {
        let Some(authenticator) = &self.shared.authenticator else {
            return Ok(None);
        };
        let authorization = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        authenticator
            .authenticate(authorization)
            .map(Some)
            .map_err(|error| Unauthorized {
                challenge: error
                    .www_authenticate(self.resource_metadata.as_ref().map(|(url, _)| url.as_str())),
                error,
            })
    }

    /// DNS rebinding and cross-site requests: a browser's page may only come
    /// from a loopback origin, and on loopback the `Host` must be loopback.
    pub(super) fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refused> {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin
                .to_str()
                .ok()
                .and_then(|origin| origin.split_once("://"))
                .is_some_and(|(_, authority)| is_loopback_authority(authority));
            if !allowed {
                return Err(plain(
                    StatusCode::FORBIDDEN,
                    "the Origin is not a loopback origin",
                ));
            }
        }
        if self.loopback
            && let Some(host) = headers.get(header::HOST)
            && !host.to_str().is_ok_and(is_loopback_authority)
        {
            return Err(plain(
                StatusCode::FORBIDDEN,
                "the Host is not a loopback name, and the gateway listens on loopback",
            ));
        }
        Ok(())
    }
}
