//! The code tests: one test binary, a module per suite.

// Suites include the same example tools, a suite named after one of them
// under that name.
#![allow(clippy::duplicate_mod, clippy::module_inception)]

#[path = "../support/robust/mod.rs"]
mod robust_support;
#[path = "support/mod.rs"]
mod source_support;

mod docs_pages;
mod module_layers;
mod public_api;
mod tour;
