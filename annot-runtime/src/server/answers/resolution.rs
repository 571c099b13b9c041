//! The one answer to a resolution request: `tools/annotations` (dialect A)
//! and `tools/resolve` (dialect B or C, as negotiated), whatever read it.
//!
//! A reader hands [`resolve`] the method, the session and the request's params
//! behind [`ResolutionParams`]: the `Connection`'s params read from the
//! message's own bytes, or the tree rmcp hands the adapter. [`resolve`] chooses
//! the dialect, reads the params in the order their errors are owed, resolves
//! and checks the arguments, and decides what the result's `_meta` carries.
//! The [`Answer`] is then written as the reader needs it: appended to a
//! response's bytes ([`Answer::write`]) or built as a tree
//! (`resolution_tree.rs`, for rmcp); [`answer`] writes it into the built-in
//! server's response. Nothing about a resolution's meaning is
//! decided anywhere else.

use std::borrow::Cow;

use crate::protocol::{Dialect, METHOD_ANNOTATIONS, METHOD_RESOLVE, RpcError, error_code};
use crate::read::{self, Extensions, Json};
use crate::server::answers::profile::ProfileViolation;
use crate::server::answers::resolution_meta::{Extras, Negotiated, extras, result_meta};
use crate::server::negotiation::dialects::{DialectSet, Stance, extension_stance, resolve_dialect};
use crate::server::negotiation::era::ModernForms;
use crate::server::registry::server_state::ServerState;
pub(crate) use crate::server::registry::tool_entry::Arguments;
use crate::server::registry::tool_entry::{Resolution, ResolveFailure, ToolEntry};
use crate::server::transport::jsonrpc;
use crate::server::transport::request_params::{self, Params};

/// A resolution method, as the server offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    /// `tools/annotations`: dialect A.
    Annotations,
    /// `tools/resolve`: dialect B or C, chosen per request.
    Resolve,
}

impl Method {
    /// The resolution method `method` names, when the server offers a
    /// dialect of it; `None` for any other method.
    pub fn offered(method: &str, dialects: DialectSet) -> Option<Method> {
        match method {
            METHOD_ANNOTATIONS if dialects.contains(Dialect::DynamicAnnotations) => {
                Some(Method::Annotations)
            }
            METHOD_RESOLVE
                if dialects.contains(Dialect::ResolveTool)
                    || dialects.contains(Dialect::ToolResolutionExtension) =>
            {
                Some(Method::Resolve)
            }
            _ => None,
        }
    }
}

/// What a client's capabilities say about the extensions this server reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClientExtensions {
    /// The tool-resolution extension.
    pub stance: Stance,
    /// This project's extensions and trust-annotations.
    pub negotiated: Negotiated,
}

impl ClientExtensions {
    /// Read through `takes_up`, which says for one extension whether the
    /// capabilities take it up (name it with empty settings, `Some(true)`),
    /// name it otherwise (`Some(false)`) or not at all (`None`).
    #[cfg(feature = "rmcp")]
    pub fn of(takes_up: impl Fn(&str) -> Option<bool>) -> Self {
        use crate::protocol::{
            ANNOT_META, AUTHORIZATION_EXTENSION, TOOL_RESOLUTION_EXTENSION,
            TRUST_ANNOTATIONS_EXTENSION,
        };
        let stance = match takes_up(TOOL_RESOLUTION_EXTENSION) {
            None => Stance::Absent,
            Some(true) => Stance::Offered,
            Some(false) => Stance::Unsupported,
        };
        let negotiated = |key: &str| takes_up(key) == Some(true);
        ClientExtensions {
            stance,
            negotiated: Negotiated {
                resolution: negotiated(ANNOT_META),
                authorization: negotiated(AUTHORIZATION_EXTENSION),
                trust_annotations: negotiated(TRUST_ANNOTATIONS_EXTENSION),
            },
        }
    }

    /// What the extensions read from a message's bytes say.
    pub fn of_read(extensions: &Extensions<'_>) -> Self {
        let negotiated =
            |settings: Option<read::Json<'_>>| settings.is_some_and(read::is_empty_object);
        ClientExtensions {
            stance: extension_stance(extensions),
            negotiated: Negotiated {
                resolution: negotiated(extensions.annot_resolution),
                authorization: negotiated(extensions.annot_authorization),
                trust_annotations: negotiated(extensions.trust_annotations),
            },
        }
    }
}

/// Who asks, as far as a resolution's answer goes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asker {
    /// A 2026-07-28 request: judged by its own `_meta`, its result closed
    /// with `resultType` and the server's `_meta`.
    pub modern: bool,
    /// What `initialize` declared (nothing for a 2026-07-28 request, which
    /// never looks at the session).
    pub session: ClientExtensions,
}

/// A resolution request's params as one reader has them. [`resolve`] asks
/// for each in the order its errors are owed.
pub(crate) trait ResolutionParams<'a> {
    /// The required `name`.
    fn name(&self) -> Result<Cow<'a, str>, RpcError>;
    /// `arguments`, `None` when absent.
    fn arguments(&self) -> Result<Option<Arguments<'a>>, RpcError>;
    /// Whether `_meta["dev.annot/resolution"].explain` is `true`.
    fn asks_explanation(&self) -> bool;
    /// The request's own capabilities (`_meta`), when it carries some.
    fn capabilities(&self) -> Option<ClientExtensions>;
}

/// The `Connection`'s params, read from the message's own bytes.
impl<'a> ResolutionParams<'a> for Params<'a> {
    fn name(&self) -> Result<Cow<'a, str>, RpcError> {
        request_params::name(self.fields)
    }

    fn arguments(&self) -> Result<Option<Arguments<'a>>, RpcError> {
        let arguments = request_params::raw_optional_object(self.fields.arguments, "arguments")?;
        Ok(arguments.map(|text| Arguments::Text(text, self.fields.split_arguments.as_ref())))
    }

    fn asks_explanation(&self) -> bool {
        read::asks_explanation(self.meta)
    }

    fn capabilities(&self) -> Option<ClientExtensions> {
        let extensions = self.meta?.extensions()?;
        Some(ClientExtensions::of_read(&extensions))
    }
}

/// A resolution, checked and ready to be written in its dialect.
pub(crate) struct Answer<'r> {
    pub(crate) tool: &'r ToolEntry,
    pub(crate) dialect: Dialect,
    pub(crate) resolution: &'r Resolution,
    pub(crate) extras: Extras,
    /// The server's 2026-07-28 forms, for a 2026-07-28 request.
    pub(crate) modern: Option<&'r ModernForms>,
}

/// `tools/annotations` or `tools/resolve`: the [`resolve`] core's answer,
/// written into the response.
pub(crate) fn answer(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    method: Method,
    params: &Params<'_>,
    asker: Asker,
) -> Result<(), RpcError> {
    resolve(state, method, params, asker, |answer| {
        jsonrpc::start_result(out, id, answer.capacity());
        answer.write(out);
        jsonrpc::finish(out);
    })
}

/// Answers a resolution request: chooses its dialect (before the params are
/// read, so a request lacking the capability gets `-32021` whatever its
/// arguments), reads the params, resolves the arguments with the tool and
/// checks the resolution against the profile and the tool's bound; `respond`
/// writes the [`Answer`] as the reader needs it.
///
/// The answer is lent to `respond` rather than returned: the resolution is
/// read where the tool returned it, and a request pays no copy of it (the
/// copy, just after the resolver wrote it field by field, stalled).
// Inlined into the built-in server's one caller ([`answer`]), as
// it was before calls ran beside the session: out of line, a request paid
// about 35 more instructions.
#[inline]
pub(crate) fn resolve<'a, R>(
    state: &ServerState,
    method: Method,
    params: &impl ResolutionParams<'a>,
    asker: Asker,
    respond: impl FnOnce(&Answer<'_>) -> R,
) -> Result<R, RpcError> {
    // The request's own capabilities, read once: they choose the dialect of
    // `tools/resolve` and, in dialect C, what else its result may carry.
    let (dialect, per_request) = match method {
        Method::Annotations => (Dialect::DynamicAnnotations, None),
        Method::Resolve => {
            let per_request = params.capabilities();
            let stance = per_request.map(|declared| declared.stance);
            let dialect =
                resolve_dialect(state.dialects, asker.session.stance, stance, asker.modern)?;
            (dialect, per_request)
        }
    };
    let name = params.name()?;
    let Some(arguments) = params.arguments()? else {
        return Err(request_params::invalid("missing `arguments`")
            .with_data(serde_json::json!({ "path": "arguments" })));
    };
    let extras = extras(
        dialect,
        state.extensions,
        asker.session.negotiated,
        params.asks_explanation(),
        || per_request.map(|declared| declared.negotiated),
    );
    let tool = state
        .tool(&name)
        .ok_or_else(|| request_params::unknown_tool(&name))?;
    if !tool.resolvable() {
        // A profile's refusal is what the client should hear about, as for a
        // call: the tool may be one the profile dropped.
        if !tool.profile().is_any()
            && let Err(ResolveFailure::OutsideProfile(violation)) = tool.resolve(arguments, false)
        {
            return Err(outside_profile(tool, violation));
        }
        return Err(request_params::not_resolvable(tool.name()));
    }
    let resolved = tool.resolve(arguments, extras.explanation);
    let resolution = match resolved {
        Ok(ref resolution) => resolution,
        Err(failure) => return Err(resolve_failure(tool, failure)),
    };
    Ok(respond(&Answer {
        tool,
        dialect,
        resolution,
        extras,
        modern: asker.modern.then_some(&state.modern),
    }))
}

impl Answer<'_> {
    /// The bytes the result may take: enough that writing it never grows a
    /// buffer but for a rare `_meta` beyond the server's identity.
    pub fn capacity(&self) -> usize {
        let meta = self.modern.map_or(0, |forms| {
            r#","_meta":"#.len() + forms.server_info_meta.len()
        });
        self.tool.result_capacity(self.dialect) + meta
    }

    /// Appends the result object to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        let meta = result_meta(
            self.extras,
            self.resolution.explanation.as_deref(),
            self.resolution.authorization,
        );
        match self.modern {
            None => {
                self.tool
                    .write_result(out, self.dialect, self.resolution, meta.as_deref(), false);
            }
            Some(forms) => {
                let meta = forms.meta_with(meta.as_deref());
                self.tool
                    .write_result(out, self.dialect, self.resolution, Some(&meta), true);
            }
        }
    }
}

/// The error answer of a resolution that failed: `-32602` for arguments
/// that do not fit or resolve outside the profile, an internal error (and a
/// line on stderr) for a tool that broke its own bound.
fn resolve_failure(tool: &ToolEntry, failure: ResolveFailure) -> RpcError {
    let internal = || {
        RpcError::new(
            error_code::INTERNAL_ERROR,
            "internal error: the resolution broke the tool's static bound",
        )
    };
    match failure {
        ResolveFailure::Invalid(error) => request_params::invalid_arguments(tool.name(), &error),
        ResolveFailure::OutsideProfile(violation) => outside_profile(tool, violation),
        ResolveFailure::OutsideBound(violation) => {
            eprintln!(
                "annot: tool `{}` resolved outside its static annotations: {violation}",
                tool.name()
            );
            internal()
        }
        ResolveFailure::AuthorizationOutsideBound => {
            eprintln!(
                "annot: tool `{}` resolved to more authorization than it declares",
                tool.name()
            );
            internal()
        }
    }
}

/// `-32602` for a resolution outside the server's profile.
fn outside_profile(tool: &ToolEntry, violation: ProfileViolation) -> RpcError {
    request_params::invalid(format!("this call of `{}` is {violation}", tool.name()))
}
