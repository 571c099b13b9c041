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
use std::sync::Arc;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, MetaObject, ServerCapabilities, Tool as RmcpTool,
};
use ::rmcp::service::RequestContext;
use ::rmcp::{ErrorData, RoleServer};
use futures_util::FutureExt;
use serde_json::{Map, Value, json};

use super::LIFT_META;
use super::claims;
use super::clash::ToolNameClash;
use super::client::Client;
use super::convert::{SERVER_NAME, ToolConversionError, listing, runs_through_rmcp};
use crate::protocol::MODERN_PROTOCOL_VERSION;
use crate::protocol::{Dialect, RpcError};
use crate::server::rmcp_bridge::{
    ClientExtensions, DeclaredOutput, Listing, answer_resolution, argument_errors_are_tool_errors,
    called_tool, capabilities, declared_output, invalid_arguments, listed_tools, listing_for,
    panic_message, quote_message, resolve_tree, unknown_tool,
};
use crate::server::{Call, Exposure, Profile, Server, ServerBuilder};
use crate::{AnnotatedTool, ArgumentError};

/// Runs one annotated tool: implemented by your server type once per tool.
///
/// `handle` receives the arguments already parsed and validated by
/// [`AnnotatedTool::from_arguments`], exactly as `tools/resolve` saw them, so
/// the call that runs is the call that was resolved. Report a failure of the
/// tool itself as `Ok(CallToolResult::error(..))`; an `Err` becomes a JSON-RPC
/// error. The context's extensions hold the call's resolved annotations, for
/// guards: see [`resolved_call`].
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

/// The typed call of one tool: `Err` when the arguments do not fit; an
/// `isError` result, without running the handler, when they resolve outside
/// the profile. The flag says whether the client negotiated the
/// trust-annotations extension; the declared output, if any, is what a
/// successful result is held to.
type CallFn<S> = for<'a> fn(
    &'a S,
    &Value,
    RequestContext<RoleServer>,
    Profile,
    bool,
    Option<Arc<DeclaredOutput>>,
) -> Result<CallFuture<'a>, ArgumentError>;

/// The annotated tools a server of type `S` serves through rmcp, each with the
/// [`HandleTool`] implementation of `S` that runs it. Built by
/// [`AnnotatedTools::builder`].
///
/// Listing and resolution are the built-in [`Server`]'s: the adapter renders
/// the tools with one and asks it for every `tools/resolve` and
/// `tools/annotations` answer.
///
/// [`Annotated`](super::Annotated) uses it for you; it is public for servers that
/// implement [`ServerHandler`](::rmcp::ServerHandler) by hand and call
/// [`list`](Self::list), [`call`](Self::call), [`answer`](Self::answer) and
/// [`declare_capabilities`](Self::declare_capabilities) themselves.
pub struct AnnotatedTools<S> {
    server: Server,
    /// rmcp's view of each tool's listing, in listing order, one list per
    /// [`Listing`] (by its index): the extension's marker only in the forms
    /// for clients that take the extension up.
    listed: [Vec<RmcpTool>; 4],
    calls: Vec<Registered<S>>,
}

/// One registered tool: its name, its typed call and its declared output.
struct Registered<S> {
    name: &'static str,
    description: Option<&'static str>,
    call: CallFn<S>,
    /// Its `outputSchema`, checked when the server was built.
    declared: Option<Arc<DeclaredOutput>>,
}

impl<S> fmt::Debug for AnnotatedTools<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnnotatedTools")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

/// Collects the annotated tools of an rmcp server. Start with
/// [`AnnotatedTools::builder`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct AnnotatedToolsBuilder<S> {
    server: ServerBuilder,
    calls: Vec<Registered<S>>,
}

impl<S> fmt::Debug for AnnotatedToolsBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnnotatedToolsBuilder")
            .field(
                "tools",
                &self.calls.iter().map(|tool| tool.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<S> AnnotatedToolsBuilder<S> {
    /// Adds tool `T`, run by `S`'s [`HandleTool<T>`]; tools are listed in the
    /// order they are added.
    pub fn tool<T>(mut self) -> Self
    where
        T: AnnotatedTool + Send + 'static,
        S: HandleTool<T>,
    {
        self.server = self.server.tool(runs_through_rmcp::<T>);
        self.calls.push(Registered {
            name: T::NAME,
            description: T::DESCRIPTION,
            call: call_typed::<S, T>,
            declared: None,
        });
        self
    }

    /// The resolution dialects to offer; all three by default. An empty set
    /// serves `tools/list` and `tools/call` only. As
    /// [`ServerBuilder::dialects`].
    pub fn dialects(mut self, dialects: impl IntoIterator<Item = Dialect>) -> Self {
        self.server = self.server.dialects(dialects);
        self
    }

    /// Serves only calls whose resolved annotations pass `profile`, as
    /// [`ServerBuilder::profile`]: actions that can never pass are dropped
    /// from the listing (a tool with none left is not listed), and every call
    /// and resolution is checked; a call outside the profile gets an
    /// `isError` result and the handler does not run.
    pub fn profile(mut self, profile: Profile) -> Self {
        self.server = self.server.profile(profile);
        self
    }

    /// How each tool of several actions is exposed, as
    /// [`ServerBuilder::exposure`]: one resolvable tool (the default), one
    /// tool per action, or each client the form it can use
    /// ([`Exposure::Auto`], judged on the request's capabilities, else the
    /// session's).
    pub fn exposure(mut self, exposure: Exposure) -> Self {
        self.server = self.server.exposure(exposure);
        self
    }

    /// The naming scheme of per-action tools, as [`ServerBuilder::action_names`].
    pub fn action_names(
        mut self,
        scheme: impl Fn(&str, &str) -> String + Send + Sync + 'static,
    ) -> Self {
        self.server = self.server.action_names(scheme);
        self
    }

    /// Checks the tools as the built-in server does and renders them.
    ///
    /// # Errors
    ///
    /// What [`ServerBuilder::build`] refuses: an input schema whose root is not
    /// `"type": "object"`, an action outside the static annotations, a
    /// duplicate name or one outside MCP's tool-name rules (a per-action name
    /// included).
    pub fn build(self) -> Result<AnnotatedTools<S>, ToolConversionError> {
        let server = self.server.build()?;
        let mut calls = self.calls;
        for registered in &mut calls {
            registered.declared = declared_output(&server, registered.name);
        }
        let mut listed: [Vec<RmcpTool>; 4] = Default::default();
        for form in Listing::ALL {
            listed[form.index()] = listed_tools(&server, form)
                .map(|(name, json)| Ok(borrowing_static(listing(name, json)?, &calls)))
                .collect::<Result<_, ToolConversionError>>()?;
        }
        Ok(AnnotatedTools {
            server,
            listed,
            calls,
        })
    }
}

impl<S> AnnotatedTools<S> {
    /// Starts collecting tools; all three resolution dialects are offered
    /// unless [`dialects`](AnnotatedToolsBuilder::dialects) says otherwise.
    pub fn builder() -> AnnotatedToolsBuilder<S> {
        AnnotatedToolsBuilder {
            server: Server::builder(SERVER_NAME, env!("CARGO_PKG_VERSION")),
            calls: Vec::new(),
        }
    }

    /// The built-in server that renders and resolves the tools.
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The tools as rmcp lists them to the client of `context`, in
    /// registration order, in the form the built-in server gives that client:
    /// the extension's marker (and its `ResolvableTool` shape) only when the
    /// request's own capabilities, or else the session's, take the extension
    /// up; SEP-1862's marker only outside 2026-07-28.
    pub fn list(&self, context: &RequestContext<RoleServer>) -> Vec<RmcpTool> {
        let client = Client::of(context);
        let modern = client
            .request_version()
            .is_some_and(|version| version >= MODERN_PROTOCOL_VERSION);
        let extension = extensions_of(client.capabilities()).stance;
        let form = listing_for(&self.server, modern, extension);
        self.listed[form.index()].clone()
    }

    /// One tool as rmcp sees it, every marker included.
    pub fn get(&self, name: &str) -> Option<&RmcpTool> {
        self.listed[Listing::All.index()]
            .iter()
            .find(|tool| tool.name == name)
    }

    /// Every name a `tools/call` of an annotated tool can use: the names of
    /// every listing form, per-action names included.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.listed[Listing::All.index()]
            .iter()
            .map(|tool| tool.name.as_ref())
    }

    /// The clash of a tool of `handler` named `name` with an annotated tool,
    /// if one answers to that name.
    pub(super) fn clash(&self, name: &str, handler: &'static str) -> Option<ToolNameClash> {
        self.get(name)?;
        let (tool, fixed) = called_tool(&self.server, name)?;
        let action = fixed.map(|fixed| fixed.action);
        Some(ToolNameClash::new(name, tool, action, handler))
    }

    /// Runs a `tools/call` of an annotated tool: validates the arguments, then
    /// calls the typed handler, as the built-in server does. Arguments that do
    /// not fit are a tool error (`isError: true`) from protocol 2025-11-25 on
    /// (SEP-1303) and `-32602` before; a handler that panics gives a tool error
    /// and the server keeps serving. A name that is no annotated tool gives
    /// `-32602` (check [`get`](Self::get) first to pass other tools on).
    ///
    /// The handler's result carries trust-annotations claims only for a
    /// client that negotiated the extension (per request, or else in
    /// `initialize`): at least the call's floor
    /// ([`Call::trust_floor`]), joined with what the handler claimed
    /// ([`claim_result`](super::claim_result),
    /// [`claim_content`](super::claim_content)). For every other client
    /// the adapter takes the handler's claims out.
    pub fn call<'a>(
        &self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallFuture<'a> {
        let unknown = || ready(Err(rpc_to_rmcp(unknown_tool(&request.name))));
        let Some((tool, fixed)) = called_tool(&self.server, &request.name) else {
            return unknown();
        };
        let Some(registered) = self.calls.iter().find(|registered| registered.name == tool) else {
            return unknown();
        };
        let (call, declared) = (registered.call, registered.declared.clone());
        // Errors name the tool as it was called; a panic, the registered one.
        let called = request.name;
        let client = Client::of(&context);
        let tool_errors = argument_errors_are_tool_errors(client.version());
        let trust = claims::negotiated(&self.server, &client);
        let mut arguments = request.arguments.unwrap_or_default();
        // A per-action tool's call is its tool's, the discriminator put back.
        let with_action = match fixed {
            None => Ok(()),
            Some(fixed) if arguments.contains_key(fixed.discriminator) => {
                Err(fixed.discriminator_given())
            }
            Some(fixed) => {
                arguments.insert(fixed.discriminator.to_owned(), fixed.action.into());
                Ok(())
            }
        };
        let arguments = Value::Object(arguments);
        let profile = self.server.profile();
        let called_with =
            with_action.and_then(|()| call(server, &arguments, context, profile, trust, declared));
        match called_with {
            Ok(call) => call,
            Err(error) if tool_errors => {
                let message = format!("invalid arguments: {}", quote_message(&error.to_string()));
                ready(Ok(CallToolResult::error(vec![ContentBlock::text(message)])))
            }
            Err(error) => ready(Err(rpc_to_rmcp(invalid_arguments(&called, &error)))),
        }
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
        // What `initialize` said, read in place from rmcp's typed capabilities.
        let info = context.peer.peer_info();
        let session = extensions_of(info.as_ref().map(|info| &info.capabilities));
        let meta = (!context.meta.is_empty()).then_some(&context.meta.0.0);
        self.answer_detached(&request.method, request.params.as_ref(), meta, session)
            .map(|answer| answer.map(CustomResult))
    }

    /// [`answer`](Self::answer) without rmcp's request context: `meta` is the
    /// request's `_meta` (which rmcp moves out of `params`), `session` what the
    /// client's `initialize` declared. The result is `result` of the response.
    pub(super) fn answer_detached(
        &self,
        method: &str,
        params: Option<&Value>,
        meta: Option<&Map<String, Value>>,
        session: ClientExtensions,
    ) -> Option<Result<Value, ErrorData>> {
        // The plain request, read and answered as trees.
        if let Some(answer) = resolve_tree(&self.server, method, params, meta, session) {
            return Some(answer.map_err(rpc_to_rmcp));
        }
        // The server reads the request's `_meta` (per-request capabilities,
        // the request for an explanation) inside `params`.
        let mut params = params.cloned();
        if let Some(meta) = meta {
            let meta = Value::Object(meta.clone());
            match &mut params {
                Some(Value::Object(params)) => {
                    params.insert("_meta".to_owned(), meta);
                }
                None => params = Some(json!({ "_meta": meta })),
                Some(_) => {} // not an object: the server's error says so
            }
        }
        let answer = answer_resolution(&self.server, method, params, session)?;
        Some(answer.map_err(rpc_to_rmcp))
    }

    /// Declares in server capabilities what the built-in server declares in
    /// `initialize`: the `tools` capability and the extensions it offers
    /// (dialect C's and annot's own) in their typed place, and, for the lift to
    /// put under `capabilities.tools`, `resolve` (dialect B) and
    /// `dynamicAnnotations` (dialect A). `meta` is the result's `_meta`.
    pub fn declare_capabilities(
        &self,
        declared: &mut ServerCapabilities,
        meta: &mut Option<MetaObject>,
    ) {
        if self.listed[Listing::All.index()].is_empty() {
            return;
        }
        let mut capabilities = capabilities(&self.server);
        declared.tools.get_or_insert_with(Default::default);
        if let Some(Value::Object(offered)) = capabilities.get_mut("extensions").map(Value::take) {
            let extensions = declared.extensions.get_or_insert_with(Default::default);
            for (key, settings) in offered {
                if let Value::Object(settings) = settings {
                    extensions.entry(key).or_insert(settings);
                }
            }
        }
        // rmcp's `capabilities.tools` has no field for these.
        let tools = capabilities["tools"].take();
        if tools.as_object().is_some_and(|tools| !tools.is_empty()) {
            meta.get_or_insert_with(MetaObject::new).insert(
                LIFT_META.to_owned(),
                json!({"capabilities": {"tools": tools}}),
            );
        }
    }
}

/// `tool` with its name and description borrowed from the registered tool's
/// constants where they are the same text, so that the clone `tools/list`
/// hands out copies neither (a per-action tool's own name stays owned).
fn borrowing_static<S>(mut tool: RmcpTool, calls: &[Registered<S>]) -> RmcpTool {
    let Some(registered) = calls.iter().find(|registered| registered.name == tool.name) else {
        return tool;
    };
    tool.name = Cow::Borrowed(registered.name);
    if let Some(description) = registered.description
        && tool.description.as_deref() == Some(description)
    {
        tool.description = Some(Cow::Borrowed(description));
    }
    tool
}

/// What a client's capabilities say about the extensions the server reads.
pub(super) fn extensions_of(capabilities: Option<&ClientCapabilities>) -> ClientExtensions {
    match capabilities.and_then(|capabilities| capabilities.extensions.as_ref()) {
        // A client names a few extensions: compared for equality (length
        // first) they are found faster than searched for in order.
        Some(extensions) if extensions.len() <= 8 => ClientExtensions::of(|key| {
            let (_, settings) = extensions.iter().find(|(name, _)| name.as_str() == key)?;
            Some(settings.is_empty())
        }),
        Some(extensions) => ClientExtensions::of(|key| Some(extensions.get(key)?.is_empty())),
        None => ClientExtensions::default(),
    }
}

fn ready<'a>(result: Result<CallToolResult, ErrorData>) -> CallFuture<'a> {
    Box::pin(std::future::ready(result))
}

fn call_typed<'a, S, T>(
    server: &'a S,
    arguments: &Value,
    context: RequestContext<RoleServer>,
    profile: Profile,
    trust: bool,
    declared: Option<Arc<DeclaredOutput>>,
) -> Result<CallFuture<'a>, ArgumentError>
where
    T: AnnotatedTool + Send + 'static,
    S: HandleTool<T>,
{
    let tool = T::from_arguments(arguments)?;
    let call = Call::of(&tool, profile).with_trust_negotiated(trust);
    // The built-in server's check and message: the handler never sees it.
    if let Err(violation) = profile.check(call.annotations()) {
        let message = format!("refused: this call of `{}` is {violation}", T::NAME);
        return Ok(ready(Ok(CallToolResult::error(vec![ContentBlock::text(
            message,
        )]))));
    }
    let floor = trust.then(|| call.trust_floor());
    let mut context = context;
    context.extensions.insert(call);
    let handled = server.handle(tool, context);
    // One box for the handler's future, the panic guard and the settling.
    Ok(Box::pin(async move {
        let mut result = match AssertUnwindSafe(handled).catch_unwind().await {
            Ok(handled) => handled?,
            Err(payload) => return Ok(panicked(T::NAME, payload.as_ref())),
        };
        if let Some(declared) = declared {
            hold_to_output(&mut result, &declared);
        }
        claims::settle(&mut result, floor.as_ref());
        Ok(result)
    }))
}

/// Holds a successful result of a tool that declares an output schema to
/// it, as the built-in server does: a result without `structuredContent`,
/// or (in debug builds) with content the schema refuses, becomes a tool
/// error. A result with `structuredContent` and no content block gets its
/// text rendering, which the specification asks for.
fn hold_to_output(result: &mut CallToolResult, declared: &DeclaredOutput) {
    if result.is_error == Some(true) {
        return;
    }
    match declared.check_value(result.structured_content.as_ref()) {
        Err(message) => *result = CallToolResult::error(vec![ContentBlock::text(message)]),
        Ok(()) if result.content.is_empty() => {
            if let Some(structured) = &result.structured_content {
                result
                    .content
                    .push(ContentBlock::text(structured.to_string()));
            }
        }
        Ok(()) => {}
    }
}

/// The answer to a call whose handler panicked: a tool error, the panic
/// reported on stderr, and the server keeps serving.
fn panicked(name: &str, payload: &(dyn std::any::Any + Send)) -> CallToolResult {
    eprintln!("annot: tool `{name}` panicked: {}", panic_message(payload));
    let message = format!("internal error: the tool `{name}` failed unexpectedly");
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The [`Call`] of the `tools/call` request that `context` belongs to: the
/// annotations its arguments resolved to under the adapter's profile, which
/// [`AnnotatedTools::call`] puts in the request's extensions before it calls
/// [`HandleTool::handle`]. `None` for a context that did not come through it
/// (a guard needs a `Call`, so a handler without one refuses to act).
///
/// ```no_run
/// # use annot_runtime as annot;
/// use annot::rmcp::{HandleTool, resolved_call};
/// # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
/// use rmcp::model::{CallToolResult, ContentBlock};
/// use rmcp::service::RequestContext;
/// use rmcp::{ErrorData, RoleServer};
/// # struct Echo;
/// # impl AnnotatedTool for Echo {
/// #     const NAME: &'static str = "echo";
/// #     const TITLE: Option<&'static str> = None;
/// #     const DESCRIPTION: Option<&'static str> = None;
/// #     const DISCRIMINATOR: Option<&'static str> = None;
/// #     const ACTIONS: &'static [Action] = &[];
/// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new();
/// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
/// #     fn resolve(&self) -> Annotations { Annotations::new() }
/// #     fn from_arguments(_: &serde_json::Value) -> Result<Self, ArgumentError> { Ok(Echo) }
/// # }
/// # struct Server;
///
/// impl HandleTool<Echo> for Server {
///     async fn handle(
///         &self,
///         _tool: Echo,
///         context: RequestContext<RoleServer>,
///     ) -> Result<CallToolResult, ErrorData> {
///         let Some(call) = resolved_call(&context) else {
///             return Err(ErrorData::internal_error("no resolved call", None));
///         };
///         let read_only = call.annotations().is_read_only();
///         Ok(CallToolResult::success(vec![ContentBlock::text(format!("read-only: {read_only}"))]))
///     }
/// }
/// ```
pub fn resolved_call(context: &RequestContext<RoleServer>) -> Option<&Call> {
    context.extensions.get::<Call>()
}

/// The same error in rmcp's type.
pub(crate) fn rpc_to_rmcp(error: RpcError) -> ErrorData {
    // Every code this crate produces fits in i32; anything else is reported as
    // an internal error rather than truncated.
    let code = i32::try_from(error.code).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(ErrorCode(code), Cow::Owned(error.message), error.data)
}
