//! What readers of the docs see, to search: the README, the pages of
//! `docs/`, and the doc comments of every crate.

use std::path::{Path, PathBuf};

use super::{read, root};

/// Every file under `folder` whose name ends with `extension`.
fn files_under(folder: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == extension) {
                files.push(path);
            }
        }
    }
    files
}

/// What readers see: the README, `docs/`, and the doc comments of every crate.
pub fn documentation() -> Vec<(PathBuf, Vec<String>)> {
    let mut texts = Vec::new();
    let mut pages = files_under(&root().join("docs"), "md");
    pages.push(root().join("README.md"));
    for page in pages {
        let lines = read(&page).lines().map(str::to_owned).collect();
        texts.push((page, lines));
    }
    let crates = [
        "src",
        "annot-macros/src",
        "annot-model/src",
        "annot-runtime/src",
    ];
    for source in crates
        .iter()
        .flat_map(|folder| files_under(&root().join(folder), "rs"))
    {
        let lines = read(&source)
            .lines()
            .filter(|line| {
                let line = line.trim_start();
                line.starts_with("///") || line.starts_with("//!")
            })
            .map(str::to_owned)
            .collect();
        texts.push((source, lines));
    }
    texts
}
