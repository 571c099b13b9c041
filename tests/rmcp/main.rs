//! The rmcp tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/client/mod.rs"]
mod client_support;
#[path = "../support/rmcp/mod.rs"]
mod rmcp_support;
#[path = "../support/trust/mod.rs"]
mod trust_support;

mod axum;
mod builtin;
mod clash;
mod client;
mod conformance;
mod exposure;
mod listing;
mod output;
mod pins;
mod profiles;
mod resolving;
mod router_schema;
mod transports;
mod trust;
mod wire;
