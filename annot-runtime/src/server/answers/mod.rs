//! The answers of the `tools/*` methods, and what they are made of.
//!
//! - `tools/list`: `list_pages` (the pages, rendered once, and the answer)
//!   of the forms a tool takes (`tool_forms`).
//! - `tools/call`: `call` (the answer), `call_context` (the [`Call`] a
//!   handler gets), `tool_output` (what a handler returns, written as a
//!   `CallToolResult`), `trust_claims` (the trust-annotations extension on
//!   results) and `output_schema` (a declared `outputSchema`, held to).
//! - `tools/resolve` and `tools/annotations`: `resolution` (the one answer,
//!   whatever read the request), `resolution_meta` (what a result's `_meta`
//!   carries), `annotation_json` (annotations rendered once, looked up per
//!   request) and, for the rmcp adapter, `resolution_tree`.
//! - `profile`: the [`Profile`] every call and resolution is checked against.
//!
//! [`Call`]: crate::server::Call
//! [`Profile`]: crate::server::Profile

pub(crate) mod annotation_json;
pub(crate) mod call;
pub(crate) mod call_context;
pub(crate) mod list_pages;
pub(crate) mod output_schema;
pub(crate) mod profile;
pub(crate) mod resolution;
pub(crate) mod resolution_meta;
#[cfg(feature = "rmcp")]
pub(crate) mod resolution_tree;
pub(crate) mod tool_forms;
pub(crate) mod tool_output;
pub(crate) mod trust_claims;
