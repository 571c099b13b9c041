//! What a server offers and how it negotiates, through the public API only
//! (`Server::dialects`, `Connection::handle` with JSON bytes), so the checks
//! hold whatever the negotiation code looks like inside. Expectations are
//! literal, from docs/PROTOCOL.md section 3.

use annot::mcp_tool;
use annot::protocol::Dialect;
use annot::server::{Server, ToolOutput};
use serde_json::{Value, json};

/// Look something up.
#[mcp_tool(read_only, open_world = false)]
struct Lookup {
    key: String,
}

/// A server offering `dialects` only: trust-annotations, which it would
/// offer whatever the dialects, is turned off (`tests/server/trust.rs`).
fn server(dialects: &[Dialect]) -> Server {
    Server::builder("negotiation", "0")
        .dialects(dialects.iter().copied())
        .trust_annotations(false)
        .tool(|lookup: Lookup| Ok(ToolOutput::text(lookup.key)))
        .build()
        .unwrap()
}

fn initialize_capabilities(server: &Server) -> Value {
    let mut connection = server.connect();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}});
    let answer = connection
        .handle(request.to_string().as_bytes())
        .expect("an answer");
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    answer["result"]["capabilities"].clone()
}

/// The dialects a server offers come back oldest first, whatever order the
/// builder got them in, and each is declared in `initialize`.
#[test]
fn a_server_reports_the_dialects_it_offers_oldest_first() {
    use Dialect::{DynamicAnnotations as A, ResolveTool as B, ToolResolutionExtension as C};
    let cases: [(&[Dialect], &[Dialect], Value); 5] = [
        (&[], &[], json!({"tools": {}})),
        (&[B], &[B], json!({"tools": {"resolve": true}})),
        (
            &[C, A],
            &[A, C],
            json!({"tools": {"dynamicAnnotations": true},
                   "extensions": {"io.modelcontextprotocol/tool-resolution": {}}}),
        ),
        (
            &[C, B, A, B],
            &[A, B, C],
            json!({"tools": {"dynamicAnnotations": true, "resolve": true},
                   "extensions": {"io.modelcontextprotocol/tool-resolution": {}}}),
        ),
        (
            &[C],
            &[C],
            json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tool-resolution": {}}}),
        ),
    ];
    for (given, reported, capabilities) in cases {
        let server = server(given);
        assert_eq!(server.dialects(), reported, "{given:?}");
        assert_eq!(initialize_capabilities(&server), capabilities, "{given:?}");
    }
    let default = Server::builder("negotiation", "0")
        .tool(|lookup: Lookup| Ok(ToolOutput::text(lookup.key)))
        .build()
        .unwrap();
    assert_eq!(default.dialects(), [A, B, C]);
}
