//! An HTTP tool in the annotated-struct shape: the `method` field, an
//! `#[mcp_actions]` enum, selects the action, beside ordinary fields. The hints
//! per method follow seed 002: GET, HEAD and OPTIONS are read-only; PUT and
//! DELETE are idempotent, DELETE destructive; POST and PATCH are neither.

use std::collections::BTreeMap;

use annot::{mcp_actions, mcp_tool};

/// The HTTP method of the request.
#[mcp_actions]
#[serde(rename_all = "UPPERCASE")]
#[derive(Debug, PartialEq, Eq)]
pub enum HttpMethod {
    /// Fetch a resource.
    #[annotate(read_only)]
    Get,
    /// Fetch a resource's headers only.
    #[annotate(read_only)]
    Head,
    /// Ask which methods a resource allows.
    #[annotate(read_only)]
    Options,
    /// Create a resource or trigger a process.
    #[annotate(destructive = false, idempotent = false)]
    Post,
    /// Create or replace a resource.
    #[annotate(destructive, idempotent)]
    Put,
    /// Change part of a resource.
    #[annotate(destructive, idempotent = false)]
    Patch,
    /// Remove a resource.
    #[annotate(destructive, idempotent, reversible = false)]
    Delete,
}

/// Send an HTTP request to the configured API.
#[mcp_tool(
    name = "http_request",
    discriminator = "method",
    open_world = true,
    display = "{method} {path}"
)]
#[derive(Debug, PartialEq)]
pub struct HttpApi {
    pub method: HttpMethod,
    /// Path of the resource, below the API's base URL.
    pub path: String,
    /// Extra request headers.
    pub headers: Option<BTreeMap<String, String>>,
    /// Request body, sent as is.
    pub body: Option<String>,
    /// Seconds to wait for an answer.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u16,
}

fn default_timeout() -> u16 {
    30
}
