//! Session ids that name the process holding the session, so a load balancer
//! can send a legacy session's requests back to it.
//!
//! MCP 2026-07-28 is stateless: any process answers any request. A session
//! opened with `initialize` (2025-11-25 and before) lives in the memory of one
//! process, and its `initialize` carries no `Mcp-Session-Id` to hash on. So the
//! process writes its own tag into the id it hands out, `TAG.UUID`, and the
//! balancer routes on the part before the dot (docs/scaling.md has the nginx
//! `map`).

use std::sync::Arc;

use ::rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use ::rmcp::transport::WorkerTransport;
use ::rmcp::transport::common::server_side_http::{ServerSseMessage, SessionId, session_id};
use ::rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker, create_local_session,
};
use ::rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, SessionManager,
};
use futures_util::Stream;

/// The separator between the tag and the rest of a session id.
pub const SESSION_TAG_SEPARATOR: char = '.';

/// The longest tag [`TaggedSessionManager::new`] accepts.
pub const MAX_SESSION_TAG_LEN: usize = 32;

/// rmcp's in-memory [`LocalSessionManager`], with every session id it creates
/// prefixed by this process's tag: `b1.5f0c…`. Pass it to
/// `StreamableHttpService::new` in place of the local manager.
///
/// Only the creation of an id differs; every other operation is the local
/// manager's. A request whose session lives in another process gets rmcp's
/// `404 Not Found: Session not found`, which the MCP specification tells the
/// client to answer with a new `initialize`.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::rmcp::TaggedSessionManager;
///
/// let sessions = TaggedSessionManager::new("b1").unwrap();
/// assert_eq!(sessions.tag(), "b1");
/// assert_eq!(TaggedSessionManager::tag_of("b1.5f0c2e"), Some("b1"));
/// assert_eq!(TaggedSessionManager::tag_of("5f0c2e"), None);
/// assert!(TaggedSessionManager::new("b/1").is_err());
/// ```
#[derive(Debug)]
pub struct TaggedSessionManager {
    tag: Arc<str>,
    local: LocalSessionManager,
}

/// A tag that cannot go into a session id and a routing key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("session tag `{0}` must be 1 to {MAX_SESSION_TAG_LEN} ASCII letters, digits, `-` or `_`")]
pub struct InvalidSessionTag(pub String);

impl TaggedSessionManager {
    /// A manager whose session ids start with `tag` and a dot. The tag is 1 to
    /// [`MAX_SESSION_TAG_LEN`] ASCII letters, digits, `-` or `_`, so a balancer's
    /// pattern can match it without escaping.
    pub fn new(tag: impl Into<String>) -> Result<Self, InvalidSessionTag> {
        Self::with_local(tag, LocalSessionManager::default())
    }

    /// The same over a local manager you configured (its `session_config`, its
    /// event store).
    pub fn with_local(
        tag: impl Into<String>,
        local: LocalSessionManager,
    ) -> Result<Self, InvalidSessionTag> {
        let tag = tag.into();
        let valid = !tag.is_empty()
            && tag.len() <= MAX_SESSION_TAG_LEN
            && tag
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
        if !valid {
            return Err(InvalidSessionTag(tag));
        }
        Ok(TaggedSessionManager {
            tag: tag.into(),
            local,
        })
    }

    /// This process's tag.
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// The tag of a session id, when it has one.
    pub fn tag_of(session_id: &str) -> Option<&str> {
        session_id
            .split_once(SESSION_TAG_SEPARATOR)
            .map(|(tag, _)| tag)
            .filter(|tag| !tag.is_empty())
    }

    /// The local manager that holds the sessions.
    pub fn local(&self) -> &LocalSessionManager {
        &self.local
    }
}

impl SessionManager for TaggedSessionManager {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        // The local manager's own creation, with the id chosen here. Its event
        // store, if any, is not handed to sessions created this way: rmcp
        // offers no public constructor that takes one.
        let id: SessionId = format!("{}{SESSION_TAG_SEPARATOR}{}", self.tag, session_id()).into();
        let (handle, worker) = create_local_session(id.clone(), self.local.session_config.clone());
        self.local.sessions.write().await.insert(id.clone(), handle);
        Ok((id, WorkerTransport::spawn(worker)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.local.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.local.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}
