//! Shared by the rmcp integration tests: the example server binary and an rmcp
//! client that resolves every action of `manage_files` and checks the answers.

#![allow(dead_code)] // each test crate uses part of it

pub mod client;
pub mod expected;
pub mod fixtures;
#[path = "../../../examples/tools/manage_files.rs"]
pub mod manage_files;
#[path = "../../../fuzz/src/reference.rs"]
pub mod reference;

use std::path::PathBuf;

use serde_json::{Value, json};

/// The official schema files the tests validate against.
pub const MCP_SCHEMA: &str = "mcp-2025-11-25.schema.json";
/// The tool-resolution extension's schema (dialect C).
pub const TOOL_RESOLUTION_SCHEMA: &str = "tool-resolution.schema.json";

/// Asserts that `value` is a valid `definition` of the schema in
/// `tests/schemas/<file>`.
pub fn assert_valid(file: &str, definition: &str, value: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schemas")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("schema file");
    let document: Value = serde_json::from_str(&text).expect("schema is JSON");
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": document["$defs"],
        "$ref": format!("#/$defs/{definition}"),
    });
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid {definition}: {errors:?}\n{value}"
    );
}

/// `target/<profile>/examples/rmcp_server`, built first so a test never runs a
/// stale binary (a no-op when `cargo test` has just built the examples).
pub fn example_binary() -> PathBuf {
    example("rmcp_server")
}

#[path = "../process.rs"]
mod process;
/// `target/<profile>/examples/<name>`, built first.
#[allow(unused_imports)]
pub use process::example_binary as example;

/// A fresh sandbox directory, removed on drop.
#[allow(unused_imports)]
pub use process::TempDir as Sandbox;
