//! Scripted servers and fixtures shared by the client preflight tests.

#![allow(dead_code)]

pub mod child;

use std::collections::VecDeque;

use annot::client::{
    AnnotationSource, ClientExtension, RequestError, Requester, ResolutionFailure,
    ResolutionSupport,
};
use annot::protocol::{Dialect, RpcError, TOOL_RESOLUTION_EXTENSION};
use annot::{Annotations, Tool};
use serde_json::{Map, Value, json};

/// A server that answers from a script and remembers what it was asked.
#[derive(Default)]
pub struct Scripted {
    answers: VecDeque<Result<Value, RequestError>>,
    pub sent: Vec<(String, Value)>,
}

impl Scripted {
    pub fn answering(answers: impl IntoIterator<Item = Result<Value, RequestError>>) -> Self {
        Scripted {
            answers: answers.into_iter().collect(),
            sent: Vec::new(),
        }
    }
}

impl Requester for Scripted {
    fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError> {
        self.sent.push((method.to_owned(), params));
        self.answers
            .pop_front()
            .unwrap_or_else(|| Err(RequestError::transport("script exhausted")))
    }
}

/// `manage_files` as listed: marked for every dialect, worst case a closed-world
/// irreversible deletion of sensitive files.
pub fn manage_files() -> Tool {
    serde_json::from_value(json!({
        "name": "manage_files",
        "inputSchema": {"type": "object"},
        "annotations": {
            "title": "Manage files",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false,
            "sensitiveDataHint": true,
            "reversibleHint": false
        },
        "dynamicAnnotations": true,
        "resolve": true,
        "_meta": {TOOL_RESOLUTION_EXTENSION: {"resolvable": true}}
    }))
    .unwrap()
}

pub fn only(dialect: Dialect) -> ResolutionSupport {
    ResolutionSupport {
        dynamic_annotations: dialect == Dialect::DynamicAnnotations,
        resolve: dialect == Dialect::ResolveTool,
        extension: dialect == Dialect::ToolResolutionExtension,
        client_extension: ClientExtension::Initialize,
        ..ResolutionSupport::default()
    }
}

pub fn read_arguments() -> Map<String, Value> {
    json!({"action": "read", "path": "notes.txt"})
        .as_object()
        .unwrap()
        .clone()
}

pub const READ: Annotations = Annotations::new()
    .read_only(true)
    .open_world(false)
    .sensitive_data(true);

/// A well-formed answer in `dialect` for `name` with these core hints.
pub fn answer(dialect: Dialect, name: &str, hints: Value) -> Value {
    match dialect {
        Dialect::DynamicAnnotations => json!({"annotations": hints}),
        Dialect::ResolveTool => json!({"tool": {
            "name": name,
            "inputSchema": {"type": "object"},
            "annotations": hints
        }}),
        Dialect::ToolResolutionExtension => json!({
            "resultType": "complete",
            "name": name,
            "annotations": hints
        }),
    }
}

pub fn read_hints() -> Value {
    json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
    })
}

/// A's and B's answers carry SEP-1984 hints; C's cannot.
pub fn read_answer(dialect: Dialect) -> Value {
    let mut hints = read_hints();
    if dialect != Dialect::ToolResolutionExtension {
        hints["sensitiveDataHint"] = json!(true);
    }
    answer(dialect, "manage_files", hints)
}

pub fn fallback_failure(dialect: Dialect, reply: Result<Value, RequestError>) -> ResolutionFailure {
    let tool = manage_files();
    let mut server = Scripted::answering([reply]);
    let preflight = only(dialect)
        .preflight(&mut server, &tool, &read_arguments())
        .unwrap();
    assert_eq!(preflight.resolved, None);
    let out_of_bound = matches!(
        preflight.source,
        AnnotationSource::Fallback {
            failure: ResolutionFailure::OutOfBound(_),
            ..
        }
    );
    // An answer beyond the bound keeps the risk it admits (see
    // tests/client/fallback.rs); every other failure leaves the static ones.
    if !out_of_bound {
        assert_eq!(
            preflight.annotations(),
            tool.annotations.unwrap().hints().effective(),
            "the fallback is the static annotations"
        );
    }
    match preflight.source {
        AnnotationSource::Fallback {
            dialect: tried,
            failure,
        } => {
            assert_eq!(tried, dialect);
            failure
        }
        other => panic!("expected a fallback, got {other:?}"),
    }
}

pub fn rpc(code: i64, message: &str) -> Result<Value, RequestError> {
    Err(RpcError::new(code, message).into())
}

pub fn malformed(dialect: Dialect, reply: Value) -> String {
    match fallback_failure(dialect, Ok(reply.clone())) {
        ResolutionFailure::Malformed { detail } => detail,
        other => panic!("{reply} in {dialect:?}: expected malformed, got {other:?}"),
    }
}

/// A tool with these static annotations, marked for every dialect.
pub fn tool_declaring(name: &str, declared: Annotations) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "inputSchema": {"type": "object"},
        "annotations": declared,
        "dynamicAnnotations": true,
        "resolve": true,
        "_meta": {TOOL_RESOLUTION_EXTENSION: {"resolvable": true}}
    }))
    .unwrap()
}

/// A vault reader as listed: may write, and declares sensitive data with
/// privileged access; its resolutions state the core hints only, as the
/// example servers of the proposals do.
pub const VAULT: Annotations = Annotations::new()
    .read_only(false)
    .destructive(true)
    .open_world(false)
    .sensitive_data(true)
    .privileged_access(true);

impl Scripted {
    /// The same script over JSON-RPC lines, for a [`JsonRpcRequester`]: each
    /// request line is recorded and answered with the next scripted result or
    /// error (a transport failure in the script answers nothing); a
    /// notification gets no answer.
    ///
    /// [`JsonRpcRequester`]: annot::client::JsonRpcRequester
    pub fn answer_line(&mut self, line: &[u8]) -> Option<Vec<u8>> {
        let message: Value = serde_json::from_slice(line).expect("the client sends JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        let method = message["method"].as_str().expect("a method").to_owned();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let id = message.get("id")?.clone();
        let reply = self.request(&method, params);
        let response = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(RequestError::Rpc(error)) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            Err(RequestError::Transport { .. }) => return None,
        };
        Some(response.to_string().into_bytes())
    }

    /// The methods asked, in order.
    pub fn methods(&self) -> Vec<&str> {
        self.sent
            .iter()
            .map(|(method, _)| method.as_str())
            .collect()
    }
}
