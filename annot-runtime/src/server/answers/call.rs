//! `tools/call`: the call's answer, written into the response.
//!
//! It reads the request's params as borrowed slices ([`Fields`](crate::read::Fields), [`Meta`](crate::read::Meta))
//! and hands the arguments to the tool's parser as text.

use std::sync::Arc;

use crate::protocol::RpcError;
use crate::read::Json;
use crate::server::answers::resolution::{self, ClientExtensions};
use crate::server::answers::tool_output;
use crate::server::answers::trust_claims;
use crate::server::negotiation::versions::argument_errors_are_tool_errors;
use crate::server::registry::erased_tool::{CallOutcome, Invocation};
use crate::server::registry::server_state::ServerState;
use crate::server::transport::in_flight::CallControl;
use crate::server::transport::jsonrpc;
use crate::server::transport::request_params::{self, Params};

/// Who asks, as far as the answer's shape goes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asker<'a> {
    /// A 2026-07-28 request: judged by its own `_meta`, its results closed
    /// with `resultType` and the server's `_meta`.
    pub modern: bool,
    /// What `initialize` declared (nothing for a 2026-07-28 request, which
    /// never looks at the session).
    pub session: ClientExtensions,
    /// The protocol version whose rules apply to `tools/call` errors.
    pub protocol_version: Option<&'a str>,
}

impl Asker<'_> {
    /// Who asks for a resolution.
    pub fn resolution(&self) -> resolution::Asker {
        resolution::Asker {
            modern: self.modern,
            session: self.session,
        }
    }
}

/// `tools/call`: validates the arguments, runs the handler (under `control`,
/// when the call runs beside its session), and reports its failure or panic
/// as an `isError` result.
// Out of line: a call runs a handler, and the resolution methods beside it in
// the connection's `tool_method` stay small enough to be inlined there.
#[inline(never)]
pub(crate) fn answer(
    out: &mut Vec<u8>,
    state: &ServerState,
    id: Json<'_>,
    params: &Params<'_>,
    asker: &Asker<'_>,
    control: Option<&Arc<CallControl>>,
) -> Result<(), RpcError> {
    let name = request_params::name(params.fields)?;
    let arguments = request_params::raw_optional_object(params.fields.arguments, "arguments")?;
    let tool = state
        .tool(&name)
        .ok_or_else(|| request_params::unknown_tool(&name))?;

    let trust = trust_claims::negotiated(
        state.extensions.trust_annotations,
        asker.session.negotiated.trust_annotations,
        params.meta,
    );
    jsonrpc::start_result(out, id, 128);
    // The `_meta` of the result's own claims, when the client gets claims.
    let mut claims_meta = None;
    // Absent arguments are an empty object, which nothing was split from.
    let split = arguments.and(params.fields.split_arguments.as_ref());
    let invocation = Invocation { trust, control };
    match tool.call(arguments.unwrap_or("{}"), split, invocation) {
        CallOutcome::Returned(Ok(output), floor) => {
            let declared = tool.declared_output();
            let structured = output.structured_content.as_ref();
            match declared.map_or(Ok(()), |declared| declared.check(structured)) {
                Ok(()) => claims_meta = tool_output::write_success(out, &output, floor),
                Err(message) => {
                    // The message may quote the content: it claims the floor.
                    tool_output::write_failure(out, &message);
                    claims_meta = floor.and_then(|floor| trust_claims::result_meta(floor, None, 0));
                }
            }
        }
        CallOutcome::Returned(Err(error), floor) => {
            // A handler's message may quote what the call brought back, so
            // it claims the floor.
            tool_output::write_failure(out, error.message());
            claims_meta = floor.and_then(|floor| trust_claims::result_meta(floor, None, 0));
        }
        CallOutcome::Refused(violation) => tool_output::write_failure(
            out,
            &format!("refused: this call of `{}` is {violation}", tool.name()),
        ),
        CallOutcome::Panicked(message) => {
            eprintln!("annot: tool `{}` panicked: {message}", tool.name());
            tool_output::write_failure(
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
            let message = request_params::quote_message(&error.to_string()).into_owned();
            tool_output::write_failure(out, &format!("invalid arguments: {message}"));
        }
        CallOutcome::Invalid(error) => {
            return Err(request_params::invalid_arguments(tool.name(), &error));
        }
    }
    match (asker.modern, claims_meta) {
        (true, meta) => state.modern.close_with(out, meta.as_deref()),
        (false, Some(meta)) => tool_output::append_meta(out, &meta),
        (false, None) => {}
    }
    jsonrpc::finish(out);
    Ok(())
}
