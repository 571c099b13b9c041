//! The code tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/robust/mod.rs"]
mod robust_support;
#[path = "support/mod.rs"]
mod source_support;

mod docs_pages;
mod module_layers;
mod public_api;
mod tour;
