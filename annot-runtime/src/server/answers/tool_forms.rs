//! The forms a Tool takes in `tools/list`, one per kind of client, rendered
//! once at start-up.
//!
//! Which markers a client sees follows the tool-resolution extension to the
//! letter: only a tool whose annotations can vary with its arguments is
//! marked, and the extension's marker is listed only for a client that
//! advertised the extension (in `initialize` or on the request). A client that
//! negotiated the extension gets every tool in the extension's
//! `ResolvableTool` shape (no fields beside the core ones), so the markers of
//! dialects A and B are left out for it (it resolves through C, and
//! `tools/annotations` still answers for every tool carrying C's marker) and
//! `securitySchemes` moves to `_meta["dev.annot/authorization"].securitySchemes`.
//!
//! A tool's call preview (`_meta["io.modelcontextprotocol/display-templates"]`)
//! is in every form: the extension asks for no negotiation, and a client that
//! does not know it ignores it.

use crate::Authorization;
use crate::protocol::{
    AUTHORIZATION_EXTENSION, DISPLAY_TEMPLATES_EXTENSION, Dialect, TOOL_RESOLUTION_EXTENSION,
};
use crate::server::negotiation::dialects::DialectSet;

/// The kind of client a listing is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    /// A handshake session that did not negotiate the extension: the markers
    /// of dialects A and B, `securitySchemes` beside them.
    Legacy,
    /// A client that negotiated the extension, by handshake or on the request:
    /// the extension's `ResolvableTool` shape.
    Extension,
    /// A 2026-07-28 request without the extension: dialect A's marker only
    /// (SEP-1862's `tools/resolve` belongs to handshake sessions).
    Modern,
    /// Every enabled marker at once, for the rmcp adapter, which lists one
    /// form for every session.
    All,
}

impl Listing {
    /// Every form, in the order of [`Listing::index`].
    pub const ALL: [Listing; 4] = [
        Listing::Legacy,
        Listing::Extension,
        Listing::Modern,
        Listing::All,
    ];

    pub const fn index(self) -> usize {
        match self {
            Listing::Legacy => 0,
            Listing::Extension => 1,
            Listing::Modern => 2,
            Listing::All => 3,
        }
    }
}

/// What one tool's forms are made of.
pub(crate) struct ToolParts<'a> {
    /// `{"name":...,"inputSchema":...,"annotations":`
    pub head: &'a str,
    /// The static annotations' JSON.
    pub annotations: &'a str,
    pub authorization: Option<Authorization>,
    /// Whether its annotations can vary with its arguments.
    pub resolvable: bool,
    /// Its call preview template, if it has one.
    pub display_template: Option<&'a str>,
}

/// The four forms of one tool, indexed by [`Listing::index`].
pub(crate) fn render(parts: &ToolParts<'_>, dialects: DialectSet) -> [Box<str>; 4] {
    Listing::ALL.map(|listing| render_one(parts, dialects, listing).into_boxed_str())
}

fn render_one(parts: &ToolParts<'_>, dialects: DialectSet, listing: Listing) -> String {
    let mut json = format!("{}{}", parts.head, parts.annotations);
    let marked = |dialect: Dialect| parts.resolvable && dialects.contains(dialect);
    let in_meta = listing == Listing::Extension;
    if !in_meta {
        json.push_str(&security_schemes(parts.authorization));
    }
    if listing != Listing::Extension && marked(Dialect::DynamicAnnotations) {
        json.push_str(",\"dynamicAnnotations\":true");
    }
    if matches!(listing, Listing::Legacy | Listing::All) && marked(Dialect::ResolveTool) {
        json.push_str(",\"resolve\":true");
    }
    let mut meta = Vec::new();
    if matches!(listing, Listing::Extension | Listing::All)
        && marked(Dialect::ToolResolutionExtension)
    {
        meta.push(format!(
            "\"{TOOL_RESOLUTION_EXTENSION}\":{{\"resolvable\":true}}"
        ));
    }
    if let (true, Some(authorization)) = (in_meta, parts.authorization) {
        meta.push(format!(
            "\"{AUTHORIZATION_EXTENSION}\":{{\"securitySchemes\":{}}}",
            schemes_json(authorization)
        ));
    }
    if let Some(template) = parts.display_template {
        meta.push(display_template_meta(template));
    }
    if !meta.is_empty() {
        json.push_str(&format!(",\"_meta\":{{{}}}", meta.join(",")));
    }
    json.push('}');
    json
}

/// `,"securitySchemes":[...]` of a tool that declares authorization, else
/// nothing (what `annotation_json::write_security_schemes` appends).
pub(crate) fn security_schemes(authorization: Option<Authorization>) -> String {
    match authorization {
        Some(authorization) => format!(",\"securitySchemes\":{}", schemes_json(authorization)),
        None => String::new(),
    }
}

fn schemes_json(authorization: Authorization) -> String {
    serde_json::to_string(&authorization).expect("an authorization always serializes")
}

/// `"io.modelcontextprotocol/display-templates":{"template":...}`, a member
/// of a Tool's `_meta`.
fn display_template_meta(template: &str) -> String {
    let template = serde_json::to_string(template).expect("a string always serializes");
    format!("\"{DISPLAY_TEMPLATES_EXTENSION}\":{{\"template\":{template}}}")
}

/// The end of a dialect B result's Tool, after its annotations (and
/// `securitySchemes`): the markers a legacy client sees, the tool's call
/// preview as its listing carries it, and the closing brace. SEP-1862's
/// `{ tool }` is the complete definition, which a client may put in place of
/// the listed one, so it keeps every part of the listing's that does not
/// depend on the arguments.
pub(crate) fn resolved_tool_tail(dialects: DialectSet, display_template: Option<&str>) -> String {
    let mut tail = String::new();
    if dialects.contains(Dialect::DynamicAnnotations) {
        tail.push_str(",\"dynamicAnnotations\":true");
    }
    if dialects.contains(Dialect::ResolveTool) {
        tail.push_str(",\"resolve\":true");
    }
    if let Some(template) = display_template {
        tail.push_str(&format!(
            ",\"_meta\":{{{}}}",
            display_template_meta(template)
        ));
    }
    tail.push('}');
    tail
}
