//! Rules on argument values, end to end through `#[mcp_tool]`: every predicate
//! form, the join of firing rules, the static bound, and explanations.

use annot::rules::Source;
use annot::{AnnotatedTool, Annotations, Hint, mcp_tool};
use serde_json::{Value, json};

/// A file tool whose risk depends on paths, sizes and flags.
#[mcp_tool(
    open_world = false,
    when(path matches "^/(etc|root|sys)(/|$)") => (privileged_access, sensitive_data),
    when(path matches r"\.(key|pem)$") => (sensitive_data),
)]
#[serde(rename_all = "snake_case")]
#[derive(Debug)]
#[allow(dead_code)]
enum Files {
    #[annotate(read_only)]
    Read { path: String },
    #[annotate(
        destructive = false,
        when(size > 1_000_000) => (resource_intensive, slow_execution),
        when(mode in ["overwrite", "truncate"]) => (destructive),
        when(any(mode == "append", not(some(mode)))) => (reversible),
    )]
    Write {
        path: String,
        size: u64,
        mode: Option<String>,
    },
    #[annotate(
        destructive,
        idempotent,
        when(all(force == true, not(some(backup)))) => (reversible = false),
        when(some(backup)) => (reversible, destructive = false),
        when(retries >= 3) => (idempotent = false),
        when(ratio < -0.5) => (slow_execution),
    )]
    Delete {
        path: String,
        force: bool,
        backup: Option<String>,
        retries: i8,
        ratio: f64,
    },
    #[annotate(read_only)]
    Stat,
}

fn call(arguments: Value) -> Files {
    Files::from_arguments(&arguments).unwrap_or_else(|e| panic!("{arguments}: {e}"))
}

fn resolve(arguments: Value) -> Annotations {
    call(arguments).resolve()
}

#[test]
fn a_tool_level_rule_applies_to_every_action_with_the_field() {
    let etc = resolve(json!({"action": "read", "path": "/etc/passwd"}));
    assert_eq!(etc.privileged_access, Some(true));
    assert_eq!(etc.sensitive_data, Some(true));
    assert!(etc.is_read_only());

    let home = resolve(json!({"action": "read", "path": "notes/etc"}));
    assert_eq!(home.privileged_access, None);
    assert_eq!(home.sensitive_data, None);

    let key = resolve(
        json!({"action": "delete", "path": "certs/server.pem", "force": false, "retries": 0, "ratio": 0}),
    );
    assert_eq!(key.sensitive_data, Some(true));
    assert_eq!(key.privileged_access, None);

    // `Stat` has no `path`: the rules never apply, so its bound stays plain.
    let stat = Files::ACTIONS.iter().find(|a| a.name == "stat").unwrap();
    assert_eq!(stat.annotations.privileged_access, None);
    assert_eq!(resolve(json!({"action": "stat"})), stat.annotations);
}

#[test]
fn numbers_options_and_membership() {
    let small = resolve(json!({"action": "write", "path": "a", "size": 10}));
    assert_eq!(small.resource_intensive, None);
    assert_eq!(small.destructive, Some(false));
    // No mode: `not(some(mode))` holds.
    assert_eq!(small.reversible, Some(true));

    let big = resolve(json!({"action": "write", "path": "a", "size": 1_000_001, "mode": "append"}));
    assert_eq!(big.resource_intensive, Some(true));
    assert_eq!(big.slow_execution, Some(true));
    assert_eq!(big.reversible, Some(true));

    let truncate = resolve(json!({"action": "write", "path": "a", "size": 1, "mode": "truncate"}));
    assert_eq!(truncate.destructive, Some(true));
    assert_eq!(truncate.reversible, None);

    let retried = resolve(
        json!({"action": "delete", "path": "a", "force": false, "retries": 3, "ratio": 0.0}),
    );
    assert_eq!(retried.idempotent, Some(false));
    let once = resolve(
        json!({"action": "delete", "path": "a", "force": false, "retries": 2, "ratio": 0.0}),
    );
    assert_eq!(once.idempotent, Some(true));

    let negative = resolve(
        json!({"action": "delete", "path": "a", "force": false, "retries": -1, "ratio": -0.75}),
    );
    assert_eq!(negative.slow_execution, Some(true));
}

#[test]
fn firing_rules_join_and_the_riskier_value_wins() {
    // Both `force` without backup (reversible = false) and ... only one fires here.
    let forced =
        resolve(json!({"action": "delete", "path": "a", "force": true, "retries": 0, "ratio": 0}));
    assert_eq!(forced.reversible, Some(false));
    assert_eq!(forced.destructive, Some(true));

    let backed_up = resolve(
        json!({"action": "delete", "path": "a", "force": true, "backup": "a.bak", "retries": 0, "ratio": 0}),
    );
    // The backup rule fires alone: recoverable, not destructive.
    assert_eq!(backed_up.reversible, Some(true));
    assert_eq!(backed_up.destructive, Some(false));

    // `mode == "append"` and `not(some(mode))` cannot both fire, but
    // `mode in [...]` and the append rule name different hints.
    let append_big =
        resolve(json!({"action": "write", "path": "/etc/x", "size": 2_000_000, "mode": "append"}));
    assert_eq!(append_big.privileged_access, Some(true));
    assert_eq!(append_big.resource_intensive, Some(true));
}

#[test]
fn the_static_bound_covers_every_rule_that_may_fire() {
    let declared = Files::STATIC_ANNOTATIONS;
    assert_eq!(declared.read_only, Some(false));
    assert_eq!(declared.destructive, Some(true));
    assert_eq!(declared.idempotent, Some(false));
    assert_eq!(declared.open_world, Some(false));
    assert_eq!(declared.privileged_access, Some(true));
    assert_eq!(declared.sensitive_data, Some(true));
    assert_eq!(declared.resource_intensive, Some(true));
    assert_eq!(declared.slow_execution, Some(true));
    assert_eq!(declared.reversible, Some(false));

    let write = Files::ACTIONS.iter().find(|a| a.name == "write").unwrap();
    // `mode in [overwrite, truncate]` may make a write destructive.
    assert_eq!(write.annotations.destructive, Some(true));
    assert_eq!(write.annotations.reversible, None);
    let read = Files::ACTIONS.iter().find(|a| a.name == "read").unwrap();
    assert!(read.annotations.is_read_only());
    assert_eq!(read.annotations.privileged_access, Some(true));
}

#[test]
fn rules_are_listed_in_declaration_order_with_their_source() {
    let sources: Vec<&str> = Files::RULES.iter().map(|rule| rule.source).collect();
    assert_eq!(
        sources,
        [
            r#"when(path matches "^/(etc|root|sys)(/|$)") => (sensitive_data, privileged_access)"#,
            r#"when(path matches r"\.(key|pem)$") => (sensitive_data)"#,
            r#"when(size > 1000000) => (slow_execution, resource_intensive)"#,
            r#"when(mode in ["overwrite", "truncate"]) => (destructive)"#,
            r#"when(any(mode == "append", not(some(mode)))) => (reversible)"#,
            r#"when(all(force == true, not(some(backup)))) => (reversible = false)"#,
            r#"when(some(backup)) => (destructive = false, reversible)"#,
            r#"when(retries >= 3) => (idempotent = false)"#,
            r#"when(ratio < -0.5) => (slow_execution)"#,
        ]
    );
    for (index, rule) in Files::RULES.iter().enumerate() {
        assert_eq!(rule.index, index);
    }
}

#[test]
fn explanations_say_what_decided_each_hint() {
    let call = call(
        json!({"action": "write", "path": "/root/.ssh/id.pem", "size": 5, "mode": "overwrite"}),
    );
    let explanation = call.explain();
    assert_eq!(explanation.annotations, call.resolve());
    assert_eq!(explanation.action, Some("write"));
    assert_eq!(
        explanation.source(Hint::ReadOnly),
        &Source::SpecificationDefault
    );
    assert_eq!(explanation.source(Hint::OpenWorld), &Source::ToolDefault);
    assert_eq!(
        explanation.source(Hint::Idempotent),
        &Source::SpecificationDefault
    );
    let Source::Rules(rules) = explanation.source(Hint::SensitiveData) else {
        panic!("sensitive data decided by rules");
    };
    assert_eq!(
        rules.iter().map(|rule| rule.index).collect::<Vec<_>>(),
        [0, 1]
    );
    let Source::Rules(rules) = explanation.source(Hint::Destructive) else {
        panic!("destructive decided by a rule");
    };
    assert_eq!(rules[0].index, 3);
    assert_eq!(
        explanation
            .fired
            .iter()
            .map(|rule| rule.index)
            .collect::<Vec<_>>(),
        [0, 1, 3]
    );

    let read = self::call(json!({"action": "read", "path": "x"})).explain();
    assert_eq!(read.source(Hint::ReadOnly), &Source::Action);
    assert_eq!(read.source(Hint::Destructive), &Source::ReadOnly);
    assert!(read.fired.is_empty());
}

#[test]
fn a_tool_without_rules_has_none_and_explains_itself() {
    #[mcp_tool]
    #[allow(dead_code)]
    enum Plain {
        #[annotate(read_only)]
        Get { key: String },
    }
    assert!(Plain::RULES.is_empty());
    assert_eq!(Plain::STATIC_AUTHORIZATION, None);
    let get = Plain::from_arguments(&json!({"action": "Get", "key": "k"})).unwrap();
    assert_eq!(get.resolve_authorization(), None);
    assert_eq!(get.explain().source(Hint::ReadOnly), &Source::Action);
}
