//! The client against the built-in server the way a newer host meets it: it
//! probes with `server/discover`. A server that answers speaks 2026-07-28 and
//! gets every preflight with its own `_meta`; one that answers with a JSON-RPC
//! error speaks the legacy era, and the host falls back to `initialize`. Either
//! way the preflight must resolve, keep the silent hints, and block invalid
//! arguments; which era ran is printed, and each branch asserts its own shape.

#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;

use annot::client::{
    AnnotationSource, ClientExtension, ClientInfo, JsonRpcRequester, PreflightError, RequestError,
    Requester, ResolutionSupport,
};
use annot::protocol::{Dialect, error_code};
use annot::server::{Server, ToolOutput};
use annot::{AnnotatedTool, Tool};
use manage_files::ManageFiles;
use serde_json::{Map, Value, json};

const V2026: &str = "2026-07-28";

type Exchange = Box<dyn FnMut(&[u8]) -> Option<Vec<u8>>>;

fn server(dialects: &[Dialect]) -> Server {
    Server::builder("client-eras", "0.0.0")
        .dialects(dialects.iter().copied())
        .tool(|_: ManageFiles| Ok(ToolOutput::text("done")))
        .build()
        .unwrap()
}

fn client() -> ClientInfo {
    ClientInfo::new("client-eras", "0.1.0").with_capabilities(json!({"roots": {}}))
}

/// The era the server turned out to speak.
#[derive(Debug, PartialEq)]
enum Era {
    PerRequest,
    Legacy,
}

/// Probes, then sets up whichever era the server speaks; lists the tools.
fn connect(
    server: &Server,
    client_extension: ClientExtension,
) -> (JsonRpcRequester<Exchange>, ResolutionSupport, Tool, Era) {
    let mut connection = server.connect();
    let exchange: Exchange = Box::new(move |message: &[u8]| connection.handle(message));
    let mut requester = JsonRpcRequester::new(exchange);
    let offer = client_extension != ClientExtension::NotOffered;
    let meta = Value::Object(client().request_meta(V2026, offer));
    let (support, list_params, era) = match requester
        .request("server/discover", json!({"_meta": meta}))
    {
        Ok(discovered) => {
            let support =
                ResolutionSupport::from_discover_result(&discovered, client(), client_extension)
                    .expect("a server that answers server/discover speaks 2026-07-28");
            (support, json!({"_meta": meta}), Era::PerRequest)
        }
        Err(RequestError::Rpc(_)) => {
            let mut capabilities = client().capabilities;
            if offer {
                capabilities.insert(
                    "extensions".into(),
                    json!({"io.modelcontextprotocol/tool-resolution": {}}),
                );
            }
            let initialize = requester
                .request(
                    "initialize",
                    json!({
                        "protocolVersion": "2025-11-25",
                        "clientInfo": {"name": "client-eras", "version": "0.1.0"},
                        "capabilities": capabilities
                    }),
                )
                .expect("a server that refuses server/discover speaks initialize");
            requester
                .notify("notifications/initialized", json!({}))
                .unwrap();
            let client_extension = if offer {
                ClientExtension::Initialize
            } else {
                ClientExtension::NotOffered
            };
            let support = ResolutionSupport::from_initialize_result(&initialize, client_extension)
                .with_client(client());
            (support, json!({}), Era::Legacy)
        }
        Err(silence) => panic!("the server/discover probe must get an answer: {silence}"),
    };
    let listed = requester.request("tools/list", list_params).unwrap();
    let tools: Vec<Tool> = serde_json::from_value(listed["tools"].clone()).unwrap();
    let tool = tools
        .into_iter()
        .find(|tool| tool.name == "manage_files")
        .unwrap();
    (requester, support, tool, era)
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[test]
fn resolves_in_the_era_the_server_speaks() {
    for (dialect, client_extension) in [
        (
            Dialect::ToolResolutionExtension,
            ClientExtension::PerRequest,
        ),
        (Dialect::DynamicAnnotations, ClientExtension::NotOffered),
    ] {
        let (mut requester, support, tool, era) = connect(&server(&[dialect]), client_extension);
        println!("{dialect:?}: the built-in server speaks {era:?}");
        match era {
            Era::PerRequest => assert_eq!(support.protocol_version.as_deref(), Some(V2026)),
            Era::Legacy => assert_eq!(support.protocol_version, None),
        }
        for call in [
            json!({"action": "read", "path": "notes.txt"}),
            json!({"action": "delete", "path": "notes.txt"}),
        ] {
            let arguments = arguments(call.clone());
            let preflight = support
                .preflight(&mut requester, &tool, &arguments)
                .unwrap();
            assert_eq!(
                preflight.source,
                AnnotationSource::Resolved(dialect),
                "{era:?} {call}"
            );
            let expected = ManageFiles::from_arguments(&call)
                .unwrap()
                .resolve()
                .effective();
            let acted_on = preflight.annotations();
            assert_eq!(
                (
                    acted_on.read_only,
                    acted_on.destructive,
                    acted_on.open_world
                ),
                (
                    expected.read_only,
                    expected.destructive,
                    expected.open_world
                ),
                "{era:?} {call}"
            );
            // Not on a system path, so the rule did not raise it from the
            // tool's `false`; the static annotations declare it `true`, and
            // unless the answer states it, that stays.
            assert_eq!(expected.sensitive_data, Some(false));
            let stated = preflight.resolved.unwrap().stated().sensitive_data;
            assert_eq!(
                acted_on.sensitive_data,
                stated.or(Some(true)),
                "{era:?} {call}"
            );
        }
        let shred = arguments(json!({"action": "shred", "path": "notes.txt"}));
        let refused = support
            .preflight(&mut requester, &tool, &shred)
            .unwrap_err();
        let PreflightError::InvalidParams { error, .. } = refused else {
            panic!("expected invalid params");
        };
        assert_eq!(error.code, error_code::INVALID_PARAMS);
    }
}
