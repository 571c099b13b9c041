//! Compile errors of `#[mcp_tool]` and `#[mcp_actions]`, each a file under
//! `tests/ui/` with its expected `.stderr`. The shapes that must compile are
//! ordinary tests (`tests/macros/shapes/` of the `annot` package): with no case
//! to run, trybuild only checks, and builds no dependency's code.
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test -p annot-ui-tests`
//! and read the diff: they are pinned to the toolchain.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    if cfg!(feature = "schemars") {
        // `needs_schemars` tells the user to enable the feature: with it on, the
        // message differs. Every other case runs.
        let mut files: Vec<_> = std::fs::read_dir("tests/ui")
            .expect("tests/ui exists")
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
            .filter(|path| !path.ends_with("needs_schemars.rs"))
            .collect();
        files.sort();
        for file in files {
            cases.compile_fail(file);
        }
    } else {
        cases.compile_fail("tests/ui/*.rs");
    }
}
