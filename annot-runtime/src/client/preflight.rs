//! Asking a server for the annotations of one call, checking the answer, and
//! falling back to the static annotations when the answer cannot be used.

use core::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::envelope::{is_about_envelope, newest_common, supported_versions, take_result_meta};
use super::resolution::with_admitted_risk;
use super::support::{NotResolvable, RequestError, Requester, ResolutionSupport, label};
use super::{PreflightError, Resolution, ResolutionFailure};
use crate::argument_error::json_type;
use crate::protocol::{
    AUTHORIZATION_EXTENSION, AnnotationsResult, Dialect, ExtensionResolveResult, ResolveToolResult,
    error_code,
};
use crate::{Annotations, Tool};

impl ResolutionSupport {
    /// Asks the server for the annotations of calling `tool` with `arguments`.
    ///
    /// Picks the best dialect with [`dialect_for`](Self::dialect_for), sends one
    /// request through `requester`, and checks the answer: its shape in that
    /// dialect, that it names `tool`, and that it stays within the static
    /// annotations of `tool` (the conservative bound). On any failure the result
    /// keeps the static annotations and says why in [`Preflight::source`].
    ///
    /// **Silence never lowers risk**: every hint the answer leaves out keeps
    /// its static value ([`Resolution`]).
    ///
    /// With a [`protocol_version`](Self::protocol_version) (MCP 2026-07-28), the
    /// request carries `params._meta` with that version, the client's info and
    /// its whole capabilities (the tool-resolution extension among them when
    /// offered). A `-32022` naming a version this client speaks is retried once
    /// with it; otherwise, and on a `-32602` about that `_meta` rather than the
    /// arguments, the static annotations apply and the source says why.
    /// A legacy session (no version) sends what it always sent.
    ///
    /// Nothing is cached: every call asks again, since another argument set can
    /// resolve differently.
    ///
    /// An untrusted server's resolution changes nothing: its claims of safety and
    /// its silence count as risk (see [`Trust::screen`](super::Trust::screen)); a
    /// host may skip the request for such servers.
    ///
    /// # Errors
    ///
    /// [`PreflightError::InvalidParams`] when the server answers `-32602` about
    /// the arguments (or the tool): the call must not be made with them, and no
    /// annotations stand in for that.
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
        let mut outcome = Preflight {
            tool: tool.name.clone(),
            declared,
            resolved: None,
            source: AnnotationSource::Static(NotResolvable::Unmarked),
            protocol_version: self.protocol_version.clone(),
            server_info: None,
            meta: Map::new(),
            admitted: None,
            security_schemes: None,
        };
        let dialect = match self.dialect_for(tool) {
            Ok(dialect) => dialect,
            Err(why) => {
                outcome.source = AnnotationSource::Static(why);
                return Ok(outcome);
            }
        };
        let answer = self.ask(requester, dialect, tool, arguments, &mut outcome)?;
        outcome.source = match answer.and_then(|result| self.check(dialect, result, &mut outcome)) {
            Ok(resolution) => {
                outcome.resolved = Some(resolution);
                AnnotationSource::Resolved(dialect)
            }
            Err(failure) => AnnotationSource::Fallback { dialect, failure },
        };
        Ok(outcome)
    }

    /// Sends the request, retrying once on `-32022` with a version the server
    /// lists and this client speaks; records the version used in `outcome`.
    fn ask<R: Requester + ?Sized>(
        &self,
        requester: &mut R,
        dialect: Dialect,
        tool: &Tool,
        arguments: &Map<String, Value>,
        outcome: &mut Preflight,
    ) -> Result<Result<Value, ResolutionFailure>, PreflightError> {
        let mut retried = false;
        loop {
            let version = outcome.protocol_version.as_deref();
            let params = self.request_params(dialect, &tool.name, arguments, version);
            let error = match requester.request(dialect.method(), params) {
                Ok(result) => return Ok(Ok(result)),
                Err(RequestError::Rpc(error)) => error,
                Err(error) => return Ok(Err(ResolutionFailure::from(error))),
            };
            match (error.code, version) {
                (error_code::INVALID_PARAMS, _) if is_about_envelope(&error) => {
                    return Ok(Err(ResolutionFailure::Envelope {
                        message: error.message,
                    }));
                }
                (error_code::INVALID_PARAMS, _) => {
                    return Err(PreflightError::InvalidParams {
                        tool: tool.name.clone(),
                        error,
                    });
                }
                (error_code::UNSUPPORTED_PROTOCOL_VERSION, Some(requested)) => {
                    let supported = supported_versions(&error);
                    match newest_common(&supported) {
                        Some(next) if !retried && next != requested => {
                            retried = true;
                            outcome.protocol_version = Some(next);
                        }
                        _ => {
                            return Ok(Err(ResolutionFailure::UnsupportedVersion {
                                requested: requested.to_owned(),
                                supported,
                            }));
                        }
                    }
                }
                _ => return Ok(Err(ResolutionFailure::from(RequestError::Rpc(error)))),
            }
        }
    }

    /// Checks a result in `dialect` and returns the checked resolution it
    /// carries; keeps the result's readable `_meta` in `outcome`.
    fn check(
        &self,
        dialect: Dialect,
        mut result: Value,
        outcome: &mut Preflight,
    ) -> Result<Resolution, ResolutionFailure> {
        let name = outcome.tool.as_str();
        let malformed = |detail: String| ResolutionFailure::Malformed { detail };
        // In dialect C a client reads only the metadata of extensions it
        // negotiated on the request; the other dialects negotiate none, so
        // every key is theirs to show.
        let negotiated = self.client.negotiated_extensions(self.offers_extension());
        let meta = take_result_meta(&mut result, |key| {
            dialect != Dialect::ToolResolutionExtension || negotiated.iter().any(|n| n == key)
        })
        .map_err(malformed)?;
        if dialect != Dialect::ToolResolutionExtension {
            // A 2026-07-28 result says what kind it is; only a complete one resolves.
            match result.get("resultType") {
                None => {}
                Some(Value::String(kind)) if kind == "complete" => {
                    result
                        .as_object_mut()
                        .map(|object| object.remove("resultType"));
                }
                Some(other) => {
                    return Err(malformed(format!(
                        "resultType is {other} where \"complete\" is required"
                    )));
                }
            }
        }
        let mut security_schemes = None;
        let (found, stated) = match dialect {
            Dialect::DynamicAnnotations => {
                // The request named the tool; this dialect's answer does not repeat it.
                let result: AnnotationsResult = parse(result)?;
                (name.to_owned(), result.annotations.hints())
            }
            Dialect::ResolveTool => {
                let mut result: ResolveToolResult = parse(result)?;
                let hints = result.tool.annotations.unwrap_or_default().hints();
                security_schemes = result.tool.extra.remove("securitySchemes");
                (result.tool.name, hints)
            }
            Dialect::ToolResolutionExtension => {
                let result: ExtensionResolveResult = parse(result)?;
                if result.result_type != "complete" {
                    return Err(malformed(format!(
                        "resultType is \"{}\" where \"complete\" is required",
                        result.result_type
                    )));
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
        let resolution = Resolution::check(outcome.declared, stated).map_err(|violation| {
            outcome.admitted = Some(stated);
            ResolutionFailure::OutOfBound(violation)
        })?;
        outcome.server_info = meta.server_info;
        outcome.meta = meta.negotiated;
        outcome.security_schemes = security_schemes.or_else(|| {
            outcome
                .meta
                .get(AUTHORIZATION_EXTENSION)?
                .get("securitySchemes")
                .cloned()
        });
        Ok(resolution)
    }
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
#[derive(Clone, Debug, PartialEq)]
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
    /// The per-request protocol version of the last request (`None` in a legacy
    /// session): the configured one, or the one a `-32022` led to.
    pub protocol_version: Option<String>,
    /// `_meta["io.modelcontextprotocol/serverInfo"]` of a used answer, when it is
    /// an object.
    pub server_info: Option<Map<String, Value>>,
    /// The rest of a used answer's `_meta` the client may read: in dialect C
    /// only the keys of extensions it negotiated on the request (every other key
    /// is ignored, whatever its value); in A and B every key.
    pub meta: Map<String, Value>,
    /// What an answer that broke the conservative bound stated (and so was
    /// not used): the risk it admits still counts, hint by hint, in
    /// [`annotations`](Self::annotations) and in a [`ProposedCall`](super::ProposedCall)
    /// made from this preflight.
    pub admitted: Option<Annotations>,
    /// What this call needs to be authorized, as a used answer stated it: the
    /// `securitySchemes` of dialect B's resolved Tool, or in dialect C those
    /// under `_meta["dev.annot/authorization"]` when the client negotiated that
    /// extension. `None` when the answer said nothing (the listing's
    /// `securitySchemes`, the worst case, still hold).
    pub security_schemes: Option<Value>,
}

impl Preflight {
    /// The annotations to act on, defaults applied: the resolution (its unstated
    /// hints at their static values) when there is one, else the static
    /// annotations, each hint at least as risky as a rejected answer
    /// [`admitted`](Self::admitted).
    pub fn annotations(&self) -> Annotations {
        let claimed = self
            .resolved
            .map_or(self.declared, |resolution| resolution.annotations());
        with_admitted_risk(claimed, self.admitted).effective()
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
