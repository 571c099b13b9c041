//! The example tools a suite covers: the files of `examples/tools/`, so that a
//! new example tool fails every suite that has not been given it.

/// The `.rs` files of `examples/tools/`, sorted.
pub fn example_tool_files() -> Vec<String> {
    let directory = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tools");
    let mut files: Vec<String> = std::fs::read_dir(directory)
        .expect("examples/tools")
        .map(|entry| {
            entry
                .expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".rs"))
        .collect();
    files.sort();
    files
}
