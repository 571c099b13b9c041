//! Building a [`Server`]: its identity, its tools and the dialects it offers.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::AnnotatedTool;
use crate::protocol::{Dialect, PROTOCOL_VERSIONS};
use crate::server::answers::call_context::Call;
use crate::server::answers::list_pages::ToolPages;
use crate::server::answers::profile::Profile;
use crate::server::answers::resolution_meta::AnnotExtensions;
use crate::server::answers::tool_output::{ToolError, ToolOutput};
use crate::server::negotiation::dialects::DialectSet;
use crate::server::negotiation::era::{ModernForms, ServerInfo};
use crate::server::registry::build_error::BuildError;
use crate::server::registry::erased_tool::ErasedTool;
use crate::server::registry::exposure::{self, ActionNaming, Exposed, Exposure};
use crate::server::registry::server_state::{Server, ServerState};
use crate::server::registry::tool_entry::ToolEntry;

/// The page size of `tools/list` unless [`ServerBuilder::page_size`] says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The longest message the stdio transport reads unless
/// [`ServerBuilder::max_message_size`] says otherwise: 4 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

/// How many `tools/call`s one stdio session runs at once unless
/// [`ServerBuilder::max_concurrent_calls`] says otherwise.
pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 64;

/// Collects a server's identity, tools and options. Start with [`Server::builder`].
///
/// ```
/// # use annot_runtime as annot;
/// use annot::protocol::Dialect;
/// use annot::server::Server;
///
/// let server = Server::builder("files", "1.0.0")
///     .instructions("Use manage_files for every file operation.")
///     .dialects([Dialect::ResolveTool, Dialect::ToolResolutionExtension])
///     .page_size(20)
///     .build()
///     .unwrap();
/// assert!(!server.dialects().contains(&Dialect::DynamicAnnotations));
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct ServerBuilder {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
    dialects: DialectSet,
    page_size: usize,
    max_message_size: usize,
    max_concurrent_calls: usize,
    tools: Vec<ErasedTool>,
    profile: Profile,
    trust_annotations: bool,
    exposure: Exposure,
    action_names: ActionNaming,
}

impl ServerBuilder {
    pub(crate) fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            title: None,
            instructions: None,
            dialects: DialectSet::ALL,
            page_size: DEFAULT_PAGE_SIZE,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_concurrent_calls: DEFAULT_MAX_CONCURRENT_CALLS,
            tools: Vec::new(),
            profile: Profile::any(),
            trust_annotations: true,
            exposure: Exposure::Resolvable,
            action_names: Box::new(exposure::default_action_name),
        }
    }

    /// The human-readable `serverInfo.title`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The `instructions` of the `initialize` result, for the model.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The resolution dialects to offer; all three by default. An empty set
    /// serves `tools/list` and `tools/call` only.
    pub fn dialects(mut self, dialects: impl IntoIterator<Item = Dialect>) -> Self {
        self.dialects = DialectSet::from_dialects(dialects);
        self
    }

    /// How many tools one `tools/list` page holds ([`DEFAULT_PAGE_SIZE`] by default).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size;
        self
    }

    /// The longest line, in bytes, that [`Server::serve`] reads as one message
    /// ([`DEFAULT_MAX_MESSAGE_SIZE`] by default). A longer line is discarded
    /// without being held in memory and answered with `-32600`; the session
    /// goes on. [`Connection::handle`](crate::server::Connection::handle) has no such
    /// cap: its caller already holds the bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How many `tools/call`s one session of [`Server::serve`] runs at once
    /// ([`DEFAULT_MAX_CONCURRENT_CALLS`] by default), each on a thread of
    /// its own, while the session's other requests are answered as they
    /// come. A call past the bound is not queued: it is answered at once with
    /// the JSON-RPC error `-32005`
    /// ([`error_code::SERVER_BUSY`](crate::protocol::error_code::SERVER_BUSY)),
    /// and the client may send it again once an answer came back. Reading
    /// never waits for a call, so `ping` and `notifications/cancelled` always
    /// get through. See the serving chapter, "Concurrent calls".
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::Server;
    ///
    /// let server = Server::builder("files", "1.0.0")
    ///     .max_concurrent_calls(8)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(server.max_concurrent_calls(), 8);
    /// ```
    pub fn max_concurrent_calls(mut self, calls: usize) -> Self {
        self.max_concurrent_calls = calls;
        self
    }

    /// Serves only calls whose resolved annotations pass `profile`; a second
    /// call adds to the first ([`Profile::and`]). See [`Profile`] for what is
    /// dropped from the listing when the server is built and what is refused
    /// per call.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Profile, Server};
    ///
    /// let server = Server::builder("files", "1.0.0")
    ///     .profile(Profile::read_only())
    ///     .profile(Profile::closed_world())
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(server.profile().to_string(), "read_only+closed_world");
    /// ```
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = self.profile.and(profile);
        self
    }

    /// Whether the server offers the trust-annotations extension
    /// (`io.modelcontextprotocol/trust-annotations`); it does by default.
    ///
    /// Offered, it is advertised in `capabilities.extensions`, and the
    /// `tools/call` results of a client that takes it up (in `initialize`, or
    /// per request, as 2026-07-28 does) carry `sensitive` and `untrusted`
    /// claims in `_meta`: at least the call's floor
    /// ([`Call::trust_floor`]), joined with what the handler adds
    /// ([`ToolOutput::with_claims`]). Every other client sees no claim.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::Server;
    ///
    /// let server = Server::builder("files", "1.0.0").build().unwrap();
    /// assert!(server.offers_trust_annotations());
    /// let quiet = Server::builder("files", "1.0.0").trust_annotations(false).build().unwrap();
    /// assert!(!quiet.offers_trust_annotations());
    /// ```
    pub fn trust_annotations(mut self, offered: bool) -> Self {
        self.trust_annotations = offered;
        self
    }

    /// How each tool of several actions is exposed: one resolvable tool
    /// ([`Exposure::Resolvable`], the default), one tool per action
    /// ([`Exposure::PerAction`]), or each client the form it can use
    /// ([`Exposure::Auto`]). See [`Exposure`] and the `exposure` chapter.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Exposure, Server};
    ///
    /// let server = Server::builder("files", "1.0.0")
    ///     .exposure(Exposure::Auto)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(server.exposure(), Exposure::Auto);
    /// ```
    pub fn exposure(mut self, exposure: Exposure) -> Self {
        self.exposure = exposure;
        self
    }

    /// The naming scheme of per-action tools: their name from the tool's and
    /// the action's wire names; [`default_action_name`](crate::server::default_action_name)
    /// (`<tool>_<action>`) unless set. A name outside MCP's tool-name rules
    /// ([`check_tool_name`](crate::check_tool_name): 1 to 128 ASCII letters,
    /// digits, `_`, `-`, `.`), or that another tool (registered or
    /// per-action) already has, is a [`BuildError`].
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Exposure, Server};
    ///
    /// let server = Server::builder("files", "1.0.0")
    ///     .exposure(Exposure::PerAction)
    ///     .action_names(|tool, action| format!("{tool}.{}", action.to_lowercase()))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn action_names(
        mut self,
        scheme: impl Fn(&str, &str) -> String + Send + Sync + 'static,
    ) -> Self {
        self.action_names = Box::new(scheme);
        self
    }

    /// Registers the tool `T` and the handler that runs its calls. The handler
    /// receives arguments already validated by [`AnnotatedTool::from_arguments`];
    /// tools are listed in the order they are registered.
    pub fn tool<T>(
        mut self,
        handler: impl Fn(T) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        T: AnnotatedTool + 'static,
    {
        self.tools.push(ErasedTool::new::<T, _>(handler));
        self
    }

    /// Registers the tool `T` with a handler that also receives the call's
    /// [`Call`]: the annotations these arguments resolve to under the server's
    /// profile, from which the handler builds guards that refuse every effect
    /// the resolution does not claim (the `guard` module). Otherwise as
    /// [`tool`](Self::tool).
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Call, Server, ToolError, ToolOutput};
    /// # use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
    /// # use serde_json::Value;
    /// # struct Wipe;
    /// # impl AnnotatedTool for Wipe {
    /// #     const NAME: &'static str = "wipe";
    /// #     const TITLE: Option<&'static str> = None;
    /// #     const DESCRIPTION: Option<&'static str> = None;
    /// #     const DISCRIMINATOR: Option<&'static str> = None;
    /// #     const ACTIONS: &'static [Action] = &[];
    /// #     const STATIC_ANNOTATIONS: Annotations = Annotations::new().destructive(true);
    /// #     fn input_schema() -> &'static str { r#"{"type":"object"}"# }
    /// #     fn resolve(&self) -> Annotations { Self::STATIC_ANNOTATIONS }
    /// #     fn from_arguments(_: &Value) -> Result<Self, ArgumentError> { Ok(Wipe) }
    /// # }
    ///
    /// let server = Server::builder("demo", "0.1.0")
    ///     .tool_with_call(|_: Wipe, call: &Call| {
    ///         if call.annotations().destructive != Some(true) {
    ///             return Err(ToolError::new("this call did not claim to destroy"));
    ///         }
    ///         Ok(ToolOutput::text("wiped"))
    ///     })
    ///     .build()?;
    /// # let _ = server;
    /// # Ok::<(), annot::server::BuildError>(())
    /// ```
    pub fn tool_with_call<T>(
        mut self,
        handler: impl Fn(T, &Call) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        T: AnnotatedTool + 'static,
    {
        self.tools.push(ErasedTool::with_call::<T, _>(handler));
        self
    }

    /// Checks the configuration and renders every tool's wire forms.
    pub fn build(self) -> Result<Server, BuildError> {
        if self.page_size == 0 {
            return Err(BuildError::ZeroPageSize);
        }
        if self.max_message_size == 0 {
            return Err(BuildError::ZeroMessageSize);
        }
        if self.max_concurrent_calls == 0 {
            return Err(BuildError::ZeroConcurrentCalls);
        }
        let extensions = AnnotExtensions {
            resolution: self.tools.iter().any(ErasedTool::has_rules),
            authorization: self.tools.iter().any(ErasedTool::has_authorization),
            trust_annotations: self.trust_annotations,
        };
        let exposed = expose(self.tools, self.exposure, &self.action_names)?;
        for tool in &exposed.tools {
            check_name(tool)?;
        }
        let mut by_name =
            HashMap::with_capacity_and_hasher(exposed.accepted.len(), Default::default());
        for &index in &exposed.accepted {
            let tool = &exposed.tools[index];
            if by_name.insert(tool.name().into(), index).is_some() {
                return Err(match tool.fixed {
                    None => BuildError::DuplicateTool {
                        name: tool.name().to_owned(),
                    },
                    Some(fixed) => BuildError::ActionNameTaken {
                        name: tool.name().to_owned(),
                        tool: fixed.tool.to_owned(),
                        action: fixed.action.to_owned(),
                    },
                });
            }
        }
        let tools = exposed
            .tools
            .into_iter()
            .map(|tool| ToolEntry::render(tool, self.dialects, self.profile))
            .collect::<Result<Vec<_>, _>>()?;
        let exposed = Exposed {
            exposure: self.exposure,
            resolvable: exposed.resolvable,
            per_action: exposed.per_action,
            accepted: exposed.accepted,
        };
        let info = ServerInfo {
            name: &self.name,
            title: self.title.as_deref(),
            version: &self.version,
        };
        let mut capabilities = self.dialects.capabilities();
        extensions.advertise(&mut capabilities);
        // SEP-1862's dialect belongs to handshake sessions: a 2026-07-28 client
        // resolves through the extension.
        if let Some(tools) = capabilities.get_mut("tools").and_then(Value::as_object_mut) {
            tools.remove("resolve");
        }
        let modern = ModernForms::render(&info, capabilities, self.instructions.as_deref());
        let pages = ToolPages::render(&tools, &exposed, self.page_size, &modern.cacheable_tail);
        let initialize_results = PROTOCOL_VERSIONS
            .iter()
            .map(|version| {
                initialize_result(
                    version,
                    self.dialects,
                    extensions,
                    &self.name,
                    &self.version,
                    self.title.as_deref(),
                    self.instructions.as_deref(),
                )
            })
            .collect();
        Ok(Server {
            state: Arc::new(ServerState {
                dialects: self.dialects,
                extensions,
                tools,
                exposed,
                by_name,
                pages,
                initialize_results,
                modern,
                max_message_size: self.max_message_size,
                max_concurrent_calls: self.max_concurrent_calls,
                profile: self.profile,
            }),
        })
    }
}

/// Every tool to render, and which of them each listing shows.
struct Expose {
    /// The registered tools, in registration order, then the per-action
    /// tools of those listed per action.
    tools: Vec<ErasedTool>,
    resolvable: Vec<usize>,
    per_action: Vec<usize>,
    /// Every tool `tools/call` accepts, each once, in listing order.
    accepted: Vec<usize>,
}

/// Refuses a tool, registered or per-action, whose name breaks MCP's rules:
/// hosts reject or mangle such names.
fn check_name(tool: &ErasedTool) -> Result<(), BuildError> {
    let Err(problem) = crate::check_tool_name(&tool.name) else {
        return Ok(());
    };
    Err(match tool.fixed {
        None => BuildError::InvalidToolName {
            name: tool.name.clone().into_owned(),
            problem,
        },
        Some(fixed) => BuildError::InvalidActionName {
            name: tool.name.clone().into_owned(),
            tool: fixed.tool.to_owned(),
            action: fixed.action.to_owned(),
            problem,
        },
    })
}

/// Derives the per-action tools `exposure` lists, named by `naming`.
fn expose(
    registered: Vec<ErasedTool>,
    exposure: Exposure,
    naming: &ActionNaming,
) -> Result<Expose, BuildError> {
    let resolvable: Vec<usize> = (0..registered.len()).collect();
    let mut tools = registered;
    let mut per_action = Vec::new();
    if exposure.lists_per_action() {
        for index in 0..resolvable.len() {
            let derived = exposure::per_action_tools(&tools[index], naming);
            if derived.is_empty() {
                // A tool of one action is listed as it is.
                per_action.push(index);
                continue;
            }
            for tool in derived {
                per_action.push(tools.len());
                tools.push(tool);
            }
        }
    }
    let mut accepted = Vec::new();
    if exposure.lists_resolvable() {
        accepted.extend(&resolvable);
    }
    // A tool of one action is in both listings; it is accepted once.
    let mut taken = vec![false; tools.len()];
    for &index in &accepted {
        taken[index] = true;
    }
    accepted.extend(per_action.iter().filter(|&&index| !taken[index]));
    Ok(Expose {
        tools,
        resolvable,
        per_action,
        accepted,
    })
}

/// The `initialize` result, fields in the schema's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult<'a> {
    protocol_version: &'a str,
    capabilities: Value,
    server_info: ServerInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

fn initialize_result(
    version: &str,
    dialects: DialectSet,
    extensions: AnnotExtensions,
    name: &str,
    server_version: &str,
    title: Option<&str>,
    instructions: Option<&str>,
) -> Box<str> {
    let mut capabilities = dialects.capabilities();
    extensions.advertise(&mut capabilities);
    let result = InitializeResult {
        protocol_version: version,
        capabilities,
        server_info: ServerInfo {
            name,
            title,
            version: server_version,
        },
        instructions,
    };
    serde_json::to_string(&result)
        .expect("an initialize result always serializes")
        .into_boxed_str()
}

impl Server {
    /// Starts building a server whose `serverInfo` has this name and version.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }
}
