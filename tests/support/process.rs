//! What suites that run processes share: the example binaries, built first,
//! and temporary directories. Included by the support modules that need it
//! (`robust`, `rmcp`, `guard`), so each job has one helper.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `target/<profile>/examples/<name>`, built first so a test never runs a
/// stale binary (a no-op right after `cargo test` built the examples).
pub fn example_binary(name: &str) -> PathBuf {
    let test_binary = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/<test binary>
    let profile_dir = test_binary
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binary lives in target/<profile>/deps");
    let profile = profile_dir
        .file_name()
        .and_then(|name| name.to_str())
        .expect("profile");
    let profile_flag = match profile {
        "debug" => "--profile=dev".to_owned(),
        other => format!("--profile={other}"),
    };
    let status = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--example", name, &profile_flag])
        .env(
            "CARGO_TARGET_DIR",
            profile_dir.parent().expect("target directory"),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build --example {name} failed");
    let binary = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(binary.exists(), "{} missing", binary.display());
    binary
}

/// A fresh directory under the system's temporary directory, removed when
/// dropped. The process id and a counter keep the suites of one test binary,
/// which run in one process, apart.
pub struct TempDir {
    pub path: PathBuf,
}

impl TempDir {
    pub fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "annot-test-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir { path }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
