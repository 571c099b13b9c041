//! The fuzz targets' committed inputs, replayed through the public API by
//! `cargo test`: the seed corpus under `fuzz/seeds/<target>/` and every input a
//! fuzzer found to crash, kept under `fuzz/regressions/<target>/`. The fuzz
//! targets themselves (`fuzz/`) check more, but need `cargo fuzz`.

mod robust_support;

use std::path::{Path, PathBuf};

use annot::AnnotatedTool;
use annot::protocol::Dialect;
use robust_support::{example_server, github_api, http_api, manage_files, parse_response, sql};

/// Every file of `fuzz/seeds/<target>/` and `fuzz/regressions/<target>/`.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut inputs = Vec::new();
    for kind in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(kind).join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            let bytes = std::fs::read(&path).expect("a readable input");
            inputs.push((path, bytes));
        }
    }
    inputs.sort();
    inputs
}

#[test]
fn server_inputs_get_valid_answers_and_the_session_goes_on() {
    let server = example_server(&Dialect::ALL);
    let inputs = inputs("server_bytes");
    assert!(inputs.len() >= 3, "the server_bytes seeds are there");
    for (path, bytes) in inputs {
        let mut connection = server.connect();
        for message in bytes.split(|byte| *byte == b'\n') {
            if let Some(response) = connection.handle(message) {
                parse_response(&response);
            }
        }
        let ping = connection.handle(br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#);
        assert_eq!(
            ping.as_deref(),
            Some(&br#"{"jsonrpc":"2.0","id":0,"result":{}}"#[..]),
            "{}",
            path.display()
        );
    }
}

fn replay_tool<T: AnnotatedTool>(target: &str) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "{target} has seeds");
    let mut accepted = 0;
    for (path, bytes) in inputs {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if let Ok(tool) = T::from_arguments_str(text) {
            accepted += 1;
            if let Err(violation) = tool.resolve().check_within(&T::STATIC_ANNOTATIONS) {
                panic!("{}: outside the static bound: {violation}", path.display());
            }
        }
    }
    assert!(accepted > 0, "{target}: some seeds are valid arguments");
}

#[test]
fn tool_inputs_parse_or_fail_cleanly_and_stay_within_the_bound() {
    replay_tool::<manage_files::ManageFiles>("tool_json_manage_files");
    replay_tool::<http_api::HttpApi>("tool_json_http_api");
    replay_tool::<github_api::GithubApi>("tool_json_github_api");
    replay_tool::<sql::Sql>("tool_json_sql");
}
