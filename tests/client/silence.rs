//! Silence never lowers risk: a hint a resolution leaves out keeps its static
//! value in every dialect, and an untrusted server's silence or denial counts
//! as the risk in the policy and in the session.

use crate::client_support;
use annot::Annotations;
use annot::client::{
    Policy, PolicyRule, ProposedCall, Resolution, Session, Strength, Trust, Verdict,
};
use annot::protocol::Dialect;
use client_support::*;
use serde_json::{Map, json};

const STRONG: Verdict = Verdict::Confirm(Strength::Strong);

#[test]
fn a_trusted_servers_silence_keeps_the_declared_risk_in_every_dialect() {
    let tool = tool_declaring("vault", VAULT);
    let arguments = read_arguments();
    let mut seen = Vec::new();
    for dialect in Dialect::ALL {
        // Only the four core hints, read-only: what the seeds' servers answer.
        let mut server = Scripted::answering([Ok(answer(dialect, "vault", read_hints()))]);
        let preflight = only(dialect)
            .preflight(&mut server, &tool, &arguments)
            .unwrap();
        assert!(preflight.is_resolved(), "{dialect:?}: {}", preflight.source);
        let acted_on = preflight.annotations();
        assert_eq!(acted_on.read_only, Some(true), "{dialect:?}");
        assert_eq!(acted_on.sensitive_data, Some(true), "{dialect:?}");
        assert_eq!(acted_on.privileged_access, Some(true), "{dialect:?}");
        let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        let decision = Policy::default().decide(&call);
        assert_eq!(decision.verdict(), STRONG, "{dialect:?}: {decision}");
        assert_eq!(decision.reason().rule, PolicyRule::SensitiveAndPrivileged);
        seen.push(acted_on);
    }
    // The three dialects agree.
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[1], seen[2]);
}

#[test]
fn a_stated_false_still_lowers_the_risk_for_a_trusted_server() {
    let tool = tool_declaring("vault", VAULT);
    let mut hints = read_hints();
    hints["sensitiveDataHint"] = json!(false);
    let mut server = Scripted::answering([Ok(answer(Dialect::DynamicAnnotations, "vault", hints))]);
    let arguments = read_arguments();
    let preflight = only(Dialect::DynamicAnnotations)
        .preflight(&mut server, &tool, &arguments)
        .unwrap();
    assert_eq!(preflight.annotations().sensitive_data, Some(false));
    assert_eq!(preflight.annotations().privileged_access, Some(true));
    let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
    let decision = Policy::default().decide(&call);
    assert_eq!(
        (decision.verdict(), decision.reason().rule.clone()),
        (
            Verdict::Confirm(Strength::Normal),
            PolicyRule::PrivilegedAccess
        )
    );
}

#[test]
fn an_untrusted_servers_silence_completes_the_trifecta() {
    let arguments = Map::new();
    let policy = Policy::default();
    let mut session = Session::default();
    // The session has seen untrusted content, from a trusted web fetcher.
    let fetch = Annotations::new().read_only(true).open_world(true);
    let fetch = ProposedCall::new("fetch_page", &arguments, fetch, Trust::Trusted);
    assert!(session.review(&fetch, policy.decide(&fetch)).is_allowed());
    session.record(&fetch);
    // An untrusted open-world tool that makes no claim about sensitive data.
    let silent = Annotations::new().destructive(false).open_world(true);
    let call = ProposedCall::new("send", &arguments, silent, Trust::Untrusted);
    assert!(session.legs(&call).reads_private_data);
    let decision = session.review(&call, policy.decide(&call));
    assert!(decision.is_denied(), "{decision}");
    assert_eq!(decision.reason().rule, PolicyRule::Trifecta);
    // A `false` counts for as little as silence.
    let denied = silent.sensitive_data(false);
    let call = ProposedCall::new("send", &arguments, denied, Trust::Untrusted);
    let decision = session.review(&call, policy.decide(&call));
    assert_eq!(decision.reason().rule, PolicyRule::Trifecta, "{decision}");
    // The same tool from a trusted server is believed: no private data.
    let call = ProposedCall::new("send", &arguments, silent, Trust::Trusted);
    let decision = session.review(&call, policy.decide(&call));
    assert_eq!(decision.verdict(), Verdict::Confirm(Strength::Normal));
    assert_eq!(decision.reason().rule, PolicyRule::NonDestructiveWrite);
}

#[test]
fn an_untrusted_servers_silence_counts_as_sensitive_and_privileged() {
    let arguments = Map::new();
    for claimed in [
        Annotations::new().read_only(true).open_world(false),
        Annotations::new()
            .read_only(true)
            .sensitive_data(false)
            .privileged_access(false),
    ] {
        let call = ProposedCall::new("lookup", &arguments, claimed, Trust::Untrusted);
        let decision = Policy::default().decide(&call);
        assert_eq!(decision.verdict(), STRONG, "{claimed}");
        assert_eq!(decision.reason().rule, PolicyRule::SensitiveAndPrivileged);
        assert_eq!(
            decision.reason().message,
            "the server of `lookup` is not trusted, so its silence and its claims of safety \
             count as risk: `lookup` is treated as touching sensitive data with privileged access"
        );
    }
}

#[test]
fn with_resolution_only_takes_a_resolution_within_the_bound() {
    let arguments = Map::new();
    let declared = Annotations::new().read_only(true).open_world(false);
    // A claim of open-world access breaks this tool's bound: no resolution.
    let riskier = Annotations::new().read_only(true).open_world(true);
    assert!(Resolution::check(declared, riskier).is_err());
    // Checked against other static annotations, it is checked again.
    let elsewhere = Resolution::check(Annotations::new(), riskier).unwrap();
    let call = ProposedCall::new("read", &arguments, declared, Trust::Trusted);
    let violation = call.with_resolution(elsewhere).unwrap_err();
    assert_eq!(violation.hint, annot::Hint::OpenWorld);
}

#[test]
fn a_preflight_edited_by_hand_cannot_smuggle_a_resolution_past_the_bound() {
    // An unannotated tool: any resolution is within its worst case.
    let tool = tool_declaring("vault", Annotations::new());
    let arguments = read_arguments();
    let open = json!({"readOnlyHint": true, "openWorldHint": true});
    let mut server = Scripted::answering([Ok(answer(Dialect::DynamicAnnotations, "vault", open))]);
    let mut preflight = only(Dialect::DynamicAnnotations)
        .preflight(&mut server, &tool, &arguments)
        .unwrap();
    assert!(preflight.is_resolved());
    // The host swaps in closed-world static annotations; the open-world
    // resolution no longer fits them and is dropped, but the risk it admitted
    // stays: hint by hint the riskier of the two, so open world.
    preflight.declared = VAULT;
    let call = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
    assert!(call.resolution().is_none());
    let mut admitted = VAULT.effective();
    admitted.open_world = Some(true);
    assert_eq!(call.annotations(), admitted);
    assert_eq!(Policy::default().decide(&call).verdict(), STRONG);
}

#[test]
fn an_untrusted_server_that_claims_safety_through_the_preflight_is_not_believed() {
    let tool = tool_declaring("vault", VAULT);
    let arguments = read_arguments();
    // Every hint at its safe value: read-only, closed, not sensitive, not
    // privileged. Within the bound, so the preflight accepts it.
    let mut hints = read_hints();
    hints["sensitiveDataHint"] = json!(false);
    hints["privilegedAccessHint"] = json!(false);
    for dialect in [Dialect::DynamicAnnotations, Dialect::ResolveTool] {
        let mut server = Scripted::answering([Ok(answer(dialect, "vault", hints.clone()))]);
        let preflight = only(dialect)
            .preflight(&mut server, &tool, &arguments)
            .unwrap();
        assert!(preflight.is_resolved(), "{}", preflight.source);
        let trusted = ProposedCall::from_preflight(&preflight, &arguments, Trust::Trusted);
        assert!(Policy::default().decide(&trusted).is_allowed());
        let untrusted = ProposedCall::from_preflight(&preflight, &arguments, Trust::Untrusted);
        let believed = untrusted.annotations();
        assert_eq!(
            (
                believed.read_only,
                believed.open_world,
                believed.sensitive_data,
                believed.privileged_access
            ),
            (Some(false), Some(true), Some(true), Some(true)),
            "{dialect:?}"
        );
        assert_eq!(Policy::default().decide(&untrusted).verdict(), STRONG);
        // After untrusted content it would complete the trifecta.
        let mut session = Session::default();
        let fetch = Annotations::new().read_only(true).open_world(true);
        session.record(&ProposedCall::new(
            "fetch",
            &arguments,
            fetch,
            Trust::Trusted,
        ));
        let decision = session.review(&untrusted, Policy::default().decide(&untrusted));
        assert_eq!(decision.reason().rule, PolicyRule::Trifecta, "{decision}");
    }
}
