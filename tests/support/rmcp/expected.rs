//! What the rmcp wire tests expect, written out by hand from the tools'
//! declarations (`tests/support/rmcp/fixtures.rs`, `examples/tools/manage_files.rs`)
//! and the protocol (docs/PROTOCOL.md sections 1 to 4), not from any server's answer.

use serde_json::{Value, json};

/// `fetch` exactly as annot lists it to a session that did not take the
/// extension up: every hint in `annotations`, the markers of dialects A and
/// B, not the extension's (docs/PROTOCOL.md section 3).
pub fn fetch_listed() -> Value {
    json!({
        "name": "fetch",
        "description": "GET or POST a URL.",
        "inputSchema": {
            "type": "object",
            "properties": {"method": {"type": "string", "enum": ["get", "post"]}},
            "required": ["method"]
        },
        "annotations": {
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": false,
            "openWorldHint": true,
            "aiProcessingHint": true,
            "slowExecutionHint": true,
            // GET makes no claim about resources, so the worst case makes none.
            "sensitiveDataHint": true,
            "privilegedAccessHint": true,
            "reversibleHint": false
        },
        "dynamicAnnotations": true,
        "resolve": true
    })
}

/// `manage_files`' `inputSchema` (portable): one object, each action's fields
/// in the discriminator's description.
pub fn manage_files_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["read", "append", "replace", "delete"],
                "description": "`read`: Return the contents of the file. Requires `path`.\n\
                    `append`: Add text at the end of the file, creating it if needed. \
                    Requires `path`, `content`.\n\
                    `replace`: Replace the whole contents of the file. Requires `path`, \
                    `content`.\n\
                    `delete`: Delete the file. Requires `path`."
            },
            "content": {
                "type": "string",
                "description": "`append`: Text to add.\n`replace`: The new contents."
            },
            "path": {
                "type": "string",
                "description": "Path of the file, relative to the server's root."
            }
        },
        "required": ["action", "path"],
        "additionalProperties": false
    })
}

/// `manage_files` as dialect B's `{ tool }` carries it: the listed tool with
/// `annotations` replaced, its call preview kept (the complete definition,
/// SEP-1862 says), and no extension marker.
pub fn manage_files_tool(annotations: Value) -> Value {
    json!({
        "name": "manage_files",
        "title": "Manage files",
        "description": "Read, append, replace, or delete file contents.",
        "inputSchema": manage_files_schema(),
        "annotations": annotations,
        "dynamicAnnotations": true,
        "resolve": true,
        "_meta": {"io.modelcontextprotocol/display-templates": {"template": "{action} {path}"}}
    })
}

/// `manage_files` as `tools/list` shows it: the worst action (`delete`:
/// destructive, not idempotent once `append` joins), closed world, and the
/// path rule's two SEP-1984 hints. The session did not take the extension up,
/// so its marker is not there.
pub fn manage_files_listed() -> Value {
    manage_files_tool(json!({
        "title": "Manage files",
        "readOnlyHint": false,
        "destructiveHint": true,
        "idempotentHint": false,
        "openWorldHint": false,
        "sensitiveDataHint": true,
        "privilegedAccessHint": true
    }))
}
