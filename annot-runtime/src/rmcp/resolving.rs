//! [`resolving`]: the annotated tools' resolutions answered where a byte
//! stream is read, in front of rmcp's dispatch.
//!
//! rmcp has no `tools/resolve`. It reads one as a `CustomRequest` only after
//! trying every method it knows, then dispatches it like any request (a
//! context, a task, a channel back to the writer): a client pays more for a
//! resolution than for the call it vets. [`resolving`] reads each line of the
//! stream first. A plain `tools/resolve` or `tools/annotations` of a session
//! under way is answered from the line itself, by the same reader of rmcp's
//! tree and the same resolution core as [`Annotated`] (`server/answers/resolution_tree.rs`,
//! `server/answers/resolution.rs`); every other line goes to rmcp's own transport
//! unchanged, and so does any line this module is not sure of. The serde
//! envelope here only screens lines: it decides nothing about the answer.

use std::borrow::Cow;
use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use ::rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, CustomResult, NumberOrString, ServerJsonRpcMessage,
    ServerResult,
};
use ::rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use ::rmcp::transport::Transport;
use ::rmcp::transport::async_rw::AsyncRwTransport;
use ::rmcp::{ErrorData, RoleServer};
use futures_util::stream::{FuturesUnordered, StreamExt};
use memchr::memmem;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

use super::annotated_tools::extensions_of;
use super::handler::Annotated;
use super::lift::lift_server_message;
use crate::protocol::PROTOCOL_VERSION_META;
use crate::server::rmcp_bridge::ClientExtensions;

/// The longest line read whole to see whether it is a resolution; longer
/// lines stream through to rmcp as they arrive, so memory stays bounded.
const LONGEST_ANSWERED: usize = 64 * 1024;

/// An answer being written through rmcp's writer.
type Sending = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

/// The session as this module follows it, shared by the transport and its
/// reader.
type Session = Arc<SessionState>;

#[derive(Debug, Default)]
struct SessionState {
    /// What the client's `initialize` declared, once rmcp has answered it.
    declared: OnceLock<ClientExtensions>,
    /// Set for a session this module does not follow: one that began without
    /// `initialize`, where rmcp checks each request's inline metadata, or one
    /// that received a second `initialize`, which may change what rmcp
    /// records of the client.
    unfollowed: AtomicBool,
}

impl SessionState {
    /// What the client declared, when the session is one answered here.
    fn followed(&self) -> Option<ClientExtensions> {
        if self.unfollowed.load(Ordering::Relaxed) {
            return None;
        }
        self.declared.get().copied()
    }

    fn unfollow(&self) {
        self.unfollowed.store(true, Ordering::Relaxed);
    }
}

/// The adapter's answer to a resolution: method, params, the session.
type AnswerFn = dyn Fn(
        &str,
        Option<&Value>,
        Option<&Map<String, Value>>,
        ClientExtensions,
    ) -> Option<Result<Value, ErrorData>>
    + Send
    + Sync;

/// An rmcp server transport over a byte stream that answers the annotated
/// tools' `tools/resolve` and `tools/annotations` itself, and lifts what it
/// sends as [`lifted`](super::lifted) does. Built by [`resolving`].
pub struct Resolving<R, W>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite,
{
    inner: AsyncRwTransport<RoleServer, Intercept<R>, W>,
    answers: mpsc::UnboundedReceiver<TxJsonRpcMessage<RoleServer>>,
    /// Answers being written.
    sending: FuturesUnordered<Sending>,
    session: Session,
    /// The extensions of the `initialize` handed to rmcp, until its answer
    /// goes out.
    initializing: Option<ClientExtensions>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite> std::fmt::Debug for Resolving<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolving")
            .field("session", &self.session.followed())
            .finish_non_exhaustive()
    }
}

/// Serves `annotated` over a byte stream (`rmcp::transport::stdio()`'s halves,
/// a socket's, a pipe's), answering resolutions before rmcp reads them.
///
/// A line is answered here when all of these hold, and goes to rmcp as it
/// was otherwise:
///
/// - rmcp has answered the session's `initialize`, its first request but for
///   `ping` and `server/discover`, and no second `initialize` came (a
///   2026-07-28 client, which sends none, is served by rmcp throughout);
/// - it is a request of `tools/resolve` or `tools/annotations`, written
///   plainly: `jsonrpc` `"2.0"`, an integer or string `id`, `params` absent or
///   an object (its `_meta`, if any, an object that names no protocol version:
///   rmcp checks those), no other member, no escape in the method;
/// - [`Annotated`] answers it rather than passing it to your
///   `on_custom_request` (a method of a dialect not offered goes there).
///
/// The answer is the one [`Annotated`] gives the same request through rmcp,
/// byte for byte, lifted; it may overtake answers to earlier requests, as
/// rmcp's own concurrent answers may. What costs a resolution through rmcp,
/// and what this saves, is in the benches' report.
///
/// ```no_run
/// # use annot_runtime as annot;
/// use annot::rmcp::{Annotated, resolving};
/// use rmcp::{ServerHandler, ServiceExt};
/// use tokio::io::{AsyncRead, AsyncWrite};
///
/// // `read` and `write`: `rmcp::transport::stdio()` (rmcp's `transport-io`
/// // feature), or the halves of a socket.
/// async fn run<H: ServerHandler + 'static>(
///     server: Annotated<H>,
///     read: impl AsyncRead + Send + Unpin + 'static,
///     write: impl AsyncWrite + Send + Unpin + 'static,
/// ) -> Result<(), Box<dyn std::error::Error>> {
///     let transport = resolving(&server, read, write);
///     let running = server.serve(transport).await?;
///     running.waiting().await?;
///     Ok(())
/// }
/// ```
pub fn resolving<H, R, W>(annotated: &Annotated<H>, read: R, write: W) -> Resolving<R, W>
where
    H: Send + Sync + 'static,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let tools = annotated.shared_tools();
    let answer: Arc<AnswerFn> = Arc::new(move |method, params, meta, session| {
        tools.answer_detached(method, params, meta, session)
    });
    let session = Session::default();
    let (sender, answers) = mpsc::unbounded_channel();
    let intercept = Intercept::new(read, Answering::new(answer, Arc::clone(&session), sender));
    Resolving {
        inner: AsyncRwTransport::new_server(intercept, write),
        answers,
        sending: FuturesUnordered::new(),
        session,
        initializing: None,
    }
}

impl<R, W> Transport<RoleServer> for Resolving<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn name() -> Cow<'static, str> {
        "Resolving".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ServerJsonRpcMessage::Response(response) = &item
            && matches!(response.result, ServerResult::InitializeResult(_))
            && let Some(extensions) = self.initializing.take()
        {
            // rmcp has taken the session up: what `initialize` declared is
            // what the adapter reads from rmcp's peer info from now on.
            let _ = self.session.declared.set(extensions);
        }
        self.inner.send(lift_server_message(item))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let next = {
                let mut received = std::pin::pin!(self.inner.receive());
                let (answers, sending) = (&mut self.answers, &mut self.sending);
                poll_fn(|cx| {
                    // Answers already under way go on writing meanwhile.
                    while let Poll::Ready(Some(_)) = sending.poll_next_unpin(cx) {}
                    if let Poll::Ready(Some(answer)) = answers.poll_recv(cx) {
                        return Poll::Ready(Err(answer));
                    }
                    received.as_mut().poll(cx).map(Ok)
                })
                .await
            };
            match next {
                Err(answer) => self.start_sending(answer),
                Ok(None) => {
                    // rmcp answers what it read before the end; so does this.
                    self.finish_sending().await;
                    return None;
                }
                Ok(message) => {
                    if let Some(ClientJsonRpcMessage::Request(request)) = &message {
                        self.follow(&request.request);
                    }
                    return message;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.finish_sending().await;
        self.inner.close().await
    }
}

impl<R, W> Resolving<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Sends `answer` as rmcp sends its own: through the writer's lock, so no
    /// line is cut by another, while reading goes on. Kept here (not on a task
    /// of its own) so that none is left behind when the stream ends.
    fn start_sending(&mut self, answer: TxJsonRpcMessage<RoleServer>) {
        let send = self.inner.send(lift_server_message(answer));
        self.sending.push(Box::pin(send));
    }

    /// Follows the session through the requests rmcp receives.
    fn follow(&mut self, request: &ClientRequest) {
        let declared = self.session.declared.get().is_some();
        match request {
            ClientRequest::InitializeRequest(_) if declared => self.session.unfollow(),
            ClientRequest::InitializeRequest(initialize) => {
                self.initializing = Some(extensions_of(Some(&initialize.params.capabilities)));
            }
            // Allowed before `initialize`, and no start of a session.
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {}
            _ if !declared => self.session.unfollow(),
            _ => {}
        }
    }

    /// Every answer queued or under way, written.
    async fn finish_sending(&mut self) {
        while let Ok(answer) = self.answers.try_recv() {
            self.start_sending(answer);
        }
        while self.sending.next().await.is_some() {}
    }
}

/// The reader rmcp's transport reads through: whole lines, less the ones
/// answered here.
struct Intercept<R> {
    read: R,
    /// Bytes read and not yet handed on are `buffer[start..end]`.
    buffer: Vec<u8>,
    start: usize,
    end: usize,
    /// How many bytes from `start` are known to hold no newline.
    scanned: usize,
    /// How many bytes from `start` are judged and go to rmcp.
    passing: usize,
    /// Inside a line too long to answer: it goes on until its newline.
    streaming: bool,
    eof: bool,
    answering: Answering,
}

struct Answering {
    answer: Arc<AnswerFn>,
    session: Session,
    sender: mpsc::UnboundedSender<TxJsonRpcMessage<RoleServer>>,
    resolve: memmem::Finder<'static>,
    annotations: memmem::Finder<'static>,
}

/// A request written plainly; anything else is rmcp's to read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    jsonrpc: &'a str,
    id: Value,
    method: &'a str,
    #[serde(default)]
    params: Option<Value>,
}

impl Answering {
    fn new(
        answer: Arc<AnswerFn>,
        session: Session,
        sender: mpsc::UnboundedSender<TxJsonRpcMessage<RoleServer>>,
    ) -> Self {
        Answering {
            answer,
            session,
            sender,
            resolve: memmem::Finder::new(b"\"tools/resolve\"").into_owned(),
            annotations: memmem::Finder::new(b"\"tools/annotations\"").into_owned(),
        }
    }

    /// The answer to `line`, when it is a resolution answered here.
    fn answer(&self, line: &[u8]) -> Option<ServerJsonRpcMessage> {
        let session = self.session.followed()?;
        if self.resolve.find(line).is_none() && self.annotations.find(line).is_none() {
            return None;
        }
        let envelope: Envelope<'_> = serde_json::from_slice(line).ok()?;
        if envelope.jsonrpc != "2.0" {
            return None;
        }
        let id = match envelope.id {
            Value::Number(number) => NumberOrString::Number(number.as_i64()?),
            Value::String(text) => NumberOrString::String(text.into()),
            _ => return None,
        };
        // rmcp takes `_meta` out of the params (its request's meta) and hands
        // the rest on; a request with nothing else is left to rmcp.
        let mut params = match envelope.params {
            None => None,
            Some(Value::Object(params)) => Some(params),
            Some(_) => return None,
        };
        let meta = match params.as_mut().and_then(|params| params.remove("_meta")) {
            None => None,
            Some(Value::Object(meta)) => Some(meta),
            Some(_) => return None,
        };
        if params.as_ref().is_some_and(Map::is_empty) {
            return None;
        }
        // rmcp checks a request that names its protocol version itself.
        if meta
            .as_ref()
            .is_some_and(|meta| meta.contains_key(PROTOCOL_VERSION_META))
        {
            return None;
        }
        let meta = meta.as_ref().filter(|meta| !meta.is_empty());
        let params = params.map(Value::Object);
        let answer = (self.answer)(envelope.method, params.as_ref(), meta, session)?;
        Some(match answer {
            Ok(result) => {
                ServerJsonRpcMessage::response(ServerResult::CustomResult(CustomResult(result)), id)
            }
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        })
    }
}

impl<R> Intercept<R> {
    fn new(read: R, answering: Answering) -> Self {
        Intercept {
            read,
            buffer: vec![0; 8 * 1024],
            start: 0,
            end: 0,
            scanned: 0,
            passing: 0,
            streaming: false,
            eof: false,
            answering,
        }
    }

    /// Decides what the buffered bytes are: a line answered here (taken out),
    /// bytes for rmcp (`passing`), or too little to say (`false`).
    fn judge(&mut self) -> bool {
        let pending = &self.buffer[self.start..self.end];
        if pending.is_empty() {
            return false;
        }
        let newline = memchr::memchr(b'\n', &pending[self.scanned..]).map(|at| self.scanned + at);
        match newline {
            Some(at) if self.streaming => {
                self.streaming = false;
                self.passing = at + 1;
            }
            Some(at) if at >= LONGEST_ANSWERED => self.passing = at + 1,
            None if self.streaming || self.eof => self.passing = pending.len(),
            None if pending.len() > LONGEST_ANSWERED => {
                self.streaming = true;
                self.passing = pending.len();
            }
            None => {
                self.scanned = pending.len();
                return false;
            }
            Some(at) => match self.answering.answer(&pending[..=at]) {
                Some(answer) => {
                    // A closed channel means rmcp has stopped reading.
                    let _ = self.answering.sender.send(answer);
                    self.start += at + 1;
                }
                None => self.passing = at + 1,
            },
        }
        self.scanned = 0;
        true
    }

    /// Room after `end` for the next read, the pending bytes moved to the front.
    fn make_room(&mut self) {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buffer.len() {
            self.buffer.resize(self.buffer.len() * 2, 0);
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Intercept<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.passing > 0 {
                let handed = this.passing.min(out.remaining());
                out.put_slice(&this.buffer[this.start..this.start + handed]);
                this.start += handed;
                this.passing -= handed;
                return Poll::Ready(Ok(()));
            }
            if this.judge() {
                continue;
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            this.make_room();
            let mut read = ReadBuf::new(&mut this.buffer[this.end..]);
            match Pin::new(&mut this.read).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) => match read.filled().len() {
                    0 => this.eof = true,
                    read => this.end += read,
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;
    use tokio::io::AsyncReadExt;

    use super::super::AnnotatedTools;
    use super::*;

    /// A reader that hands out `step` bytes a read, as a pipe may.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
    }

    impl AsyncRead for Trickle {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            out: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            let end = (this.at + this.step).min(this.data.len());
            let handed = (end - this.at).min(out.remaining());
            out.put_slice(&this.data[this.at..this.at + handed]);
            this.at += handed;
            Poll::Ready(Ok(()))
        }
    }

    /// What reading `input` through the reader gave.
    struct ReadThrough {
        /// What rmcp would read.
        passed: Vec<u8>,
        /// The ids answered in front of rmcp.
        answered: Vec<String>,
        /// The length the reader's buffer grew to.
        buffer: usize,
    }

    fn read_through(input: &[u8], step: usize, session: bool) -> ReadThrough {
        let answer: Arc<AnswerFn> = Arc::new(|method, params, _, _| {
            let name = params?.get("name")?.as_str()?;
            (method == "tools/resolve").then(|| Ok(Value::from(name)))
        });
        let slot = Session::default();
        if session {
            slot.declared.set(ClientExtensions::default()).unwrap();
        }
        let (sender, mut answers) = mpsc::unbounded_channel();
        let trickle = Trickle {
            data: input.to_vec(),
            at: 0,
            step,
        };
        let mut intercept = Intercept::new(trickle, Answering::new(answer, slot, sender));
        let mut passed = Vec::new();
        intercept
            .read_to_end(&mut passed)
            .now_or_never()
            .expect("never waits")
            .expect("reads");
        let mut answered = Vec::new();
        while let Ok(answer) = answers.try_recv() {
            answered.push(serde_json::to_value(&answer).unwrap()["id"].to_string());
        }
        ReadThrough {
            passed,
            answered,
            buffer: intercept.buffer.len(),
        }
    }

    const RESOLVE: &str =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":{"name":"t"}}"#;
    const STRING_ID: &str =
        r#"{"jsonrpc":"2.0","id":"s","method":"tools/resolve","params":{"name":"t"}}"#;
    const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#;
    const OTHER: &str =
        r#"{"jsonrpc":"2.0","id":"x","method":"tools/annotations","params":{"name":"t"}}"#;

    #[test]
    fn resolutions_are_taken_out_and_the_rest_passes_byte_for_byte() {
        let input = format!("{RESOLVE}\n{CALL}\r\n{OTHER}\n\n{STRING_ID}\n{{\"partial\"");
        let expected = format!("{CALL}\r\n{OTHER}\n\n{{\"partial\"");
        for step in [1, 3, 7, 16, 64, 4096] {
            let read = read_through(input.as_bytes(), step, true);
            assert_eq!(
                String::from_utf8(read.passed).unwrap(),
                expected,
                "step {step}"
            );
            assert_eq!(read.answered, ["1", "\"s\""], "step {step}");
        }
    }

    #[test]
    fn before_the_session_everything_is_rmcps() {
        let input = format!("{RESOLVE}\n{CALL}\n");
        let read = read_through(input.as_bytes(), 5, false);
        assert_eq!(read.passed, input.as_bytes());
        assert!(read.answered.is_empty());
    }

    /// `padding` bytes of `filler` in front of a resolution: one line, valid
    /// JSON when `filler` is whitespace.
    fn padded(filler: &str, padding: usize) -> String {
        format!("{}{RESOLVE}", filler.repeat(padding))
    }

    #[test]
    fn a_line_too_long_to_answer_streams_through() {
        // Spaces then a resolution: the tail of the line is a request of its
        // own, which must not be answered once the line has begun to pass.
        for filler in [" ", "x"] {
            let long = padded(filler, LONGEST_ANSWERED + 10);
            let input = format!("{long}\n{RESOLVE}\n");
            // A byte a read puts the newline first in a read of its own.
            for step in [1, 4096, 10_000] {
                let read = read_through(input.as_bytes(), step, true);
                assert_eq!(read.passed, format!("{long}\n").as_bytes(), "step {step}");
                assert_eq!(read.answered, ["1"], "step {step}");
            }
        }
    }

    #[test]
    fn a_long_line_within_the_limit_is_answered() {
        let long = padded(" ", 32 * 1024);
        let read = read_through(format!("{long}\n{CALL}\n").as_bytes(), 4096, true);
        assert_eq!(read.passed, format!("{CALL}\n").as_bytes());
        assert_eq!(read.answered, ["1"]);
    }

    #[test]
    fn memory_stays_bounded() {
        // Many short lines reuse the first buffer.
        let input = format!("{CALL}\n{RESOLVE}\n").repeat(5_000);
        let read = read_through(input.as_bytes(), 100, true);
        assert_eq!(read.answered.len(), 5_000);
        assert_eq!(read.buffer, 8 * 1024);
        // A line of 4 MiB passes without being held whole, wherever it
        // starts in the buffer.
        let huge = padded(" ", 4 << 20);
        let read = read_through(format!("{CALL}\n{huge}\n").as_bytes(), 5000, true);
        assert_eq!(read.passed.len(), CALL.len() + huge.len() + 2);
        assert!(
            read.buffer <= 2 * LONGEST_ANSWERED + 8 * 1024,
            "{}",
            read.buffer
        );
    }

    /// What a transport follows of a session after rmcp received `requests`
    /// (JSON `{"method", "params"}`), with `initialize` answered after each
    /// one or not.
    fn followed_after(requests: &[Value], answered: bool) -> Option<ClientExtensions> {
        struct NoTools;
        impl ::rmcp::ServerHandler for NoTools {}
        let tools = AnnotatedTools::<NoTools>::builder()
            .build()
            .expect("no tools");
        let server = Annotated::new(NoTools, tools).expect("no tools, no clash");
        let (read, write) = tokio::io::duplex(64);
        let mut transport = resolving(&server, read, write);
        for request in requests {
            let request: ClientRequest = serde_json::from_value(request.clone()).unwrap();
            assert!(
                !matches!(request, ClientRequest::CustomRequest(_)),
                "{request:?}"
            );
            let is_initialize = matches!(request, ClientRequest::InitializeRequest(_));
            transport.follow(&request);
            if is_initialize && answered {
                let result = ServerResult::InitializeResult(Default::default());
                let response = ServerJsonRpcMessage::response(result, NumberOrString::Number(1));
                drop(transport.send(response));
            }
        }
        transport.session.followed()
    }

    #[test]
    fn the_session_is_followed_only_from_its_first_initialize() {
        let initialize = |extension: bool| {
            let extensions = if extension {
                serde_json::json!({"io.modelcontextprotocol/tool-resolution": {}})
            } else {
                serde_json::json!({})
            };
            serde_json::json!({"method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"extensions": extensions},
                "clientInfo": {"name": "t", "version": "0"}
            }})
        };
        let ping = serde_json::json!({"method": "ping"});
        let discover = serde_json::json!({"method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"}
        }}});
        let list = serde_json::json!({"method": "tools/list"});
        let absent = |followed: Option<ClientExtensions>| {
            followed.map(|extensions| extensions.stance == Default::default())
        };
        assert_eq!(
            absent(followed_after(&[initialize(false)], true)),
            Some(true)
        );
        assert_eq!(
            absent(followed_after(&[initialize(true)], true)),
            Some(false)
        );
        // Allowed before `initialize`: still followed.
        let before = [ping.clone(), discover, initialize(true)];
        assert_eq!(absent(followed_after(&before, true)), Some(false));
        // Not answered: not taken up.
        assert!(followed_after(&[initialize(true)], false).is_none());
        // Begun without `initialize`, or initialized twice: left to rmcp.
        assert!(followed_after(&[list.clone(), initialize(true)], true).is_none());
        assert!(
            followed_after(&[initialize(true), list.clone(), initialize(false)], true).is_none()
        );
        assert!(followed_after(&[initialize(true), ping, list], true).is_some());
    }

    #[test]
    fn lines_not_written_plainly_are_rmcps() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/resolve","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/resolve","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/resolve","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":{"name":"t"},"x":0}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":{"_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":{"name":"t","_meta":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":["t"]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/resolve","params":{"#,
        ];
        for line in lines {
            let input = format!("{line}\n");
            let read = read_through(input.as_bytes(), 64, true);
            assert_eq!(read.passed, input.as_bytes(), "{line}");
            assert!(read.answered.is_empty(), "{line}");
        }
    }
}
