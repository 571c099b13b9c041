//! One client session: its negotiated state, and the entry point that maps a
//! message to a response.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::{
    Dialect, METHOD_RESOLVE, MODERN_PROTOCOL_VERSION, PROTOCOL_VERSIONS, RpcError, error_code,
};
use crate::read::{self, Envelope, Json, ReadMemo};
use crate::server::answers::call::Asker;
use crate::server::answers::list_pages::PageForm;
use crate::server::answers::resolution::{ClientExtensions, Method};
use crate::server::answers::resolution_meta::Negotiated;
use crate::server::answers::{call, list_pages, resolution};
use crate::server::negotiation::dialects::{Stance, stance};
use crate::server::negotiation::era::{Era, METHOD_DISCOVER, capabilities_object, classify};
use crate::server::negotiation::versions::{self, negotiate_version};
use crate::server::registry::erased_tool::panic_message;
use crate::server::registry::server_state::{Server, ServerState};
use crate::server::transport::in_flight::{CallControl, RequestKey};
use crate::server::transport::jsonrpc::{self, Incoming};
use crate::server::transport::request_params::{self, Params};

/// One client session of a [`Server`].
///
/// It remembers what `initialize` negotiated (protocol version, client
/// capabilities), which decides the shape of some answers: dialect C of
/// `tools/resolve` needs the client to have taken up the extension.
pub struct Connection {
    state: Arc<ServerState>,
    session: Session,
    /// What the client repeats from one message to the next.
    memo: ReadMemo,
    /// A transport runs `tools/call` beside the session: a call is handed
    /// over ([`Deferred::Call`]) rather than answered, and a cancellation
    /// is too.
    concurrent: bool,
    /// A batch is being answered: its calls are answered in it.
    in_batch: bool,
    /// What the last message handed over to the transport.
    deferred: Vec<Deferred>,
}

/// What a message hands over to a transport that runs calls beside the
/// session.
#[derive(Debug)]
pub(crate) enum Deferred {
    /// A `tools/call` to run and answer.
    Call(PendingCall),
    /// `notifications/cancelled` named this request.
    Cancel(RequestKey),
}

/// A `tools/call` the session read, checked as far as its era goes, to be run
/// elsewhere: [`answer_call`] answers it.
#[derive(Debug)]
pub(crate) struct PendingCall {
    /// The message, as read: the transport puts it here (the session's
    /// answer path does not copy it).
    pub message: Vec<u8>,
    /// Its id's JSON text.
    pub id: Box<str>,
    /// Its `_meta.progressToken`'s JSON text, a string or a number.
    pub progress_token: Option<Box<str>>,
    asker: Asker<'static>,
}

/// What `initialize` negotiated. A 2026-07-28 request never reads it.
#[derive(Debug, Default)]
struct Session {
    protocol_version: Option<&'static str>,
    client_capabilities: Option<Value>,
    client_info: Option<Value>,
    /// What the client's capabilities said about the extensions this server
    /// reads.
    extensions: ClientExtensions,
    /// `notifications/initialized` arrived.
    initialized_notified: bool,
}

impl Connection {
    pub(crate) fn new(state: Arc<ServerState>) -> Self {
        Connection {
            state,
            session: Session::default(),
            memo: ReadMemo::default(),
            concurrent: false,
            in_batch: false,
            deferred: Vec::new(),
        }
    }

    /// Hands `tools/call` and `notifications/cancelled` over to the caller
    /// ([`take_deferred`](Self::take_deferred)) rather than answering and
    /// ignoring them.
    pub(crate) fn run_calls_beside(&mut self) {
        self.concurrent = true;
    }

    /// What the last messages handed over, to be drained and given back
    /// (so that its room is kept).
    pub(crate) fn take_deferred(&mut self) -> Vec<Deferred> {
        std::mem::take(&mut self.deferred)
    }

    /// Gives back the (drained) list [`take_deferred`](Self::take_deferred) took.
    pub(crate) fn give_back(&mut self, deferred: Vec<Deferred>) {
        debug_assert!(deferred.is_empty());
        if self.deferred.is_empty() {
            self.deferred = deferred;
        }
    }

    /// Answers one JSON-RPC message (the bytes of one JSON value).
    ///
    /// Returns the response to a request, or an error response to a message
    /// that is not valid JSON-RPC; returns `None` for a notification (which
    /// never gets an answer) and for a response the client sent. A panic inside
    /// the server is caught and answered with `-32603`; the connection stays
    /// usable. [`handle_into`](Self::handle_into) answers into a buffer the
    /// caller keeps, without a new one for each message.
    pub fn handle(&mut self, message: &[u8]) -> Option<Vec<u8>> {
        let mut response = Vec::new();
        self.handle_into(message, &mut response).then_some(response)
    }

    /// Answers one JSON-RPC message as [`handle`](Self::handle) does, appending
    /// the response to `response`, and says whether there was one. When there
    /// is none (a notification, a response the client sent), `response` is
    /// left as it was.
    ///
    /// A server that answers many messages keeps one buffer for all of them,
    /// clearing it between answers: an answer then costs no allocation of its
    /// own once the buffer has grown to the longest.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::Server;
    ///
    /// let server = Server::builder("files", "1.0.0").build()?;
    /// let mut connection = server.connect();
    /// let mut response = Vec::new();
    /// let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    /// for _ in 0..3 {
    ///     response.clear();
    ///     assert!(connection.handle_into(ping, &mut response));
    ///     assert_eq!(response, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    /// }
    /// let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    /// assert!(!connection.handle_into(note, &mut response));
    /// # Ok::<(), annot::server::BuildError>(())
    /// ```
    pub fn handle_into(&mut self, message: &[u8], response: &mut Vec<u8>) -> bool {
        let start = response.len();
        match jsonrpc::batch(message) {
            None => self.handle_one(message, response),
            Some(Err(rejected)) => jsonrpc::error(
                response,
                rejected.id.as_deref().map(Json::checked),
                &rejected.error,
            ),
            Some(Ok(messages)) => self.handle_batch(&messages, response),
        }
        response.len() > start
    }

    /// A batch (a JSON array of messages): answered, as 2025-03-26 requires of
    /// servers, only on sessions that negotiated a version with batches; every
    /// other session gets `-32600` for the whole batch. The answers of the
    /// requests form one array, in order; a batch of notifications and
    /// responses gets no answer at all.
    fn handle_batch(&mut self, messages: &[&RawValue], out: &mut Vec<u8>) {
        if !self
            .session
            .protocol_version
            .is_some_and(versions::allows_batches)
        {
            let error = RpcError::new(
                error_code::INVALID_REQUEST,
                "batch requests are accepted only on sessions at 2025-03-26 or earlier: send one message per line",
            );
            return jsonrpc::error(out, None, &error);
        }
        // A batch is answered as one array: its calls run in it.
        self.in_batch = true;
        let start = out.len();
        out.push(b'[');
        for message in messages {
            let bytes = message.get().as_bytes();
            let before = out.len();
            if before > start + 1 {
                out.push(b',');
            }
            let answered = out.len();
            if jsonrpc::batch(bytes).is_some() {
                let error = RpcError::new(error_code::INVALID_REQUEST, "a batch cannot nest");
                jsonrpc::error(out, None, &error);
            } else {
                self.handle_one(bytes, out);
            }
            if out.len() == answered {
                // No answer: no separator either.
                out.truncate(before);
            }
        }
        self.in_batch = false;
        if out.len() == start + 1 {
            out.truncate(start);
        } else {
            out.push(b']');
        }
    }

    fn handle_one(&mut self, message: &[u8], out: &mut Vec<u8>) {
        if let Err(Repeated) = self.answer(message, out) {
            // Rare: read it as serde_json does (the last value of a repeated
            // member wins), then answer that.
            let Some(canonical) = jsonrpc::canonical(message) else {
                return;
            };
            if let Err(Repeated) = self.answer(&canonical, out) {
                let error = RpcError::new(error_code::INVALID_REQUEST, "unreadable message");
                jsonrpc::error(out, None, &error);
            }
        }
    }

    /// Answers a message into `out`, or says it repeats a member somewhere
    /// (and writes nothing). What a failed request wrote before it failed is
    /// cut off here, and its error answer written in its place.
    fn answer(&mut self, message: &[u8], out: &mut Vec<u8>) -> Result<(), Repeated> {
        let mut envelope = Envelope::default();
        // Read where it was returned: moving the request out of the `Result`
        // copied it whole just after `parse` wrote it a field at a time, and
        // the copy stalled.
        let parsed = jsonrpc::parse(message, &mut envelope, &mut self.memo);
        let (id, method, params) = match &parsed {
            Err(rejected) if rejected.repeated => return Err(Repeated),
            Err(rejected) => {
                let id = rejected.id.as_deref().map(Json::checked);
                jsonrpc::error(out, id, &rejected.error);
                return Ok(());
            }
            Ok(Incoming::Response) => return Ok(()),
            Ok(Incoming::Notification { method }) => {
                self.notify(method, message);
                return Ok(());
            }
            Ok(Incoming::Request { id, method, params }) => (*id, &**method, *params),
        };
        let start = out.len();
        let answered = match request_params::read(params) {
            Err(error) => Ok(Err(error)),
            Ok(params) => catch_unwind(AssertUnwindSafe(|| self.request(out, id, method, params))),
        };
        let error = match answered {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(error)) => error,
            Err(payload) => {
                eprintln!(
                    "annot: `{method}` panicked: {}",
                    panic_message(payload.as_ref())
                );
                RpcError::new(error_code::INTERNAL_ERROR, "internal error")
            }
        };
        out.truncate(start);
        jsonrpc::error(out, Some(id), &error);
        Ok(())
    }

    /// The protocol version `initialize` settled on, if it ran.
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.session.protocol_version
    }

    /// The `capabilities` the client sent in `initialize`, if it ran.
    pub fn client_capabilities(&self) -> Option<&Value> {
        self.session.client_capabilities.as_ref()
    }

    /// The `clientInfo` the client sent in `initialize`, if any.
    pub fn client_info(&self) -> Option<&Value> {
        self.session.client_info.as_ref()
    }

    /// Whether `initialize` has been answered.
    pub fn is_initialized(&self) -> bool {
        self.session.protocol_version.is_some()
    }

    /// Whether the client sent `notifications/initialized`.
    pub fn initialized_notified(&self) -> bool {
        self.session.initialized_notified
    }

    /// Whether the session negotiated the tool-resolution extension (dialect C):
    /// the client declared it with empty settings and this server offers it.
    pub fn tool_resolution_negotiated(&self) -> bool {
        self.state
            .dialects
            .contains(Dialect::ToolResolutionExtension)
            && self.session.extensions.stance == Stance::Offered
    }

    fn notify(&mut self, method: &str, message: &[u8]) {
        match method {
            "notifications/initialized" => self.session.initialized_notified = true,
            "notifications/cancelled" if self.concurrent => {
                if let Some(key) = RequestKey::cancelled_by(message) {
                    self.deferred.push(Deferred::Cancel(key));
                }
            }
            // Every other notification (progress, unknown ones) needs nothing,
            // nor does a cancellation where every request completes before
            // the next is read.
            _ => {}
        }
    }

    /// Hands a `tools/call` over to the transport, when it runs calls beside
    /// the session, and says whether it did.
    fn defer_call(&mut self, id: Json<'_>, params: &Params<'_>, asker: Asker<'static>) -> bool {
        if !self.concurrent || self.in_batch {
            return false;
        }
        // ProgressToken: a string or a number; anything else asks for nothing.
        let progress_token = params
            .meta
            .and_then(|meta| meta.progress_token)
            .filter(|token| {
                matches!(
                    read::type_name(*token),
                    "string" | "number" | "a non-integer number"
                )
            })
            .map(|token| token.get().into());
        self.deferred.push(Deferred::Call(PendingCall {
            message: Vec::new(),
            id: id.get().into(),
            progress_token,
            asker,
        }));
        true
    }

    /// Answers a request whose params were read.
    fn request(
        &mut self,
        out: &mut Vec<u8>,
        id: Json<'_>,
        method: &str,
        params: Params<'_>,
    ) -> Result<(), RpcError> {
        if method == "initialize" {
            return self.initialize(out, id, &params);
        }
        match classify(method, params.meta)? {
            Era::Legacy => self.legacy(out, id, method, &params),
            Era::Modern { capabilities } => {
                // `tools/resolve` reads the capabilities itself, so that any
                // that lack the extension get -32021 there.
                if method != METHOD_RESOLVE {
                    capabilities_object(capabilities)?;
                }
                let extension = params.stance() == Some(Stance::Offered);
                self.modern(out, id, method, &params, extension)
            }
        }
    }

    /// A request of a handshake session.
    fn legacy(
        &mut self,
        out: &mut Vec<u8>,
        id: Json<'_>,
        method: &str,
        params: &Params<'_>,
    ) -> Result<(), RpcError> {
        let state = &*self.state;
        let dialects = state.dialects;
        let asker = Asker {
            modern: false,
            session: self.session.extensions,
            protocol_version: self.session.protocol_version,
        };
        match method {
            "ping" => {
                jsonrpc::result(out, id, "{}");
                Ok(())
            }
            "tools/list" => {
                // The request's own capabilities, when it carries some, decide
                // whether it sees the extension's marker; else the session's.
                let per_request = params.stance().map(|stance| stance == Stance::Offered);
                let extension = dialects.contains(Dialect::ToolResolutionExtension)
                    && per_request.unwrap_or(self.session.extensions.stance == Stance::Offered);
                list_pages::answer(
                    out,
                    &state.pages,
                    id,
                    params,
                    PageForm::of(false, extension),
                )
            }
            "tools/call" if self.defer_call(id, params, asker) => Ok(()),
            _ => tool_method(out, &self.state, id, method, params, &asker),
        }
    }

    /// A 2026-07-28 request: judged by its own `_meta` alone.
    fn modern(
        &mut self,
        out: &mut Vec<u8>,
        id: Json<'_>,
        method: &str,
        params: &Params<'_>,
        extension: bool,
    ) -> Result<(), RpcError> {
        let state = &*self.state;
        let dialects = state.dialects;
        let asker = Asker {
            modern: true,
            session: ClientExtensions::default(),
            protocol_version: Some(MODERN_PROTOCOL_VERSION),
        };
        match method {
            METHOD_DISCOVER => {
                jsonrpc::result(out, id, &state.modern.discover);
                Ok(())
            }
            "tools/list" => {
                let extension = extension && dialects.contains(Dialect::ToolResolutionExtension);
                list_pages::answer(out, &state.pages, id, params, PageForm::of(true, extension))
            }
            "tools/call" if self.defer_call(id, params, asker) => Ok(()),
            // 2026-07-28 has no handshake and no ping.
            _ => tool_method(out, &self.state, id, method, params, &asker),
        }
    }

    fn initialize(
        &mut self,
        out: &mut Vec<u8>,
        id: Json<'_>,
        params: &Params<'_>,
    ) -> Result<(), RpcError> {
        if self.is_initialized() {
            return Err(RpcError::new(
                error_code::INVALID_REQUEST,
                "the session is already initialized",
            ));
        }
        let fields = &params.fields;
        let requested =
            request_params::raw_required_string(fields.protocol_version, "protocolVersion")?;
        // Kept as trees: read once per session.
        let tree = |text: &str| -> Value {
            serde_json::from_str(text).unwrap_or_else(|_| Value::Object(Map::new()))
        };
        let capabilities =
            request_params::raw_optional_object(fields.capabilities, "capabilities")?
                .map_or_else(|| Value::Object(Map::new()), tree);
        let client_info =
            request_params::raw_optional_object(fields.client_info, "clientInfo")?.map(tree);

        let version = negotiate_version(&requested);
        self.session = Session {
            protocol_version: Some(version),
            extensions: ClientExtensions {
                stance: stance(&capabilities),
                negotiated: Negotiated::of(&capabilities),
            },
            client_capabilities: Some(capabilities),
            client_info,
            initialized_notified: false,
        };
        let index = PROTOCOL_VERSIONS
            .iter()
            .position(|supported| *supported == version)
            .expect("negotiate_version returns a supported version");
        jsonrpc::result(out, id, &self.state.initialize_results[index]);
        Ok(())
    }
}

/// The methods both eras answer alike, `asker` telling them apart:
/// `tools/call` and the resolution methods of the dialects the server enables.
fn tool_method(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    method: &str,
    params: &Params<'_>,
    asker: &Asker<'_>,
) -> Result<(), RpcError> {
    if method == "tools/call" {
        return call::answer(out, state, id, params, asker, None);
    }
    match Method::offered(method, state.dialects) {
        Some(method) => resolution::answer(out, state, id, method, params, asker.resolution()),
        None => Err(method_not_found(method)),
    }
}

fn method_not_found(method: &str) -> RpcError {
    RpcError::new(
        error_code::METHOD_NOT_FOUND,
        format!("method not found: `{}`", request_params::quote(method)),
    )
}

/// Answers a call the session handed over ([`Deferred::Call`]) into `out`,
/// as the session would have, the handler seeing `control`.
pub(crate) fn answer_call(
    state: &ServerState,
    call: &PendingCall,
    control: &Arc<CallControl>,
    out: &mut Vec<u8>,
) {
    if let Err(Repeated) = answer_call_in(state, &call.message, call, control, out) {
        // Read as the session read it: the last value of a repeated member wins.
        let canonical = jsonrpc::canonical(&call.message).unwrap_or_default();
        if let Err(Repeated) = answer_call_in(state, &canonical, call, control, out) {
            let error = RpcError::new(error_code::INVALID_REQUEST, "unreadable message");
            jsonrpc::error(out, Some(Json::checked(&call.id)), &error);
        }
    }
}

/// [`answer_call`] of `message` (the call's, or its canonical form).
fn answer_call_in(
    state: &ServerState,
    message: &[u8],
    call: &PendingCall,
    control: &Arc<CallControl>,
    out: &mut Vec<u8>,
) -> Result<(), Repeated> {
    let mut envelope = Envelope::default();
    // Nothing of a first message is remembered: a memo of one message costs
    // nothing.
    let parsed = jsonrpc::parse(message, &mut envelope, &mut ReadMemo::default());
    let (id, params) = match &parsed {
        Err(rejected) if rejected.repeated => return Err(Repeated),
        Ok(Incoming::Request { id, params, .. }) => (*id, *params),
        // The session read it as a request: so does this reading.
        _ => {
            let error = RpcError::new(error_code::INTERNAL_ERROR, "internal error");
            jsonrpc::error(out, Some(Json::checked(&call.id)), &error);
            return Ok(());
        }
    };
    let start = out.len();
    let answered = match request_params::read(params) {
        Err(error) => Ok(Err(error)),
        Ok(params) => catch_unwind(AssertUnwindSafe(|| {
            call::answer(out, state, id, &params, &call.asker, Some(control))
        })),
    };
    let error = match answered {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(error)) => error,
        Err(payload) => {
            eprintln!(
                "annot: `tools/call` panicked: {}",
                panic_message(payload.as_ref())
            );
            RpcError::new(error_code::INTERNAL_ERROR, "internal error")
        }
    };
    out.truncate(start);
    jsonrpc::error(out, Some(id), &error);
    Ok(())
}

/// A message repeats a member somewhere the server reads.
struct Repeated;

impl core::fmt::Debug for Connection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Connection")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A new session: negotiation state starts empty.
    pub fn connect(&self) -> Connection {
        Connection::new(Arc::clone(&self.state))
    }
}
