//! The client tests: one test binary, a module per suite.

// Suites include the same example tools, a suite named after one of them
// under that name.
#![allow(clippy::duplicate_mod, clippy::module_inception)]

#[path = "../support/client/mod.rs"]
mod client_support;

mod display;
mod fallback;
mod flow;
mod manage_files;
mod meta;
mod policy;
mod preflight;
mod properties;
mod protocol;
mod server;
mod server_eras;
mod session;
mod silence;
