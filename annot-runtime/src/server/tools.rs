//! The `tools/*` methods: listing, calling, and the three resolution dialects.

use serde_json::{Map, Value};

use super::extras::{Extras, extras, result_meta};
use super::modern::ModernForms;
use super::negotiation::{Stance, argument_errors_are_tool_errors, resolve_dialect};
use super::pagination::PageForm;
use super::registry::{CallOutcome, ResolveFailure, ToolEntry};
use super::{ServerState, jsonrpc, output, params};
use crate::protocol::{CLIENT_CAPABILITIES_META, Dialect, ResolveParams, RpcError, error_code};

/// Who asks, as far as the answer's shape goes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asker<'a> {
    /// A 2026-07-28 request: judged by its own `_meta`, its results closed
    /// with `resultType` and the server's `_meta`.
    pub modern: bool,
    /// What `initialize` said about the extension (`Absent` for a 2026-07-28
    /// request, which never looks at the session).
    pub session: Stance,
    /// The capabilities `initialize` sent (`None` for a 2026-07-28 request).
    pub session_capabilities: Option<&'a Value>,
    /// The protocol version whose rules apply to `tools/call` errors.
    pub protocol_version: Option<&'a str>,
}

/// `tools/list`: a pre-rendered page in `form`.
pub(crate) fn list(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
    form: PageForm,
) -> Result<Vec<u8>, RpcError> {
    let mut params = params::object(params)?;
    let cursor = params::optional_string(&mut params, "cursor")?;
    let page = state.pages.page(cursor.as_deref(), form)?;
    Ok(jsonrpc::result(id, page))
}

/// `tools/call`: validates the arguments, runs the handler, and reports its
/// failure or panic as an `isError` result.
pub(crate) fn call(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
    asker: &Asker<'_>,
) -> Result<Vec<u8>, RpcError> {
    let mut params = params::object(params)?;
    let name = params::required_string(&mut params, "name")?;
    let arguments = params::optional_object(&mut params, "arguments")?.unwrap_or_default();
    let tool = state
        .tool(&name)
        .ok_or_else(|| params::unknown_tool(&name))?;

    let mut out = jsonrpc::start_result(id, 128);
    match tool.call(&Value::Object(arguments)) {
        CallOutcome::Returned(Ok(output)) => output::write_success(&mut out, &output),
        CallOutcome::Returned(Err(error)) => output::write_failure(&mut out, error.message()),
        CallOutcome::Panicked(message) => {
            eprintln!("annot: tool `{}` panicked: {message}", tool.name());
            output::write_failure(
                &mut out,
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
            output::write_failure(&mut out, &format!("invalid arguments: {message}"));
        }
        CallOutcome::Invalid(error) => return Err(params::invalid_arguments(tool.name(), &error)),
    }
    if asker.modern {
        state.modern.close(&mut out);
    }
    Ok(jsonrpc::finish(out))
}

/// `tools/annotations` (dialect A).
pub(crate) fn annotations(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
    asker: &Asker<'_>,
) -> Result<Vec<u8>, RpcError> {
    let mut object = params::object(params)?;
    let meta = params::optional_object(&mut object, "_meta")?;
    let request = resolve_params(object, meta)?;
    answer_resolution(state, id, request, Dialect::DynamicAnnotations, asker)
}

/// `tools/resolve`, in dialect B's or C's shape as negotiated. The capability
/// is checked before the parameters: a request lacking it gets `-32021`
/// whatever its arguments.
pub(crate) fn resolve(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
    asker: &Asker<'_>,
) -> Result<Vec<u8>, RpcError> {
    let mut object = params::object(params)?;
    let meta = params::optional_object(&mut object, "_meta")?;
    let per_request = meta
        .as_ref()
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_META));
    let dialect = resolve_dialect(state.dialects, asker.session, per_request, asker.modern)?;
    let request = resolve_params(object, meta)?;
    answer_resolution(state, id, request, dialect, asker)
}

fn answer_resolution(
    state: &ServerState,
    id: &Value,
    request: ResolveParams,
    dialect: Dialect,
    asker: &Asker<'_>,
) -> Result<Vec<u8>, RpcError> {
    let extras = extras(
        dialect,
        state.extensions,
        asker.session_capabilities,
        request.meta.as_ref(),
    );
    let tool: &ToolEntry = state
        .tool(&request.name)
        .ok_or_else(|| params::unknown_tool(&request.name))?;
    if !tool.resolvable() {
        return Err(params::not_resolvable(tool.name()));
    }
    let mut out = jsonrpc::start_result(id, 256);
    let modern = asker.modern.then_some(&state.modern);
    write_resolution(&mut out, tool, request.arguments, dialect, extras, modern)?;
    Ok(jsonrpc::finish(out))
}

/// Resolves `arguments` with `tool` and appends the result of `dialect`, with
/// the `_meta` extras the request may see, to `out`. Both runtimes answer
/// resolutions through it: this server and the rmcp adapter.
pub(crate) fn write_resolution(
    out: &mut Vec<u8>,
    tool: &ToolEntry,
    arguments: Map<String, Value>,
    dialect: Dialect,
    extras: Extras,
    modern: Option<&ModernForms>,
) -> Result<(), RpcError> {
    let internal = || {
        RpcError::new(
            error_code::INTERNAL_ERROR,
            "internal error: the resolution broke the tool's static bound",
        )
    };
    let resolution = match tool.resolve(&Value::Object(arguments), extras.explanation) {
        Ok(resolution) => resolution,
        Err(ResolveFailure::Invalid(error)) => {
            return Err(params::invalid_arguments(tool.name(), &error));
        }
        Err(ResolveFailure::OutsideBound(violation)) => {
            eprintln!(
                "annot: tool `{}` resolved outside its static annotations: {violation}",
                tool.name()
            );
            return Err(internal());
        }
        Err(ResolveFailure::AuthorizationOutsideBound) => {
            eprintln!(
                "annot: tool `{}` resolved to more authorization than it declares",
                tool.name()
            );
            return Err(internal());
        }
    };
    let meta = result_meta(
        extras,
        resolution.explanation.as_ref(),
        resolution.authorization,
    );
    match modern {
        None => tool.write_result(out, dialect, &resolution, meta.as_deref(), false),
        Some(forms) => {
            let meta = forms.meta_with(meta.as_deref());
            tool.write_result(out, dialect, &resolution, Some(&meta), true);
        }
    }
    Ok(())
}

/// `{ name, arguments }` of both resolution methods, beside their `_meta`.
pub(crate) fn resolve_params(
    mut object: Map<String, Value>,
    meta: Option<Map<String, Value>>,
) -> Result<ResolveParams, RpcError> {
    let name = params::required_string(&mut object, "name")?;
    let arguments = match params::optional_object(&mut object, "arguments")? {
        Some(arguments) => arguments,
        None => {
            return Err(params::invalid("missing `arguments`")
                .with_data(serde_json::json!({ "path": "arguments" })));
        }
    };
    Ok(ResolveParams {
        name,
        arguments,
        meta,
    })
}
