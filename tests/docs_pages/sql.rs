//! No rule in the docs judges SQL with a regex: `SELECT 1; DROP TABLE t`
//! starts with `SELECT`. Examples show `is sql(...)` (docs/sql.md); a regex
//! rule whose pattern names SQL keywords, in the README, a page of `docs/`
//! or a doc comment of a crate, is the example a reader would copy.

use std::path::{Path, PathBuf};

use regex::Regex;

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
fn documentation() -> Vec<(PathBuf, Vec<String>)> {
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

/// A `matches` (or `path_matches`...) rule whose pattern names a SQL keyword.
fn keyword_rule() -> Regex {
    Regex::new(r#"(?i)\bmatches\s+r?#*"[^"]*\b(select|insert|explain|drop|truncate|alter|grant)\b"#)
        .unwrap()
}

#[test]
fn no_documented_rule_classifies_sql_with_a_regex() {
    let keyword_rule = keyword_rule();
    let mut found = Vec::new();
    for (path, lines) in documentation() {
        for line in lines.iter().filter(|line| keyword_rule.is_match(line)) {
            let path = path.strip_prefix(root()).unwrap_or(&path);
            found.push(format!("{}: {}", path.display(), line.trim()));
        }
    }
    assert!(
        found.is_empty(),
        "SQL judged by a regex (use `is sql(...)`, docs/sql.md): {found:#?}"
    );
}

#[test]
fn the_check_sees_the_rule_it_forbids() {
    let rule = r#"///     when(sql matches r"(?i)^\s*(select|show|explain)\b") => (read_only),"#;
    let keyword_rule = keyword_rule();
    assert!(keyword_rule.is_match(rule));
    assert!(!keyword_rule.is_match(r#"when(path path_matches "^/etc/") => (sensitive_data)"#));
}
