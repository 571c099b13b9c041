//! A profile drops an action exactly when no call of it can pass, judged on
//! the rules that can fire on that action (not on every rule of its tool),
//! for each shape of tool: an enum of actions, a struct with an action field,
//! a single action. Each case has a rule that rescues an action (kept, and a
//! call it fires on runs) and one that names the profile's hint but cannot
//! (dropped, where deciding per tool kept it). The expectations are written
//! out by hand from the declarations below.

use crate::server_support;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use annot::server::{Profile, Server};
use annot::{HttpMethod, mcp_tool};
use serde_json::{Value, json};
use server_support::Client;

/// A key-value store.
#[mcp_tool(name = "store", open_world = false, privileged_access = false)]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Debug)]
#[allow(dead_code)] // The keys are read by the rules, not by the tests.
pub enum Store {
    /// Read a key.
    #[annotate(read_only)]
    Get { key: String },
    /// Overwrite a key; a scratch key is not worth keeping.
    #[annotate(destructive, when(key matches "^tmp/") => (destructive = false))]
    Put { key: String },
    /// Erase a key; an archived one for good. Its rule names
    /// `destructive` too, but only to keep it risky.
    #[annotate(destructive, when(key matches "^archive/") => (destructive, reversible = false))]
    Wipe { key: String },
    /// Look at a log; a log under `live/` is streamed from elsewhere.
    #[annotate(read_only, when(key matches "^live/") => (open_world))]
    Tail { key: String },
}

/// A web client whose hints follow the method, and the path for some.
#[mcp_tool(
    name = "web",
    discriminator = "method",
    open_world = true,
    privileged_access = false,
    // What a method the table calls read-only writes is not destructive.
    destructive = false,
    // Local pages are served by this process: only GET and HEAD can stay
    // in a closed world.
    when(all(method in ["GET", "HEAD"], path matches "^/local/")) => (open_world = false),
    // Emptying the trash destroys nothing.
    when(all(method == "DELETE", path matches "^/trash/")) => (destructive = false),
    // Certain to fire: OPTIONS writes here (say, it warms a cache). It is
    // then as destructive as the tool's default says: not.
    when(method == "OPTIONS") => (read_only = false),
)]
#[derive(Clone, Debug)]
pub struct Web {
    pub method: HttpMethod,
    pub path: String,
}

/// Run a query; a SELECT only reads.
#[mcp_tool(
    name = "query",
    destructive,
    open_world = false,
    privileged_access = false,
    when(sql matches "(?i)^select\\b") => (read_only),
)]
#[derive(Clone, Debug)]
pub struct Query {
    pub sql: String,
}

/// Drop a table; a temporary one is gone for good too. The rule names
/// `destructive`, but only to keep it so.
#[mcp_tool(
    name = "drop_table",
    destructive,
    open_world = false,
    privileged_access = false,
    when(table matches "^tmp_") => (destructive, reversible = false),
)]
#[derive(Clone, Debug)]
pub struct DropTable {
    pub table: String,
}

fn server(profile: Profile, ran: &Arc<AtomicUsize>) -> Server {
    let count = server_support::counting_handler;
    let (a, b, c, d) = (count(ran), count(ran), count(ran), count(ran));
    Server::builder("annot-exact", "0.0.0")
        .profile(profile)
        .tool(move |_: Store| a())
        .tool(move |_: Web| b())
        .tool(move |_: Query| c())
        .tool(move |_: DropTable| d())
        .build()
        .expect("builds under any profile")
}

/// Per profile, each tool listed with the actions it keeps (empty for a
/// single action).
#[allow(clippy::type_complexity)]
const LISTINGS: &[(fn() -> Profile, &[(&str, &[&str])])] = &[
    (
        Profile::no_destructive,
        &[
            // `put` is rescued on scratch keys; `wipe`'s rule cannot rescue it.
            ("store", &["get", "put", "tail"]),
            // DELETE is rescued on the trash.
            (
                "web",
                &["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
            ),
            // Rescued by `read_only` on a SELECT (a read is never destructive).
            ("query", &[]),
            // `drop_table` is gone: its rule only keeps it destructive.
        ],
    ),
    (
        Profile::closed_world,
        &[
            // `tail` passes off `live/`.
            ("store", &["get", "put", "wipe", "tail"]),
            // Only GET and HEAD have a rule that closes the world.
            ("web", &["GET", "HEAD"]),
            ("query", &[]),
            ("drop_table", &[]),
        ],
    ),
    (
        Profile::read_only,
        &[
            ("store", &["get", "tail"]),
            // OPTIONS is never read-only, whatever its path.
            ("web", &["GET", "HEAD"]),
            ("query", &[]),
        ],
    ),
    (
        || Profile::no_destructive().and(Profile::closed_world()),
        &[
            ("store", &["get", "put", "tail"]),
            ("web", &["GET", "HEAD"]),
            ("query", &[]),
        ],
    ),
];

fn tools(server: &Server) -> Vec<Value> {
    let list = Client::initialized(server, json!({})).result("tools/list", json!({}));
    list["tools"].as_array().expect("a tools array").clone()
}

#[test]
fn each_shape_keeps_exactly_the_actions_some_call_passes() {
    let ran = Arc::new(AtomicUsize::new(0));
    for (profile, expected) in LISTINGS {
        let profile = profile();
        let listed = tools(&server(profile, &ran));
        let names: Vec<&str> = listed.iter().map(|t| t["name"].as_str().unwrap()).collect();
        let wanted: Vec<&str> = expected.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, wanted, "{profile}");
        for (tool, (name, actions)) in listed.iter().zip(expected.iter()) {
            let properties = &tool["inputSchema"]["properties"];
            let field = match *name {
                "store" => "action",
                "web" => "method",
                _ => {
                    assert!(actions.is_empty());
                    continue;
                }
            };
            assert_eq!(
                properties[field]["enum"],
                json!(actions),
                "{profile}: {name}"
            );
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

/// Per profile, a call and whether it reaches the handler: the rescuing
/// rules let theirs through, the rest of a kept action is still refused,
/// and a dropped action's calls are refused whatever the arguments.
#[allow(clippy::type_complexity)]
const CALLS: &[(fn() -> Profile, &str, &str, bool)] = &[
    (
        Profile::no_destructive,
        "store",
        r#"{"action":"put","key":"tmp/a"}"#,
        true,
    ),
    (
        Profile::no_destructive,
        "store",
        r#"{"action":"put","key":"a"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "store",
        r#"{"action":"wipe","key":"archive/a"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "store",
        r#"{"action":"wipe","key":"a"}"#,
        false,
    ),
    (
        Profile::closed_world,
        "store",
        r#"{"action":"tail","key":"a"}"#,
        true,
    ),
    (
        Profile::closed_world,
        "store",
        r#"{"action":"tail","key":"live/a"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "web",
        r#"{"method":"DELETE","path":"/trash/a"}"#,
        true,
    ),
    (
        Profile::no_destructive,
        "web",
        r#"{"method":"DELETE","path":"/a"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "web",
        r#"{"method":"OPTIONS","path":"/a"}"#,
        true,
    ),
    (
        Profile::read_only,
        "web",
        r#"{"method":"OPTIONS","path":"/a"}"#,
        false,
    ),
    (
        Profile::closed_world,
        "web",
        r#"{"method":"GET","path":"/local/a"}"#,
        true,
    ),
    (
        Profile::closed_world,
        "web",
        r#"{"method":"GET","path":"/a"}"#,
        false,
    ),
    (
        Profile::closed_world,
        "web",
        r#"{"method":"POST","path":"/local/a"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "query",
        r#"{"sql":"select 1"}"#,
        true,
    ),
    (
        Profile::no_destructive,
        "query",
        r#"{"sql":"delete from t"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "drop_table",
        r#"{"table":"t"}"#,
        false,
    ),
    (
        Profile::no_destructive,
        "drop_table",
        r#"{"table":"tmp_t"}"#,
        false,
    ),
];

#[test]
fn calls_of_kept_and_dropped_actions_are_checked_one_by_one() {
    for (profile, tool, arguments, runs) in CALLS {
        let ran = Arc::new(AtomicUsize::new(0));
        let server = server(profile(), &ran);
        let arguments: Value = serde_json::from_str(arguments).unwrap();
        let result = Client::initialized(&server, json!({}))
            .result("tools/call", json!({"name": tool, "arguments": arguments}));
        if *runs {
            assert_eq!(
                result["content"][0]["text"], "ran",
                "{tool} {arguments}: {result}"
            );
        } else {
            assert_eq!(result["isError"], true, "{tool} {arguments}: {result}");
            let text = result["content"][0]["text"].as_str().unwrap();
            assert!(text.contains("outside the server's profile"), "{text}");
        }
        assert_eq!(
            ran.load(Ordering::SeqCst),
            usize::from(*runs),
            "{tool} {arguments}"
        );
    }
}
