//! Asking a server for the annotations of one call, checking the answer, and
//! falling back to the static annotations when the answer cannot be used.

use core::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Resolution;
use super::support::{NotResolvable, RequestError, Requester, ResolutionSupport, label};
use crate::protocol::{
    AnnotationsResult, Dialect, ExtensionResolveResult, ResolveToolResult, RpcError, error_code,
};
use crate::tool::json_type;
use crate::{Annotations, BoundViolation, Tool};

impl ResolutionSupport {
    /// Asks the server for the annotations of calling `tool` with `arguments`.
    ///
    /// Picks the best dialect with [`dialect_for`](Self::dialect_for), sends one
    /// request through `requester`, and checks the answer: its shape in that
    /// dialect, that it names `tool`, and that it stays within the static
    /// annotations of `tool` (the conservative bound). On any failure the result
    /// keeps the static annotations and says why in [`Preflight::source`].
    ///
    /// Nothing is cached: every call asks again, since another argument set can
    /// resolve differently.
    ///
    /// A resolution can only claim less risk than the static annotations, so it
    /// changes nothing for an untrusted server, whose claims of safety are not
    /// believed (see [`ProposedCall`](super::ProposedCall)); a host may skip the
    /// request for such servers.
    ///
    /// # Errors
    ///
    /// [`PreflightError::InvalidParams`] when the server answers `-32602`: it
    /// rejects the arguments (or the tool), so the call must not be made with
    /// them, and no annotations stand in for that.
    pub fn preflight<R: Requester + ?Sized>(
        &self,
        requester: &mut R,
        tool: &Tool,
        arguments: &Map<String, Value>,
    ) -> Result<Preflight, PreflightError> {
        let declared = tool
            .annotations
            .as_ref()
            .map(|annotations| annotations.hints())
            .unwrap_or_default();
        let outcome = |resolved, source| Preflight {
            tool: tool.name.clone(),
            declared,
            resolved,
            source,
        };
        let dialect = match self.dialect_for(tool) {
            Ok(dialect) => dialect,
            Err(why) => return Ok(outcome(None, AnnotationSource::Static(why))),
        };
        let params = self.request_params(dialect, &tool.name, arguments);
        let answer = match requester.request(dialect.method(), params) {
            Ok(result) => check(dialect, &tool.name, &declared, result),
            Err(RequestError::Rpc(error)) if error.code == error_code::INVALID_PARAMS => {
                return Err(PreflightError::InvalidParams {
                    tool: tool.name.clone(),
                    error,
                });
            }
            Err(error) => Err(ResolutionFailure::from(error)),
        };
        Ok(match answer {
            Ok(resolved) => outcome(Some(resolved), AnnotationSource::Resolved(dialect)),
            Err(failure) => outcome(None, AnnotationSource::Fallback { dialect, failure }),
        })
    }
}

/// Checks a result in `dialect` and returns the resolved annotations it carries.
fn check(
    dialect: Dialect,
    name: &str,
    declared: &Annotations,
    result: Value,
) -> Result<Resolution, ResolutionFailure> {
    let (found, resolved) = match dialect {
        Dialect::DynamicAnnotations => {
            // The request named the tool; this dialect's answer does not repeat it.
            let result: AnnotationsResult = parse(result)?;
            (name.to_owned(), result.annotations.hints())
        }
        Dialect::ResolveTool => {
            let result: ResolveToolResult = parse(result)?;
            let hints = result.tool.annotations.unwrap_or_default().hints();
            (result.tool.name, hints)
        }
        Dialect::ToolResolutionExtension => {
            let result: ExtensionResolveResult = parse(result)?;
            if result.result_type != "complete" {
                return Err(ResolutionFailure::Malformed {
                    detail: format!(
                        "resultType is \"{}\" where \"complete\" is required",
                        result.result_type
                    ),
                });
            }
            if let Some((key, _)) = result
                .meta
                .iter()
                .flatten()
                .find(|(_, value)| !value.is_object())
            {
                return Err(ResolutionFailure::Malformed {
                    detail: format!("_meta[\"{key}\"] must be an object"),
                });
            }
            // The extension resolves the four core hints only; like every hint an
            // answer leaves out, the SEP-1984 hints keep their static values.
            (result.name, Annotations::from(result.annotations))
        }
    };
    if found != name {
        return Err(ResolutionFailure::NameMismatch {
            expected: name.to_owned(),
            found,
        });
    }
    Resolution::check(*declared, resolved).map_err(ResolutionFailure::OutOfBound)
}

fn parse<T: DeserializeOwned>(result: Value) -> Result<T, ResolutionFailure> {
    // Serde would also read a struct from an array; a result is an object.
    if !result.is_object() {
        return Err(ResolutionFailure::Malformed {
            detail: format!("the result must be an object, found {}", json_type(&result)),
        });
    }
    serde_path_to_error::deserialize(result).map_err(|error| {
        let path = error.path().to_string();
        let detail = if path == "." {
            error.inner().to_string()
        } else {
            format!("at `{path}`: {}", error.inner())
        };
        ResolutionFailure::Malformed { detail }
    })
}

/// The annotations a client should act on for one proposed call, and where they
/// came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preflight {
    /// The tool's name.
    pub tool: String,
    /// The static annotations of `tools/list`, as listed (defaults not applied).
    pub declared: Annotations,
    /// The server's resolution for these arguments, when it was asked and the
    /// answer passed every check. Every hint the answer leaves out keeps its
    /// static value (silence never lowers risk), in every dialect: for the
    /// extension (dialect C), whose answer carries only the four core hints, the
    /// SEP-1984 hints are the static ones.
    pub resolved: Option<Resolution>,
    /// Whether the server resolved the call, and if not, why not.
    pub source: AnnotationSource,
}

impl Preflight {
    /// The annotations to act on, defaults applied: the resolution (its unstated
    /// hints at their static values) when there is one, else the static
    /// annotations.
    pub fn annotations(&self) -> Annotations {
        self.resolved
            .map_or(self.declared, |resolution| resolution.annotations())
            .effective()
    }

    /// Whether the server resolved the call.
    pub fn is_resolved(&self) -> bool {
        self.resolved.is_some()
    }
}

/// Where the annotations of a [`Preflight`] come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnnotationSource {
    /// The server resolved the call in this dialect.
    Resolved(Dialect),
    /// Nothing was asked: the static annotations are all there is.
    Static(NotResolvable),
    /// The server was asked in `dialect` but the answer could not be used, so the
    /// static annotations apply.
    Fallback {
        /// The dialect that was tried.
        dialect: Dialect,
        /// What went wrong.
        failure: ResolutionFailure,
    },
}

impl fmt::Display for AnnotationSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnnotationSource::Resolved(dialect) => write!(f, "resolved by {}", label(*dialect)),
            AnnotationSource::Static(why) => write!(f, "static annotations: {why}"),
            AnnotationSource::Fallback { dialect, failure } => write!(
                f,
                "static annotations: {} failed: {failure}",
                label(*dialect)
            ),
        }
    }
}

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
