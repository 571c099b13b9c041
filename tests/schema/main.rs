//! The schema tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/macro/mod.rs"]
mod macro_support;
#[path = "../support/schema/mod.rs"]
mod schema_support;

mod portability;
mod shapes;
