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

use crate::digest;
use crate::gateway::Gateway;

/// How long a person has to answer.
const CONFIRMATION_TIMEOUT: Duration = Duration::from_secs(300);

/// What a confirmation came to.
pub(crate) enum Confirmation {
    /// Accepted, for the call of this digest.
    Accepted(String),
    /// The person said no.
    Declined,
    /// The person dismissed the question.
    Cancelled,
    /// Nobody could be asked, or no answer came.
    NotObtained(String),
}

impl Confirmation {
    pub(crate) fn is_accepted(&self) -> bool {
        matches!(self, Confirmation::Accepted(_))
    }

    /// What the log and the refusal say.
    pub(crate) fn describe(&self) -> String {
        match self {
            Confirmation::Accepted(digest) => format!("accepted for {digest}"),
            Confirmation::Declined => "the person declined it".to_owned(),
            Confirmation::Cancelled => "the person dismissed the question".to_owned(),
            Confirmation::NotObtained(why) => why.clone(),
        }
    }
}

impl Gateway {
    /// Asks the host's person whether to make the call `binding` describes.
    pub(crate) async fn confirm(
        &self,
        binding: &Value,
        tool: &str,
        preview: Option<&str>,
        why: &str,
    ) -> Confirmation {
        if !self.state.lock().expect("state lock").host_elicits {
            return Confirmation::NotObtained(
                "the host cannot be asked (it did not declare `elicitation`), so the gateway \
                 fails closed"
                    .to_owned(),
            );
        }
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
        let (id, answer) = self.ask_host("annot-gateway-confirm", "elicitation/create", params);
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
}
