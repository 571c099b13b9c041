//! The client against rmcp's server (`examples/rmcp_server.rs`, a child process
//! on stdio) in MCP 2026-07-28 mode: `server/discover`, then every request with
//! its own `_meta`. The preflight resolves through the extension or
//! `tools/annotations`, keeps the static SEP-1984 hints the answer is silent
//! about, retries a version the server does not serve, tells a `-32602` about
//! the envelope from one about the arguments, and the call runs.

use crate::client_support;
use crate::rmcp_support;
use annot::Tool;
use annot::client::{
    AnnotationSource, ClientExtension, ClientInfo, JsonRpcRequester, Policy, PolicyRule,
    PreflightError, ProposedCall, Requester, ResolutionFailure, ResolutionSupport, Strength, Trust,
    Verdict,
};
use annot::protocol::Dialect;
use client_support::child::ChildServer;
use rmcp_support::{Sandbox, example_binary};
use serde_json::{Map, Value, json};

const V2026: &str = "2026-07-28";

type Exchange = Box<dyn FnMut(&[u8]) -> Option<Vec<u8>>>;

struct Host {
    requester: JsonRpcRequester<Exchange>,
    support: ResolutionSupport,
    tool: Tool,
    _sandbox: Sandbox,
}

fn client() -> ClientInfo {
    ClientInfo::new("annot-client-tests", "0.1.0").with_capabilities(json!({"roots": {}}))
}

/// Starts the server and discovers it; lists its tools with per-request `_meta`.
fn discover(name: &str, client_extension: ClientExtension) -> Host {
    let sandbox = Sandbox::new(name);
    std::fs::write(sandbox.path.join("notes.txt"), "hello").unwrap();
    let mut server = ChildServer::spawn(
        &example_binary(),
        &[
            "--stdio".as_ref(),
            "--root".as_ref(),
            sandbox.path.as_os_str(),
        ],
    );
    let exchange: Exchange = Box::new(move |message: &[u8]| server.exchange(message));
    let mut requester = JsonRpcRequester::new(exchange);
    let offer = client_extension != ClientExtension::NotOffered;
    let meta = |version: &str| Value::Object(client().request_meta(version, offer));
    let discovered = requester
        .request("server/discover", json!({"_meta": meta(V2026)}))
        .expect("server/discover");
    let support =
        ResolutionSupport::from_discover_result(&discovered, client(), client_extension).unwrap();
    assert_eq!(support.protocol_version.as_deref(), Some(V2026));
    let listed = requester
        .request("tools/list", json!({"_meta": meta(V2026)}))
        .expect("tools/list");
    let tools: Vec<Tool> = serde_json::from_value(listed["tools"].clone()).unwrap();
    let tool = tools
        .into_iter()
        .find(|tool| tool.name == "manage_files")
        .expect("manage_files is listed");
    Host {
        requester,
        support,
        tool,
        _sandbox: sandbox,
    }
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[test]
fn resolves_through_the_extension_and_keeps_the_silent_hints() {
    let mut host = discover("client-rmcp-c", ClientExtension::PerRequest);
    let read = arguments(json!({"action": "read", "path": "notes.txt"}));
    let preflight = host
        .support
        .preflight(&mut host.requester, &host.tool, &read)
        .unwrap();
    assert_eq!(
        preflight.source,
        AnnotationSource::Resolved(Dialect::ToolResolutionExtension)
    );
    assert_eq!(preflight.protocol_version.as_deref(), Some(V2026));
    let acted_on = preflight.annotations();
    assert!(acted_on.is_read_only());
    // The extension's answer carries the core hints only; the static
    // annotations declare sensitive data and privileged access (system paths).
    assert_eq!(preflight.declared.sensitive_data, Some(true));
    assert_eq!(
        (acted_on.sensitive_data, acted_on.privileged_access),
        (Some(true), Some(true))
    );
    let call = ProposedCall::from_preflight(&preflight, &read, Trust::Trusted);
    let decision = Policy::default().decide(&call);
    assert_eq!(
        (decision.verdict(), &decision.reason().rule),
        (
            Verdict::Confirm(Strength::Strong),
            &PolicyRule::SensitiveAndPrivileged
        )
    );
    // The person confirms; the call runs with the same envelope.
    let meta = Value::Object(client().request_meta(V2026, true));
    let result = host
        .requester
        .request(
            "tools/call",
            json!({"name": "manage_files", "arguments": read, "_meta": meta}),
        )
        .unwrap();
    assert_eq!(result["content"][0]["text"], "hello", "{result}");
}

#[test]
fn resolves_through_dynamic_annotations_without_the_extension() {
    let mut host = discover("client-rmcp-a", ClientExtension::NotOffered);
    let delete = arguments(json!({"action": "delete", "path": "notes.txt"}));
    let preflight = host
        .support
        .preflight(&mut host.requester, &host.tool, &delete)
        .unwrap();
    assert_eq!(
        preflight.source,
        AnnotationSource::Resolved(Dialect::DynamicAnnotations)
    );
    let acted_on = preflight.annotations();
    assert_eq!(
        (acted_on.destructive, acted_on.idempotent),
        (Some(true), Some(true))
    );
}

#[test]
fn a_version_the_server_does_not_serve_is_retried_once() {
    let mut host = discover("client-rmcp-version", ClientExtension::PerRequest);
    let mut support = host.support.clone();
    support.protocol_version = Some("2099-01-01".to_owned());
    let read = arguments(json!({"action": "read", "path": "notes.txt"}));
    let preflight = support
        .preflight(&mut host.requester, &host.tool, &read)
        .unwrap();
    assert!(preflight.is_resolved(), "{}", preflight.source);
    assert_eq!(preflight.protocol_version.as_deref(), Some(V2026));
}

#[test]
fn a_request_without_the_envelope_falls_back_instead_of_blocking() {
    let mut host = discover("client-rmcp-envelope", ClientExtension::PerRequest);
    // A host that forgot the protocol version: a legacy-shaped request.
    let mut legacy = host.support.clone();
    legacy.protocol_version = None;
    let read = arguments(json!({"action": "read", "path": "notes.txt"}));
    let preflight = legacy
        .preflight(&mut host.requester, &host.tool, &read)
        .unwrap();
    match &preflight.source {
        AnnotationSource::Fallback {
            failure: ResolutionFailure::Envelope { message },
            ..
        } => assert!(message.contains("_meta"), "{message}"),
        other => panic!("expected an envelope fallback, got {other:?}"),
    }
    assert_eq!(
        preflight.annotations(),
        host.tool.annotations.clone().unwrap().hints().effective()
    );
}

#[test]
fn invalid_arguments_still_block_the_call() {
    let mut host = discover("client-rmcp-invalid", ClientExtension::PerRequest);
    let shred = arguments(json!({"action": "shred", "path": "notes.txt"}));
    let refused = host
        .support
        .preflight(&mut host.requester, &host.tool, &shred)
        .unwrap_err();
    let PreflightError::InvalidParams { error, .. } = refused else {
        panic!("expected invalid params");
    };
    assert!(error.message.contains("shred"), "{}", error.message);
}
