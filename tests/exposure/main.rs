//! The exposure tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/rmcp/mod.rs"]
mod rmcp_support;
#[path = "../support/robust/mod.rs"]
mod robust_support;
#[path = "../support/server/mod.rs"]
mod server_support;

mod examples;
mod hosts;
mod names;
