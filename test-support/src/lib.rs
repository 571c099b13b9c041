//! What the test suites of every crate in the workspace share: one helper per
//! job, not one copy per crate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// `target/<profile>/examples/<name>` of whichever workspace package has the
/// example, built first so a test never runs a stale binary.
///
/// Built with `--workspace`: the features cargo unifies then are those of
/// `cargo test --workspace`, so right after that command this is a no-op. A
/// build for one package (`-p annot`) would resolve other features and build
/// tokio, rmcp and everything above them once more, in the middle of the tests.
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let profile_dir = profile_dir();
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if built.insert(name.to_owned()) {
        build(name, &profile_dir);
    }
    let binary = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(binary.exists(), "{} missing", binary.display());
    binary
}

/// `target/<profile>`: a test binary lives in its `deps/`.
fn profile_dir() -> PathBuf {
    let test_binary = std::env::current_exe().expect("test binary path");
    test_binary
        .parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps")
        .to_owned()
}

fn build(name: &str, profile_dir: &Path) {
    let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
        Some("debug") => "dev",
        Some(other) => other,
        None => panic!("no profile in {}", profile_dir.display()),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "--workspace", "--example", name])
        .arg(format!("--profile={profile}"))
        .env(
            "CARGO_TARGET_DIR",
            profile_dir.parent().expect("target directory"),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "cargo build --workspace --example {name} failed"
    );
}
