//! The shape of the README and of `docs/`: a README a newcomer can read (at
//! most 300 lines, no line wider than 120 columns outside code and tables),
//! every page of `docs/` in the list of doctested pages (`src/docs.rs`), and
//! no code block left out of the tests with `ignore`. What the docs say that
//! the code can produce is checked against it: the performance figures
//! against `benches/report.sh` (`performance`), the recorded exchanges of
//! `docs/serving.md` against the running server (`exchanges`), the README's
//! exposure counts against `docs/exposure.md` (which `tests/exposure/hosts.rs`
//! counts from the server). And the docs show what a user writes: no rule
//! judges SQL with a regex (`sql`), and examples name `annot::`, the crate a
//! user depends on, not the crates behind it.

#[path = "docs_pages/exchanges.rs"]
mod exchanges;
#[path = "docs_pages/performance.rs"]
mod performance;
use crate::robust_support;
#[path = "docs_pages/sources.rs"]
mod sources;
#[path = "docs_pages/sql.rs"]
mod sql;

use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 300;
const PROSE_MAX_COLUMNS: usize = 120;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.md` file under `docs/`, as a path relative to the repository.
fn pages() -> Vec<PathBuf> {
    let mut pages = Vec::new();
    let mut folders = vec![root().join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            // docs/audits/ is written by annot-audit/ecosystem/run.sh: its
            // reports' findings are data, not prose to wrap or doctest.
            if path.ends_with("docs/audits") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                pages.push(path.strip_prefix(root()).unwrap().to_path_buf());
            }
        }
    }
    pages.sort();
    pages
}

/// The lines of a page outside code blocks and tables, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut in_code = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && !line.starts_with('|') {
            lines.push((index + 1, line));
        }
    }
    lines
}

#[test]
fn the_readme_is_short() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(lines <= README_MAX_LINES, "README.md has {lines} lines");
}

#[test]
fn prose_lines_are_readable_without_scrolling() {
    let mut pages = pages();
    pages.push(PathBuf::from("README.md"));
    let mut wide = Vec::new();
    for page in &pages {
        for (number, line) in prose(&read(&root().join(page))) {
            // A link's address cannot be wrapped.
            let url = line.contains("](http");
            if line.chars().count() > PROSE_MAX_COLUMNS && !url {
                wide.push(format!("{}:{number}", page.display()));
            }
        }
    }
    assert!(
        wide.is_empty(),
        "lines over {PROSE_MAX_COLUMNS} columns: {wide:?}"
    );
}

#[test]
fn every_page_is_doctested() {
    let list = read(&root().join("src/docs.rs"));
    let mut missing: Vec<String> = pages()
        .iter()
        .map(|page| page.to_string_lossy().replace('\\', "/"))
        .filter(|page| !list.contains(&format!("\"../{page}\"")))
        .collect();
    if !list.contains("\"../README.md\"") {
        missing.push("README.md".to_owned());
    }
    assert!(
        missing.is_empty(),
        "add these pages to src/docs.rs: {missing:?}"
    );
}

#[test]
fn no_code_block_is_ignored() {
    let mut pages = pages();
    pages.push(PathBuf::from("README.md"));
    let mut ignored = Vec::new();
    for page in &pages {
        for (index, line) in read(&root().join(page)).lines().enumerate() {
            let fence = line.trim_start();
            if fence.starts_with("```") && fence.contains("ignore") {
                ignored.push(format!("{}:{}", page.display(), index + 1));
            }
        }
    }
    assert!(ignored.is_empty(), "`ignore` code blocks: {ignored:?}");
}

#[test]
fn the_readme_quotes_the_exposure_counts_of_docs_exposure() {
    let readme = read(&root().join("README.md"));
    let counted = read(&root().join("docs/exposure.md"));
    let rows: Vec<&str> = readme
        .lines()
        .filter(|line| line.starts_with("| `"))
        .filter(|line| {
            line.split('|')
                .nth(2)
                .is_some_and(|cell| cell.trim().parse::<usize>().is_ok())
        })
        .collect();
    assert!(
        !rows.is_empty(),
        "the README's table of actions a read-only host admits"
    );
    for row in rows {
        assert!(
            counted.lines().any(|line| line == row),
            "docs/exposure.md does not count {row}"
        );
    }
}

#[test]
fn examples_use_the_facades_paths() {
    let behind = ["annot_runtime::", "annot_model::", "annot_macros::"];
    let mut found = Vec::new();
    // annot-model's own docs may name it: not all of it is re-exported.
    let through_the_facade = sources::documentation()
        .into_iter()
        .filter(|(path, _)| !path.starts_with(root().join("annot-model")));
    for (path, lines) in through_the_facade {
        for line in &lines {
            let shown = line
                .trim_start()
                .trim_start_matches("///")
                .trim_start_matches("//!");
            // Hidden lines (`# use annot_runtime as annot;`) are not shown.
            if shown.trim_start().starts_with('#') {
                continue;
            }
            if shown.contains("use ") && behind.iter().any(|name| shown.contains(name)) {
                let path = path.strip_prefix(root()).unwrap_or(&path);
                found.push(format!("{}: {}", path.display(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "examples that name the crates behind annot: {found:#?}"
    );
}
