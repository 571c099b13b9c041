//! JSON-RPC lines: reading them with a size cap, and the shapes the gateway
//! writes itself.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The largest message the gateway reads from either side: 16 MiB.
pub const MAX_MESSAGE_SIZE: usize = 16 << 20;

/// The next line, without its newline: `None` at the end of input,
/// `Some(Err(len))` for a line longer than `cap` (read to its end and dropped).
pub async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    cap: usize,
) -> std::io::Result<Option<Result<Vec<u8>, usize>>> {
    let mut line = Vec::new();
    let mut skipped = 0usize;
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(match (line.is_empty(), skipped) {
                (true, 0) => None,
                (_, 0) => Some(Ok(line)),
                (_, skipped) => Some(Err(skipped)),
            });
        }
        let (taken, done) = match memchr(buffer) {
            Some(end) => (end + 1, true),
            None => (buffer.len(), false),
        };
        let chunk = &buffer[..if done { taken - 1 } else { taken }];
        if skipped > 0 || line.len() + chunk.len() > cap {
            skipped += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        reader.consume(taken);
        if done {
            if skipped > 0 {
                return Ok(Some(Err(skipped)));
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                line.clear();
                continue;
            }
            return Ok(Some(Ok(line)));
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|byte| *byte == b'\n')
}

/// A JSON-RPC error response.
pub fn error_response(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// A JSON-RPC result response.
pub fn result_response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A `tools/call` result that reports a refusal to the model: `isError`, one
/// text block, and the gateway's reasons under `_meta`.
pub fn refusal(text: String, details: Value) -> Value {
    json!({
        "content": [{"type": "text", "text": text}],
        "isError": true,
        "_meta": {"dev.annot/gateway": details},
    })
}

/// The JSON-RPC error codes the gateway answers with: the protocol's, and
/// its own for an upstream that could not answer.
pub mod code {
    pub use annot_runtime::protocol::error_code::{
        INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    };

    /// The upstream could not be reached or did not answer.
    pub const UPSTREAM_UNAVAILABLE: i64 = -32001;
    /// The host cancelled the request (never written to the host: the
    /// outcome the log keeps).
    pub const REQUEST_CANCELLED: i64 = -32800;
}
