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

// manage_files: the table of its doc comment, `open_world = false`, and the
// system-path rule (privileged access, sensitive data).

const SYSTEM_PATH: &str = "^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)";

/// `manage_files`.
pub fn manage_files(arguments: &Value) -> Annotations {
    static SYSTEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(SYSTEM_PATH).expect("a regex"));
    let system = if SYSTEM.is_match(string(arguments, "path")) {
        T
    } else {
        N
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

/// Whether `path` matches the template made of `segments`: `None` a
/// parameter (one non-empty segment), `Some(text)` a literal; with `rest`, a
/// final `*` (whatever follows). One trailing `/`, and a query or fragment,
/// are ignored.
fn template(path: &str, segments: &[Option<&str>], rest: bool) -> bool {
    let path = match path.find(['?', '#']) {
        Some(end) => &path[..end],
        None => path,
    };
    let Some(path) = path.strip_prefix('/') else {
        return false;
    };
    let mut parts = path.split('/');
    for segment in segments {
        match (parts.next(), segment) {
            (Some(part), None) if !part.is_empty() => {}
            (Some(part), Some(literal)) if part == *literal => {}
            _ => return false,
        }
    }
    let left: Vec<&str> = parts.collect();
    rest || left.is_empty() || left == [""]
}

/// `github_api`.
pub fn github_api(arguments: &Value) -> Annotations {
    let method = string(arguments, "method");
    let path = string(arguments, "path");
    let public = arguments.get("public") == Some(&Value::Bool(true));
    let read = matches!(method, "GET" | "HEAD" | "OPTIONS");
    let (mut destructive, idempotent) = match method {
        "GET" | "HEAD" | "OPTIONS" => (F, T),
        "POST" | "PATCH" => (F, F),
        "PUT" => (F, T),
        "DELETE" => (T, T),
        other => panic!("github_api has no method {other}"),
    };
    let mut reversible = N;
    let sensitive = if public { F } else { T };
    let repository = [Some("repos"), None, None];
    if method == "DELETE" && template(path, &repository, false) {
        reversible = F;
    }
    let label = [
        Some("repos"),
        None,
        None,
        Some("issues"),
        None,
        Some("labels"),
        None,
    ];
    if method == "DELETE" && template(path, &label, false) {
        (destructive, reversible) = (F, T);
    }
    let issue = [Some("repos"), None, None, Some("issues"), None];
    if method == "PATCH" && template(path, &issue, false) {
        (destructive, reversible) = (T, T);
    }
    let privileged = if template(path, &[Some("orgs"), None], true) {
        T
    } else {
        N
    };
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

// sql: the statement table of its doc comment. Each pattern finds its
// keyword at the start of a statement (the text's start or after `;`, past
// whitespace and comments); several statements count together, the riskiest
// class deciding each hint.

const STATEMENT_START: &str = r"(?i)(?:^|;)(?:\s|--[^\n]*(?:\n|$)|/\*(?s:.*?)\*/)*";

/// Which statement classes occur in `statement`: `[read, select into,
/// insert, modify, drop]`.
fn sql_classes(statement: &str) -> [bool; 5] {
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

/// `sql`.
pub fn sql(arguments: &Value) -> Annotations {
    let statement = string(arguments, "statement");
    match string(arguments, "action") {
        "explain" => hints(Some("Explain SQL"), [T, F, T, F, N, N, N, T, N, N]),
        "run" => {
            let [read, select_into, insert, modify, drop] = sql_classes(statement);
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
            hints(Some("Run SQL"), values)
        }
        other => panic!("sql has no action {other}"),
    }
}

/// `sql`'s static annotations.
pub const SQL_STATIC: Annotations = hints(Some("SQL"), [F, T, F, F, N, N, N, T, N, F]);

/// The reference resolver of the example tool called `name`.
pub fn resolver(name: &str) -> fn(&Value) -> Annotations {
    match name {
        "manage_files" => manage_files,
        "http_request" => http_api,
        "github_api" => github_api,
        "sql" => sql,
        other => panic!("no reference resolver for {other}: write one in fuzz/src/reference.rs"),
    }
}
