//! A SQL tool whose risk is read from the statement itself.
//!
//! | statement | readOnlyHint | destructiveHint | reversibleHint |
//! |---|---|---|---|
//! | `SELECT`, `SHOW` | true | false | |
//! | `SELECT ... INTO` | false | false | |
//! | `INSERT` | false | false | |
//! | `UPDATE`, `DELETE`, `MERGE`, `ALTER` | false | true | |
//! | `DROP`, `TRUNCATE` | false | true | false |
//! | anything else | false | true | |
//!
//! Keywords are matched without regard to case, at the start of a statement:
//! the start of the text or after a `;`, past whitespace and `--` or `/* */`
//! comments. Every statement of a batch counts and the riskiest wins
//! (`SELECT 1; DROP TABLE t` is destructive): rules that fire together are
//! joined. A keyword elsewhere (in a comment, a string or a column name) does
//! not count, except that a `;` inside a string can only make a statement
//! look riskier, never safer.

use annot::mcp_tool;

/// Run SQL against the application database.
#[mcp_tool(name = "sql", title = "SQL", open_world = false, sensitive_data)]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sql {
    /// Run one statement, or several separated by `;`.
    #[annotate(
        destructive,
        title = "Run SQL",
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
    /// Show the plan of a statement without running it.
    #[annotate(read_only, title = "Explain SQL")]
    Explain {
        /// The SQL text.
        statement: String,
    },
}
