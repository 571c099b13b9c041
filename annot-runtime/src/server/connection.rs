//! One client session: its negotiated state, and the entry point that maps a
//! message to a response.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::jsonrpc::{self, Incoming};
use super::negotiation::{self, negotiate_version};
use super::registry::panic_message;
use super::{ServerState, params, tools};
use crate::protocol::{
    Dialect, METHOD_ANNOTATIONS, METHOD_RESOLVE, PROTOCOL_VERSIONS, RpcError, error_code,
};

/// One client session of a [`Server`](super::Server).
///
/// It remembers what `initialize` negotiated (protocol version, client
/// capabilities), which decides the shape of some answers: dialect C of
/// `tools/resolve` needs the client to have taken up the extension.
pub struct Connection {
    state: Arc<ServerState>,
    session: Session,
}

/// What `initialize` negotiated.
#[derive(Debug, Default)]
struct Session {
    protocol_version: Option<&'static str>,
    client_capabilities: Option<Value>,
    client_info: Option<Value>,
    /// The client took up the tool-resolution extension and this server offers it.
    extension_negotiated: bool,
    /// `notifications/initialized` arrived.
    initialized_notified: bool,
}

impl Connection {
    pub(super) fn new(state: Arc<ServerState>) -> Self {
        Connection {
            state,
            session: Session::default(),
        }
    }

    /// Answers one JSON-RPC message (the bytes of one JSON value).
    ///
    /// Returns the response to a request, or an error response to a message
    /// that is not valid JSON-RPC; returns `None` for a notification (which
    /// never gets an answer) and for a response the client sent. A panic inside
    /// the server is caught and answered with `-32603`; the connection stays
    /// usable.
    pub fn handle(&mut self, message: &[u8]) -> Option<Vec<u8>> {
        let (id, method, params) = match jsonrpc::parse(message) {
            Err(rejected) => return Some(jsonrpc::error(rejected.id.as_ref(), &rejected.error)),
            Ok(Incoming::Response) => return None,
            Ok(Incoming::Notification { method }) => {
                self.notify(&method);
                return None;
            }
            Ok(Incoming::Request { id, method, params }) => (id, method, params),
        };
        let answered = catch_unwind(AssertUnwindSafe(|| self.request(&id, &method, params)));
        Some(match answered {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => jsonrpc::error(Some(&id), &error),
            Err(payload) => {
                eprintln!(
                    "annot: `{method}` panicked: {}",
                    panic_message(payload.as_ref())
                );
                let error = RpcError::new(error_code::INTERNAL_ERROR, "internal error");
                jsonrpc::error(Some(&id), &error)
            }
        })
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
        self.session.extension_negotiated
    }

    fn notify(&mut self, method: &str) {
        if method == "notifications/initialized" {
            self.session.initialized_notified = true;
        }
        // Every other notification (cancellation, progress, unknown ones) needs
        // nothing from a server whose requests complete synchronously.
    }

    fn request(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<Value>,
    ) -> Result<Vec<u8>, RpcError> {
        let state = &*self.state;
        let dialects = state.dialects;
        match method {
            "initialize" => self.initialize(id, params),
            "ping" => Ok(jsonrpc::result(id, "{}")),
            "tools/list" => tools::list(state, id, params),
            "tools/call" => tools::call(state, id, params, self.session.protocol_version),
            METHOD_ANNOTATIONS if dialects.contains(Dialect::DynamicAnnotations) => {
                tools::annotations(state, id, params)
            }
            METHOD_RESOLVE
                if dialects.contains(Dialect::ResolveTool)
                    || dialects.contains(Dialect::ToolResolutionExtension) =>
            {
                tools::resolve(
                    state,
                    id,
                    params,
                    self.session.extension_negotiated,
                    self.session.client_capabilities.as_ref(),
                )
            }
            "server/discover" => Err(RpcError::new(
                error_code::METHOD_NOT_FOUND,
                "server/discover is not supported: send initialize",
            )),
            _ => Err(RpcError::new(
                error_code::METHOD_NOT_FOUND,
                format!("method not found: `{}`", params::quote(method)),
            )),
        }
    }

    fn initialize(&mut self, id: &Value, params: Option<Value>) -> Result<Vec<u8>, RpcError> {
        if self.is_initialized() {
            return Err(RpcError::new(
                error_code::INVALID_REQUEST,
                "the session is already initialized",
            ));
        }
        let mut params = params::object(params)?;
        let requested = params::required_string(&mut params, "protocolVersion")?;
        let capabilities = params::optional_object(&mut params, "capabilities")?;
        let client_info = params::optional_object(&mut params, "clientInfo")?;

        let version = negotiate_version(&requested);
        let capabilities = Value::Object(capabilities.unwrap_or_else(Map::new));
        self.session = Session {
            protocol_version: Some(version),
            extension_negotiated: self
                .state
                .dialects
                .contains(Dialect::ToolResolutionExtension)
                && negotiation::offers_tool_resolution(&capabilities),
            client_capabilities: Some(capabilities),
            client_info: client_info.map(Value::Object),
            initialized_notified: false,
        };
        let index = PROTOCOL_VERSIONS
            .iter()
            .position(|supported| *supported == version)
            .expect("negotiate_version returns a supported version");
        Ok(jsonrpc::result(id, &self.state.initialize_results[index]))
    }
}

impl core::fmt::Debug for Connection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Connection")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}
