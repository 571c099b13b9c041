//! What the property tests of the example tools' rules share: the number of
//! generated calls, the check that a run exercised its rules, and the file
//! paths `manage_files`' rules are tested on.

use proptest::prelude::*;

/// Generated calls per tool.
pub const CASES: u32 = 512;

/// Fails unless at least a tenth of the calls fired a rule and a tenth fired
/// none: a property that never reaches a rule tests nothing of it.
pub fn assert_rules_hit(tool: &str, (fired, quiet): (u32, u32)) {
    assert!(
        fired >= CASES / 10,
        "{tool}: only {fired} calls fired a rule"
    );
    assert!(quiet >= CASES / 10, "{tool}: only {quiet} calls fired none");
}

/// Path segments: short words, sometimes with a dot.
pub fn segment() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9._-]{0,7}"
}

/// File paths around the system directories `manage_files`' rule names:
/// inside them, beside them (`/etcetera/`, `/rooted/`), and reaching them
/// only after normalisation (`/tmp/../../`, `/usr/./lib/`).
pub fn file_path() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec![
        "/etc/",
        "/root/",
        "/sys/",
        "/proc/",
        "/var/",
        "/usr/",
        "/tmp/",
        "/home/ann/",
        "scratch/",
        "./",
        "",
        "/etcetera/",
        "/rooted/",
        "/tmp/../../",
        "/usr/./lib/",
    ]);
    (prefix, prop::collection::vec(segment(), 0..3))
        .prop_map(|(prefix, rest)| format!("{prefix}{}", rest.join("/")))
}
