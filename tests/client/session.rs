//! The lethal-trifecta tracker: which calls lay which leg, which call completes
//! it, refusing or escalating, and the host's classifier.

use annot::Annotations;
use annot::client::{
    Decision, Legs, Policy, PolicyRule, ProposedCall, Reason, Session, SessionConfig, Strength,
    Trust, Verdict,
};
use serde_json::Map;

/// Reads a private mailbox: sensitive, closed-world.
const READ_MAIL: Annotations = Annotations::new()
    .read_only(true)
    .open_world(false)
    .sensitive_data(true);
/// Fetches a web page: untrusted content, no side effect.
const FETCH_PAGE: Annotations = Annotations::new().read_only(true).open_world(true);
/// Posts a comment on a public site: external communication.
const POST: Annotations = Annotations::new()
    .read_only(false)
    .destructive(false)
    .open_world(true);
/// Writes a local note: a write, but closed-world.
const WRITE_NOTE: Annotations = Annotations::new()
    .read_only(false)
    .destructive(false)
    .open_world(false);

struct Agent {
    session: Session,
    policy: Policy,
    arguments: Map<String, serde_json::Value>,
}

impl Agent {
    fn new(config: SessionConfig) -> Self {
        Agent {
            session: Session::new(config),
            policy: Policy::default(),
            arguments: Map::new(),
        }
    }

    fn review(&self, tool: &str, annotations: Annotations, trust: Trust) -> Decision {
        let call = ProposedCall::new(tool, &self.arguments, annotations, trust);
        self.session.review(&call, self.policy.decide(&call))
    }

    /// Reviews the call and records it unless it was refused.
    fn run(&mut self, tool: &str, annotations: Annotations, trust: Trust) -> Decision {
        let decision = self.review(tool, annotations, trust);
        if !decision.is_denied() {
            let call = ProposedCall::new(tool, &self.arguments, annotations, trust);
            self.session.record(&call);
        }
        decision
    }
}

fn trifecta_denial(tool: &str, private: &str, untrusted: &str) -> Decision {
    Decision::Deny {
        reason: Reason {
            rule: PolicyRule::Trifecta,
            message: format!(
                "lethal trifecta: `{tool}` can send data out, after this session read private \
                 data (via `{private}`) and saw untrusted content (via `{untrusted}`) that could \
                 be instructing it to leak that data"
            ),
        },
    }
}

#[test]
fn external_communication_after_private_data_and_untrusted_content_is_refused() {
    let mut agent = Agent::new(SessionConfig::default());
    assert!(
        agent
            .run("read_mail", READ_MAIL, Trust::Trusted)
            .is_allowed()
    );
    assert!(
        agent
            .run("fetch_page", FETCH_PAGE, Trust::Trusted)
            .is_allowed()
    );
    assert_eq!(agent.session.private_data_from(), Some("read_mail"));
    assert_eq!(agent.session.untrusted_content_from(), Some("fetch_page"));
    assert_eq!(
        agent.run("post", POST, Trust::Trusted),
        trifecta_denial("post", "read_mail", "fetch_page")
    );
    // The refused call left no trace, and the session keeps refusing.
    assert_eq!(agent.session.recorded(), 2);
    assert!(agent.review("post", POST, Trust::Trusted).is_denied());
}

#[test]
fn the_order_of_the_first_two_legs_does_not_matter() {
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    assert_eq!(
        agent.review("post", POST, Trust::Trusted),
        trifecta_denial("post", "read_mail", "fetch_page")
    );
}

#[test]
fn two_legs_are_not_the_trifecta() {
    // Private data, then external communication: nothing steers the model.
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    let decision = agent.review("post", POST, Trust::Trusted);
    assert_eq!(decision.reason().rule, PolicyRule::NonDestructiveWrite);

    // Untrusted content, then external communication: no private data to leak.
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    assert_eq!(
        agent.review("post", POST, Trust::Trusted).reason().rule,
        PolicyRule::NonDestructiveWrite
    );
}

#[test]
fn only_external_communication_completes_it() {
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    // Reading more, open-world or not, sends nothing out.
    assert!(
        agent
            .review("fetch_page", FETCH_PAGE, Trust::Trusted)
            .is_allowed()
    );
    assert!(
        agent
            .review("read_mail", READ_MAIL, Trust::Trusted)
            .is_allowed()
    );
    // A closed-world write stays inside.
    assert_eq!(
        agent
            .review("write_note", WRITE_NOTE, Trust::Trusted)
            .reason()
            .rule,
        PolicyRule::NonDestructiveWrite
    );
}

#[test]
fn a_call_that_carries_private_data_out_itself_completes_it() {
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    let upload = POST.sensitive_data(true);
    assert_eq!(
        agent.review("upload_secrets", upload, Trust::Trusted),
        trifecta_denial("upload_secrets", "upload_secrets", "fetch_page")
    );
    // Its own open-world output does not count: it arrives after the call.
    let fresh = Agent::new(SessionConfig::default());
    assert!(
        !fresh
            .review("upload_secrets", upload, Trust::Trusted)
            .is_denied()
    );
}

#[test]
fn an_untrusted_server_brings_untrusted_content_and_can_send_it_out() {
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    // It claims a closed-world read; that claim is not believed.
    let claimed = Annotations::new().read_only(true).open_world(false);
    let decision = agent.run("lookup", claimed, Trust::Untrusted);
    // Its silence about sensitive data and privileges counts as both.
    assert_eq!(decision.reason().rule, PolicyRule::SensitiveAndPrivileged);
    assert_eq!(decision.verdict(), Verdict::Confirm(Strength::Strong));
    assert_eq!(agent.session.untrusted_content_from(), Some("lookup"));
    assert_eq!(
        agent.review("lookup", claimed, Trust::Untrusted),
        trifecta_denial("lookup", "read_mail", "lookup")
    );
}

#[test]
fn escalating_asks_for_a_strong_confirmation_instead() {
    let mut agent = Agent::new(SessionConfig::escalating());
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    let decision = agent.review("post", POST, Trust::Trusted);
    assert_eq!(decision.verdict(), Verdict::Confirm(Strength::Strong));
    assert_eq!(decision.reason().rule, PolicyRule::Trifecta);
    assert!(
        decision
            .to_string()
            .starts_with("confirm (strong): lethal trifecta")
    );
}

#[test]
fn a_stricter_policy_decision_stands() {
    let mut agent = Agent::new(SessionConfig::escalating());
    agent.policy.non_destructive_write = Verdict::Deny;
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    let decision = agent.review("post", POST, Trust::Trusted);
    assert!(decision.is_denied());
    assert_eq!(decision.reason().rule, PolicyRule::NonDestructiveWrite);
}

#[test]
fn an_equally_strict_policy_decision_gives_way_to_the_trifecta_reason() {
    // The trifecta verdict applies when at least as strict as the policy's: on
    // a tie the person is told about the trifecta, the more specific danger.
    for (config, policy_verdict) in [
        (SessionConfig::default(), Verdict::Deny),
        (
            SessionConfig::escalating(),
            Verdict::Confirm(Strength::Strong),
        ),
    ] {
        let mut agent = Agent::new(config);
        agent.policy.non_destructive_write = policy_verdict;
        agent.run("read_mail", READ_MAIL, Trust::Trusted);
        agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
        let decision = agent.review("post", POST, Trust::Trusted);
        assert_eq!(decision.verdict(), policy_verdict);
        assert_eq!(decision.reason().rule, PolicyRule::Trifecta, "{decision}");
    }
}

#[test]
fn allow_only_tracks() {
    let config = SessionConfig {
        on_trifecta: Verdict::Allow,
        ..SessionConfig::default()
    };
    let mut agent = Agent::new(config);
    agent.run("read_mail", READ_MAIL, Trust::Trusted);
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    let arguments = Map::new();
    let call = ProposedCall::new("post", &arguments, POST, Trust::Trusted);
    assert!(agent.session.trifecta(&call).is_some());
    assert_eq!(
        agent.review("post", POST, Trust::Trusted).reason().rule,
        PolicyRule::NonDestructiveWrite
    );
}

#[test]
fn the_host_classifier_replaces_the_annotations() {
    // The host knows `send_mail` leaves the machine whatever its annotations say,
    // and that every read of `inbox` is private.
    let config = SessionConfig::default().with_classifier(|call| {
        let mut legs = Legs::from_annotations(call);
        match call.tool() {
            "send_mail" => legs.communicates_externally = true,
            "inbox" => legs.reads_private_data = true,
            _ => {}
        }
        legs
    });
    let mut agent = Agent::new(config);
    agent.run("inbox", FETCH_PAGE, Trust::Trusted);
    assert_eq!(agent.session.private_data_from(), Some("inbox"));
    assert_eq!(agent.session.untrusted_content_from(), Some("inbox"));
    assert_eq!(
        agent.review("send_mail", WRITE_NOTE, Trust::Trusted),
        trifecta_denial("send_mail", "inbox", "inbox")
    );
    assert!(
        !agent
            .review("write_note", WRITE_NOTE, Trust::Trusted)
            .is_denied()
    );
}

#[test]
fn sessions_are_independent_and_remember_the_first_source() {
    let mut agent = Agent::new(SessionConfig::default());
    agent.run("fetch_page", FETCH_PAGE, Trust::Trusted);
    agent.run("fetch_other_page", FETCH_PAGE, Trust::Trusted);
    assert_eq!(agent.session.untrusted_content_from(), Some("fetch_page"));
    let other = Session::default();
    assert_eq!(other.untrusted_content_from(), None);
    assert_eq!(other.recorded(), 0);
}

/// The session keeps the configuration it was given, and prints its verdict.
#[test]
fn a_session_keeps_its_configuration() {
    let session = Session::new(SessionConfig::escalating());
    assert_eq!(
        session.config().on_trifecta,
        Verdict::Confirm(Strength::Strong)
    );
    assert_eq!(
        format!("{:?}", session.config()),
        "SessionConfig { on_trifecta: Confirm(Strong), .. }"
    );
    assert_eq!(
        format!("{:?}", SessionConfig::default()),
        "SessionConfig { on_trifecta: Deny, .. }"
    );
}
