//! An rmcp client that exercises the annotated `manage_files` of a server.

use annot::protocol::{
    AnnotationsResult, CLIENT_CAPABILITIES_META, ExtensionResolveResult, ResolveToolResult,
    ResolvedToolAnnotations, TOOL_RESOLUTION_EXTENSION, error_code,
};
use annot::{AnnotatedTool, Annotations, ToolAnnotations};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest, CustomRequest,
    ExtensionCapabilities, ProtocolVersion, RequestMetaObject, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Map, Value, json};

use super::manage_files::ManageFiles;
use super::{MCP_SCHEMA, TOOL_RESOLUTION_SCHEMA, assert_valid};

/// A client that declares the tool-resolution extension in its capabilities, or
/// not, and starts its lifecycle the 2025-11-25 way (`initialize`, capabilities
/// for the session) or the 2026-07-28 way (`server/discover`, capabilities on
/// every request).
#[derive(Clone, Copy, Debug)]
pub struct Client {
    pub declares_extension: bool,
    pub per_request: bool,
}

impl Client {
    /// Every combination.
    pub const ALL: [Client; 4] = [
        Client {
            declares_extension: false,
            per_request: false,
        },
        Client {
            declares_extension: true,
            per_request: false,
        },
        Client {
            declares_extension: false,
            per_request: true,
        },
        Client {
            declares_extension: true,
            per_request: true,
        },
    ];

    /// Connects over `transport`.
    pub async fn connect<T, E, A>(self, transport: T) -> RunningService<RoleClient, Client>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let lifecycle = if self.per_request {
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            }
        } else {
            ClientLifecycleMode::Initialize
        };
        self.serve_with_lifecycle(transport, lifecycle)
            .await
            .unwrap_or_else(|error| panic!("{self:?} could not connect: {error}"))
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.declares_extension {
            let mut extensions = ExtensionCapabilities::new();
            extensions.insert(TOOL_RESOLUTION_EXTENSION.to_owned(), Map::new());
            capabilities.extensions = Some(extensions);
        }
        ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("annot-rmcp-test", "0"),
        )
    }
}

/// The arguments of a call of `action` on `notes.txt`.
pub fn arguments(action: &str) -> Value {
    match action {
        "append" | "replace" => json!({"action": action, "path": "notes.txt", "content": "x"}),
        _ => json!({"action": action, "path": "notes.txt"}),
    }
}

/// Sends a custom request, with `capabilities` as its per-request client
/// capabilities when given, and returns its raw result or the JSON-RPC error.
pub async fn custom(
    client: &RunningService<RoleClient, Client>,
    method: &str,
    params: Value,
    capabilities: Option<Value>,
) -> Result<Value, rmcp::ErrorData> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
    let mut options = PeerRequestOptions::no_options();
    if let Some(capabilities) = capabilities {
        let mut meta = RequestMetaObject::new();
        meta.insert(CLIENT_CAPABILITIES_META.to_owned(), capabilities);
        options = options.with_meta(meta);
    }
    let response = match client.send_request_with_option(request, options).await {
        Ok(handle) => handle.await_response().await,
        Err(error) => Err(error),
    };
    match response {
        Ok(ServerResult::CustomResult(result)) => Ok(result.0),
        Ok(other) => panic!("{method}: rmcp parsed the result as another type: {other:?}"),
        Err(ServiceError::McpError(error)) => Err(error),
        Err(error) => panic!("{method}: {error}"),
    }
}

/// The four core hints, defaults applied.
fn core(annotations: Annotations) -> [Option<bool>; 4] {
    let effective = annotations.effective();
    [
        effective.read_only,
        effective.destructive,
        effective.idempotent,
        effective.open_world,
    ]
}

/// Everything a client does with `manage_files` over one connection: the
/// capabilities, the listing, every action resolved in every dialect the
/// session allows and checked against the tool's own resolver and the static
/// bound, the error answers, and calls of every action.
pub async fn exercise(client: &RunningService<RoleClient, Client>, sandbox: &std::path::Path) {
    exercise_server(client, sandbox).await;
}

/// [`exercise`], against the rmcp adapter or the built-in server: both list
/// the extension's marker only to a client that declares the extension.
pub async fn exercise_server(
    client: &RunningService<RoleClient, Client>,
    sandbox: &std::path::Path,
) {
    let Client {
        declares_extension,
        per_request,
    } = *client.service();
    let info = client.peer_info().expect("initialized");
    let version = if per_request {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    assert_eq!(info.protocol_version.as_str(), version);
    let extensions = info.capabilities.extensions.as_ref().expect("extensions");
    assert_eq!(extensions.get(TOOL_RESOLUTION_EXTENSION), Some(&Map::new()));
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.expect("tools/list");
    let listed = tools
        .iter()
        .find(|tool| tool.name == ManageFiles::NAME)
        .expect("manage_files listed");
    let listed_json = serde_json::to_value(listed).unwrap();
    // rmcp's client types keep the core hints only: the SEP-1984 hints and the
    // `resolve` / `dynamicAnnotations` markers that reach the wire (see
    // tests/rmcp/wire.rs) are dropped when rmcp parses the listing.
    let listed_annotations: ToolAnnotations =
        serde_json::from_value(listed_json["annotations"].clone()).unwrap();
    let declared = ManageFiles::STATIC_ANNOTATIONS;
    assert_eq!(core(listed_annotations.hints()), core(declared));
    if declares_extension {
        assert_eq!(
            listed_json["_meta"][TOOL_RESOLUTION_EXTENSION],
            json!({"resolvable": true})
        );
    } else {
        assert!(
            listed_json["_meta"][TOOL_RESOLUTION_EXTENSION].is_null(),
            "{listed_json}"
        );
    }

    // Every action on a plain path, then on a system path, where the tool's
    // rule adds privileged access and sensitive data.
    let cases = ManageFiles::ACTIONS.iter().flat_map(|action| {
        let plain = arguments(action.name);
        let mut system = plain.clone();
        system["path"] = json!("/etc/passwd");
        [(action, plain, true), (action, system, false)]
    });
    for (action, arguments, plain) in cases {
        // The hand-written resolver, not the `resolve()` the server calls.
        let mut expected = super::reference::manage_files(&arguments);
        // Within the action's worst case, with its core hints; the tool
        // declares the SEP-1984 ones `false` and only the rule raises them.
        expected.check_within(&action.annotations).unwrap();
        assert_eq!(core(expected), core(action.annotations), "{arguments}");
        let rule = if plain { Some(false) } else { Some(true) };
        assert_eq!(expected.privileged_access, rule, "{arguments}");
        expected.title = expected.title.or(declared.title);
        let static_hints = declared;
        let params = json!({"name": ManageFiles::NAME, "arguments": arguments});

        // Dialect A.
        let result = custom(client, "tools/annotations", params.clone(), None)
            .await
            .unwrap();
        assert_valid(MCP_SCHEMA, "ToolAnnotations", &result["annotations"]);
        let a: AnnotationsResult = serde_json::from_value(result).unwrap();
        assert_eq!(
            a.annotations,
            ToolAnnotations::from(expected),
            "{arguments}"
        );
        a.annotations.hints().check_within(&static_hints).unwrap();

        // Dialect C, asked for per request.
        let with_extension = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
        let result = custom(
            client,
            "tools/resolve",
            params.clone(),
            Some(with_extension),
        )
        .await
        .unwrap();
        assert_valid(TOOL_RESOLUTION_SCHEMA, "ResolveToolResult", &result);
        let c: ExtensionResolveResult = serde_json::from_value(result).unwrap();
        assert_eq!(c.result_type, "complete");
        assert_eq!(c.name, ManageFiles::NAME);
        assert_eq!(c.annotations, ResolvedToolAnnotations::from(expected));
        Annotations::from(c.annotations)
            .check_within(&static_hints)
            .unwrap();

        // The client's own capabilities: the session's, or those rmcp attaches
        // to every request after `server/discover`.
        let result = custom(client, "tools/resolve", params.clone(), None).await;
        // A 2026-07-28 request without the extension: -32021 (SEP-1862's shape
        // is for handshake sessions).
        if per_request && !declares_extension {
            let error = result.unwrap_err();
            assert_eq!(i64::from(error.code.0), error_code::MISSING_CAPABILITY);
            continue;
        }
        let result = result.unwrap();
        if declares_extension {
            let c: ExtensionResolveResult = serde_json::from_value(result).unwrap();
            assert_eq!(c.annotations, ResolvedToolAnnotations::from(expected));
        } else {
            assert_valid(MCP_SCHEMA, "Tool", &result["tool"]);
            let b: ResolveToolResult = serde_json::from_value(result).unwrap();
            assert_eq!(b.tool.name, ManageFiles::NAME);
            assert_eq!(b.tool.resolve, Some(true));
            assert_eq!(b.tool.input_schema, listed_json["inputSchema"]);
            let annotations = b.tool.annotations.expect("annotations");
            assert_eq!(annotations, ToolAnnotations::from(expected));
            annotations.hints().check_within(&static_hints).unwrap();
        }

        // Per-request capabilities without the extension: -32021, whether or
        // not the session negotiated it (the extension's rule).
        let without_extension = json!({"extensions": {}});
        let result = custom(
            client,
            "tools/resolve",
            params.clone(),
            Some(without_extension),
        )
        .await;
        let error = result.unwrap_err();
        assert_eq!(i64::from(error.code.0), error_code::MISSING_CAPABILITY);
    }

    check_errors(client).await;
    call_every_action(client, sandbox).await;
}

async fn check_errors(client: &RunningService<RoleClient, Client>) {
    let missing_path = json!({"name": ManageFiles::NAME, "arguments": {"action": "read"}});
    // With the extension, so that the capability check (which comes first)
    // passes in every lifecycle and the arguments are what is refused.
    let extension = json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}});
    let error = custom(client, "tools/resolve", missing_path, Some(extension))
        .await
        .unwrap_err();
    assert_eq!(i64::from(error.code.0), error_code::INVALID_PARAMS);
    assert!(error.message.contains("path"), "{}", error.message);

    let unknown = json!({"name": "no_such_tool", "arguments": {}});
    let error = custom(client, "tools/annotations", unknown, None)
        .await
        .unwrap_err();
    assert_eq!(i64::from(error.code.0), error_code::INVALID_PARAMS);

    // From 2025-11-25 on (SEP-1303) arguments that do not fit are a tool error
    // the model can read, not a protocol error; the handler does not run.
    let (failed, message) = call(client, json!({"action": "shred", "path": "notes.txt"})).await;
    assert!(failed, "a call with an unknown action ran: {message}");
    assert!(
        message.starts_with("invalid arguments:") && message.contains("shred"),
        "{message}"
    );
}

async fn call(client: &RunningService<RoleClient, Client>, arguments: Value) -> (bool, String) {
    let mut request = CallToolRequestParams::new(ManageFiles::NAME);
    request.arguments = Some(arguments.as_object().unwrap().clone());
    let result = client.call_tool(request).await.expect("tools/call");
    let text = result
        .content
        .iter()
        .filter_map(|content| content.as_text().map(|text| text.text.clone()))
        .collect();
    (result.is_error == Some(true), text)
}

async fn call_every_action(client: &RunningService<RoleClient, Client>, sandbox: &std::path::Path) {
    let file = |content| json!({"path": "notes.txt", "content": content});
    let with_action = |mut arguments: Value, action: &str| {
        arguments["action"] = action.into();
        arguments
    };
    assert!(!call(client, with_action(file("one "), "replace")).await.0);
    assert!(!call(client, with_action(file("two"), "append")).await.0);
    assert_eq!(
        std::fs::read_to_string(sandbox.join("notes.txt")).unwrap(),
        "one two"
    );
    let read = json!({"action": "read", "path": "notes.txt"});
    assert_eq!(
        call(client, read.clone()).await,
        (false, "one two".to_owned())
    );
    let delete = json!({"action": "delete", "path": "notes.txt"});
    assert!(!call(client, delete).await.0);
    assert!(!sandbox.join("notes.txt").exists());
    let (failed, message) = call(client, read).await;
    assert!(failed, "read of a deleted file succeeded: {message}");
    let escape = json!({"action": "read", "path": "../outside.txt"});
    let (failed, message) = call(client, escape).await;
    // Each example words its refusal its own way.
    assert!(
        failed && (message.contains("sandbox") || message.contains("`..`")),
        "{message}"
    );
}
