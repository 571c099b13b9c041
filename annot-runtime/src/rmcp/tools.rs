//! The annotated tools of an rmcp server and their typed handlers.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResult, CustomRequest, CustomResult, ErrorCode,
    ServerCapabilities, Tool as RmcpTool,
};
use ::rmcp::service::RequestContext;
use ::rmcp::{ErrorData, RoleServer};
use futures_util::FutureExt;
use serde_json::{Value, json};

use super::convert::{ToolConversionError, project, wire_tool};
use super::dispatch;
use crate::protocol::{
    Dialect, METHOD_ANNOTATIONS, METHOD_RESOLVE, RpcError, TOOL_RESOLUTION_EXTENSION,
};
use crate::{AnnotatedTool, Annotations, ArgumentError, Tool};

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

type CallFn<S> = for<'a> fn(&'a S, Value, RequestContext<RoleServer>) -> CallFuture<'a>;
type ResolveFn = fn(&Value) -> Result<Annotations, ArgumentError>;

struct Entry<S> {
    /// The Tool as annot puts it on the wire.
    wire: Tool,
    /// rmcp's view of it, carrying the rest under `_meta`.
    listed: RmcpTool,
    resolve: ResolveFn,
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
    entries: Vec<Entry<S>>,
}

impl<S> Default for AnnotatedTools<S> {
    fn default() -> Self {
        AnnotatedTools {
            entries: Vec::new(),
        }
    }
}

impl<S> fmt::Debug for AnnotatedTools<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|entry| &entry.wire.name))
            .finish()
    }
}

impl<S> AnnotatedTools<S> {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds tool `T`, run by `S`'s [`HandleTool<T>`].
    ///
    /// # Errors
    ///
    /// [`ToolConversionError`] when `T`'s input schema is not a JSON object
    /// schema or a tool of the same name is already registered.
    pub fn with<T>(mut self) -> Result<Self, ToolConversionError>
    where
        T: AnnotatedTool + Send + 'static,
        S: HandleTool<T>,
    {
        if self.get(T::NAME).is_some() {
            return Err(ToolConversionError::DuplicateTool {
                tool: T::NAME.to_owned(),
            });
        }
        let wire = wire_tool::<T>()?;
        let listed = project(&wire)?;
        self.entries.push(Entry {
            wire,
            listed,
            resolve: resolve_erased::<T>,
            call: call_erased::<S, T>,
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
        self.entries.iter().find(|entry| entry.wire.name == name)
    }

    /// Runs a `tools/call` of an annotated tool: parses and validates the
    /// arguments, then calls the typed handler. A tool failure is whatever the
    /// handler returns; a handler that panics gives `-32603` and the server
    /// keeps serving.
    ///
    /// Arguments that do not fit the schema give `-32602` with the offending
    /// field in `data.path`, the same error `tools/resolve` gives; a name that is
    /// no annotated tool gives `-32602` too (check [`get`](Self::get) first to
    /// pass other tools on).
    pub fn call<'a>(
        &self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallFuture<'a> {
        let Some(entry) = self.entry(&request.name) else {
            let error = rpc_to_rmcp(dispatch::unknown_tool(&request.name));
            return Box::pin(std::future::ready(Err(error)));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = (entry.call)(server, arguments, context);
        let name = entry.wire.name.clone();
        Box::pin(async move {
            AssertUnwindSafe(call)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    Err(ErrorData::internal_error(
                        format!("the handler of tool `{name}` panicked"),
                        None,
                    ))
                })
        })
    }

    /// Answers `tools/resolve` (dialect B or C, as the client negotiated) and
    /// `tools/annotations` (dialect A). `None` for any other method, so the
    /// caller can pass it on.
    pub fn answer(
        &self,
        request: &CustomRequest,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        let method = request.method.as_str();
        if method != METHOD_RESOLVE && method != METHOD_ANNOTATIONS {
            return None;
        }
        let result = self
            .resolve(method, request.params.as_ref(), context)
            .map(CustomResult)
            .map_err(rpc_to_rmcp);
        Some(result)
    }

    fn resolve(
        &self,
        method: &str,
        params: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, RpcError> {
        let (name, arguments) = dispatch::resolve_params(method, params)?;
        let entry = self
            .entry(name)
            .ok_or_else(|| dispatch::unknown_tool(name))?;
        let dialect = if method == METHOD_ANNOTATIONS {
            Dialect::DynamicAnnotations
        } else {
            let session = context
                .peer
                .peer_info()
                .and_then(|info| serde_json::to_value(&info.capabilities).ok());
            dispatch::resolve_dialect(session.as_ref(), &context.meta)?
        };
        let resolved = (entry.resolve)(arguments)
            .map_err(|error| dispatch::invalid_arguments(name, &error))?;
        dispatch::answer(dialect, &entry.wire, resolved)
    }

    /// Declares what the annotated tools need in server capabilities: the
    /// `tools` capability, the tool-resolution extension (dialect C), and, for
    /// the lift to put under `capabilities.tools`, `resolve` (dialect B) and
    /// `dynamicAnnotations` (dialect A). `meta` is the result's `_meta`.
    pub fn declare_capabilities(
        &self,
        capabilities: &mut ServerCapabilities,
        meta: &mut Option<::rmcp::model::MetaObject>,
    ) {
        if self.entries.is_empty() {
            return;
        }
        capabilities.tools.get_or_insert_with(Default::default);
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .entry(TOOL_RESOLUTION_EXTENSION.to_owned())
            .or_default();
        meta.get_or_insert_with(Default::default).insert(
            super::LIFT_META.to_owned(),
            json!({"capabilities": {"tools": {"resolve": true, "dynamicAnnotations": true}}}),
        );
    }
}

fn resolve_erased<T: AnnotatedTool>(arguments: &Value) -> Result<Annotations, ArgumentError> {
    T::from_arguments(arguments).map(|tool| tool.resolve())
}

fn call_erased<S, T>(
    server: &S,
    arguments: Value,
    context: RequestContext<RoleServer>,
) -> CallFuture<'_>
where
    T: AnnotatedTool + Send + 'static,
    S: HandleTool<T>,
{
    match T::from_arguments(&arguments) {
        Ok(tool) => Box::pin(server.handle(tool, context)),
        Err(error) => {
            let error = rpc_to_rmcp(dispatch::invalid_arguments(T::NAME, &error));
            Box::pin(std::future::ready(Err(error)))
        }
    }
}

/// The same error in rmcp's type.
pub(crate) fn rpc_to_rmcp(error: RpcError) -> ErrorData {
    // Every code this crate produces fits in i32; anything else is reported as
    // an internal error rather than truncated.
    let code = i32::try_from(error.code).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(ErrorCode(code), Cow::Owned(error.message), error.data)
}
