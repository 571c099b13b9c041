//! The `tools/*` methods: listing, calling, and the three resolution dialects.
//!
//! Each reads the request's params as borrowed slices ([`Fields`](crate::read::Fields), [`Meta`](crate::read::Meta))
//! and hands the arguments to the tool's parser as text.

use super::claims;
use super::erased::CallOutcome;
use super::extras::{Extras, Negotiated, extras, result_meta};
use super::modern::ModernForms;
use super::negotiation::{Stance, argument_errors_are_tool_errors, resolve_dialect};
use super::pagination::PageForm;
use super::params::{self, Params};
use super::profile::ProfileViolation;
use super::registry::{ResolveFailure, ToolEntry};
use super::state::ServerState;
use super::{jsonrpc, output};
use crate::protocol::{Dialect, RpcError, error_code};
use crate::read::Json;
use crate::read::SplitArguments;

/// Who asks, as far as the answer's shape goes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asker<'a> {
    /// A 2026-07-28 request: judged by its own `_meta`, its results closed
    /// with `resultType` and the server's `_meta`.
    pub modern: bool,
    /// What `initialize` said about the extension (`Absent` for a 2026-07-28
    /// request, which never looks at the session).
    pub session: Stance,
    /// This project's extensions `initialize` negotiated (none for a
    /// 2026-07-28 request).
    pub session_extensions: Negotiated,
    /// The protocol version whose rules apply to `tools/call` errors.
    pub protocol_version: Option<&'a str>,
}

/// `tools/list`: a pre-rendered page in `form`.
pub(crate) fn list(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    params: &Params<'_>,
    form: PageForm,
) -> Result<(), RpcError> {
    let cursor = params::raw_optional_string(params.fields.cursor, "cursor")?;
    let page = state.pages.page(cursor.as_deref(), form)?;
    jsonrpc::result(out, id, page);
    Ok(())
}

/// `tools/call`: validates the arguments, runs the handler, and reports its
/// failure or panic as an `isError` result.
pub(crate) fn call(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    params: &Params<'_>,
    asker: &Asker<'_>,
) -> Result<(), RpcError> {
    let name = params::name(params.fields)?;
    let arguments = params::raw_optional_object(params.fields.arguments, "arguments")?;
    let tool = state
        .tool(&name)
        .ok_or_else(|| params::unknown_tool(&name))?;

    let trust = claims::negotiated(
        state.extensions.trust_annotations,
        asker.session_extensions.trust_annotations,
        params.meta,
    );
    jsonrpc::start_result(out, id, 128);
    // The `_meta` of the result's own claims, when the client gets claims.
    let mut claims_meta = None;
    // Absent arguments are an empty object, which nothing was split from.
    let split = arguments.and(params.fields.split_arguments.as_ref());
    match tool.call(arguments.unwrap_or("{}"), split, trust) {
        CallOutcome::Returned(Ok(output), floor) => {
            let declared = tool.declared_output();
            let structured = output.structured_content.as_ref();
            match declared.map_or(Ok(()), |declared| declared.check(structured)) {
                Ok(()) => claims_meta = output::write_success(out, &output, floor),
                Err(message) => {
                    // The message may quote the content: it claims the floor.
                    output::write_failure(out, &message);
                    claims_meta = floor.and_then(|floor| claims::result_meta(floor, None, 0));
                }
            }
        }
        CallOutcome::Returned(Err(error), floor) => {
            // A handler's message may quote what the call brought back, so
            // it claims the floor.
            output::write_failure(out, error.message());
            claims_meta = floor.and_then(|floor| claims::result_meta(floor, None, 0));
        }
        CallOutcome::Refused(violation) => output::write_failure(
            out,
            &format!("refused: this call of `{}` is {violation}", tool.name()),
        ),
        CallOutcome::Panicked(message) => {
            eprintln!("annot: tool `{}` panicked: {message}", tool.name());
            output::write_failure(
                out,
                &format!(
                    "internal error: the tool `{}` failed unexpectedly",
                    tool.name()
                ),
            );
        }
        // From 2025-11-25 on (SEP-1303) the model should see what is wrong with
        // its arguments, so it can correct them; earlier versions want -32602.
        CallOutcome::Invalid(error) if argument_errors_are_tool_errors(asker.protocol_version) => {
            let message = params::quote_message(&error.to_string()).into_owned();
            output::write_failure(out, &format!("invalid arguments: {message}"));
        }
        CallOutcome::Invalid(error) => return Err(params::invalid_arguments(tool.name(), &error)),
    }
    match (asker.modern, claims_meta) {
        (true, meta) => state.modern.close_with(out, meta.as_deref()),
        (false, Some(meta)) => output::append_meta(out, &meta),
        (false, None) => {}
    }
    jsonrpc::finish(out);
    Ok(())
}

/// `tools/annotations` (dialect A).
pub(crate) fn annotations(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    params: &Params<'_>,
    asker: &Asker<'_>,
) -> Result<(), RpcError> {
    answer_resolution(out, state, id, params, Dialect::DynamicAnnotations, asker)
}

/// `tools/resolve`, in dialect B's or C's shape as negotiated. The capability
/// is checked before the parameters: a request lacking it gets `-32021`
/// whatever its arguments.
pub(crate) fn resolve(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    params: &Params<'_>,
    asker: &Asker<'_>,
) -> Result<(), RpcError> {
    let dialect = resolve_dialect(state.dialects, asker.session, params.stance(), asker.modern)?;
    answer_resolution(out, state, id, params, dialect, asker)
}

fn answer_resolution(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    params: &Params<'_>,
    dialect: Dialect,
    asker: &Asker<'_>,
) -> Result<(), RpcError> {
    let name = params::name(params.fields)?;
    let Some(arguments) = params::raw_optional_object(params.fields.arguments, "arguments")? else {
        return Err(params::invalid("missing `arguments`")
            .with_data(serde_json::json!({ "path": "arguments" })));
    };
    let extras = extras(
        dialect,
        state.extensions,
        asker.session_extensions,
        params.meta,
    );
    let tool: &ToolEntry = state
        .tool(&name)
        .ok_or_else(|| params::unknown_tool(&name))?;
    if !tool.resolvable() {
        // A profile's refusal is what the client should hear about, as for a
        // call: the tool may be one the profile dropped.
        if !tool.profile().is_any()
            && let Err(ResolveFailure::OutsideProfile(violation)) =
                tool.resolve(arguments, params.fields.split_arguments.as_ref(), false)
        {
            return Err(outside_profile(tool, violation));
        }
        return Err(params::not_resolvable(tool.name()));
    }
    let modern = asker.modern.then_some(&state.modern);
    // `_meta` beyond the server's identity (an explanation, authorization)
    // is rare enough to grow the buffer for.
    let meta = modern.map_or(0, |forms| {
        r#","_meta":"#.len() + forms.server_info_meta.len()
    });
    jsonrpc::start_result(out, id, tool.result_capacity(dialect) + meta);
    let arguments = (arguments, params.fields.split_arguments.as_ref());
    write_resolution(out, tool, arguments, dialect, extras, modern)?;
    jsonrpc::finish(out);
    Ok(())
}

/// Resolves `arguments` (JSON text, and its members when the request reader
/// split them) with `tool` and appends the result of `dialect`, with the
/// `_meta` extras the request may see, to `out`.
fn write_resolution(
    out: &mut Vec<u8>,
    tool: &ToolEntry,
    (arguments, split): (&str, Option<&SplitArguments<'_>>),
    dialect: Dialect,
    extras: Extras,
    modern: Option<&ModernForms>,
) -> Result<(), RpcError> {
    // Read where it was returned: moving it out of the `Result` copied it
    // just after `settle` wrote it field by field, and the copy stalled.
    let resolved = tool.resolve(arguments, split, extras.explanation);
    let resolution = match resolved {
        Ok(ref resolution) => resolution,
        Err(failure) => return Err(resolve_failure(tool, failure)),
    };
    let meta = result_meta(
        extras,
        resolution.explanation.as_deref(),
        resolution.authorization,
    );
    match modern {
        None => tool.write_result(out, dialect, resolution, meta.as_deref(), false),
        Some(forms) => {
            let meta = forms.meta_with(meta.as_deref());
            tool.write_result(out, dialect, resolution, Some(&meta), true);
        }
    }
    Ok(())
}

/// The error answer of a resolution that failed: `-32602` for arguments
/// that do not fit or resolve outside the profile, an internal error (and a
/// line on stderr) for a tool that broke its own bound.
pub(super) fn resolve_failure(tool: &ToolEntry, failure: ResolveFailure) -> RpcError {
    let internal = || {
        RpcError::new(
            error_code::INTERNAL_ERROR,
            "internal error: the resolution broke the tool's static bound",
        )
    };
    match failure {
        ResolveFailure::Invalid(error) => params::invalid_arguments(tool.name(), &error),
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
    params::invalid(format!("this call of `{}` is {violation}", tool.name()))
}
