//! The server tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

#[path = "../support/examples/mod.rs"]
mod examples_support;
#[path = "../support/robust/mod.rs"]
mod robust_support;
#[path = "../support/schema/mod.rs"]
mod schema_support;
#[path = "../support/server/mod.rs"]
mod server_support;
#[path = "../support/trust/mod.rs"]
mod trust_support;

mod bound_tables;
mod call_members;
mod concurrency;
mod display_templates;
mod exposure;
mod extension;
mod macros;
mod modern;
mod negotiation;
mod output;
mod profiles;
mod profiles_exact;
mod profiles_properties;
mod profiles_schemas;
mod profiles_stdio;
mod protocol;
mod repeats;
mod resolve;
mod stdio;
mod tools;
mod trust;
