//! What the server suites share: tools written by hand against `AnnotatedTool`
//! (the shape `#[mcp_tool]` generates), a client that drives a `Connection`,
//! and validators built from the vendored JSON Schemas.

#![allow(dead_code)] // Each suite uses a different part.

pub mod tools;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use annot::server::{Connection, Server, ToolError, ToolOutput};
use jsonschema::Validator;
use serde_json::{Value, json};

/// A handler body that counts its runs in `ran` and answers "ran": how a
/// suite sees whether a call reached its tool.
pub fn counting_handler(
    ran: &Arc<AtomicUsize>,
) -> impl Fn() -> Result<ToolOutput, ToolError> + Send + Sync + 'static {
    let ran = Arc::clone(ran);
    move || {
        ran.fetch_add(1, Ordering::SeqCst);
        Ok(ToolOutput::text("ran"))
    }
}

/// The official MCP schema of 2025-11-25.
pub fn mcp_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| load("mcp-2025-11-25.schema.json"))
}

/// The official MCP schema of 2026-07-28.
pub fn mcp_2026_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| load("mcp-2026-07-28.schema.json"))
}

/// The schema of the tool-resolution extension (dialect C).
pub fn extension_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| load("tool-resolution.schema.json"))
}

fn load(file: &str) -> Value {
    let path = format!("{}/tests/schemas/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// A validator for one `$defs` entry of a schema document.
pub fn definition(document: &Value, name: &str) -> Validator {
    assert!(
        document["$defs"].get(name).is_some(),
        "no $defs/{name} in the schema"
    );
    let mut schema = document.clone();
    schema["$ref"] = Value::String(format!("#/$defs/{name}"));
    jsonschema::validator_for(&schema).unwrap()
}

/// Asserts `instance` fits `$defs/name` of the MCP schema.
pub fn assert_mcp(name: &str, instance: &Value) {
    assert_fits(&definition(mcp_schema(), name), name, instance);
}

/// Asserts `instance` fits `$defs/name` of the 2026-07-28 MCP schema.
pub fn assert_mcp_2026(name: &str, instance: &Value) {
    assert_fits(&definition(mcp_2026_schema(), name), name, instance);
}

/// Asserts `instance` fits `$defs/name` of the tool-resolution schema.
pub fn assert_extension(name: &str, instance: &Value) {
    assert_fits(&definition(extension_schema(), name), name, instance);
}

fn assert_fits(validator: &Validator, name: &str, instance: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{instance} does not fit {name}:\n{}",
        errors.join("\n")
    );
}

/// A test client: numbers its requests and checks every response is valid
/// JSON-RPC by the MCP schema.
pub struct Client {
    pub connection: Connection,
    next_id: i64,
}

impl Client {
    pub fn new(server: &Server) -> Self {
        Client {
            connection: server.connect(),
            next_id: 1,
        }
    }

    /// A client that has initialized with `capabilities` at the latest version.
    pub fn initialized(server: &Server, capabilities: Value) -> Self {
        let mut client = Client::new(server);
        client.initialize("2025-11-25", capabilities);
        client
    }

    /// Runs `initialize` and `notifications/initialized`; returns the result.
    pub fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let result = self.result(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "test", "version": "0"}
            }),
        );
        assert_mcp("InitializeResult", &result);
        assert!(
            self.notify("notifications/initialized", json!({}))
                .is_none()
        );
        result
    }

    /// Sends raw bytes; parses and schema-checks the response, if any.
    pub fn raw(&mut self, message: &[u8]) -> Option<Value> {
        let response = self.connection.handle(message)?;
        let response: Value = serde_json::from_slice(&response).expect("responses are JSON");
        assert_mcp("JSONRPCResponse", &response);
        Some(response)
    }

    /// Sends a request; returns the whole response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self
            .raw(message.to_string().as_bytes())
            .expect("a request always gets a response");
        assert_eq!(response["id"], id, "{response}");
        response
    }

    /// Sends a notification; returns whatever came back (it must be nothing).
    pub fn notify(&mut self, method: &str, params: Value) -> Option<Value> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.raw(message.to_string().as_bytes())
    }

    /// Sends a request that must succeed; returns its result.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// Sends a request that must fail; returns its error object.
    pub fn error(&mut self, method: &str, params: Value) -> Value {
        let response = self.request(method, params);
        assert!(response.get("result").is_none(), "{method}: {response}");
        response["error"].clone()
    }
}

/// The capabilities of a client that takes up the tool-resolution extension.
pub fn extension_capabilities() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tool-resolution": {}}})
}

/// Per-request `_meta` carrying these client capabilities.
pub fn request_capabilities(capabilities: Value) -> Value {
    json!({"io.modelcontextprotocol/clientCapabilities": capabilities})
}

/// A 2026-07-28 client: no handshake, every request carries its own `_meta`,
/// and every response is checked against the 2026-07-28 schema.
pub struct ModernClient {
    pub connection: Connection,
    next_id: i64,
}

/// The `_meta` of a 2026-07-28 request with these client capabilities.
pub fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

impl ModernClient {
    pub fn new(server: &Server) -> Self {
        ModernClient {
            connection: server.connect(),
            next_id: 1,
        }
    }

    /// Sends `params` as they are (their `_meta` included); returns the whole
    /// response, checked against the 2026-07-28 schema.
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self
            .connection
            .handle(message.to_string().as_bytes())
            .expect("a request always gets a response");
        let response: Value = serde_json::from_slice(&response).expect("responses are JSON");
        assert_mcp_2026("JSONRPCResponse", &response);
        assert_eq!(response["id"], id, "{response}");
        response
    }

    /// Sends a request with `capabilities` in its `_meta`, beside `params`.
    pub fn request(&mut self, method: &str, mut params: Value, capabilities: Value) -> Value {
        params["_meta"] = modern_meta(capabilities);
        self.send(method, params)
    }

    /// A request that must succeed; returns its result, whose `resultType`
    /// and server identity are checked.
    pub fn result(&mut self, method: &str, params: Value, capabilities: Value) -> Value {
        let response = self.request(method, params, capabilities);
        assert!(response.get("error").is_none(), "{method}: {response}");
        let result = response["result"].clone();
        assert_eq!(result["resultType"], "complete", "{method}: {result}");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"],
            json!({"name": "annot-test", "version": "1.2.3"}),
            "{method}: {result}"
        );
        result
    }

    /// A request that must fail; returns its error object.
    pub fn error(&mut self, method: &str, params: Value, capabilities: Value) -> Value {
        let response = self.request(method, params, capabilities);
        assert!(response.get("result").is_none(), "{method}: {response}");
        response["error"].clone()
    }
}
