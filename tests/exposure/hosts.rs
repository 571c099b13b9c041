//! What per-action exposure changes for hosts that never resolve: a static
//! filter that does what read-only host modes do (Cursor's Ask mode, Claude
//! Code's plan mode, Copilot's PR review: a tool is admitted when its listed
//! `readOnlyHint` is `true`), applied to every example tool's listing,
//! counting the actions a host in such a mode can use, before (one resolvable
//! tool, whose static annotations are its worst case) and after (one tool per
//! action). The expected counts are written by hand from the declarations in
//! `examples/tools/` and `annot::HttpMethod`; the table printed is the one in
//! `docs/exposure.md`.

use crate::robust_support;
use crate::server_support;
use annot::server::{Exposure, Server, ToolOutput};
use robust_support::{github_api, http_api, manage_files, sql};
use serde_json::{Value, json};
use server_support::Client;

/// Per example tool: its name, the actions it has, and the actions a
/// read-only host mode admits per action, by hand.
const EXPECTED: &[(&str, usize, &[&str])] = &[
    // Only `read` is declared `read_only`.
    ("manage_files", 4, &["read"]),
    // The safe methods annot's `HttpMethod` declares read-only.
    ("http_request", 7, &["GET", "HEAD", "OPTIONS"]),
    // The same methods: no rule turns `read_only` off for them.
    ("github_api", 7, &["GET", "HEAD", "OPTIONS"]),
    // `run` is read-only only for a read statement, which only a resolution
    // sees; `explain` is read-only whatever the text.
    ("sql", 2, &["explain"]),
];

fn server(exposure: Exposure) -> Server {
    Server::builder("annot-test", "1.2.3")
        .exposure(exposure)
        .page_size(4)
        .tool(|_: manage_files::ManageFiles| Ok(ToolOutput::text("ran")))
        .tool(|_: http_api::HttpApi| Ok(ToolOutput::text("ran")))
        .tool(|_: github_api::GithubApi| Ok(ToolOutput::text("ran")))
        .tool(|_: sql::Sql| Ok(ToolOutput::text("ran")))
        .build()
        .expect("the example tools build in every mode")
}

/// Every tool a client without tool resolution is listed, all pages.
fn listing(server: &Server) -> Vec<Value> {
    let mut client = Client::initialized(server, json!({}));
    let mut tools = Vec::new();
    let mut params = json!({});
    loop {
        let page = client.result("tools/list", params);
        tools.extend(page["tools"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(cursor) => params = json!({ "cursor": cursor }),
            None => return tools,
        }
    }
}

/// What a read-only host mode does: admit a tool only when its static
/// `readOnlyHint` is `true` (absent means `false`).
fn admitted(tool: &Value) -> bool {
    tool["annotations"]["readOnlyHint"] == true
}

/// The actions of a listed tool: its discriminator's `enum`, or one.
fn actions_of(tool: &Value) -> usize {
    let properties = &tool["inputSchema"]["properties"];
    ["action", "method"]
        .iter()
        .find_map(|field| properties[field]["enum"].as_array())
        .map_or(1, Vec::len)
}

/// Which registered tool a listed one belongs to, and its action if it is
/// a per-action tool.
fn owner(name: &str) -> (&'static str, Option<&str>) {
    for (tool, _, _) in EXPECTED {
        if name == *tool {
            return (tool, None);
        }
        if let Some(action) = name
            .strip_prefix(tool)
            .and_then(|rest| rest.strip_prefix('_'))
        {
            return (tool, Some(action));
        }
    }
    panic!("`{name}` is no example tool's");
}

#[test]
fn read_only_host_modes_reach_the_read_actions_only_per_action() {
    let before = listing(&server(Exposure::Resolvable));
    let after = listing(&server(Exposure::PerAction));
    let mut table = vec![
        "| tool | actions | usable before (resolvable) | usable after (per-action) |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    for (tool, actions, read_only) in EXPECTED {
        let usable_before: usize = before
            .iter()
            .filter(|listed| owner(listed["name"].as_str().unwrap()).0 == *tool)
            .filter(|listed| admitted(listed))
            .map(actions_of)
            .sum();
        let usable_after: Vec<&str> = after
            .iter()
            .filter(|listed| admitted(listed))
            .filter_map(|listed| match owner(listed["name"].as_str().unwrap()) {
                (owner, Some(action)) if owner == *tool => Some(action),
                _ => None,
            })
            .collect();
        let listed_after = after
            .iter()
            .filter(|listed| owner(listed["name"].as_str().unwrap()).0 == *tool)
            .count();
        assert_eq!(listed_after, *actions, "{tool}: one tool per action");
        assert_eq!(usable_before, 0, "{tool}: its worst case is not read-only");
        assert_eq!(usable_after, *read_only, "{tool}");
        table.push(format!(
            "| `{tool}` | {actions} | 0 | {} ({}) |",
            usable_after.len(),
            usable_after
                .iter()
                .map(|action| format!("`{action}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    println!("{}", table.join("\n"));
    let docs = include_str!("../../docs/exposure.md");
    for row in &table[2..] {
        assert!(docs.contains(row.as_str()), "docs/exposure.md lacks {row}");
    }
}
