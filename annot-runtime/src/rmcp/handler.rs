//! `Annotated<H>`: an rmcp `ServerHandler` that adds annotated tools to yours.

#![allow(deprecated)] // rmcp's legacy subscribe/unsubscribe must still be forwarded.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use ::rmcp::model::*;
use ::rmcp::service::{MaybeSendFuture, NotificationContext, RequestContext, SubscriptionContext};
use ::rmcp::{ErrorData, RoleServer, ServerHandler};

use super::annotated_tools::{AnnotatedTools, rpc_to_rmcp};
use super::clash::ToolNameClash;
use crate::server::rmcp_bridge::unknown_tool;

/// Your rmcp [`ServerHandler`] with annotated tools added.
///
/// - [`new`](Self::new) refuses a handler whose `get_tool` knows a tool named
///   as an annotated tool is (a per-action name included): a
///   [`ToolNameClash`]. `#[tool_handler]` generates that `get_tool` from your
///   router.
/// - `tools/list` lists the annotated tools first (on the first page), then
///   yours. A page of yours that lists a name of an annotated tool (a handler
///   that lists tools its `get_tool` does not know) is an internal error
///   naming both tools, never a silent shadow. When your handler answers
///   `-32601` (rmcp's default from 3.11 for a server that does not declare
///   tools), only the annotated tools are listed. The annotated tools take the
///   form the built-in server gives the same client: the extension's marker
///   only when the request (or else the session) takes the extension up.
/// - `tools/call` of an annotated tool parses and validates the arguments and
///   calls your [`HandleTool`](super::HandleTool) implementation with the typed
///   value; other calls go to your `call_tool`. When that answers `-32601`
///   (rmcp's default for a handler without tools), the caller gets `-32602`
///   "unknown tool", as from the built-in server.
/// - Prompts, resources, completion and logging requests go to your handler
///   only when your `get_info` declares that capability; otherwise they get
///   `-32601`, where rmcp's defaults would answer an empty list.
/// - `tools/resolve` and `tools/annotations` are answered for the annotated
///   tools; other custom requests go to your `on_custom_request`.
/// - `initialize`, `server/discover` and [`get_info`](ServerHandler::get_info)
///   return your answer with the capabilities of the three dialects added.
/// - Every other request and notification goes to your handler unchanged.
///
/// Serve it through [`lifted`](super::lifted) or `LiftHttp` (feature `rmcp-http`)
/// so the SEP-1984 hints and the dialect A and B markers reach their place on
/// the wire. It is `Clone` when `H` is, which `StreamableHttpService`'s
/// per-session factory wants.
pub struct Annotated<H> {
    handler: H,
    tools: Arc<AnnotatedTools<H>>,
}

impl<H: ServerHandler> Annotated<H> {
    /// Wraps `handler` with `tools`.
    ///
    /// # Errors
    ///
    /// A [`ToolNameClash`] when `handler`'s
    /// [`get_tool`](ServerHandler::get_tool) knows a tool by a name an
    /// annotated tool answers to, in the exposure `tools` were built with.
    pub fn new(handler: H, tools: AnnotatedTools<H>) -> Result<Self, ToolNameClash> {
        let handler_type = std::any::type_name::<H>();
        let clash = tools
            .names()
            .filter(|name| handler.get_tool(name).is_some())
            .find_map(|name| tools.clash(name, handler_type));
        if let Some(clash) = clash {
            return Err(clash);
        }
        Ok(Annotated {
            handler,
            tools: Arc::new(tools),
        })
    }
}

impl<H> Annotated<H> {
    /// Your handler.
    pub fn handler(&self) -> &H {
        &self.handler
    }

    /// The annotated tools.
    pub fn tools(&self) -> &AnnotatedTools<H> {
        &self.tools
    }

    /// The annotated tools, shared with what answers for them elsewhere.
    pub(super) fn shared_tools(&self) -> Arc<AnnotatedTools<H>> {
        Arc::clone(&self.tools)
    }
}

impl<H: Clone> Clone for Annotated<H> {
    fn clone(&self) -> Self {
        Annotated {
            handler: self.handler.clone(),
            tools: Arc::clone(&self.tools),
        }
    }
}

impl<H: std::fmt::Debug> std::fmt::Debug for Annotated<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Annotated")
            .field("handler", &self.handler)
            .field("tools", &self.tools)
            .finish()
    }
}

/// Forwards trait methods to the wrapped handler unchanged.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        fn $method(
            &self,
            $($arg: $ty),*
        ) -> impl Future<Output = $out> + MaybeSendFuture + '_ {
            self.handler.$method($($arg),*)
        }
    )*};
}

/// Forwards trait methods of a capability to the wrapped handler when its
/// [`get_info`](ServerHandler::get_info) declares the capability, and answers
/// `-32601` otherwise. rmcp's defaults answer `prompts/list`, `resources/list`
/// and `completion/complete` with empty results whatever the server declares;
/// the specification (and the built-in server) treat a method of an undeclared
/// capability as one the server does not have.
macro_rules! gated {
    ($($capability:ident, $method_name:ty:
       $method:ident($($arg:ident: $ty:ty),*) -> Result<$ok:ty, ErrorData>;)*) => {$(
        async fn $method(&self, $($arg: $ty),*) -> Result<$ok, ErrorData> {
            if self.handler.get_info().capabilities.$capability.is_none() {
                return Err(ErrorData::method_not_found::<$method_name>());
            }
            self.handler.$method($($arg),*).await
        }
    )*};
}

impl<H: ServerHandler> ServerHandler for Annotated<H> {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.handler.get_info();
        self.tools
            .declare_capabilities(&mut info.capabilities, &mut info.meta);
        info
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // The handler's own initialize (default or overridden) answers from its
        // own get_info, so the capabilities are added to whatever it returns.
        let mut result = self.handler.initialize(request, context).await?;
        self.tools
            .declare_capabilities(&mut result.capabilities, &mut result.meta);
        Ok(result)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        let mut result = self.handler.negotiate_initialize(request)?;
        self.tools
            .declare_capabilities(&mut result.capabilities, &mut result.meta);
        Ok(result)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.handler.supported_protocol_versions()
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut result = self.handler.discover(context).await?;
        self.tools
            .declare_capabilities(&mut result.capabilities, &mut result.meta);
        Ok(result)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let first_page = request.as_ref().is_none_or(|r| r.cursor.is_none());
        let annotated = self.tools.list(&context);
        let mut result = match self.handler.list_tools(request, context).await {
            // rmcp 3.11's default for a handler that does not declare tools
            // (3.9 and 3.10 answer an empty list): no tools of its own.
            Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND => ListToolsResult::default(),
            other => other?,
        };
        let handler_type = std::any::type_name::<H>();
        if let Some(clash) =
            (result.tools.iter()).find_map(|tool| self.tools.clash(&tool.name, handler_type))
        {
            return Err(ErrorData::internal_error(clash.to_string(), None));
        }
        if first_page {
            let mut tools = annotated;
            tools.append(&mut result.tools);
            result.tools = tools;
        }
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match self.tools.get(name) {
            Some(tool) => Some(tool.clone()),
            None => self.handler.get_tool(name),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.tools.get(&request.name).is_none() {
            let name = request.name.clone();
            return match self.handler.call_tool(request, context).await {
                // rmcp's default `call_tool`, kept by a handler with no tools of
                // its own, answers `-32601 tools/call` for every name. The
                // method exists (the annotated tools answer it): what is wrong
                // is the name, `-32602` as the built-in server says.
                Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                    Err(rpc_to_rmcp(unknown_tool(&name)))
                }
                other => other,
            };
        }
        let result = self.tools.call(&self.handler, request, context).await?;
        Ok(CallToolResponse::from(result))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match self.tools.answer(&request, &context) {
            Some(answer) => answer,
            None => self.handler.on_custom_request(request, context).await,
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.handler.accepted_subscription_filter(requested)
    }

    forward! {
        ping(context: RequestContext<RoleServer>) -> Result<(), ErrorData>;
        listen(context: SubscriptionContext) -> Result<(), ErrorData>;
        on_cancelled(notification: CancelledNotificationParam, context: NotificationContext<RoleServer>)
            -> ();
        on_progress(notification: ProgressNotificationParam, context: NotificationContext<RoleServer>)
            -> ();
        on_initialized(context: NotificationContext<RoleServer>) -> ();
        on_roots_list_changed(context: NotificationContext<RoleServer>) -> ();
        on_custom_notification(notification: CustomNotification, context: NotificationContext<RoleServer>)
            -> ();
        get_task(request: GetTaskParams, context: RequestContext<RoleServer>)
            -> Result<GetTaskResult, ErrorData>;
        update_task(request: UpdateTaskParams, context: RequestContext<RoleServer>)
            -> Result<(), ErrorData>;
        cancel_task(request: CancelTaskParams, context: RequestContext<RoleServer>)
            -> Result<(), ErrorData>;
        list_skills(request: Option<PaginatedRequestParams>, context: RequestContext<RoleServer>)
            -> Result<ListSkillsResult, ErrorData>;
        get_skill(request: GetSkillRequestParams, context: RequestContext<RoleServer>)
            -> Result<GetSkillResult, ErrorData>;
        read_resource_directory(
            request: ReadResourceDirectoryRequestParams,
            context: RequestContext<RoleServer>
        ) -> Result<ReadResourceDirectoryResult, ErrorData>;
    }

    gated! {
        completions, CompleteRequestMethod:
        complete(request: CompleteRequestParams, context: RequestContext<RoleServer>)
            -> Result<CompleteResult, ErrorData>;
        logging, SetLevelRequestMethod:
        set_level(request: SetLevelRequestParams, context: RequestContext<RoleServer>)
            -> Result<(), ErrorData>;
        prompts, GetPromptRequestMethod:
        get_prompt(request: GetPromptRequestParams, context: RequestContext<RoleServer>)
            -> Result<GetPromptResponse, ErrorData>;
        prompts, ListPromptsRequestMethod:
        list_prompts(request: Option<PaginatedRequestParams>, context: RequestContext<RoleServer>)
            -> Result<ListPromptsResult, ErrorData>;
        resources, ListResourcesRequestMethod:
        list_resources(request: Option<PaginatedRequestParams>, context: RequestContext<RoleServer>)
            -> Result<ListResourcesResult, ErrorData>;
        resources, ListResourceTemplatesRequestMethod:
        list_resource_templates(
            request: Option<PaginatedRequestParams>,
            context: RequestContext<RoleServer>
        ) -> Result<ListResourceTemplatesResult, ErrorData>;
        resources, ReadResourceRequestMethod:
        read_resource(request: ReadResourceRequestParams, context: RequestContext<RoleServer>)
            -> Result<ReadResourceResponse, ErrorData>;
        resources, SubscribeRequestMethod:
        subscribe(request: SubscribeRequestParams, context: RequestContext<RoleServer>)
            -> Result<(), ErrorData>;
        resources, UnsubscribeRequestMethod:
        unsubscribe(request: UnsubscribeRequestParams, context: RequestContext<RoleServer>)
            -> Result<(), ErrorData>;
    }
}
