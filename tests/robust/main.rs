//! The robust tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/examples/mod.rs"]
mod examples_support;
#[path = "../support/robust/mod.rs"]
mod robust_support;

mod bad_input;
mod fuzz_inputs;
mod properties;
mod stdio;
