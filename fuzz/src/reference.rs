//! Hand-written resolvers of the example tools, the oracle the fuzz targets and
//! the tests compare the generated `resolve()` with.
//!
//! Each one is written from the table in the doc comment of its tool
//! (`examples/tools/*.rs`) and the rule semantics of `#[mcp_tool]`, with every
//! hint spelt out: no join, no `effective()`, no code of the macro. They take
//! arguments the tool's parser accepted (a valid object) and panic on anything
//! else.
//!
//! Shared by the fuzz crate and `cargo test` (through `#[path]`), so it names
//! nothing of either crate but `annot::Annotations`.

use std::sync::LazyLock;

use annot::Annotations;
use regex::Regex;
use serde_json::Value;

/// An [`Annotations`] with every hint written out, in wire order:
/// `readOnly, destructive, idempotent, openWorld, aiProcessing,
/// slowExecution, resourceIntensive, sensitiveData, privilegedAccess,
/// reversible`.
pub const fn hints(title: Option<&'static str>, values: [Option<bool>; 10]) -> Annotations {
    let [
        read_only,
        destructive,
        idempotent,
        open_world,
        ai_processing,
        slow_execution,
        resource_intensive,
        sensitive_data,
        privileged_access,
        reversible,
    ] = values;
    Annotations {
        title,
        read_only,
        destructive,
        idempotent,
        open_world,
        ai_processing,
        slow_execution,
        resource_intensive,
        sensitive_data,
        privileged_access,
        reversible,
    }
}

const T: Option<bool> = Some(true);
const F: Option<bool> = Some(false);
const N: Option<bool> = None;

fn string<'a>(arguments: &'a Value, field: &str) -> &'a str {
    arguments[field]
        .as_str()
        .unwrap_or_else(|| panic!("the parser accepted {arguments} without a string `{field}`"))
}

// manage_files: the table of its doc comment, `open_world = false`,
// `privileged_access = false`, `sensitive_data = false`, and the system-path
// rule (privileged access, sensitive data).

const SYSTEM_PATH: &str = "^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)";

/// The lexical normal form of a file path, written out independently of the
/// runtime: `None` when undecided (a backslash, a NUL, `..` above the root).
fn normal_file_path(path: &str) -> Option<String> {
    if path.contains('\\') || path.contains('\0') {
        return None;
    }
    let mut kept: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                kept.pop()?;
            }
            other => kept.push(other),
        }
    }
    Some(format!("/{}", kept.join("/")))
}

/// The normal form of a URL path: undecided when a client joining it onto a
/// base URL would read a host or a scheme in it (it starts with `//`, its
/// first segment has a `:`, it holds a space first or a control character
/// anywhere); else query and fragment cut, `%XX` decoded (undecided when
/// malformed, decoding to `/`, `\`, `%`, NUL or to bytes that are not
/// UTF-8), then as a file path.
fn normal_url_path(path: &str) -> Option<String> {
    let scheme_or_host = path.starts_with("//")
        || path.starts_with(' ')
        || path.chars().any(|c| c.is_ascii_control())
        || path
            .split(['/', '?', '#'])
            .next()
            .is_some_and(|first| first.contains(':'));
    if scheme_or_host {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    let bytes = path.as_bytes();
    let mut decoded = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = path.get(index + 1..index + 3)?;
            let byte = u8::from_str_radix(hex, 16).ok()?;
            if !hex.bytes().all(|digit| digit.is_ascii_hexdigit())
                || matches!(byte, b'/' | b'\\' | b'%' | 0)
            {
                return None;
            }
            decoded.push(byte);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    normal_file_path(&String::from_utf8(decoded).ok()?)
}

/// `manage_files`.
pub fn manage_files(arguments: &Value) -> Annotations {
    static SYSTEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(SYSTEM_PATH).expect("a regex"));
    // The tool declares both hints `false`; the rule raises them to `T`
    // whether it fires or is undecided.
    let system = match normal_file_path(string(arguments, "path")) {
        Some(path) if !SYSTEM.is_match(&path) => F,
        _ => T,
    };
    let (title, read_only, destructive, idempotent) = match string(arguments, "action") {
        "read" => ("Read a file", T, F, T),
        "append" => ("Append to a file", F, F, F),
        "replace" => ("Replace a file", F, T, T),
        "delete" => ("Delete a file", F, T, T),
        other => panic!("manage_files has no action {other}"),
    };
    hints(
        Some(title),
        [
            read_only,
            destructive,
            idempotent,
            F,
            N,
            N,
            N,
            system,
            system,
            N,
        ],
    )
}

/// `manage_files`' static annotations: the worst action, with the rule.
pub const MANAGE_FILES_STATIC: Annotations =
    hints(Some("Manage files"), [F, T, F, F, N, N, N, T, T, N]);

// http_request: the method table of its doc comment (seed 002), `open_world`.

/// `http_request`.
pub fn http_api(arguments: &Value) -> Annotations {
    let values = match string(arguments, "method") {
        "GET" | "HEAD" | "OPTIONS" => [T, F, T, T, N, N, N, N, N, N],
        "POST" => [F, F, F, T, N, N, N, N, N, N],
        "PUT" => [F, T, T, T, N, N, N, N, N, N],
        "PATCH" => [F, T, F, T, N, N, N, N, N, N],
        "DELETE" => [F, T, T, T, N, N, N, N, N, F],
        other => panic!("http_request has no method {other}"),
    };
    hints(None, values)
}

/// `http_request`'s static annotations.
pub const HTTP_API_STATIC: Annotations = hints(None, [F, T, F, T, N, N, N, N, N, F]);

// github_api: `annot::HttpMethod`'s table (seed 002: PUT idempotent and not
// destructive), `open_world`, `sensitive_data`, and the six rules of its doc
// comment's table. No two rules that fire together set the same hint. The
// methods have no titles, so neither has a call.

/// Whether the normal form of `path` matches the template made of
/// `segments`: `None` a parameter (one segment), `Some(text)` a literal; with
/// `rest`, a final `*` (whatever follows). `None` when the path is undecided.
fn template(path: &str, segments: &[Option<&str>], rest: bool) -> Option<bool> {
    let normal = normal_url_path(path)?;
    let mut parts = normal[1..].split('/').filter(|part| !part.is_empty());
    for segment in segments {
        match (parts.next(), segment) {
            (Some(_), None) => {}
            (Some(part), Some(literal)) if part == *literal => {}
            _ => return Some(false),
        }
    }
    Some(rest || parts.next().is_none())
}

/// The value of one hint under rules that fire (`Some(true)`), do not
/// (`Some(false)`) or are undecided (`None`): the join of the firing rules'
/// values, or `base` when none fires; then joined with every undecided rule's
/// value. `riskier` is the hint's risky value.
fn decide(base: Option<bool>, rules: &[(Option<bool>, bool)], riskier: bool) -> Option<bool> {
    let rank = |value: Option<bool>| match value {
        None => 1,
        Some(value) if value == riskier => 2,
        Some(_) => 0,
    };
    let join = |a: Option<bool>, b: Option<bool>| if rank(b) > rank(a) { b } else { a };
    let mut fired = None;
    for (state, value) in rules {
        if *state == Some(true) {
            fired = Some(match fired {
                None => Some(*value),
                Some(before) => join(before, Some(*value)),
            });
        }
    }
    let mut decided = fired.unwrap_or(base);
    for (state, value) in rules {
        if state.is_none() {
            decided = join(decided, Some(*value));
        }
    }
    decided
}

/// `github_api`.
pub fn github_api(arguments: &Value) -> Annotations {
    let method = string(arguments, "method");
    let path = string(arguments, "path");
    let public = arguments.get("public") == Some(&Value::Bool(true));
    let read = matches!(method, "GET" | "HEAD" | "OPTIONS");
    let (destructive, idempotent) = match method {
        "GET" | "HEAD" | "OPTIONS" => (F, T),
        "POST" | "PATCH" => (F, F),
        "PUT" => (F, T),
        "DELETE" => (T, T),
        other => panic!("github_api has no method {other}"),
    };
    let sensitive = if public { F } else { T };
    // Kleene's `all`: a test of the method that fails decides the rule.
    let on = |wanted: &str, segments: &[Option<&str>]| {
        if method == wanted {
            template(path, segments, false)
        } else {
            Some(false)
        }
    };
    let repository = on("DELETE", &[Some("repos"), None, None]);
    let label = on(
        "DELETE",
        &[
            Some("repos"),
            None,
            None,
            Some("issues"),
            None,
            Some("labels"),
            None,
        ],
    );
    let issue = on("PATCH", &[Some("repos"), None, None, Some("issues"), None]);
    let organisation = template(path, &[Some("orgs"), None], true);
    let destructive = decide(destructive, &[(label, false), (issue, true)], true);
    let reversible = decide(
        N,
        &[(repository, false), (label, true), (issue, true)],
        false,
    );
    // The tool declares `privileged_access = false`; only the organisation
    // rule raises it.
    let privileged = decide(F, &[(organisation, true)], true);
    if read {
        // A read-only call: nothing to destroy, repeat or undo.
        return hints(None, [T, F, T, T, N, N, N, sensitive, privileged, N]);
    }
    hints(
        None,
        [
            F,
            destructive,
            idempotent,
            T,
            N,
            N,
            N,
            sensitive,
            privileged,
            reversible,
        ],
    )
}

/// `github_api`'s static annotations.
pub const GITHUB_API_STATIC: Annotations =
    hints(Some("GitHub API"), [F, T, F, T, N, N, N, T, T, F]);

// sql: the class of the statement is the parser's
// (`annot::rules::sql::classify`, held to the hand-written red-team table of
// tests/rules/sql_redteam.rs); the hints of each class are the table of the
// example's doc comment, written here by hand.

/// `sql`.
pub fn sql(arguments: &Value) -> Annotations {
    use annot::rules::sql::{SqlClass, SqlDialect, classify};

    let statement = string(arguments, "statement");
    match string(arguments, "action") {
        "run" => {}
        "explain" => return hints(Some("Explain SQL"), [T, F, T, F, N, N, N, T, N, N]),
        other => panic!("sql has no action {other}"),
    }
    let values = match classify(statement, SqlDialect::Sqlite) {
        SqlClass::Read => [T, F, T, F, N, N, N, T, F, N],
        SqlClass::Insert => [F, F, F, F, N, N, N, T, F, F],
        SqlClass::Destructive => [F, T, F, F, N, N, N, T, F, F],
        // The action's own hints.
        SqlClass::Riskiest => [F, T, F, F, N, N, N, T, T, F],
    };
    hints(Some("Run SQL"), values)
}

/// `sql`'s static annotations.
pub const SQL_STATIC: Annotations = hints(Some("SQL"), [F, T, F, F, N, N, N, T, T, F]);

// keyword_sql (benches/support/keyword_sql.rs): the regex rules the sql
// example had before its parser rule. Each pattern finds its keyword at the
// start of a statement (the text's start or after `;`, past whitespace and
// comments); several statements count together, the riskiest class deciding
// each hint.

const STATEMENT_START: &str = r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*";

/// Which statement classes occur in `statement`: `[read, select into,
/// insert, modify, drop]`.
fn keyword_sql_classes(statement: &str) -> [bool; 5] {
    static CLASSES: LazyLock<[Regex; 5]> = LazyLock::new(|| {
        [
            r"(?:select|show)\b",
            r"select\b[^;]*\binto\b",
            r"insert\b",
            r"(?:update|delete|merge|alter)\b",
            r"(?:drop|truncate)\b",
        ]
        .map(|keyword| Regex::new(&format!("{STATEMENT_START}{keyword}")).expect("a regex"))
    });
    let mut found = [false; 5];
    for (class, regex) in CLASSES.iter().enumerate() {
        found[class] = regex.is_match(statement);
    }
    found
}

/// `keyword_sql`.
pub fn keyword_sql(arguments: &Value) -> Annotations {
    let [read, select_into, insert, modify, drop] =
        keyword_sql_classes(string(arguments, "statement"));
    let values = if drop {
        [F, T, F, F, N, N, N, T, N, F]
    } else if modify {
        [F, T, F, F, N, N, N, T, N, N]
    } else if select_into || insert {
        [F, F, F, F, N, N, N, T, N, N]
    } else if read {
        [T, F, T, F, N, N, N, T, N, N]
    } else {
        // Anything else: the action's own `destructive`.
        [F, T, F, F, N, N, N, T, N, N]
    };
    hints(None, values)
}

/// The reference resolver of the example tool called `name`.
pub fn resolver(name: &str) -> fn(&Value) -> Annotations {
    match name {
        "manage_files" => manage_files,
        "http_request" => http_api,
        "github_api" => github_api,
        "sql" => sql,
        "keyword_sql" => keyword_sql,
        other => panic!("no reference resolver for {other}: write one in fuzz/src/reference.rs"),
    }
}
