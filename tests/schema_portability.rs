//! Every tool schema `#[mcp_tool]` emits, for the example tools and the tools
//! below, run through MCP Inspector's portability lint and through each model
//! API's documented subset (`tests/schema_support/`).

mod schema_support;

#[path = "../examples/tools/github_api.rs"]
mod github_api;
#[path = "../examples/tools/http_api.rs"]
mod http_api;
#[path = "../examples/tools/manage_files.rs"]
mod manage_files;
#[path = "../examples/tools/sql.rs"]
mod sql;

use std::collections::{BTreeMap, HashMap};

use annot::{AnnotatedTool, mcp_tool};
use schema_support::inspector::{Severity, lint};
use schema_support::{failed_subsets, pointers, providers};
use serde_json::{Value, json};

/// Every field type annot maps by itself, and one field two actions type
/// differently.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
#[derive(Debug)]
pub enum Mixed {
    /// Look something up.
    #[annotate(read_only)]
    Find {
        /// What to look for.
        target: String,
        limit: Option<u16>,
        tags: Vec<String>,
    },
    /// Store values.
    #[annotate(destructive = false)]
    Store {
        /// The slot number.
        target: u32,
        values: HashMap<String, i64>,
        extra: Option<serde_json::Value>,
        flags: BTreeMap<String, Option<bool>>,
    },
    #[annotate(destructive, idempotent)]
    Mark { letter: char, weight: f64 },
    #[annotate(read_only)]
    Ping,
}

/// The same tool, its schema exact.
#[mcp_tool(open_world = false, schema = "exact")]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
#[derive(Debug)]
pub enum MixedExact {
    /// Look something up.
    #[annotate(read_only)]
    Find {
        /// What to look for.
        target: String,
        limit: Option<u16>,
        tags: Vec<String>,
    },
    /// Store values.
    #[annotate(destructive = false)]
    Store {
        /// The slot number.
        target: u32,
        values: HashMap<String, i64>,
        extra: Option<serde_json::Value>,
        flags: BTreeMap<String, Option<bool>>,
    },
    #[annotate(destructive, idempotent)]
    Mark { letter: char, weight: f64 },
    #[annotate(read_only)]
    Ping,
}

/// One action: the flat object is exact.
#[mcp_tool(read_only, open_world = false)]
#[allow(dead_code)]
pub enum Lookup {
    Get { key: String, default: Option<String> },
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("the schema is JSON")
}

/// The advertised and the exact schema of a tool.
fn schemas<T: AnnotatedTool>() -> [(String, Value); 2] {
    [
        (format!("{} (advertised)", T::NAME), parse(T::input_schema())),
        (format!("{} (exact)", T::NAME), parse(T::exact_input_schema())),
    ]
}

fn every_schema() -> Vec<(String, Value)> {
    let mut all = Vec::new();
    all.extend(schemas::<manage_files::ManageFiles>());
    all.extend(schemas::<http_api::HttpApi>());
    all.extend(schemas::<github_api::GithubApi>());
    all.extend(schemas::<sql::Sql>());
    all.extend(schemas::<Mixed>());
    all.extend(schemas::<MixedExact>());
    all.extend(schemas::<Lookup>());
    all
}

#[test]
fn inspector_lint_finds_nothing_in_any_shape() {
    for (name, schema) in every_schema() {
        let findings = lint(&schema);
        assert!(findings.is_empty(), "{name}: {findings:?}");
    }
}

/// Which subsets each schema leaves: literal, derived by hand from the shapes
/// (see the README's portability table).
#[test]
fn each_schema_fits_the_subsets_the_readme_says() {
    let expected: &[(&str, &[&str])] = &[
        // Only strings: closed, but optional-by-action fields are not all
        // required (OpenAI strict), and `additionalProperties` is no Gemini
        // `parameters` field.
        ("manage_files (advertised)", &["openai-strict", "gemini"]),
        (
            "manage_files (exact)",
            &[
                "openai-strict",
                "anthropic-strict",
                "gemini",
                "gemini-json",
                "openapi-3.0",
            ],
        ),
    ];
    let all = every_schema();
    for (name, subsets) in expected {
        let (_, schema) = all
            .iter()
            .find(|(known, _)| known == name)
            .unwrap_or_else(|| panic!("no schema {name}"));
        assert_eq!(&failed_subsets(schema), subsets, "{name}: {schema}");
    }
}

#[test]
fn print_all() {
    for (name, schema) in every_schema() {
        println!("{name}: {:?}\n{schema}\n", failed_subsets(&schema));
    }
}
