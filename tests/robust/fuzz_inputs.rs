//! The fuzz targets' committed inputs, replayed by `cargo test` through the
//! very checks of the targets (`fuzz/src/lib.rs` compiled in here): the seed
//! corpus under `fuzz/seeds/<target>/` and every input a fuzzer found to
//! crash, kept under `fuzz/regressions/<target>/`. Both folders must exist for
//! every target, so a renamed or forgotten one fails here instead of being
//! skipped.

// `fuzz/src/lib.rs` is compiled in as the fuzz targets see it, with its own
// copies of the example tools (and of the hand-written resolvers), beside
// those of `robust_support`.
#![allow(clippy::duplicate_mod)]

use crate::robust_support;
#[allow(dead_code)] // What only the fuzz targets use.
#[path = "../../fuzz/src/lib.rs"]
mod annot_fuzz;

use std::path::{Path, PathBuf};

use annot::AnnotatedTool;
use annot_fuzz::sequence::{Session, run};
use annot_fuzz::{Verdict, check_server_bytes, check_tool_json};
use robust_support::parse_response;

/// Every fuzz target, as `fuzz/Cargo.toml` lists them.
const TARGETS: [&str; 6] = [
    "server_bytes",
    "server_sequence",
    "tool_json_manage_files",
    "tool_json_http_api",
    "tool_json_github_api",
    "tool_json_sql",
];

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Every file of `fuzz/seeds/<target>/` and `fuzz/regressions/<target>/`
/// (but `.gitkeep`), in a fixed order; panics when a folder is missing.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut inputs = Vec::new();
    for kind in ["seeds", "regressions"] {
        let folder = fuzz_dir().join(kind).join(target);
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|error| panic!("fuzz/{kind}/{target}/ must exist: {error}"));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.file_name().is_some_and(|name| name == ".gitkeep") {
                continue;
            }
            let bytes = std::fs::read(&path).expect("a readable input");
            inputs.push((path, bytes));
        }
    }
    inputs.sort();
    inputs
}

#[test]
fn every_fuzz_target_is_replayed() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut listed: Vec<&str> = manifest
        .lines()
        .filter_map(|line| line.strip_prefix("name = \""))
        .filter_map(|rest| rest.strip_suffix('"'))
        .filter(|name| *name != "annot-fuzz")
        .collect();
    listed.sort_unstable();
    let mut replayed = TARGETS.to_vec();
    replayed.sort_unstable();
    assert_eq!(
        listed, replayed,
        "replay each target of fuzz/Cargo.toml here"
    );
}

#[test]
fn server_bytes_inputs_get_valid_answers_and_the_session_goes_on() {
    let inputs = inputs("server_bytes");
    assert!(inputs.len() >= 4, "the server_bytes seeds are there");
    for (path, bytes) in inputs {
        eprintln!("{}", path.display());
        check_server_bytes(&bytes);
        // The answers are also valid against MCP's own JSON Schema.
        let mut connection = annot_fuzz::server().connect();
        for message in bytes.split(|byte| *byte == b'\n') {
            let Some(response) = connection.handle(message) else {
                continue;
            };
            // A batch's answer (2025-03-26 sessions) is an array of responses.
            if response.first() == Some(&b'[') {
                let answers: Vec<&serde_json::value::RawValue> =
                    serde_json::from_slice(&response).unwrap();
                for answer in answers {
                    parse_response(answer.get().as_bytes());
                }
            } else {
                parse_response(&response);
            }
        }
    }
}

#[test]
fn server_sequence_inputs_keep_the_protocol() {
    let inputs = inputs("server_sequence");
    let mut steps = 0;
    let mut sessions = 0;
    for (path, bytes) in &inputs {
        eprintln!("{}", path.display());
        if let Some(session) = Session::from_bytes(bytes) {
            steps += session.steps.len();
            sessions += 1;
            run(&session);
        }
    }
    assert!(
        sessions >= 5,
        "{sessions} of {} inputs decode",
        inputs.len()
    );
    assert!(steps >= 50, "{steps} steps in all");
}

/// Replays one `tool_json_<tool>` target; the seeds must reach both sides of
/// the schema's verdict.
fn replay_tool<T: AnnotatedTool + std::fmt::Debug>(target: &str) {
    let inputs = inputs(target);
    let (mut accepted, mut refused) = (0, 0);
    for (path, bytes) in inputs {
        eprintln!("{}", path.display());
        match check_tool_json::<T>(&bytes) {
            Verdict::Accepted => accepted += 1,
            Verdict::Refused | Verdict::NotJson => refused += 1,
            Verdict::NotText => {}
        }
    }
    assert!(accepted >= 3, "{target}: {accepted} seeds accepted");
    assert!(refused >= 1, "{target}: {refused} seeds refused");
}

#[test]
fn tool_json_inputs_match_the_schema_and_the_hand_written_resolver() {
    replay_tool::<annot_fuzz::manage_files::ManageFiles>("tool_json_manage_files");
    replay_tool::<annot_fuzz::http_api::HttpApi>("tool_json_http_api");
    replay_tool::<annot_fuzz::github_api::GithubApi>("tool_json_github_api");
    replay_tool::<annot_fuzz::sql::Sql>("tool_json_sql");
}
