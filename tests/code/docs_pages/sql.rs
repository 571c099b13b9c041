//! No rule in the docs judges SQL with a regex: `SELECT 1; DROP TABLE t`
//! starts with `SELECT`. Examples show `is sql(...)` (docs/sql.md); a regex
//! rule whose pattern names SQL keywords, in the README, a page of `docs/`
//! or a doc comment of a crate, is the example a reader would copy.

use regex::Regex;

use super::root;
use super::sources::documentation;

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
