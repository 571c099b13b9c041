//! The guard tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/examples/mod.rs"]
mod examples_support;
#[path = "support/mod.rs"]
mod guard_support;
#[path = "../support/rmcp/mod.rs"]
mod rmcp_support;
#[path = "../support/robust/mod.rs"]
mod robust_support;

mod call;
mod fs;
mod http;
mod properties;
mod sqlite_file;
