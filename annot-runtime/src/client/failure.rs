//! Why a preflight fell back to the static annotations, and the one answer
//! that must block the call instead.

use serde_json::Value;

use super::support::RequestError;
use crate::BoundViolation;
use crate::protocol::{RpcError, error_code};

/// Why a resolution was not used. Each one makes the preflight fall back to the
/// static annotations.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolutionFailure {
    /// No answer came.
    #[error("no answer: {message}")]
    Transport {
        /// What the transport reported.
        message: String,
    },
    /// `-32601`: the server does not know the method after all.
    #[error("the server does not implement it (-32601: {message})")]
    MethodNotFound {
        /// The server's message.
        message: String,
    },
    /// `-32603`: the server failed to resolve.
    #[error("the server failed (-32603: {message})")]
    Internal {
        /// The server's message.
        message: String,
    },
    /// `-32021`: the server wants a client capability the request lacked.
    #[error("the server requires a capability this client did not declare (-32021: {message}{})", required_suffix(.required.as_ref()))]
    MissingCapability {
        /// The server's message.
        message: String,
        /// `error.data.requiredCapabilities`, when the server gave it.
        required: Option<Value>,
    },
    /// `-32602` about the request's envelope, not the arguments: the server
    /// rejected the per-request `_meta` (protocol version, client info,
    /// capabilities), so it never judged the call.
    #[error("the server rejected the request's _meta, not the arguments (-32602: {message})")]
    Envelope {
        /// The server's message.
        message: String,
    },
    /// `-32022`: the server does not serve the protocol version of the request
    /// (after one retry with a version it listed, if this client speaks one).
    #[error(
        "the server does not serve protocol version {requested} (-32022); it supports {supported:?}"
    )]
    UnsupportedVersion {
        /// The version of the last request.
        requested: String,
        /// `error.data.supported`.
        supported: Vec<String>,
    },
    /// Any other JSON-RPC error.
    #[error("the server answered error {code}: {message}")]
    Rpc {
        /// The error code.
        code: i64,
        /// The server's message.
        message: String,
    },
    /// The result does not have the dialect's shape.
    #[error("the answer is malformed: {detail}")]
    Malformed {
        /// What is wrong and where.
        detail: String,
    },
    /// The result describes another tool.
    #[error("the answer is for tool `{found}`, not `{expected}`")]
    NameMismatch {
        /// The tool that was asked about.
        expected: String,
        /// The tool the answer names.
        found: String,
    },
    /// The resolution claims more risk than the static annotations allow, so
    /// either is wrong and neither can be believed over the worst case.
    #[error("the answer breaks the conservative bound: {0}")]
    OutOfBound(BoundViolation),
}

fn required_suffix(required: Option<&Value>) -> String {
    required.map_or_else(String::new, |required| format!("; required: {required}"))
}

impl From<RequestError> for ResolutionFailure {
    fn from(error: RequestError) -> Self {
        match error {
            RequestError::Transport { message } => ResolutionFailure::Transport { message },
            RequestError::Rpc(RpcError {
                code,
                message,
                data,
            }) => match code {
                error_code::METHOD_NOT_FOUND => ResolutionFailure::MethodNotFound { message },
                error_code::INTERNAL_ERROR => ResolutionFailure::Internal { message },
                error_code::MISSING_CAPABILITY => ResolutionFailure::MissingCapability {
                    message,
                    required: data.and_then(|data| data.get("requiredCapabilities").cloned()),
                },
                code => ResolutionFailure::Rpc { code, message },
            },
        }
    }
}

/// A preflight answer the client must not paper over with static annotations.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PreflightError {
    /// `-32602`: the server rejects the arguments (or does not know the tool).
    /// The call must not be made with these arguments.
    #[error("the server rejected the arguments of `{tool}` (-32602: {}); do not call it with them", .error.message)]
    InvalidParams {
        /// The tool that was asked about.
        tool: String,
        /// The server's error, whose `data` may say which argument is wrong.
        error: RpcError,
    },
}
