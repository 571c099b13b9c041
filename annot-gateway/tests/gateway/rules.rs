//! In front of a server written without annot (`plain_server`): the
//! configuration's rules, in the language of `#[annotate]`, split its
//! multi-action tool.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::stores::TestStore;
use crate::support::{Host, example, exported, refused_at_start, snapshot, text};

/// `notes`' actions, with the right to state them lower than the
/// upstream's worst case.
pub const SPLIT_NOTES: &str = include_str!("../fixtures/notes.toml");

/// A directory with one note, a configuration file and a store: a SQLite
/// file in the directory, or the one given.
pub struct Setup {
    pub directory: tempfile::TempDir,
    store: Option<String>,
}

impl Setup {
    pub fn new(config: &str) -> Setup {
        let directory = tempfile::tempdir().unwrap();
        std::fs::create_dir(directory.path().join("notes")).unwrap();
        std::fs::write(directory.path().join("notes/todo"), "buy milk\n").unwrap();
        std::fs::write(directory.path().join("gateway.toml"), config).unwrap();
        Setup {
            directory,
            store: None,
        }
    }

    /// The same, on `store`.
    pub fn on(config: &str, store: &TestStore) -> Setup {
        Setup {
            store: Some(store.url.clone()),
            ..Setup::new(config)
        }
    }

    /// What `--store` is given.
    pub fn store(&self) -> String {
        match &self.store {
            Some(url) => url.clone(),
            None => self.log().to_str().unwrap().to_owned(),
        }
    }

    pub fn notes(&self) -> PathBuf {
        self.directory.path().join("notes")
    }

    pub fn log(&self) -> PathBuf {
        self.directory.path().join("log.sqlite3")
    }

    /// The gateway in front of `plain_server` with `options` and the server's
    /// own `server_options`.
    pub fn start(&self, options: &[&str], server_options: &[&str]) -> Host {
        let args = self.args(options, server_options);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Host::start(&args)
    }

    /// The gateway's arguments: the configuration, the log, `options`, then
    /// `plain_server` with `server_options`.
    pub fn args(&self, options: &[&str], server_options: &[&str]) -> Vec<String> {
        let upstream = example("plain_server");
        let config = self.directory.path().join("gateway.toml");
        let store: &str = Box::leak(self.store().into_boxed_str());
        let mut args: Vec<&str> = vec!["--config", path(&config), "--store", store];
        args.extend_from_slice(options);
        args.push("--");
        args.push(path(&upstream));
        args.extend_from_slice(server_options);
        let notes = self.notes();
        args.push(path(&notes));
        args.iter().map(|arg| arg.to_string()).collect()
    }
}

fn path(path: &Path) -> &'static str {
    // Leaked: a test's handful of paths, for `&str` arguments.
    Box::leak(path.to_str().unwrap().to_owned().into_boxed_str())
}

#[test]
fn rules_split_a_tool_into_per_action_tools_with_exact_hints() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "per-action"], &[]);
    host.initialize(json!({}));
    let tools = host.tools();
    let names: Vec<&str> = tools.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["notes_append", "notes_delete", "notes_read"]);
    let hints = |name: &str| {
        tools
            .iter()
            .find(|(tool, _)| tool == name)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(hints("notes_read")["readOnlyHint"], json!(true));
    assert_eq!(hints("notes_append")["destructiveHint"], json!(false));
    assert_eq!(hints("notes_delete")["destructiveHint"], json!(true));

    let read = host.call("notes_read", json!({"name": "todo"}));
    assert_eq!(text(&read), "buy milk\n", "{read}");
    let given = host.request(
        "tools/call",
        json!({"name": "notes_read", "arguments": {"action": "delete", "name": "todo"}}),
    );
    assert_eq!(given["error"]["code"], json!(-32602), "{given}");
}

#[test]
fn a_read_only_host_keeps_the_reads_of_a_tool_whose_worst_case_is_destructive() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "per-action", "--profile", "read-only"], &[]);
    host.initialize(json!({}));
    let names: Vec<String> = host.tools().into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["notes_read"]);
    let before = snapshot(&setup.notes());
    // Not listed, and refused with the profile's reason when called anyway.
    let delete = host.call("notes_delete", json!({"name": "todo"}));
    assert_eq!(delete["isError"], json!(true), "{delete}");
    assert!(text(&delete).contains("read_only"), "{delete}");
    let through_the_whole_tool = host.request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "delete", "name": "todo"}}),
    );
    assert_eq!(through_the_whole_tool["error"]["code"], json!(-32602));
    assert_eq!(snapshot(&setup.notes()), before);
}

#[test]
fn in_resolvable_exposure_the_rules_decide_each_call() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "resolvable", "--confirm", "deny"], &[]);
    host.initialize(json!({}));
    let tools = host.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(
        tools[0].1["destructiveHint"],
        json!(true),
        "the listing keeps the worst case"
    );
    let before = snapshot(&setup.notes());

    let read = host.call("notes", json!({"action": "read", "name": "todo"}));
    assert_eq!(text(&read), "buy milk\n");
    let append = host.call(
        "notes",
        json!({"action": "append", "name": "todo", "text": "x"}),
    );
    assert_eq!(append["isError"], json!(true));
    assert!(text(&append).contains("confirm = \"deny\""), "{append}");
    assert_eq!(snapshot(&setup.notes()), before);

    host.finish();
    let calls = exported(setup.log());
    assert!(
        calls[0]["source"]
            .as_str()
            .unwrap()
            .contains("configuration's rules")
    );
    assert!(calls[0]["source"].as_str().unwrap().contains("overriding"));
    assert_eq!(calls[1]["decision"], json!("confirm"));
}

#[test]
fn without_override_rules_never_lower_what_the_upstream_states() {
    let setup = Setup::new(&SPLIT_NOTES.replace("override = true\n", ""));
    let mut host = setup.start(&["--exposure", "resolvable", "--profile", "read-only"], &[]);
    host.initialize(json!({}));
    // The upstream states `notes` destructive; rules without `override`
    // cannot bring any of its calls under read-only, so it is not listed,
    // and a read called anyway is refused.
    assert!(host.tools().is_empty());
    let before = snapshot(&setup.notes());
    let read = host.call("notes", json!({"action": "read", "name": "todo"}));
    assert_eq!(read["isError"], json!(true), "{read}");
    assert!(text(&read).contains("readOnlyHint is false"), "{read}");
    assert_eq!(snapshot(&setup.notes()), before);
}

#[test]
fn a_rule_in_error_is_reported_with_its_place_and_its_tool_counts_as_the_worst_case() {
    let config = r#"
[tools.notes]
discriminator = "action"
rules = 'when(name mathces "^tmp") => (destructive = false)'

[tools.notes.actions.read]
annotations = { read_only = true }
"#;
    let setup = Setup::new(config);
    let mut host = setup.start(&["--confirm", "host"], &[]);
    host.initialize(json!({}));
    host.tools();
    let before = snapshot(&setup.notes());
    let read = host.call("notes", json!({"action": "delete", "name": "todo"}));
    host.finish();
    assert_eq!(snapshot(&setup.notes()).len(), before.len() - 1, "{read}");
    let calls = exported(setup.log());
    let source = calls[0]["source"].as_str().unwrap();
    assert!(source.contains("did you mean `matches`"), "{source}");
    assert!(source.contains("line 1, column"), "{source}");
}

#[test]
fn an_unknown_hint_in_the_configuration_stops_the_gateway_at_once() {
    let config = "[upstream]\ncommand = \"true\"\n\
                  [tools.notes.actions.read]\nannotations = { read_olny = true }\n";
    let (code, stderr) = refused_at_start(config);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("unknown hint `read_olny`"), "{stderr}");
}

#[test]
fn the_policy_section_sets_the_verdict_of_each_class_of_call() {
    let config = format!(
        "{SPLIT_NOTES}\n[policy]\nnon_destructive_write = \"allow\"\ndestructive = \"deny\"\n"
    );
    let setup = Setup::new(&config);
    let mut host = setup.start(&["--exposure", "resolvable", "--confirm", "host"], &[]);
    host.initialize(json!({}));
    let append = host.call(
        "notes",
        json!({"action": "append", "name": "todo", "text": "x"}),
    );
    assert_eq!(text(&append), "appended", "{append}");
    let delete = host.call("notes", json!({"action": "delete", "name": "todo"}));
    assert_eq!(delete["isError"], json!(true), "{delete}");
    assert!(setup.notes().join("todo").exists());
    host.finish();
    let decisions: Vec<serde_json::Value> = exported(setup.log())
        .into_iter()
        .map(|call| call["decision"].clone())
        .collect();
    assert_eq!(decisions, [json!("allow"), json!("deny")]);
}

#[test]
fn an_unknown_verdict_stops_the_gateway_at_once() {
    let config = "[upstream]\ncommand = \"true\"\n[policy]\ndestructive = \"maybe\"\n";
    let (code, stderr) = refused_at_start(config);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("maybe") && stderr.contains("confirm-strong"),
        "{stderr}"
    );
}

#[test]
fn an_audit_that_saw_a_violation_raises_the_hint_over_every_source() {
    // What `annot-audit --json` writes when a "read" was seen writing.
    let report = json!({
        "report_version": 2,
        "findings": [
            {"check": "behaviour.read_only", "subject": "notes/read", "verdict": "VIOLATION",
             "detail": "the read changed a file", "cases": 1, "evidence": []},
            {"check": "behaviour.closed_world", "subject": "notes", "verdict": "PASS",
             "detail": "no connection", "cases": 1, "evidence": []}
        ]
    });
    let setup = Setup::new(SPLIT_NOTES);
    let audit = setup.directory.path().join("audit.json");
    std::fs::write(&audit, report.to_string()).unwrap();
    let audit = audit.to_str().unwrap().to_owned();
    let mut host = setup.start(
        &[
            "--exposure",
            "resolvable",
            "--profile",
            "read-only",
            "--audit",
            &audit,
        ],
        &[],
    );
    host.initialize(json!({}));
    let read = host.call("notes", json!({"action": "read", "name": "todo"}));
    assert_eq!(read["isError"], json!(true), "{read}");
    assert!(
        text(&read).contains("raised where the audit saw a violation"),
        "{read}"
    );
}
