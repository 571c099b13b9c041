//! Confirmations through the host, bound to the exact call.
//!
//! The gateway asks with `elicitation/create` under a fresh request id and
//! waits for the answer to that id alone, once: an accept answers one
//! question about one call. The question carries the call's digest (the
//! upstream, the tool, the canonical arguments and the resolved
//! annotations), which is what the log keeps beside the accept, so an accept
//! can neither be replayed (the id is spent) nor stand for another call (the
//! call forwarded is the one digested, never re-read from the host).

use std::time::Duration;

use serde_json::{Value, json};

use annot_runtime::protocol::CLIENT_CAPABILITIES_META;

use crate::config::ConfirmMode;
use crate::digest;
use crate::gateway::Gateway;
use crate::store::{ApprovalRequest, ApprovalState, now_ms};

/// How long a person has to answer.
const CONFIRMATION_TIMEOUT: Duration = Duration::from_secs(300);

/// How often a call waiting on the approvals page looks at the store
/// besides being woken by this process's page: the decision may come from
/// another process's.
const PAGE_POLL: Duration = Duration::from_millis(500);

/// What a confirmation came to.
pub(crate) enum Confirmation {
    /// Accepted, for the call of this digest.
    Accepted(String),
    /// The person said no.
    Declined,
    /// The person dismissed the question.
    Cancelled,
    /// Approved on the approvals page, by this approver, for the call of
    /// this digest.
    ApprovedOnPage { digest: String, by: String },
    /// Denied on the approvals page, by this approver.
    DeniedOnPage(String),
    /// Nobody could be asked, or no answer came.
    NotObtained(String),
}

impl Confirmation {
    pub(crate) fn is_accepted(&self) -> bool {
        matches!(
            self,
            Confirmation::Accepted(_) | Confirmation::ApprovedOnPage { .. }
        )
    }

    /// What the log and the refusal say.
    pub(crate) fn describe(&self) -> String {
        match self {
            Confirmation::Accepted(digest) => format!("accepted for {digest}"),
            Confirmation::Declined => "the person declined it".to_owned(),
            Confirmation::Cancelled => "the person dismissed the question".to_owned(),
            Confirmation::ApprovedOnPage { digest, by } => {
                format!("approved by {by} on the approvals page, for {digest}")
            }
            Confirmation::DeniedOnPage(by) => format!("{by} denied it on the approvals page"),
            Confirmation::NotObtained(why) => why.clone(),
        }
    }
}

/// The question a confirmation asks, and the digest it is bound to.
pub(crate) struct Question {
    pub digest: String,
    pub params: Value,
}

impl Question {
    /// The `elicitation/create` params for the call `binding` describes.
    pub(crate) fn new(binding: &Value, tool: &str, preview: Option<&str>, why: &str) -> Question {
        let digest = digest::of(binding);
        let shown = match preview {
            Some(preview) => preview.to_owned(),
            None => format!("{tool} {}", binding["arguments"]),
        };
        let params = json!({
            "message": format!("Allow this call?\n\n{shown}\n\n{why}\n\nCall digest: {digest}"),
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "approve": {
                        "type": "boolean",
                        "title": "Run this call",
                        "description": format!("Run `{tool}` with exactly these arguments, once"),
                    }
                },
                "required": ["approve"],
            },
            "_meta": {"dev.annot/gateway": {"callDigest": digest}},
        });
        Question { digest, params }
    }
}

/// What an elicitation result says about the call of `digest`.
fn read_answer(result: &Value, digest: String) -> Confirmation {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") if result.pointer("/content/approve") == Some(&json!(true)) => {
            Confirmation::Accepted(digest)
        }
        Some("accept") | Some("decline") => Confirmation::Declined,
        Some("cancel") => Confirmation::Cancelled,
        _ => Confirmation::NotObtained(format!(
            "the host's answer is not an elicitation result: {result}"
        )),
    }
}

/// How a 2026-07-28 call's confirmation stands.
pub(crate) enum RoundTrip {
    /// Ask: answer the call with this `input_required` result.
    Ask(Value),
    /// The retried call brought an answer.
    Answered(Confirmation),
}

impl Gateway {
    /// Whether the approvals page decides this call rather than the host:
    /// always with `--confirm page`, and with `ask` when the page is on and
    /// the host cannot be asked.
    pub(crate) fn page_decides(&self, params: &Value) -> bool {
        match self.settings.confirm {
            ConfirmMode::Page => true,
            ConfirmMode::Ask if self.settings.approvals.is_some() => {
                let host_elicits = if crate::era::is_modern("tools/call", params) {
                    declares_elicitation(params)
                } else {
                    self.state.lock().expect("state lock").host_elicits
                };
                !host_elicits
            }
            _ => false,
        }
    }

    /// Queues the call `request` describes on the approvals page and waits,
    /// without holding anything another request needs, until a person
    /// approves or denies it there or its time runs out.
    pub(crate) async fn confirm_on_page(&self, mut request: ApprovalRequest) -> Confirmation {
        let Some(page) = &self.settings.approvals else {
            return Confirmation::NotObtained("the approvals page is off".to_owned());
        };
        let store = self.store();
        // The same call by the same caller, approved or waiting in the store
        // (asked by a process that is gone, or by the host's earlier try):
        // taken up rather than asked twice.
        if let Ok(Some(id)) = store
            .claim_approved(&request.call_digest, &request.risk_key)
            .await
        {
            return self.approved_before(&id, request.call_digest).await;
        }
        let waiting = store
            .pending_approval_for(&request.call_digest, &request.risk_key)
            .await;
        match waiting.ok().flatten() {
            Some(queued) => request = queued,
            None => {
                request.id = digest::random_id();
                request.created_ms = now_ms();
                request.deadline_ms = request.created_ms + page.wait.as_millis() as i64;
                if let Err(error) = store.request_approval(&request).await {
                    return Confirmation::NotObtained(format!(
                        "the gateway's store failed: {error}"
                    ));
                }
            }
        }
        loop {
            // Armed before the look, so a decision in between still wakes it.
            let changed = self.shared.decided.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            match store.approval_state(&request.id).await {
                Ok(Some(ApprovalState::Pending)) => {}
                Ok(Some(ApprovalState::Approved { by, .. })) => {
                    // One approval, one call: spent here, so neither a replay
                    // nor a second try of the same call can use it again.
                    return match store
                        .claim_approved(&request.call_digest, &request.risk_key)
                        .await
                    {
                        Ok(Some(_)) => Confirmation::ApprovedOnPage {
                            digest: request.call_digest,
                            by,
                        },
                        Ok(None) => Confirmation::NotObtained(
                            "its approval was used by another try of the same call".to_owned(),
                        ),
                        Err(error) => Confirmation::NotObtained(format!(
                            "the gateway's store failed: {error}"
                        )),
                    };
                }
                Ok(Some(ApprovalState::Denied { by })) => {
                    return Confirmation::DeniedOnPage(by);
                }
                Ok(Some(ApprovalState::Expired)) => {
                    return Confirmation::NotObtained(format!(
                        "nobody decided on the approvals page within {}",
                        spoken(page.wait)
                    ));
                }
                Ok(None) => {
                    return Confirmation::NotObtained(
                        "the call left the approvals queue undecided".to_owned(),
                    );
                }
                Err(error) => {
                    return Confirmation::NotObtained(format!(
                        "the gateway's store failed: {error}"
                    ));
                }
            }
            // Until just past the deadline, when the store reads it as expired.
            let left = (request.deadline_ms - now_ms()).max(0) as u64 + 1;
            let wake = PAGE_POLL.min(Duration::from_millis(left));
            tokio::select! {
                () = &mut changed => {}
                () = tokio::time::sleep(wake) => {}
            }
        }
    }

    /// The confirmation of approval `id`, just claimed for this call.
    async fn approved_before(&self, id: &str, digest: String) -> Confirmation {
        match self.store().approval_state(id).await {
            Ok(Some(ApprovalState::Approved { by, .. })) => {
                Confirmation::ApprovedOnPage { digest, by }
            }
            _ => Confirmation::ApprovedOnPage {
                digest,
                by: "a person on the approvals page".to_owned(),
            },
        }
    }

    /// Asks the host's person whether to make the call `question` is about,
    /// with `elicitation/create`, and waits for the answer to that request.
    pub(crate) async fn confirm(&self, question: Question) -> Confirmation {
        if !self.state.lock().expect("state lock").host_elicits {
            return Confirmation::NotObtained(
                "the host cannot be asked (it did not declare `elicitation`), so the gateway \
                 fails closed"
                    .to_owned(),
            );
        }
        let (id, answer) = self.ask_host(
            "annot-gateway-confirm",
            "elicitation/create",
            question.params,
        );
        let response = match tokio::time::timeout(CONFIRMATION_TIMEOUT, answer).await {
            Ok(Ok(response)) => response,
            Ok(Err(_)) => return Confirmation::NotObtained("the question was dropped".to_owned()),
            Err(_) => {
                self.forget_host_request(&id);
                return Confirmation::NotObtained(format!(
                    "no answer came within {} s",
                    CONFIRMATION_TIMEOUT.as_secs()
                ));
            }
        };
        if let Some(error) = response.get("error") {
            return Confirmation::NotObtained(format!("the host could not ask: {error}"));
        }
        let result = response.get("result").cloned().unwrap_or(Value::Null);
        read_answer(&result, question.digest)
    }

    /// A 2026-07-28 call's confirmation, by the multi-round-trip input
    /// request: the first round answers `input_required` with the question
    /// and a fresh `requestState`; the retried call brings the answer under
    /// that state, which is spent on use and holds only for the call of the
    /// same digest.
    pub(crate) async fn confirm_by_round_trip(
        &self,
        question: Question,
        params: &Value,
    ) -> RoundTrip {
        let host_elicits = declares_elicitation(params);
        if let Some(state) = params.get("requestState").and_then(Value::as_str) {
            let answered = match self.store().spend_round_trip(state).await {
                Err(error) => Confirmation::NotObtained(format!(
                    "the gateway's store failed, so the answer cannot be checked: {error}"
                )),
                Ok(None) => Confirmation::NotObtained(
                    "the answer came under a `requestState` the gateway did not issue or has \
                     already used (a replayed or forged answer)"
                        .to_owned(),
                ),
                Ok(Some(digest)) if digest != question.digest => {
                    Confirmation::NotObtained(format!(
                        "the answer was given for another call ({digest}, not {})",
                        question.digest
                    ))
                }
                Ok(Some(digest)) => match params.pointer("/inputResponses/confirm") {
                    Some(result) => read_answer(result, digest),
                    None => Confirmation::NotObtained("the retried call brought no answer".into()),
                },
            };
            return RoundTrip::Answered(answered);
        }
        if !host_elicits {
            return RoundTrip::Answered(Confirmation::NotObtained(
                "the host cannot be asked (its request did not declare `elicitation`), so the \
                 gateway fails closed"
                    .to_owned(),
            ));
        }
        let state = digest::random_id();
        // Kept in the store: the retried call may reach another process.
        let deadline = now_ms() + CONFIRMATION_TIMEOUT.as_millis() as i64;
        if let Err(error) = self
            .store()
            .issue_round_trip(&state, &question.digest, deadline)
            .await
        {
            return RoundTrip::Answered(Confirmation::NotObtained(format!(
                "the gateway's store failed, so the question cannot be asked: {error}"
            )));
        }
        RoundTrip::Ask(json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": question.params}},
            "requestState": state,
        }))
    }
}

/// Whether a 2026-07-28 request's capabilities declare `elicitation`.
fn declares_elicitation(params: &Value) -> bool {
    params
        .pointer("/_meta")
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_META))
        .and_then(|capabilities| capabilities.get("elicitation"))
        .is_some()
}

/// A wait as a person reads it: `2 s`, `1500 ms`.
fn spoken(wait: Duration) -> String {
    if wait.subsec_millis() == 0 {
        format!("{} s", wait.as_secs())
    } else {
        format!("{} ms", wait.as_millis())
    }
}
