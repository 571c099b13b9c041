//! `stat_file`: a tool with a declared output type, so that its listing
//! carries an `outputSchema` and its results `structuredContent` (with the
//! same JSON as text). Served beside `manage_files` by `examples/manage_files.rs`
//! (the built-in server) and `examples/rmcp_server.rs` (rmcp).

use annot::mcp_tool;

/// Count the bytes and lines of a file.
#[mcp_tool(read_only, open_world = false, output = FileStats)]
pub struct StatFile {
    /// The file, relative to the sandbox.
    pub path: String,
}

/// What `stat_file` reports of one file.
#[derive(Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct FileStats {
    /// The file, as it was asked for.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its number of lines, a last line without a newline included.
    pub lines: u64,
}

impl FileStats {
    /// The stats of `text`, the contents of `path`.
    pub fn of(path: &str, text: &str) -> Self {
        FileStats {
            path: path.to_owned(),
            bytes: text.len() as u64,
            lines: text.lines().count() as u64,
        }
    }
}
