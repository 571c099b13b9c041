//! The regex rules `examples/tools/sql.rs` had before it judged SQL with a
//! parser: a keyword at the start of each statement. Unsound (`SELECT
//! pg_terminate_backend(42)` and `SELECT * FROM t FOR UPDATE` are reads to
//! it), kept as the baseline of `benches/sql.rs` and as the pattern set
//! whose DFA exceeds the macro's limit in `tests/rules/dfa.rs`.

use annot::mcp_tool;

/// SQL judged by keywords.
#[mcp_tool(open_world = false, sensitive_data)]
#[serde(rename_all = "snake_case")]
pub enum KeywordSql {
    /// Run one statement, or several separated by `;`.
    #[annotate(
        destructive,
        when(statement matches r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*(?:select|show)\b")
            => (read_only),
        when(statement matches r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*select\b[^;]*\binto\b")
            => (read_only = false, destructive = false),
        when(statement matches r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*insert\b")
            => (read_only = false, destructive = false),
        when(statement matches r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*(?:update|delete|merge|alter)\b")
            => (read_only = false, destructive),
        when(statement matches r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*(?:drop|truncate)\b")
            => (read_only = false, destructive, reversible = false),
    )]
    Run {
        /// The SQL text.
        statement: String,
    },
}
