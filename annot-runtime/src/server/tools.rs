//! The `tools/*` methods: listing, calling, and the three resolution dialects.

use serde_json::{Map, Value};

use super::extras::{Extras, extras, result_meta};
use super::negotiation::{argument_errors_are_tool_errors, resolve_dialect};
use super::registry::{CallOutcome, ResolveFailure, ToolEntry};
use super::{ServerState, jsonrpc, output, params};
use crate::protocol::{Dialect, ResolveParams, RpcError, error_code};

/// `tools/list`: a pre-rendered page.
pub(crate) fn list(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
) -> Result<Vec<u8>, RpcError> {
    let mut params = params::object(params)?;
    let cursor = params::optional_string(&mut params, "cursor")?;
    let page = state.pages.page(cursor.as_deref())?;
    Ok(jsonrpc::result(id, page))
}

/// `tools/call`: validates the arguments, runs the handler, and reports its
/// failure or panic as an `isError` result.
pub(crate) fn call(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
    protocol_version: Option<&str>,
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
        CallOutcome::Invalid(error) if argument_errors_are_tool_errors(protocol_version) => {
            let message = params::quote_message(&error.to_string()).into_owned();
            output::write_failure(&mut out, &format!("invalid arguments: {message}"));
        }
        CallOutcome::Invalid(error) => return Err(params::invalid_arguments(tool.name(), &error)),
    }
    Ok(jsonrpc::finish(out))
}

/// `tools/annotations` (dialect A).
pub(crate) fn annotations(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
) -> Result<Vec<u8>, RpcError> {
    let request = resolve_params(params)?;
    answer_resolution(state, id, request, Dialect::DynamicAnnotations, None)
}

/// `tools/resolve`, in dialect B's or C's shape as negotiated.
pub(crate) fn resolve(
    state: &ServerState,
    id: &Value,
    params: Option<Value>,
    extension_negotiated: bool,
    session_capabilities: Option<&Value>,
) -> Result<Vec<u8>, RpcError> {
    let request = resolve_params(params)?;
    let dialect = resolve_dialect(state.dialects, extension_negotiated, request.meta.as_ref())?;
    answer_resolution(state, id, request, dialect, session_capabilities)
}

fn answer_resolution(
    state: &ServerState,
    id: &Value,
    request: ResolveParams,
    dialect: Dialect,
    session_capabilities: Option<&Value>,
) -> Result<Vec<u8>, RpcError> {
    let extras = extras(
        dialect,
        state.extensions,
        session_capabilities,
        request.meta.as_ref(),
    );
    let tool: &ToolEntry = state
        .tool(&request.name)
        .ok_or_else(|| params::unknown_tool(&request.name))?;
    let mut out = jsonrpc::start_result(id, 256);
    write_resolution(&mut out, tool, request.arguments, dialect, extras)?;
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
    tool.write_result(out, dialect, &resolution, meta.as_deref());
    Ok(())
}

/// `{ name, arguments, _meta? }` of both resolution methods.
pub(crate) fn resolve_params(params: Option<Value>) -> Result<ResolveParams, RpcError> {
    let mut object: Map<String, Value> = params::object(params)?;
    let name = params::required_string(&mut object, "name")?;
    let arguments = match params::optional_object(&mut object, "arguments")? {
        Some(arguments) => arguments,
        None => {
            return Err(params::invalid("missing `arguments`")
                .with_data(serde_json::json!({ "path": "arguments" })));
        }
    };
    let meta = params::optional_object(&mut object, "_meta")?;
    Ok(ResolveParams {
        name,
        arguments,
        meta,
    })
}
