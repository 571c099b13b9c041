//! A closed-world lie is caught whatever starts the server: a version
//! manager's shim that execs the interpreter, a `#!/usr/bin/env` script, a
//! server that serves from a forked child, `npx -y`, `uvx` and `uv run`; and
//! the honest twin passes through each. The servers are
//! annot-audit/fixtures/launchers/ (the standard libraries of Python and
//! Node only). npx, uvx and uv are the real ones when installed; without
//! them a small wrapper stands in with the same process tree (a parent that
//! stays and runs the server as its child).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::audit;

/// One exercised call: the lie is seen, then reproduced three times.
const OPTIONS: [&str; 6] = [
    "--exercise",
    "--calls",
    "1",
    "--resolutions",
    "10",
    "--fail-on-violation",
];

fn launchers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/launchers")
}

fn closed_world_py() -> String {
    launchers()
        .join("closed_world.py")
        .to_string_lossy()
        .into_owned()
}

/// The interpreter behind `python3`, wherever a version manager keeps it.
fn real_python() -> String {
    let output = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    String::from_utf8(output.stdout)
        .expect("a path")
        .trim()
        .to_owned()
}

fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// An executable shell script `name` in `directory`.
fn script(directory: &Path, name: &str, body: &str) -> String {
    let path = directory.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("the script is written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path.to_string_lossy().into_owned()
}

/// The lie (`server`) is a closed-world VIOLATION with exit 1; the honest
/// twin (`server` and `--honest`) passes closed_world with exit 0.
fn caught_through(launcher: &str, server: &[&str]) {
    let lie = audit(&OPTIONS, server, &[]);
    assert_eq!(
        lie.checks_with("VIOLATION"),
        ["behaviour.closed_world"],
        "{launcher}: {}{}",
        lie.stdout,
        lie.stderr
    );
    assert_eq!(lie.status, 1, "{launcher}");
    let honest: Vec<&str> = server.iter().copied().chain(["--honest"]).collect();
    let twin = audit(&OPTIONS, &honest, &[]);
    assert_eq!(twin.status, 0, "{launcher} (honest): {}", twin.stdout);
    assert!(
        twin.checks_with("PASS")
            .contains(&"behaviour.closed_world".to_owned())
            && twin.checks_with("INCONCLUSIVE").is_empty(),
        "{launcher} (honest): {}",
        twin.stdout
    );
}

#[test]
fn through_a_version_managers_shim() {
    let bin = tempfile::tempdir().expect("a directory");
    // What pyenv's and asdf's shims come down to: a script that execs.
    let shim = script(
        bin.path(),
        "python3",
        &format!("exec '{}' \"$@\"", real_python()),
    );
    caught_through("shim", &[&shim, &closed_world_py()]);
}

#[test]
fn through_a_usr_bin_env_script() {
    caught_through("#!/usr/bin/env python3", &[&closed_world_py()]);
}

#[test]
fn through_a_server_that_forks_its_child() {
    caught_through("forked child", &["python3", &closed_world_py(), "--fork"]);
}

#[test]
fn through_npx() {
    let package = launchers().join("npm").to_string_lossy().into_owned();
    if installed("npx") {
        caught_through("npx -y", &["npx", "-y", &package]);
    } else {
        let bin = tempfile::tempdir().expect("a directory");
        let npx = script(
            bin.path(),
            "npx",
            "shift; package=$1; shift; node \"$package/server.js\" \"$@\"",
        );
        caught_through("npx stand-in", &[&npx, "-y", &package]);
    }
}

#[test]
fn through_uvx() {
    let wheels = tempfile::tempdir().expect("a directory");
    let made = Command::new("python3")
        .arg(launchers().join("wheel.py"))
        .arg(wheels.path())
        .output()
        .expect("wheel.py runs");
    assert!(made.status.success(), "{made:?}");
    let wheel = String::from_utf8(made.stdout)
        .expect("a path")
        .trim()
        .to_owned();
    if installed("uvx") {
        caught_through(
            "uvx",
            &["uvx", "--offline", "--from", &wheel, "closed-world-server"],
        );
    } else {
        let bin = tempfile::tempdir().expect("a directory");
        let uvx = script(
            bin.path(),
            "uvx",
            &format!("'{}' '{}' \"$@\"", real_python(), closed_world_py()),
        );
        caught_through("uvx stand-in", &[&uvx]);
    }
}

#[test]
fn through_uv_run() {
    if installed("uv") {
        caught_through(
            "uv run",
            &["uv", "run", "--no-project", "--offline", &closed_world_py()],
        );
    } else {
        let bin = tempfile::tempdir().expect("a directory");
        let uv = script(
            bin.path(),
            "uv",
            &format!("shift 2; '{}' \"$@\"", real_python()),
        );
        caught_through(
            "uv stand-in",
            &[&uv, "run", "--no-project", &closed_world_py()],
        );
    }
}
