//! The client against the real server runtime, in process and over JSON-RPC
//! bytes: every dialect, the preference order, a server with resolution off,
//! invalid arguments, and the decisions resolution changes before `tools/call`.

#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
#[path = "../../fuzz/src/reference.rs"]
#[allow(dead_code)] // The resolvers of the other tools serve other suites.
mod reference;

use annot::client::{
    AnnotationSource, ClientExtension, JsonRpcRequester, NotResolvable, Policy, PreflightError,
    ProposedCall, Requester, ResolutionSupport, Session, Strength, Trust, Verdict,
};
use annot::protocol::{Dialect, TOOL_RESOLUTION_EXTENSION, error_code};
use annot::server::{Server, ToolOutput};
use annot::{AnnotatedTool, Annotations, Tool, mcp_tool};
use manage_files::ManageFiles;
use serde_json::{Map, Value, json};

/// A private notebook: every action touches sensitive data.
#[mcp_tool(open_world = false, title = "Notebook")]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Notebook {
    /// Read a page.
    #[annotate(read_only, sensitive_data)]
    Read { page: u32 },
    /// Add a line to a page; it can be taken back.
    #[annotate(destructive = false, reversible, sensitive_data)]
    Append { page: u32, line: String },
    /// Tear a page out for good.
    #[annotate(destructive, idempotent, reversible = false, sensitive_data)]
    Tear { page: u32 },
}

fn server(dialects: &[Dialect]) -> Server {
    Server::builder("client-tests", "0.0.0")
        .dialects(dialects.iter().copied())
        .tool(|_: ManageFiles| Ok(ToolOutput::text("done")))
        .tool(|_: Notebook| Ok(ToolOutput::text("done")))
        .build()
        .unwrap()
}

type Exchange = Box<dyn FnMut(&[u8]) -> Option<Vec<u8>>>;

/// A client session: its requester, what was negotiated, and the listed tools.
struct Client {
    requester: JsonRpcRequester<Exchange>,
    support: ResolutionSupport,
    tools: Vec<Tool>,
}

impl Client {
    /// Connects, initializes (offering the extension or not) and lists the tools.
    fn connect(server: &Server, offer_extension: bool) -> Client {
        let mut connection = server.connect();
        let exchange: Exchange = Box::new(move |message: &[u8]| connection.handle(message));
        let mut requester = JsonRpcRequester::new(exchange);
        let (capabilities, client_extension) = if offer_extension {
            (
                json!({"extensions": {TOOL_RESOLUTION_EXTENSION: {}}}),
                ClientExtension::Initialize,
            )
        } else {
            (json!({}), ClientExtension::NotOffered)
        };
        let initialize = requester
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "clientInfo": {"name": "client-tests", "version": "0"},
                    "capabilities": capabilities
                }),
            )
            .unwrap();
        requester
            .notify("notifications/initialized", json!({}))
            .unwrap();
        let support = ResolutionSupport::from_initialize_result(&initialize, client_extension);
        let listed = requester.request("tools/list", json!({})).unwrap();
        let tools = serde_json::from_value(listed["tools"].clone()).unwrap();
        Client {
            requester,
            support,
            tools,
        }
    }

    fn tool(&self, name: &str) -> &Tool {
        self.tools.iter().find(|tool| tool.name == name).unwrap()
    }
}

fn arguments(json: Value) -> Map<String, Value> {
    json.as_object().unwrap().clone()
}

fn core(annotations: Annotations) -> [Option<bool>; 4] {
    let a = annotations.effective();
    [a.read_only, a.destructive, a.idempotent, a.open_world]
}

#[test]
fn resolves_every_action_in_every_dialect() {
    let calls = [
        json!({"action": "read", "path": "a"}),
        json!({"action": "append", "path": "a", "content": "b"}),
        json!({"action": "replace", "path": "a", "content": "b"}),
        json!({"action": "delete", "path": "a"}),
    ];
    for (dialect, offer_extension) in [
        (Dialect::DynamicAnnotations, false),
        (Dialect::ResolveTool, false),
        (Dialect::ToolResolutionExtension, true),
    ] {
        let mut client = Client::connect(&server(&[dialect]), offer_extension);
        let tool = client.tool("manage_files").clone();
        assert_eq!(client.support.dialect_for(&tool), Ok(dialect));
        for call in &calls {
            let arguments = arguments(call.clone());
            let preflight = client
                .support
                .preflight(&mut client.requester, &tool, &arguments)
                .unwrap();
            assert_eq!(
                preflight.source,
                AnnotationSource::Resolved(dialect),
                "{call}"
            );
            // The hand-written resolver, not the `resolve()` the server calls.
            let expected = reference::manage_files(call);
            assert_eq!(
                core(preflight.annotations()),
                core(expected),
                "{dialect:?} {call}"
            );
        }
    }
}

#[test]
fn prefers_the_extension_then_tools_resolve() {
    let server = server(&Dialect::ALL);
    let read = arguments(json!({"action": "read", "path": "a"}));
    for (offer_extension, dialect) in [
        (true, Dialect::ToolResolutionExtension),
        (false, Dialect::ResolveTool),
    ] {
        let mut client = Client::connect(&server, offer_extension);
        let tool = client.tool("manage_files").clone();
        let preflight = client
            .support
            .preflight(&mut client.requester, &tool, &read)
            .unwrap();
        assert_eq!(preflight.source, AnnotationSource::Resolved(dialect));
    }
}

#[test]
fn invalid_arguments_are_surfaced() {
    let mut client = Client::connect(&server(&Dialect::ALL), true);
    let tool = client.tool("manage_files").clone();
    let shred = arguments(json!({"action": "shred", "path": "a"}));
    let error = client
        .support
        .preflight(&mut client.requester, &tool, &shred)
        .unwrap_err();
    let PreflightError::InvalidParams { tool, error } = error else {
        panic!("expected invalid params");
    };
    assert_eq!(tool, "manage_files");
    assert_eq!(error.code, error_code::INVALID_PARAMS);
}

#[test]
fn a_server_without_resolution_gives_static_annotations() {
    let mut client = Client::connect(&server(&[]), true);
    let tool = client.tool("manage_files").clone();
    let read = arguments(json!({"action": "read", "path": "a"}));
    let preflight = client
        .support
        .preflight(&mut client.requester, &tool, &read)
        .unwrap();
    assert!(
        matches!(
            preflight.source,
            AnnotationSource::Static(NotResolvable::Unmarked | NotResolvable::NotDeclared { .. })
        ),
        "{}",
        preflight.source
    );
    let declared = Annotations {
        title: None,
        ..ManageFiles::STATIC_ANNOTATIONS
    };
    assert_eq!(preflight.annotations(), declared.effective());
}

/// Runs read, append, tear on the notebook; returns the verdicts with and
/// without resolution, calling the tool when the resolved decision allows it.
fn notebook_verdicts(offer_extension: bool) -> (Vec<Verdict>, Vec<Verdict>) {
    let mut client = Client::connect(&server(&Dialect::ALL), offer_extension);
    let tool = client.tool("notebook").clone();
    let policy = Policy::default();
    let mut session = Session::default();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for call in [
        json!({"action": "read", "page": 1}),
        json!({"action": "append", "page": 1, "line": "x"}),
        json!({"action": "tear", "page": 1}),
    ] {
        let arguments = arguments(call);
        let preflight = client
            .support
            .preflight(&mut client.requester, &tool, &arguments)
            .unwrap();
        let resolved = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        let listed = ProposedCall::new("notebook", &arguments, preflight.declared, Trust::Trusted);
        let decision = session.review(&resolved, policy.decide(&resolved));
        without.push(session.review(&listed, policy.decide(&listed)).verdict());
        with.push(decision.verdict());
        if decision.is_allowed() {
            let result = client
                .requester
                .request(
                    "tools/call",
                    json!({"name": "notebook", "arguments": arguments}),
                )
                .unwrap();
            assert_ne!(result.get("isError"), Some(&json!(true)), "{result}");
            session.record(&resolved);
        }
    }
    assert_eq!(session.private_data_from(), Some("notebook"));
    (with, without)
}

#[test]
fn resolution_changes_the_decisions() {
    let normal = Verdict::Confirm(Strength::Normal);
    let light = Verdict::Confirm(Strength::Light);
    // SEP-1862 (B) resolves every hint: the append is reversible.
    let (with, without) = notebook_verdicts(false);
    assert_eq!(with, [Verdict::Allow, light, normal]);
    assert_eq!(without, [normal; 3]);
    // The extension (C) resolves the four core hints only, so the append keeps
    // the static `reversibleHint: false` and gets a normal confirmation.
    let (with, without) = notebook_verdicts(true);
    assert_eq!(with, [Verdict::Allow, normal, normal]);
    assert_eq!(without, [normal; 3]);
}
