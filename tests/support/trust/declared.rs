//! Tools that declare their results' claims with `#[mcp_tool]`, one of each
//! shape: an enum whose claims are written on the tool, on its variants and
//! in its rules; a struct whose `#[mcp_actions]` enum claims per action and
//! whose tool-level rule claims per argument value; a single-action struct.
//! Every tool is closed-world and declares no `sensitive_data`, so the
//! resolution implies no claim and each claim below comes from a
//! declaration. [`declared`] is what each call must claim, written by hand
//! from the declarations.

use annot::{mcp_actions, mcp_tool};
use serde_json::{Value, json};

/// Tickets and attachments: customers wrote every ticket.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[derive(Debug)]
pub enum Helpdesk {
    /// Read a ticket.
    #[annotate(read_only, results(untrusted))]
    ReadTicket { id: u32 },
    /// Read a customer's record: private, and partly written by the customer.
    #[annotate(read_only, results(sensitive, untrusted))]
    ReadCustomer { id: u32 },
    /// Count the open tickets: nothing anyone wrote.
    #[annotate(read_only)]
    Count,
    /// Read an attachment: `/hr` holds personnel files, `/uploads` what
    /// customers sent.
    #[annotate(
        read_only,
        when(path path_matches "^/hr(/|$)") => (results(sensitive)),
        when(path path_matches "^/uploads(/|$)") => (results(untrusted)),
    )]
    ReadAttachment { path: String },
}

/// What can be done to a table's rows.
#[mcp_actions]
#[serde(rename_all = "snake_case")]
#[derive(Debug)]
pub enum Verb {
    /// Read rows.
    #[annotate(read_only)]
    Get,
    /// Export rows with their personal columns.
    #[annotate(read_only, results(sensitive))]
    Export,
    /// Delete rows.
    #[annotate(destructive)]
    Delete,
}

/// Rows of a table, imported from partners: every result is untrusted, and
/// the `payroll` table's are sensitive whatever is done to it.
#[mcp_tool(
    open_world = false,
    discriminator = "action",
    results(untrusted),
    when(table == "payroll") => (results(sensitive)),
)]
#[derive(Debug)]
pub struct Records {
    pub action: Verb,
    pub table: String,
}

/// A page of the intranet, which any employee may edit; the salary pages
/// are private.
#[mcp_tool(
    read_only,
    open_world = false,
    results(untrusted),
    when(url matches "/salaries(/|$)") => (results(sensitive)),
)]
#[derive(Debug)]
pub struct Intranet {
    pub url: String,
}

/// One call of a declared tool and what its result must claim (`_meta`
/// under the extension's key), `Value::Null` for none.
pub struct Declared {
    pub tool: &'static str,
    pub arguments: Value,
    pub claims: Value,
}

fn case(tool: &'static str, arguments: Value, claims: Value) -> Declared {
    Declared {
        tool,
        arguments,
        claims,
    }
}

/// Every call the suites make of the declared tools, with its claims.
pub fn declared() -> Vec<Declared> {
    let both = json!({"sensitive": true, "untrusted": true});
    let sensitive = json!({"sensitive": true});
    let untrusted = json!({"untrusted": true});
    vec![
        // Per action.
        case(
            "helpdesk",
            json!({"action": "read_ticket", "id": 1}),
            untrusted.clone(),
        ),
        case(
            "helpdesk",
            json!({"action": "read_customer", "id": 1}),
            both.clone(),
        ),
        case("helpdesk", json!({"action": "count"}), Value::Null),
        // Per rule: the rule that held.
        case(
            "helpdesk",
            json!({"action": "read_attachment", "path": "/hr/alice.pdf"}),
            sensitive.clone(),
        ),
        case(
            "helpdesk",
            json!({"action": "read_attachment", "path": "/uploads/screenshot.png"}),
            untrusted.clone(),
        ),
        case(
            "helpdesk",
            json!({"action": "read_attachment", "path": "/manuals/setup.pdf"}),
            Value::Null,
        ),
        // `..` above the root: neither rule can be decided, so both claim.
        case(
            "helpdesk",
            json!({"action": "read_attachment", "path": "/../hr/alice.pdf"}),
            both.clone(),
        ),
        // The tool's claim on every action, the action's, the rule's.
        case(
            "records",
            json!({"action": "get", "table": "orders"}),
            untrusted.clone(),
        ),
        case(
            "records",
            json!({"action": "export", "table": "orders"}),
            both.clone(),
        ),
        case(
            "records",
            json!({"action": "delete", "table": "payroll"}),
            both.clone(),
        ),
        case(
            "records",
            json!({"action": "delete", "table": "orders"}),
            untrusted.clone(),
        ),
        // A single action: the tool's claim, and the rule's.
        case(
            "intranet",
            json!({"url": "https://intranet.example/news"}),
            untrusted,
        ),
        case(
            "intranet",
            json!({"url": "https://intranet.example/salaries/2026"}),
            both,
        ),
    ]
}
