//! The `manage_files` tool of the tool-resolution proposal (SEP-1862): one tool,
//! four actions whose risk differs.
//!
//! | action    | readOnlyHint | destructiveHint | idempotentHint |
//! |-----------|--------------|-----------------|----------------|
//! | `read`    | true         | false           | true           |
//! | `append`  | false        | false           | false          |
//! | `replace` | false        | true            | true           |
//! | `delete`  | false        | true            | true           |
//!
//! None of them reaches outside the server's file tree, so `open_world = false`
//! is set once for the whole tool, and none of them needs privileges or
//! touches sensitive data by itself (`privileged_access = false,
//! sensitive_data = false`). A rule of the whole tool marks any action on a
//! system path (`/etc`, `/root`, `/sys`, ...) as needing privileged access and
//! touching sensitive data: the path, not the action, raises those two hints,
//! so a call elsewhere resolves them to `false` (and a server profile such as
//! `no_privileged` keeps every action, refusing only system paths). The static
//! annotations `tools/list` advertises are the worst case over the four
//! actions and that rule: not read-only, destructive, not idempotent, closed
//! world, privileged, sensitive.

use annot::mcp_tool;

/// Read, append, replace, or delete file contents.
#[mcp_tool(
    open_world = false,
    privileged_access = false,
    sensitive_data = false,
    title = "Manage files",
    // What a host shows before a call of the one resolvable tool, whatever
    // the action: each action's own preview is below.
    display = "{action} {path}",
    when(path path_matches "^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)")
        => (privileged_access, sensitive_data),
)]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManageFiles {
    /// Return the contents of the file.
    #[annotate(read_only, title = "Read a file", display = "read {path}")]
    Read {
        /// Path of the file, relative to the server's root.
        path: String,
    },
    /// Add text at the end of the file, creating it if needed.
    #[annotate(
        destructive = false,
        title = "Append to a file",
        display = "append to {path}"
    )]
    Append {
        /// Path of the file, relative to the server's root.
        path: String,
        /// Text to add.
        content: String,
    },
    /// Replace the whole contents of the file.
    #[annotate(
        destructive,
        idempotent,
        title = "Replace a file",
        display = "replace {path}"
    )]
    Replace {
        /// Path of the file, relative to the server's root.
        path: String,
        /// The new contents.
        content: String,
    },
    /// Delete the file.
    #[annotate(
        destructive,
        idempotent,
        title = "Delete a file",
        display = "delete {path}"
    )]
    Delete {
        /// Path of the file, relative to the server's root.
        path: String,
    },
}
