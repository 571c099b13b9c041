//! What the guard suites share: a local HTTP server, and sandbox directories
//! with their bytes snapshotted to show a refused effect changed nothing.

#![allow(dead_code)] // Each suite uses a different part.

pub mod http_server;
#[path = "../../support/process.rs"]
mod process;
#[allow(unused_imports)]
pub use process::TempDir;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file and directory under `root`, with the bytes of each file and
/// the target of each symbolic link.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut found = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).expect("readable") {
            let path = entry.expect("an entry").path();
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            let metadata = std::fs::symlink_metadata(&path).unwrap();
            if metadata.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                found.insert(relative, Some(target.into_os_string().into_encoded_bytes()));
            } else if metadata.is_dir() {
                found.insert(relative, None);
                pending.push(path);
            } else {
                found.insert(relative, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    found
}
