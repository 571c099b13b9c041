//! What suites that run processes share: the example binaries, built first,
//! and temporary directories. Included by the support modules that need it
//! (`robust`, `rmcp`, `guard`), so each job has one helper.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `target/<profile>/examples/<name>`, built first (shared by every crate's
/// tests).
#[allow(unused_imports)]
pub use annot_test_support::example_binary;

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
