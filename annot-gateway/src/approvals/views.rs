//! What the page shows, rendered by minijinja from the templates in
//! `annot-gateway/templates/`, every value HTML-escaped by the engine: the
//! arguments of a call are untrusted text.

use std::collections::BTreeMap;

use minijinja::{AutoEscape, Environment, context};
use serde::Serialize;
use serde_json::Value;

use crate::approvals::catalog::ToolCard;
use crate::store::{ApprovalRequest, LoggedDecision, rfc3339};

/// The page's stylesheet and script, served beside it (the page's content
/// security policy allows no inline script or style).
pub const STYLESHEET: &str = include_str!("../../templates/approvals.css");
pub const SCRIPT: &str = include_str!("../../templates/approvals.js");

/// The compiled templates.
pub struct Views {
    environment: Environment<'static>,
}

/// One hint badge.
#[derive(Serialize)]
struct Badge {
    label: &'static str,
    /// Its class in the stylesheet: how alarming it is.
    kind: &'static str,
}

/// A pending call as the page shows it.
#[derive(Serialize)]
struct PendingCall<'a> {
    id: &'a str,
    tool: &'a str,
    upstream: &'a str,
    preview: String,
    arguments: String,
    badges: Vec<Badge>,
    source: &'a str,
    reason: &'a str,
    caller: &'a str,
    refused_at: String,
}

/// A call of the decision log.
#[derive(Serialize)]
struct RecentCall<'a> {
    /// `YYYY-MM-DD HH:MM:SS`, UTC.
    time: String,
    upstream: &'a str,
    tool: &'a str,
    decision: &'a str,
    confirmation: Option<&'a str>,
    outcome: &'a str,
}

/// An upstream's tool cards.
#[derive(Serialize)]
struct Upstream {
    name: String,
    tools: Vec<Card>,
}

#[derive(Serialize)]
struct Card {
    name: String,
    description: String,
    badges: Vec<Badge>,
}

/// The hints a badge is shown for, when true: the label and the class.
const BADGES: [(&str, &str, &str); 5] = [
    ("readOnlyHint", "read-only", "calm"),
    ("destructiveHint", "destructive", "danger"),
    ("idempotentHint", "idempotent", "calm"),
    ("openWorldHint", "open world", "notice"),
    ("sensitiveDataHint", "sensitive data", "notice"),
];

/// The badges of resolved annotations (wire names, defaults applied): one
/// per true hint, and `writes` for a call that is not read-only. A
/// read-only call is never destructive, whatever its default says.
fn badges(annotations: &Value) -> Vec<Badge> {
    let hint = |name: &str| annotations.get(name).and_then(Value::as_bool);
    let read_only = hint("readOnlyHint") == Some(true);
    let writes = (!read_only).then_some(Badge {
        label: "writes",
        kind: "notice",
    });
    writes
        .into_iter()
        .chain(
            BADGES
                .iter()
                .filter(|(name, ..)| hint(name) == Some(true))
                .filter(|(name, ..)| !(read_only && *name == "destructiveHint"))
                .map(|(_, label, kind)| Badge { label, kind }),
        )
        .collect()
}

/// `HH:MM:SS UTC` of milliseconds since the epoch.
fn clock(ms: i64) -> String {
    let seconds = ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{:02}:{:02}:{:02} UTC",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

impl Views {
    pub fn new() -> Views {
        let mut environment = Environment::new();
        // Every template is HTML, whatever its name.
        environment.set_auto_escape_callback(|_| AutoEscape::Html);
        for (name, source) in [
            ("layout.html", include_str!("../../templates/layout.html")),
            ("sign_in.html", include_str!("../../templates/sign_in.html")),
            (
                "approvals.html",
                include_str!("../../templates/approvals.html"),
            ),
            ("pending.html", include_str!("../../templates/pending.html")),
        ] {
            environment
                .add_template(name, source)
                .expect("the page's templates compile");
        }
        Views { environment }
    }

    /// The sign-in form, with an error when a sign-in failed.
    pub fn sign_in(&self, error: Option<&str>, scope: &str) -> String {
        self.render("sign_in.html", context! { error, scope })
    }

    /// The pending calls alone (what the page's script refreshes).
    pub fn pending(&self, pending: &[ApprovalRequest], csrf: &str) -> String {
        let calls = pending_calls(pending);
        self.render("pending.html", context! { calls, csrf })
    }

    /// The whole page.
    pub fn page(
        &self,
        approver: &str,
        csrf: &str,
        pending: &[ApprovalRequest],
        catalog: BTreeMap<String, Vec<ToolCard>>,
        recent: &[LoggedDecision],
        notice: Option<&str>,
    ) -> String {
        let calls = pending_calls(pending);
        let upstreams: Vec<Upstream> = catalog
            .into_iter()
            .map(|(name, cards)| Upstream {
                name,
                tools: cards
                    .into_iter()
                    .map(|card| Card {
                        badges: badges(&card.annotations),
                        name: card.name,
                        description: card.description,
                    })
                    .collect(),
            })
            .collect();
        let recent: Vec<RecentCall> = recent
            .iter()
            .map(|call| RecentCall {
                time: rfc3339(call.time_ms)
                    .replace('T', " ")
                    .chars()
                    .take(19)
                    .collect(),
                upstream: &call.upstream,
                tool: &call.called_as,
                decision: &call.decision,
                confirmation: call.confirmation.as_deref(),
                outcome: &call.outcome,
            })
            .collect();
        self.render(
            "approvals.html",
            context! { approver, csrf, calls, upstreams, recent, notice },
        )
    }

    fn render(&self, name: &str, context: minijinja::Value) -> String {
        self.environment
            .get_template(name)
            .and_then(|template| template.render(context))
            .unwrap_or_else(|error| {
                tracing::error!("the approvals page's template {name} failed: {error}");
                "<!doctype html><title>annot-gateway</title><p>The page could not be rendered."
                    .to_owned()
            })
    }
}

fn pending_calls(pending: &[ApprovalRequest]) -> Vec<PendingCall<'_>> {
    pending
        .iter()
        .map(|request| PendingCall {
            id: &request.id,
            tool: &request.tool,
            upstream: &request.upstream,
            preview: request.preview.clone(),
            arguments: serde_json::to_string_pretty(&request.arguments)
                .unwrap_or_else(|_| request.arguments.to_string()),
            badges: badges(&request.annotations),
            source: &request.source,
            reason: &request.reason,
            caller: &request.risk_key,
            refused_at: clock(request.deadline_ms),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn markup_in_arguments_is_escaped() {
        let request = ApprovalRequest {
            id: "abc".into(),
            tool: "notes".into(),
            arguments: json!({"text": "<script>alert(1)</script>"}),
            preview: "<img src=x onerror=alert(1)>".into(),
            annotations: json!({"readOnlyHint": false, "destructiveHint": true}),
            ..ApprovalRequest::default()
        };
        let html = Views::new().pending(&[request], "token\"><b>");
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img src=x"), "{html}");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(!html.contains("token\"><b>"), "{html}");
        assert!(html.contains("badge danger\">destructive"), "{html}");
    }

    #[test]
    fn a_read_only_call_shows_no_destructive_badge() {
        let shown = badges(&json!({"readOnlyHint": true, "destructiveHint": true,
                                    "openWorldHint": false}));
        let labels: Vec<&str> = shown.iter().map(|badge| badge.label).collect();
        assert_eq!(labels, ["read-only"]);
    }

    #[test]
    fn clock_reads_utc() {
        assert_eq!(clock(0), "00:00:00 UTC");
        assert_eq!(clock(((13 * 60 + 5) * 60 + 9) * 1000 + 999), "13:05:09 UTC");
    }
}
