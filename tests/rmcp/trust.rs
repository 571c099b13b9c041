//! The server side of the trust-annotations extension through the rmcp
//! adapter, read raw off the wire: the extension advertised, claims on
//! `tools/call` results exactly when the client negotiated it (in
//! `initialize`, or per request, as 2026-07-28 does), at least the call's
//! floor, raised by the handler per result and per block
//! (`claim_result`, `claim_content`) and never lowered, and every claim the
//! handler wrote taken out for a client that did not negotiate it.

use crate::rmcp_support;
use crate::trust_support;
use annot::rmcp::{
    Annotated, AnnotatedTools, HandleTool, claim_content, claim_result, resolved_call,
};
use annot::trust::TrustClaims;
use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use rmcp_support::fixtures::{INITIALIZED, raw_session_with, result};
use serde_json::{Value, json};
use trust_support::declared::{Helpdesk, Intranet, Records, declared};
use trust_support::{Mailbox, TRUST, assert_claims, claims_of, expected, trust_capabilities};

/// An rmcp server whose only tools are annotated.
#[derive(Clone)]
struct Mail;

impl ServerHandler for Mail {}

impl HandleTool<Mailbox> for Mail {
    async fn handle(
        &self,
        mailbox: Mailbox,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let call = resolved_call(&context).expect("called through the adapter");
        let text = |text: &str| ContentBlock::text(text);
        Ok(match mailbox {
            // Whether the claims will be sent, as the handler learns it.
            Mailbox::Count { .. } => {
                let told = call.emits_trust_claims().to_string();
                let mut result = CallToolResult::success(vec![text(&told)]);
                claim_result(&mut result, &TrustClaims::NONE);
                result
            }
            Mailbox::ReadInbox => CallToolResult::success(vec![text("2 messages")]),
            // An attempt to say the page is trusted, written by hand.
            Mailbox::FetchRemote { url } => {
                let mut result = CallToolResult::success(vec![text(&format!("the page at {url}"))]);
                let mut meta = MetaObject::new();
                meta.0.insert(TRUST.to_owned(), json!({"untrusted": false}));
                result.meta = Some(meta);
                result
            }
            Mailbox::Archive { subject } => {
                let mut quoted = text(&subject);
                claim_content(&mut quoted, &TrustClaims::NONE.untrusted());
                CallToolResult::success(vec![text("archived"), quoted])
            }
        })
    }
}

fn server() -> Annotated<Mail> {
    let tools = AnnotatedTools::builder()
        .tool::<Mailbox>()
        .build()
        .expect("valid tools");
    Annotated::new(Mail, tools).expect("no name clash")
}

fn initialize(capabilities: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "0"}
    }})
    .to_string()
}

fn call(id: u64, arguments: &Value, meta: Option<Value>) -> String {
    let mut params = json!({"name": "mailbox", "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

/// Runs a session that initializes with `capabilities` and calls every
/// expected call with `meta`; returns the results, in order.
async fn session(capabilities: &Value, meta: Option<Value>) -> (Value, Vec<Value>) {
    let mut requests = vec![initialize(capabilities), INITIALIZED.to_owned()];
    for (index, expected) in expected().iter().enumerate() {
        requests.push(call(10 + index as u64, &expected.arguments, meta.clone()));
    }
    let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
    let responses = raw_session_with(server(), true, &requests).await;
    let initialized = result(&responses[0].1);
    let results = responses[1..]
        .iter()
        .map(|(_, line)| result(line))
        .collect();
    (initialized, results)
}

#[tokio::test]
async fn a_session_gets_claims_exactly_when_it_negotiated_them() {
    for (capabilities, negotiated) in [
        (trust_capabilities(), true),
        (json!({}), false),
        (json!({"extensions": {TRUST: {"level": "strict"}}}), false),
    ] {
        let (initialized, results) = session(&capabilities, None).await;
        assert_eq!(
            initialized["capabilities"]["extensions"][TRUST],
            json!({}),
            "advertised"
        );
        for (result, expected) in results.iter().zip(expected()) {
            assert_claims(result, &expected, negotiated);
        }
        // `count` says whether the handler was told the claims are sent.
        assert_eq!(results[0]["content"][0]["text"], negotiated.to_string());
    }
}

#[tokio::test]
async fn a_request_s_own_capabilities_decide_over_the_session_s() {
    let own =
        |capabilities: Value| json!({"io.modelcontextprotocol/clientCapabilities": capabilities});
    let (_, results) = session(&trust_capabilities(), Some(own(json!({})))).await;
    for (result, expected) in results.iter().zip(expected()) {
        assert_claims(result, &expected, false);
    }
    let (_, results) = session(&json!({}), Some(own(trust_capabilities()))).await;
    for (result, expected) in results.iter().zip(expected()) {
        assert_claims(result, &expected, true);
    }
}

#[tokio::test]
async fn a_2026_request_is_judged_by_its_own_capabilities() {
    let meta = |capabilities: Value| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": capabilities
        })
    };
    for (capabilities, negotiated) in [(trust_capabilities(), true), (json!({}), false)] {
        let requests: Vec<String> = expected()
            .iter()
            .enumerate()
            .map(|(index, expected)| {
                call(
                    10 + index as u64,
                    &expected.arguments,
                    Some(meta(capabilities.clone())),
                )
            })
            .collect();
        let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
        let responses = raw_session_with(server(), true, &requests).await;
        for ((_, line), expected) in responses.iter().zip(expected()) {
            let result = result(line);
            assert!(result.get("content").is_some(), "{line}");
            assert_claims(&result, &expected, negotiated);
        }
    }
}

/// An rmcp server of the tools that declare their claims with `#[mcp_tool]`.
#[derive(Clone)]
struct Declaring;

impl ServerHandler for Declaring {}

macro_rules! done {
    ($($tool:ty),*) => {$(
        impl HandleTool<$tool> for Declaring {
            async fn handle(
                &self,
                _: $tool,
                _: RequestContext<RoleServer>,
            ) -> Result<CallToolResult, ErrorData> {
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            }
        }
    )*};
}
done!(Helpdesk, Records, Intranet);

#[tokio::test]
async fn declared_claims_per_action_per_rule_and_per_tool_reach_the_wire() {
    for (capabilities, negotiated) in [(trust_capabilities(), true), (json!({}), false)] {
        let mut requests = vec![initialize(&capabilities), INITIALIZED.to_owned()];
        for (index, case) in declared().iter().enumerate() {
            let params = json!({"name": case.tool, "arguments": case.arguments});
            requests.push(
                json!({"jsonrpc": "2.0", "id": 10 + index, "method": "tools/call", "params": params})
                    .to_string(),
            );
        }
        let requests: Vec<&str> = requests.iter().map(String::as_str).collect();
        let tools = AnnotatedTools::builder()
            .tool::<Helpdesk>()
            .tool::<Records>()
            .tool::<Intranet>()
            .build()
            .expect("valid tools");
        let server = Annotated::new(Declaring, tools).expect("no name clash");
        let responses = raw_session_with(server, true, &requests).await;
        for ((_, line), case) in responses[1..].iter().zip(declared()) {
            let result = result(line);
            let claims = if negotiated { case.claims } else { Value::Null };
            assert_eq!(
                claims_of(&result),
                claims,
                "{} {} negotiated={negotiated}: {line}",
                case.tool,
                case.arguments
            );
        }
    }
}
