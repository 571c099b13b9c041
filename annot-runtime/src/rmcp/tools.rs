//! The annotated tools of an rmcp server and their typed handlers.
//!
//! Listing and resolution are the built-in server's own: its rendered tools,
//! its dialect choice and its error answers. Only the call is rmcp's, because
//! it runs your async handler on the typed value.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
    MetaObject, ServerCapabilities, Tool as RmcpTool,
};
use ::rmcp::service::RequestContext;
use ::rmcp::{ErrorData, RoleServer};
use futures_util::FutureExt;
use serde_json::{Value, json};

use super::LIFT_META;
use super::convert::{ToolConversionError, listing, render};
use crate::protocol::{
    Dialect, METHOD_ANNOTATIONS, METHOD_RESOLVE, RpcError, TOOL_RESOLUTION_EXTENSION, error_code,
};
use crate::server::BuildError;
use crate::server::shared::{
    DialectSet, Extras, ToolEntry, argument_errors_are_tool_errors, invalid_arguments,
    offers_tool_resolution, panic_message, quote_message, resolve_dialect, resolve_params,
    unknown_tool, write_resolution,
};
use crate::{AnnotatedTool, ArgumentError};

/// Runs one annotated tool: implemented by your server type once per tool.
///
/// `handle` receives the arguments already parsed and validated by
/// [`AnnotatedTool::from_arguments`], exactly as `tools/resolve` saw them, so
/// the call that runs is the call that was resolved. Report a failure of the
/// tool itself as `Ok(CallToolResult::error(..))`; an `Err` becomes a JSON-RPC
/// error.
pub trait HandleTool<T: AnnotatedTool>: Send + Sync + 'static {
    /// Runs the tool with typed arguments.
    fn handle(
        &self,
        tool: T,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResult, ErrorData>> + Send + '_;
}

/// A boxed future borrowing the server for `'a`.
pub(crate) type CallFuture<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResult, ErrorData>> + Send + 'a>>;

/// The typed call of one tool: `Err` when the arguments do not fit.
type CallFn<S> =
    for<'a> fn(&'a S, &Value, RequestContext<RoleServer>) -> Result<CallFuture<'a>, ArgumentError>;

struct Entry<S> {
    /// The tool as the built-in server renders and resolves it.
    rendered: ToolEntry,
    /// rmcp's view of its listing, carrying the rest under `_meta`.
    listed: RmcpTool,
    call: CallFn<S>,
}

/// The annotated tools a server of type `S` serves through rmcp, each with the
/// [`HandleTool`] implementation of `S` that runs it.
///
/// [`Annotated`](super::Annotated) uses it for you; it is public for servers that
/// implement [`ServerHandler`](::rmcp::ServerHandler) by hand and call
/// [`list`](Self::list), [`call`](Self::call), [`answer`](Self::answer) and
/// [`declare_capabilities`](Self::declare_capabilities) themselves.
pub struct AnnotatedTools<S> {
    dialects: DialectSet,
    entries: Vec<Entry<S>>,
}

impl<S> Default for AnnotatedTools<S> {
    fn default() -> Self {
        AnnotatedTools {
            dialects: DialectSet::ALL,
            entries: Vec::new(),
        }
    }
}

impl<S> fmt::Debug for AnnotatedTools<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnnotatedTools")
            .field("dialects", &self.dialects.iter().collect::<Vec<_>>())
            .field(
                "tools",
                &self
                    .entries
                    .iter()
                    .map(|e| e.rendered.name())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl<S> AnnotatedTools<S> {
    /// No tools yet; all three resolution dialects offered.
    pub fn new() -> Self {
        Self::default()
    }

    /// No tools yet; only `dialects` offered (an empty set serves `tools/list`
    /// and `tools/call` only), as [`ServerBuilder::dialects`] does for the
    /// built-in server.
    ///
    /// [`ServerBuilder::dialects`]: crate::server::ServerBuilder::dialects
    pub fn with_dialects(dialects: impl IntoIterator<Item = Dialect>) -> Self {
        AnnotatedTools {
            dialects: DialectSet::from_dialects(dialects),
            entries: Vec::new(),
        }
    }

    /// Adds tool `T`, run by `S`'s [`HandleTool<T>`].
    ///
    /// # Errors
    ///
    /// What the built-in server refuses ([`BuildError`]): an input schema whose
    /// root is not `"type": "object"`, an action outside the static
    /// annotations, a duplicate or empty name.
    pub fn with<T>(mut self) -> Result<Self, ToolConversionError>
    where
        T: AnnotatedTool + Send + 'static,
        S: HandleTool<T>,
    {
        if self.entry(T::NAME).is_some() {
            return Err(BuildError::DuplicateTool {
                name: T::NAME.to_owned(),
            }
            .into());
        }
        let rendered = render::<T>(self.dialects)?;
        let listed = listing(&rendered)?;
        self.entries.push(Entry {
            rendered,
            listed,
            call: call_typed::<S, T>,
        });
        Ok(self)
    }

    /// The tools as rmcp lists them, in registration order.
    pub fn list(&self) -> Vec<RmcpTool> {
        self.entries
            .iter()
            .map(|entry| entry.listed.clone())
            .collect()
    }

    /// One tool as rmcp lists it.
    pub fn get(&self, name: &str) -> Option<&RmcpTool> {
        self.entry(name).map(|entry| &entry.listed)
    }

    fn entry(&self, name: &str) -> Option<&Entry<S>> {
        self.entries
            .iter()
            .find(|entry| entry.rendered.name() == name)
    }

    /// Runs a `tools/call` of an annotated tool: validates the arguments, then
    /// calls the typed handler, as the built-in server does. Arguments that do
    /// not fit are a tool error (`isError: true`) from protocol 2025-11-25 on
    /// (SEP-1303) and `-32602` before; a handler that panics gives a tool error
    /// and the server keeps serving. A name that is no annotated tool gives
    /// `-32602` (check [`get`](Self::get) first to pass other tools on).
    pub fn call<'a>(
        &self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallFuture<'a> {
        let Some(entry) = self.entry(&request.name) else {
            return ready(Err(rpc_to_rmcp(unknown_tool(&request.name))));
        };
        let name = entry.rendered.name();
        let version = context.protocol_version();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = match (entry.call)(server, &arguments, context) {
            Ok(call) => call,
            Err(error) if argument_errors_are_tool_errors(version.as_ref().map(|v| v.as_str())) => {
                let message = format!("invalid arguments: {}", quote_message(&error.to_string()));
                return ready(Ok(CallToolResult::error(vec![ContentBlock::text(message)])));
            }
            Err(error) => return ready(Err(rpc_to_rmcp(invalid_arguments(name, &error)))),
        };
        Box::pin(async move {
            AssertUnwindSafe(call)
                .catch_unwind()
                .await
                .unwrap_or_else(|payload| {
                    eprintln!(
                        "annot: tool `{name}` panicked: {}",
                        panic_message(payload.as_ref())
                    );
                    let message = format!("internal error: the tool `{name}` failed unexpectedly");
                    Ok(CallToolResult::error(vec![ContentBlock::text(message)]))
                })
        })
    }

    /// Answers `tools/resolve` (dialect B or C, as the client negotiated) and
    /// `tools/annotations` (dialect A), exactly as the built-in server does.
    /// `None` for any other method, and for the method of a dialect not
    /// offered, so the caller can pass it on.
    pub fn answer(
        &self,
        request: &CustomRequest,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        let offered = |dialect| self.dialects.contains(dialect);
        let annotations = match request.method.as_str() {
            METHOD_ANNOTATIONS if offered(Dialect::DynamicAnnotations) => true,
            METHOD_RESOLVE
                if offered(Dialect::ResolveTool) || offered(Dialect::ToolResolutionExtension) =>
            {
                false
            }
            _ => return None,
        };
        let result = self
            .resolve(annotations, request.params.clone(), context)
            .map(CustomResult)
            .map_err(rpc_to_rmcp);
        Some(result)
    }

    fn resolve(
        &self,
        annotations: bool,
        params: Option<Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, RpcError> {
        let request = resolve_params(params)?;
        let dialect = if annotations {
            Dialect::DynamicAnnotations
        } else {
            // rmcp moves the request's `_meta` out of `params`, into the context.
            let session_negotiated = context.peer.peer_info().is_some_and(|info| {
                serde_json::to_value(&info.capabilities).is_ok_and(|c| offers_tool_resolution(&c))
            });
            resolve_dialect(self.dialects, session_negotiated, Some(&context.meta))?
        };
        let entry = self
            .entry(&request.name)
            .ok_or_else(|| unknown_tool(&request.name))?;
        let tool = &entry.rendered;
        let mut out = Vec::with_capacity(256);
        write_resolution(
            &mut out,
            tool,
            request.arguments,
            dialect,
            Extras::default(),
        )?;
        serde_json::from_slice(&out)
            .map_err(|error| RpcError::new(error_code::INTERNAL_ERROR, error.to_string()))
    }

    /// Declares in server capabilities what the offered dialects need: the
    /// `tools` capability, the tool-resolution extension (dialect C), and, for
    /// the lift to put under `capabilities.tools`, `resolve` (dialect B) and
    /// `dynamicAnnotations` (dialect A). `meta` is the result's `_meta`.
    pub fn declare_capabilities(
        &self,
        capabilities: &mut ServerCapabilities,
        meta: &mut Option<MetaObject>,
    ) {
        if self.entries.is_empty() {
            return;
        }
        capabilities.tools.get_or_insert_with(Default::default);
        if self.dialects.contains(Dialect::ToolResolutionExtension) {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .entry(TOOL_RESOLUTION_EXTENSION.to_owned())
                .or_default();
        }
        // The built-in server's `capabilities.tools`, which rmcp's type cannot hold.
        let tools = self.dialects.capabilities()["tools"].take();
        if tools.as_object().is_some_and(|tools| !tools.is_empty()) {
            meta.get_or_insert_with(MetaObject::new).insert(
                LIFT_META.to_owned(),
                json!({"capabilities": {"tools": tools}}),
            );
        }
    }
}

fn ready<'a>(result: Result<CallToolResult, ErrorData>) -> CallFuture<'a> {
    Box::pin(std::future::ready(result))
}

fn call_typed<'a, S, T>(
    server: &'a S,
    arguments: &Value,
    context: RequestContext<RoleServer>,
) -> Result<CallFuture<'a>, ArgumentError>
where
    T: AnnotatedTool + Send + 'static,
    S: HandleTool<T>,
{
    let tool = T::from_arguments(arguments)?;
    Ok(Box::pin(server.handle(tool, context)))
}

/// The same error in rmcp's type.
pub(crate) fn rpc_to_rmcp(error: RpcError) -> ErrorData {
    // Every code this crate produces fits in i32; anything else is reported as
    // an internal error rather than truncated.
    let code = i32::try_from(error.code).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(ErrorCode(code), Cow::Owned(error.message), error.data)
}
