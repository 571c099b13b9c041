//! The rules tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/examples/mod.rs"]
mod examples_support;
#[path = "../support/macro/mod.rs"]
mod macro_support;
#[path = "../support/robust/mod.rs"]
mod robust_support;
#[path = "support/mod.rs"]
mod rules_support;
#[path = "../support/server/mod.rs"]
mod server_support;
mod sql_support;

mod arguments;
mod dfa;
mod examples;
mod github_server;
mod http;
mod properties;
mod semantics;
mod soundness;
mod sql_redteam;
mod text;
mod text_properties;
