//! Every rule of the confirmation policy, its trust handling, host overrides,
//! and that less claimed risk never makes a decision stricter.

use annot::client::{
    Decision, HostRule, Policy, PolicyRule, ProposedCall, Reason, Resolution, Strength, Trust,
    Verdict,
};
use annot::{Annotations, Hint};
use serde_json::{Map, Value, json};

fn decide(policy: &Policy, annotations: Annotations, trust: Trust) -> Decision {
    let arguments = Map::new();
    policy.decide(&ProposedCall::new("tool", &arguments, annotations, trust))
}

fn default(annotations: Annotations, trust: Trust) -> (Verdict, PolicyRule) {
    let decision = decide(&Policy::default(), annotations, trust);
    (decision.verdict(), decision.reason().rule.clone())
}

const NORMAL: Verdict = Verdict::Confirm(Strength::Normal);
const READ: Annotations = Annotations::new().read_only(true);
const DELETE: Annotations = Annotations::new().read_only(false).destructive(true);
const APPEND: Annotations = Annotations::new().read_only(false).destructive(false);
const UNDOABLE: Annotations = APPEND.reversible(true);

#[test]
fn read_only_from_a_trusted_server_is_allowed() {
    assert_eq!(
        default(READ, Trust::Trusted),
        (Verdict::Allow, PolicyRule::ReadOnly)
    );
    let decision = decide(&Policy::default(), READ, Trust::Trusted);
    assert!(decision.is_allowed());
    assert_eq!(
        decision.to_string(),
        "allow: `tool` only reads, and its server is trusted"
    );
}

#[test]
fn destructive_calls_are_confirmed() {
    assert_eq!(
        default(DELETE, Trust::Trusted),
        (NORMAL, PolicyRule::Destructive)
    );
    // An unannotated tool is destructive by the specification's defaults.
    assert_eq!(
        default(Annotations::new(), Trust::Trusted),
        (NORMAL, PolicyRule::Destructive)
    );
    let decision = decide(&Policy::default(), DELETE, Trust::Trusted);
    assert!(decision.needs_confirmation());
    assert_eq!(
        decision.to_string(),
        "confirm (normal): `tool` may delete or overwrite data"
    );
}

#[test]
fn reversible_non_destructive_calls_get_a_light_confirmation() {
    assert_eq!(
        default(UNDOABLE, Trust::Trusted),
        (
            Verdict::Confirm(Strength::Light),
            PolicyRule::ReversibleNonDestructive
        )
    );
    // Reversible alone does not lighten a destructive call.
    assert_eq!(
        default(DELETE.reversible(true), Trust::Trusted),
        (NORMAL, PolicyRule::Destructive)
    );
}

#[test]
fn other_non_destructive_writes_get_a_normal_confirmation() {
    assert_eq!(
        default(APPEND, Trust::Trusted),
        (NORMAL, PolicyRule::NonDestructiveWrite)
    );
    assert_eq!(
        default(APPEND.reversible(false), Trust::Trusted),
        (NORMAL, PolicyRule::NonDestructiveWrite)
    );
}

#[test]
fn sensitive_data_with_privileged_access_is_a_strong_confirmation() {
    let strong = Verdict::Confirm(Strength::Strong);
    for base in [READ, DELETE, UNDOABLE] {
        let annotations = base.sensitive_data(true).privileged_access(true);
        for trust in [Trust::Trusted, Trust::Untrusted] {
            assert_eq!(
                default(annotations, trust),
                (strong, PolicyRule::SensitiveAndPrivileged),
                "{annotations} {trust:?}"
            );
        }
    }
    let decision = decide(
        &Policy::default(),
        READ.sensitive_data(true).privileged_access(true),
        Trust::Trusted,
    );
    assert_eq!(
        decision.to_string(),
        "confirm (strong): `tool` touches sensitive data with privileged access"
    );
}

#[test]
fn privileged_access_alone_is_confirmed_and_sensitive_data_alone_is_not() {
    assert_eq!(
        default(READ.privileged_access(true), Trust::Trusted),
        (NORMAL, PolicyRule::PrivilegedAccess)
    );
    assert_eq!(
        default(UNDOABLE.privileged_access(true), Trust::Trusted),
        (NORMAL, PolicyRule::PrivilegedAccess)
    );
    assert_eq!(
        default(READ.sensitive_data(true), Trust::Trusted),
        (Verdict::Allow, PolicyRule::ReadOnly)
    );
}

#[test]
fn untrusted_claims_of_safety_never_loosen_anything() {
    let strong = Verdict::Confirm(Strength::Strong);
    for claimed in [
        READ,
        APPEND,
        UNDOABLE,
        READ.open_world(false).idempotent(true),
        READ.sensitive_data(false).privileged_access(false),
    ] {
        // Silence and denials of sensitive data and privileges count as both.
        assert_eq!(
            default(claimed, Trust::Untrusted),
            (strong, PolicyRule::SensitiveAndPrivileged),
            "{claimed}"
        );
    }
    // With that rule relaxed, the untrusted-server rule decides.
    let policy = Policy {
        sensitive_and_privileged: Verdict::Allow,
        ..Policy::default()
    };
    let decision = decide(&policy, READ, Trust::Untrusted);
    assert_eq!(decision.verdict(), NORMAL);
    assert_eq!(
        decision.reason().message,
        "the server of `tool` is not trusted, so its claims of safety count for nothing"
    );
    // Its claims of risk still count.
    let policy = Policy {
        untrusted_server: Verdict::Allow,
        sensitive_and_privileged: Verdict::Allow,
        ..Policy::default()
    };
    assert_eq!(
        decide(&policy, READ, Trust::Untrusted).reason().rule,
        PolicyRule::Destructive
    );
}

#[test]
fn an_untrusted_resolution_changes_nothing() {
    let arguments = Map::new();
    let policy = Policy::default();
    let resolution = Resolution::check(DELETE, READ).unwrap();
    let trusted = ProposedCall::new("files", &arguments, DELETE, Trust::Trusted)
        .with_resolution(resolution)
        .unwrap();
    assert!(policy.decide(&trusted).is_allowed());
    let untrusted = ProposedCall::new("files", &arguments, DELETE, Trust::Untrusted)
        .with_resolution(resolution)
        .unwrap();
    assert_eq!(
        policy.decide(&untrusted),
        policy.decide(&ProposedCall::new(
            "files",
            &arguments,
            DELETE,
            Trust::Untrusted
        ))
    );
    // A resolution that drops a static claim of sensitive data is not believed
    // from an untrusted server either.
    let declared = DELETE.sensitive_data(true).privileged_access(true);
    let lower = Resolution::check(
        declared,
        DELETE.sensitive_data(false).privileged_access(false),
    )
    .unwrap();
    let untrusted = ProposedCall::new("files", &arguments, declared, Trust::Untrusted)
        .with_resolution(lower)
        .unwrap();
    assert_eq!(
        policy.decide(&untrusted).verdict(),
        Verdict::Confirm(Strength::Strong)
    );
}

#[test]
fn the_host_can_change_every_rule() {
    type Field = fn(&mut Policy) -> &mut Verdict;
    let cases: [(Field, Annotations, Trust, PolicyRule); 8] = [
        (
            |p| &mut p.read_only,
            READ,
            Trust::Trusted,
            PolicyRule::ReadOnly,
        ),
        (
            |p| &mut p.destructive,
            DELETE,
            Trust::Trusted,
            PolicyRule::Destructive,
        ),
        (
            |p| &mut p.reversible_non_destructive,
            UNDOABLE,
            Trust::Trusted,
            PolicyRule::ReversibleNonDestructive,
        ),
        (
            |p| &mut p.non_destructive_write,
            APPEND,
            Trust::Trusted,
            PolicyRule::NonDestructiveWrite,
        ),
        (
            |p| &mut p.sensitive_and_privileged,
            READ.sensitive_data(true).privileged_access(true),
            Trust::Trusted,
            PolicyRule::SensitiveAndPrivileged,
        ),
        (
            |p| &mut p.privileged_access,
            READ.privileged_access(true),
            Trust::Trusted,
            PolicyRule::PrivilegedAccess,
        ),
        (
            |p| &mut p.sensitive_data,
            READ.sensitive_data(true),
            Trust::Trusted,
            PolicyRule::SensitiveData,
        ),
        (
            |p| &mut p.untrusted_server,
            READ,
            Trust::Untrusted,
            // Deny beats the strong confirmation of its assumed sensitive
            // privileged access.
            PolicyRule::UntrustedServer,
        ),
    ];
    for (field, annotations, trust, rule) in cases {
        let mut policy = Policy::default();
        *field(&mut policy) = Verdict::Deny;
        let decision = decide(&policy, annotations, trust);
        assert!(decision.is_denied(), "{rule:?}: {decision}");
        assert_eq!(decision.reason().rule, rule);
    }
    // Relaxing: a host that lets trusted destructive calls run.
    let relaxed = Policy {
        destructive: Verdict::Allow,
        ..Policy::default()
    };
    assert!(decide(&relaxed, DELETE, Trust::Trusted).is_allowed());
}

#[test]
fn host_rules_come_first_and_can_only_be_outvoted_by_stricter_rules() {
    let arguments: Map<String, Value> = json!({"path": "/etc/passwd"}).as_object().unwrap().clone();
    let policy = Policy::default()
        .with_rule(HostRule::new("system-files", |call| {
            let path = call.arguments().get("path")?.as_str()?;
            path.starts_with("/etc/").then(|| {
                (
                    Verdict::Confirm(Strength::Normal),
                    format!("`{}` touches {path}", call.tool()),
                )
            })
        }))
        .with_rule(HostRule::new("ignored", |_| None));
    assert_eq!(policy.host_rules[0].name(), "system-files");

    // Ties go to the host rule.
    let call = ProposedCall::new("files", &arguments, DELETE, Trust::Trusted);
    assert_eq!(
        policy.decide(&call),
        Decision::Confirm {
            strength: Strength::Normal,
            reason: Reason {
                rule: PolicyRule::Host("system-files".into()),
                message: "`files` touches /etc/passwd".into()
            }
        }
    );
    // A read that the built-in rules allow is now confirmed.
    let read = ProposedCall::new("files", &arguments, READ, Trust::Trusted);
    assert_eq!(
        policy.decide(&read).reason().rule,
        PolicyRule::Host("system-files".into())
    );
    // A stricter built-in rule still wins.
    let risky = DELETE.sensitive_data(true).privileged_access(true);
    let call = ProposedCall::new("files", &arguments, risky, Trust::Trusted);
    assert_eq!(
        policy.decide(&call).reason().rule,
        PolicyRule::SensitiveAndPrivileged
    );
    // Other arguments: the host rule stays silent.
    let elsewhere = Map::new();
    let call = ProposedCall::new("files", &elsewhere, READ, Trust::Trusted);
    assert!(policy.decide(&call).is_allowed());
}

#[test]
fn retrying_is_safe_only_for_trusted_idempotent_calls() {
    let arguments = Map::new();
    let put = APPEND.idempotent(true);
    for (annotations, trust, safe) in [
        (put, Trust::Trusted, true),
        (READ, Trust::Trusted, true),
        (APPEND, Trust::Trusted, false),
        (put, Trust::Untrusted, false),
        (READ, Trust::Untrusted, false),
    ] {
        let call = ProposedCall::new("t", &arguments, annotations, trust);
        assert_eq!(call.retry_is_safe(), safe, "{annotations} {trust:?}");
    }
}

/// Every combination of the hints the policy reads.
fn combinations() -> Vec<Annotations> {
    let hints = [
        Hint::ReadOnly,
        Hint::Destructive,
        Hint::Reversible,
        Hint::SensitiveData,
        Hint::PrivilegedAccess,
        Hint::OpenWorld,
    ];
    let mut all = vec![Annotations::new()];
    for hint in hints {
        all = all
            .into_iter()
            .flat_map(|a| [None, Some(false), Some(true)].map(|value| a.with(hint, value)))
            .collect();
    }
    all
}

#[test]
fn less_claimed_risk_never_makes_a_decision_stricter() {
    let policy = Policy::default();
    let all = combinations();
    let verdicts: Vec<[Verdict; 2]> = all
        .iter()
        .map(|&a| {
            [
                decide(&policy, a, Trust::Trusted).verdict(),
                decide(&policy, a, Trust::Untrusted).verdict(),
            ]
        })
        .collect();
    for (i, less) in all.iter().enumerate() {
        // Distrust never loosens.
        assert!(verdicts[i][0] <= verdicts[i][1], "{less}");
        for (j, more) in all.iter().enumerate() {
            if less.is_within(more) {
                assert!(
                    verdicts[i][0] <= verdicts[j][0] && verdicts[i][1] <= verdicts[j][1],
                    "{less} decided stricter than {more}"
                );
            }
        }
    }
}

#[test]
fn a_decision_answers_exactly_one_of_its_three_questions() {
    let reason = || Reason {
        rule: PolicyRule::ReadOnly,
        message: "m".into(),
    };
    // (verdict, is_allowed, needs_confirmation, is_denied), written out.
    let table = [
        (Verdict::Allow, true, false, false),
        (Verdict::Confirm(Strength::Light), false, true, false),
        (Verdict::Confirm(Strength::Normal), false, true, false),
        (Verdict::Confirm(Strength::Strong), false, true, false),
        (Verdict::Deny, false, false, true),
    ];
    for (verdict, allowed, confirm, denied) in table {
        let decision = Decision::new(verdict, reason());
        assert_eq!(decision.verdict(), verdict);
        assert_eq!(
            (
                decision.is_allowed(),
                decision.needs_confirmation(),
                decision.is_denied()
            ),
            (allowed, confirm, denied),
            "{decision}"
        );
    }
    // And through the policy: a destructive call is not allowed, a trusted
    // read needs no confirmation.
    let delete = decide(&Policy::default(), DELETE, Trust::Trusted);
    assert!(!delete.is_allowed() && delete.needs_confirmation());
    let read = decide(&Policy::default(), READ, Trust::Trusted);
    assert!(read.is_allowed() && !read.needs_confirmation());
}

/// A proposed call and a resolution hand back exactly what went in, and the
/// combined annotations keep the static value of every hint left unstated.
#[test]
fn a_call_and_its_resolution_keep_what_went_in() {
    let mut arguments = Map::new();
    arguments.insert("path".into(), json!("notes/x.txt"));
    let declared = Annotations::new()
        .read_only(false)
        .destructive(true)
        .open_world(false);
    let call = ProposedCall::new("delete", &arguments, declared, Trust::Untrusted);
    assert_eq!(call.declared(), declared);
    assert_eq!(call.resolution(), None);

    let stated = Annotations::new().destructive(false);
    let resolution = Resolution::check(declared, stated).unwrap();
    assert_eq!(resolution.declared(), declared);
    assert_eq!(resolution.stated(), stated);
    assert_eq!(
        resolution.annotations(),
        Annotations::new()
            .read_only(false)
            .destructive(false)
            .open_world(false)
    );
    let resolved = call.with_resolution(resolution).unwrap();
    assert_eq!(resolved.declared(), declared);
    assert_eq!(resolved.resolution(), Some(&resolution));
    assert_eq!(
        resolved.resolution().map(|r| r.stated()),
        Some(Annotations::new().destructive(false))
    );
}

/// A host rule prints its name, not its closure.
#[test]
fn a_host_rule_debugs_as_its_name() {
    let rule = HostRule::new("no-etc", |_| None);
    assert_eq!(format!("{rule:?}"), r#"HostRule { name: "no-etc" }"#);
}
