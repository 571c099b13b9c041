//! The holes of the rules, each pinned: spellings of a path that evaded a
//! pattern, undecided paths, read-only actions that a rule or a default
//! turns into writes, and action tables written by hand. Expectations are
//! literal: what a careful reader of the path or the declaration expects.

use annot::{
    Action, AnnotatedActions, AnnotatedTool, Annotations, Authorization, HttpMethod, mcp_tool,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The README's system-path rule (`manage_files`), on a normalised path.
#[mcp_tool(
    open_world = false,
    when(path path_matches "^/(etc|root|sys)(/|$)") => (privileged_access, sensitive_data),
)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    #[annotate(destructive, idempotent)]
    Delete { path: String },
}

fn files(arguments: Value) -> Annotations {
    Files::from_arguments(&arguments)
        .unwrap_or_else(|e| panic!("{arguments}: {e}"))
        .resolve()
}

const SYSTEM: (Option<bool>, Option<bool>) = (Some(true), Some(true));
const PLAIN: (Option<bool>, Option<bool>) = (None, None);

fn system(annotations: Annotations) -> (Option<bool>, Option<bool>) {
    (annotations.privileged_access, annotations.sensitive_data)
}

#[test]
fn spellings_of_a_system_path_cannot_evade_the_rule() {
    for path in [
        "/etc/shadow",
        "//etc/shadow",
        "/./etc/shadow",
        "/home/../etc/shadow",
        "/etc//shadow/",
        "etc/shadow",
        "/etc",
        "/etc/.",
    ] {
        for action in ["read", "delete"] {
            let resolved = files(json!({"action": action, "path": path}));
            assert_eq!(system(resolved), SYSTEM, "{action} {path}");
        }
    }
    for path in [
        "/home/etc/shadow",
        "/etcetera",
        "/home/./x/../y",
        "notes.txt",
    ] {
        assert_eq!(
            system(files(json!({"action": "read", "path": path}))),
            PLAIN,
            "{path}"
        );
    }
}

#[test]
fn an_undecided_path_never_lowers_risk() {
    // `..` above the root, a backslash: no safe normal form, so the rule's
    // hints join the call's (here they claim the risk).
    for path in ["/..", "/../etc/shadow", "/a/../../x", "\\etc\\shadow"] {
        let resolved = files(json!({"action": "read", "path": path}));
        assert_eq!(system(resolved), SYSTEM, "{path}");
        assert!(resolved.is_read_only(), "{path}");
        assert!(resolved.is_within(&Files::STATIC_ANNOTATIONS), "{path}");
    }
}

/// A rule that lowers risk: undecided, it must not.
#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Scratch {
    #[annotate(
        destructive,
        idempotent,
        when(path path_matches "^/tmp/") => (destructive = false, reversible),
        when(not(path path_matches "^/home/")) => (sensitive_data = false),
    )]
    Delete { path: String },
}

#[test]
fn an_undecided_rule_that_would_lower_risk_keeps_the_base() {
    let resolve = |path: &str| {
        Scratch::from_arguments(&json!({"action": "delete", "path": path}))
            .unwrap()
            .resolve()
    };
    let tmp = resolve("/tmp/x");
    assert_eq!((tmp.destructive, tmp.reversible), (Some(false), Some(true)));
    assert_eq!(tmp.sensitive_data, Some(false));
    let dotted = resolve("//tmp/./y/../x");
    assert_eq!(dotted, tmp);
    // `/tmp/../../etc`: above the root, the rule may or may not hold.
    let undecided = resolve("/tmp/../../etc/x");
    assert_eq!(undecided.destructive, Some(true));
    assert_eq!(undecided.reversible, None);
    // `not(undecided)` is undecided: `sensitive_data = false` joins an
    // absent claim, which stays absent.
    assert_eq!(undecided.sensitive_data, None);
    let home = resolve("/home/a");
    assert_eq!(home.sensitive_data, None);
}

/// The GitHub rule of docs/declaring.md: a DELETE of a repository.
#[mcp_tool(
    discriminator = "method",
    open_world = true,
    scopes = ["repo"],
    when(all(method == "DELETE", path matches_template "/repos/:owner/:repo"))
        => (reversible = false, scopes = ["delete_repo"]),
)]
#[allow(dead_code)]
struct Github {
    method: HttpMethod,
    path: String,
}

fn github(method: &str, path: &str) -> (Annotations, Option<Authorization>) {
    let call = Github::from_arguments(&json!({"method": method, "path": path})).unwrap();
    (call.resolve(), call.resolve_authorization())
}

#[test]
fn spellings_of_a_repository_cannot_evade_a_template() {
    let (canonical, scopes) = github("DELETE", "/repos/acme/secret");
    assert_eq!(canonical.reversible, Some(false));
    let scope_names = |auth: Option<Authorization>| serde_json::to_value(auth).unwrap();
    assert!(scope_names(scopes).to_string().contains("delete_repo"));
    for path in [
        "/repos/acme/secret/.",
        "/repos/acme/./secret",
        "/repos//acme/secret",
        "/repos/acme/secret/",
        "/repos/acme/secret?x=1",
        "/repos/acme/%73ecret",
        "/repos/acme/x/%2e%2e/secret",
        "repos/acme/secret",
    ] {
        let (resolved, auth) = github("DELETE", path);
        assert_eq!(resolved, canonical, "{path}");
        assert_eq!(scope_names(auth), scope_names(scopes), "{path}");
    }
    // Other paths are not the repository.
    let (issues, _) = github("DELETE", "/repos/acme/secret/issues");
    assert_eq!(issues.reversible, None);
    // An escaped separator is undecided: the rule's hints and scopes join.
    let (undecided, auth) = github("DELETE", "/repos/acme%2Fsecret/x");
    assert_eq!(undecided.reversible, Some(false));
    let auth = scope_names(auth).to_string();
    assert!(
        auth.contains("delete_repo") && auth.contains("\"repo\""),
        "{auth}"
    );
}

#[test]
fn a_path_a_client_reads_as_authority_or_scheme_is_undecided() {
    let scope_names = |auth: Option<Authorization>| serde_json::to_value(auth).unwrap().to_string();
    // Joined onto a base URL, each of these reaches another host (or
    // replaces the whole URL): the template cannot say what it names, so
    // the rule's risk applies.
    for path in [
        "//api.github.com/repos/acme/secret",
        "https://api.github.com/repos/acme/secret",
        "HTTP://api.github.com/repos/acme/secret",
        "mailto:x",
        " //api.github.com/repos/acme/secret",
        "\t//api.github.com/repos/acme/secret",
        "/\\api.github.com/repos/acme/secret",
    ] {
        let (resolved, auth) = github("DELETE", path);
        assert_eq!(resolved.reversible, Some(false), "{path:?}");
        assert!(scope_names(auth).contains("delete_repo"), "{path:?}");
    }
    // A colon further on is part of an ordinary path: here the template
    // decides (it matches), there it does not.
    let (colon, auth) = github("DELETE", "/repos/acme/a:b");
    assert_eq!(colon.reversible, Some(false));
    assert!(scope_names(auth).contains("delete_repo"));
    let (issues, auth) = github("DELETE", "/repos/acme/a:b/issues");
    assert_eq!(issues.reversible, None);
    assert!(!scope_names(auth).contains("delete_repo"));
}

/// A GET turned into a write by a rule, and the same on a read-only action.
#[mcp_tool(
    discriminator = "method",
    open_world = false,
    when(all(method == "GET", path path_matches "^/admin/")) => (read_only = false),
)]
#[allow(dead_code)]
struct Admin {
    method: HttpMethod,
    path: String,
}

#[mcp_tool(open_world = false)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum AdminEnum {
    #[annotate(read_only, when(path path_matches "^/admin/") => (read_only = false))]
    Get { path: String },
}

#[test]
fn a_get_turned_into_a_write_is_as_risky_as_any_read_turned_into_a_write() {
    let get = Admin::from_arguments(&json!({"method": "GET", "path": "/admin/reset"}))
        .unwrap()
        .resolve();
    let action = AdminEnum::from_arguments(&json!({"action": "get", "path": "/admin/reset"}))
        .unwrap()
        .resolve();
    let core = |a: Annotations| (a.read_only, a.destructive, a.idempotent, a.reversible);
    // What an action declared `read_only = false` would have: the
    // specification's defaults.
    assert_eq!(core(get), (Some(false), Some(true), Some(false), None));
    assert_eq!(core(action), core(get));
    assert!(get.is_within(&Admin::STATIC_ANNOTATIONS));
    assert!(action.is_within(&AdminEnum::STATIC_ANNOTATIONS));
    let plain = Admin::from_arguments(&json!({"method": "GET", "path": "/x"}))
        .unwrap()
        .resolve();
    assert_eq!(core(plain), (Some(true), Some(false), Some(true), None));
}

/// Tool-level write-only defaults: read-only actions skip them.
#[mcp_tool(destructive, reversible = false, open_world = false)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Defaults {
    #[annotate(read_only)]
    Read { path: String },
    #[annotate(idempotent)]
    Wipe { path: String },
    #[annotate(read_only, when(force == true) => (read_only = false))]
    Peek { force: bool },
}

#[test]
fn tool_level_write_only_defaults_skip_read_only_actions() {
    let read = Defaults::from_arguments(&json!({"action": "read", "path": "a"}))
        .unwrap()
        .resolve();
    assert_eq!(
        (
            read.read_only,
            read.destructive,
            read.idempotent,
            read.reversible
        ),
        (Some(true), Some(false), Some(true), None)
    );
    let wipe = Defaults::from_arguments(&json!({"action": "wipe", "path": "a"}))
        .unwrap()
        .resolve();
    assert_eq!(
        (wipe.destructive, wipe.idempotent, wipe.reversible),
        (Some(true), Some(true), Some(false))
    );
    // A read turned into a write takes the tool's write defaults.
    let forced = Defaults::from_arguments(&json!({"action": "peek", "force": true}))
        .unwrap()
        .resolve();
    assert_eq!(
        (
            forced.read_only,
            forced.destructive,
            forced.idempotent,
            forced.reversible
        ),
        (Some(false), Some(true), Some(false), Some(false))
    );
    assert!(forced.is_within(&Defaults::STATIC_ANNOTATIONS));
}

/// A hand-written action table: what it says is what resolves.
#[derive(Clone, Copy, Debug)]
enum Op {
    Get,
    Wipe,
}

impl AnnotatedActions for Op {
    // Only `get` is listed: `wipe` has no row.
    const ACTIONS: &'static [Action] = &[Action {
        name: "get",
        annotations: Annotations::new().read_only(true),
    }];
    const NAMES: &'static [&'static str] = &["get", "wipe"];
    const NAMES_JSON: &'static str = r#"["get","wipe"]"#;
    const SCHEMA: &'static str = r#"{"type":"string","enum":["get","wipe"]}"#;

    fn index(self) -> usize {
        self as usize
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "get" => Some(Op::Get),
            "wipe" => Some(Op::Wipe),
            _ => None,
        }
    }
}

#[mcp_tool(discriminator = "op", open_world = false)]
#[allow(dead_code)]
struct HandWritten {
    op: Op,
}

#[test]
fn a_hand_written_table_cannot_hide_an_action() {
    assert!(HandWritten::STATIC_ANNOTATIONS.is_read_only());
    let get = HandWritten::from_arguments(&json!({"op": "get"})).unwrap();
    assert!(get.resolve().is_read_only());
    // `wipe` has no row: it may do anything, and says so; the bound check
    // then refuses it instead of a read-only claim.
    let wipe = HandWritten::from_arguments(&json!({"op": "wipe"})).unwrap();
    let resolved = wipe.resolve();
    assert_eq!(
        (
            resolved.read_only,
            resolved.destructive,
            resolved.reversible
        ),
        (Some(false), Some(true), Some(false))
    );
    assert!(!resolved.is_within(&HandWritten::STATIC_ANNOTATIONS));
}

/// A random spelling of a normalised path: extra `/`, `.` segments, detours
/// through `x/..`, a trailing `/`, and for URLs escapes and a query.
fn spell(segments: &[String], noise: &[u8], url: bool) -> String {
    let mut spelled = String::new();
    let mut noise = noise.iter().cycle();
    for segment in segments {
        match noise.next().copied().unwrap_or(0) % 5 {
            // A URL path opening with `//` names a host: undecided.
            1 if url && spelled.is_empty() => {}
            1 => spelled.push_str("//"),
            2 => spelled.push_str("/."),
            3 => spelled.push_str("/detour/.."),
            _ => {}
        }
        spelled.push('/');
        if url && noise.next().copied().unwrap_or(0) % 2 == 1 {
            for byte in segment.bytes() {
                spelled.push_str(&format!("%{byte:02X}"));
            }
        } else {
            spelled.push_str(segment);
        }
    }
    if noise.next().copied().unwrap_or(0) % 2 == 1 {
        spelled.push('/');
    }
    if url && noise.next().copied().unwrap_or(0) % 2 == 1 {
        spelled.push_str("?page=2");
    }
    spelled
}

fn segments() -> impl Strategy<Value = Vec<String>> {
    let segment = prop_oneof![
        Just("etc".to_owned()),
        Just("repos".to_owned()),
        Just("acme".to_owned()),
        Just("secret".to_owned()),
        Just("shadow".to_owned()),
        "[a-z]{1,4}",
    ];
    prop::collection::vec(segment, 0..5)
}

proptest! {
    #[test]
    fn every_spelling_of_a_path_resolves_alike(
        segments in segments(),
        noise in prop::collection::vec(any::<u8>(), 1..16),
    ) {
        let normal = format!("/{}", segments.join("/"));
        let spelled = spell(&segments, &noise, false);
        for action in ["read", "delete"] {
            prop_assert_eq!(
                files(json!({"action": action, "path": spelled})),
                files(json!({"action": action, "path": normal})),
                "{} {}", action, spelled
            );
        }
        let url = spell(&segments, &noise, true);
        for method in ["GET", "DELETE"] {
            let (spelled_hints, spelled_auth) = github(method, &url);
            let (normal_hints, normal_auth) = github(method, &normal);
            prop_assert_eq!(spelled_hints, normal_hints, "{} {}", method, url);
            prop_assert_eq!(
                serde_json::to_value(spelled_auth).unwrap(),
                serde_json::to_value(normal_auth).unwrap()
            );
        }
    }
}
