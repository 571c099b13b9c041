//! MCP's rules for tool names, checked once for the macro (at compile time)
//! and the runtime's builder (for names it derives or is given).
//!
//! The rules are the "Tool Names" section of the 2025-11-25 specification
//! (server/tools), which SEP-986 introduced: 1 to 128 characters, each an
//! ASCII letter, a digit, `_`, `-` or `.`.

use core::fmt;

/// The most characters a tool name has.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Why a string is not an MCP tool name ([`check_tool_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolNameError {
    /// The name is empty or longer than [`MAX_TOOL_NAME_LEN`]; the length it has.
    Length(usize),
    /// The name holds a character outside ASCII letters, digits, `_`, `-` and `.`;
    /// the first such character.
    Character(char),
}

impl fmt::Display for ToolNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolNameError::Length(length) => {
                write!(
                    f,
                    "a tool name has 1 to {MAX_TOOL_NAME_LEN} characters, not {length}"
                )
            }
            ToolNameError::Character(bad) => write!(
                f,
                "a tool name may hold ASCII letters, digits, `_`, `-` and `.`, not `{bad}`"
            ),
        }
    }
}

/// Whether `name` follows MCP's tool-name rules, and the first rule it breaks
/// if not: the length first, then the characters.
///
/// ```
/// # use annot_model as annot;
/// use annot::{ToolNameError, check_tool_name};
///
/// assert_eq!(check_tool_name("manage_files_read"), Ok(()));
/// assert_eq!(check_tool_name("admin.tools-v2"), Ok(()));
/// assert_eq!(check_tool_name(""), Err(ToolNameError::Length(0)));
/// assert_eq!(check_tool_name("files/read"), Err(ToolNameError::Character('/')));
/// ```
pub fn check_tool_name(name: &str) -> Result<(), ToolNameError> {
    // ASCII-only names have as many characters as bytes; a longer name in
    // bytes is too long or holds a character outside the set anyway.
    let length = name.chars().count();
    if length == 0 || length > MAX_TOOL_NAME_LEN {
        return Err(ToolNameError::Length(length));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(bad) => Err(ToolNameError::Character(bad)),
        None => Ok(()),
    }
}
