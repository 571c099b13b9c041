//! Protocol versions: the one a session settles on, and what each changes
//! in the answers.

use crate::protocol::{LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS};

/// The version a server answers a client that asks for `requested`: the same
/// when supported, else the latest.
pub(crate) fn negotiate_version(requested: &str) -> &'static str {
    PROTOCOL_VERSIONS
        .iter()
        .find(|supported| **supported == requested)
        .copied()
        .unwrap_or(LATEST_PROTOCOL_VERSION)
}

/// Whether the negotiated version reports invalid tool arguments as a tool
/// execution error (`isError: true`, SEP-1303, 2025-11-25 on) rather than as
/// `-32602`. Before `initialize` the latest rules apply.
pub(crate) fn argument_errors_are_tool_errors(version: Option<&str>) -> bool {
    version.is_none_or(|version| version >= "2025-11-25")
}

/// Whether a negotiated version has JSON-RPC batches: 2025-03-26 requires
/// servers to accept them (2024-11-05 inherits them from JSON-RPC itself);
/// 2025-06-18 removed them.
pub(crate) fn allows_batches(version: &str) -> bool {
    version <= "2025-03-26"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_echo_or_fall_to_the_latest() {
        assert_eq!(negotiate_version("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_version("2024-11-05"), "2024-11-05");
        assert_eq!(negotiate_version("2026-07-28"), LATEST_PROTOCOL_VERSION);
        assert!(!argument_errors_are_tool_errors(Some("2025-06-18")));
        assert!(argument_errors_are_tool_errors(Some("2025-11-25")));
    }
}
