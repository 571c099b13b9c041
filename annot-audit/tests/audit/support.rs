//! Runs the real `annot-audit` binary and reads its JSON report: the one
//! helper every suite of this crate uses.

#![allow(dead_code)]

use std::process::Command;

use serde_json::Value;

pub const AUDITOR: &str = env!("CARGO_BIN_EXE_annot-audit");
pub const FIXTURE: &str = env!("CARGO_BIN_EXE_annot-audit-fixture");

/// What one audit gave.
pub struct Audit {
    pub status: i32,
    pub report: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Audit {
    /// `(check, subject, verdict)` of every finding.
    pub fn verdicts(&self) -> Vec<(String, String, String)> {
        self.report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| {
                (
                    f["check"].as_str().unwrap_or_default().to_owned(),
                    f["subject"].as_str().unwrap_or_default().to_owned(),
                    f["verdict"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// The checks that gave `verdict`, each once, sorted.
    pub fn checks_with(&self, verdict: &str) -> Vec<String> {
        let mut checks: Vec<String> = self
            .verdicts()
            .into_iter()
            .filter(|(_, _, v)| v == verdict)
            .map(|(check, _, _)| check)
            .collect();
        checks.sort();
        checks.dedup();
        checks
    }

    pub fn findings(&self) -> &Vec<Value> {
        self.report["findings"].as_array().expect("findings")
    }
}

/// Runs the auditor with `options`, then `--`, then `server`.
pub fn audit(options: &[&str], server: &[&str], env: &[(&str, &str)]) -> Audit {
    let report = tempfile::NamedTempFile::new().expect("a temp file");
    let mut command = Command::new(AUDITOR);
    command.args(options).arg("--json").arg(report.path());
    if !server.is_empty() {
        command.arg("--").args(server);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("annot-audit runs");
    let text = std::fs::read_to_string(report.path()).unwrap_or_default();
    Audit {
        status: output.status.code().unwrap_or(-1),
        report: serde_json::from_str(&text).unwrap_or(Value::Null),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// An example server of the `annot` package, built first.
pub fn example(name: &str) -> String {
    annot_test_support::example_binary(name)
        .to_string_lossy()
        .into_owned()
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a port")
}
