//! The macros tests: one test binary, a module per suite.

// Suites include the same example tools, a suite named after one of them
// under that name.
#![allow(clippy::duplicate_mod, clippy::module_inception)]

#[path = "../support/examples/mod.rs"]
mod examples_support;
#[path = "../support/macro/mod.rs"]
mod macro_support;
#[path = "../support/server/mod.rs"]
mod server_support;

mod examples;
mod features;
mod http_api;
mod manage_files;
mod shapes;
mod single_action;
mod types;
