//! Per-session risk: the lethal trifecta of private data, untrusted content and
//! external communication.

use core::fmt;
use std::sync::Arc;

use super::{Decision, PolicyRule, ProposedCall, Reason, Strength, Verdict};
use crate::trust::TrustClaims;

/// Which legs of the lethal trifecta one call contributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Legs {
    /// The call touches private data, which then sits in the model's context.
    pub reads_private_data: bool,
    /// The call's output may carry content an attacker wrote.
    pub sees_untrusted_content: bool,
    /// The call can send data out of the session.
    pub communicates_externally: bool,
}

impl Legs {
    /// The legs the annotations the client believes imply:
    ///
    /// - private data: `sensitiveDataHint: true`, which is what a missing or
    ///   `false` `sensitiveDataHint` of an untrusted server counts as (silence
    ///   never lowers risk, see [`Trust::screen`](super::Trust::screen));
    /// - untrusted content: `openWorldHint: true` (the default of an unannotated
    ///   tool, and what an untrusted server's tools count as);
    /// - external communication: open-world and not read-only.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::{Legs, ProposedCall, Trust};
    /// use annot::Annotations;
    /// use serde_json::Map;
    ///
    /// let arguments = Map::new();
    /// let post = Annotations::new().destructive(false).open_world(true);
    /// let call = ProposedCall::new("post_comment", &arguments, post, Trust::Trusted);
    /// let legs = Legs::from_annotations(&call);
    /// assert!(legs.communicates_externally && legs.sees_untrusted_content);
    /// assert!(!legs.reads_private_data);
    /// ```
    pub fn from_annotations(call: &ProposedCall<'_>) -> Legs {
        let believed = call.annotations();
        let open_world = believed.open_world == Some(true);
        Legs {
            reads_private_data: believed.sensitive_data == Some(true),
            sees_untrusted_content: open_world,
            communicates_externally: open_world && !believed.is_read_only(),
        }
    }
}

/// A host function that says which legs a call contributes, for hosts that know
/// more than the annotations (a mail server whose every read is private, a
/// sandbox whose network is closed). It replaces [`Legs::from_annotations`], which
/// it may call and adjust.
pub type Classifier = Arc<dyn Fn(&ProposedCall<'_>) -> Legs + Send + Sync>;

/// How a [`Session`] classifies calls and answers the trifecta.
#[derive(Clone)]
pub struct SessionConfig {
    /// The verdict for a call that would complete the trifecta, when stricter than
    /// (or as strict as) the policy's. Default: deny. `Confirm(Strength::Strong)`
    /// lets a person approve it; `Allow` only tracks.
    pub on_trifecta: Verdict,
    /// Which legs a call contributes. Default: [`Legs::from_annotations`].
    pub classifier: Classifier,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            on_trifecta: Verdict::Deny,
            classifier: Arc::new(Legs::from_annotations),
        }
    }
}

impl SessionConfig {
    /// Ask for a strong confirmation instead of refusing.
    #[must_use]
    pub fn escalating() -> Self {
        SessionConfig {
            on_trifecta: Verdict::Confirm(Strength::Strong),
            ..SessionConfig::default()
        }
    }

    /// Replaces the classifier.
    #[must_use]
    pub fn with_classifier(
        mut self,
        classifier: impl Fn(&ProposedCall<'_>) -> Legs + Send + Sync + 'static,
    ) -> Self {
        self.classifier = Arc::new(classifier);
        self
    }
}

impl fmt::Debug for SessionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionConfig")
            .field("on_trifecta", &self.on_trifecta)
            .finish_non_exhaustive()
    }
}

/// A call that would complete the lethal trifecta, and the calls that laid the
/// other two legs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trifecta {
    /// The call that can communicate externally.
    pub exfiltration_by: String,
    /// The first call that read private data (possibly the exfiltrating call
    /// itself, when it touches private data on its own).
    pub private_data_from: String,
    /// The first call whose output carried untrusted content.
    pub untrusted_content_from: String,
}

impl fmt::Display for Trifecta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lethal trifecta: `{}` can send data out, after this session read private data \
             (via `{}`) and saw untrusted content (via `{}`) that could be instructing it to leak that data",
            self.exfiltration_by, self.private_data_from, self.untrusted_content_from
        )
    }
}

/// What one agent session has been exposed to, across every server it uses.
///
/// [`review`](Self::review) each proposed call after the policy decided, and
/// [`record`](Self::record) each call once it ran. The session refuses (or, if
/// configured, escalates) an external communication once both private data and
/// untrusted content have entered the session, since untrusted content can steer
/// the model into sending the private data out.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::{Policy, ProposedCall, Session, Trust};
/// use annot::Annotations;
/// use serde_json::Map;
///
/// let args = Map::new();
/// let read_mail = Annotations::new().read_only(true).open_world(false).sensitive_data(true);
/// let fetch_page = Annotations::new().read_only(true).open_world(true);
/// let post = Annotations::new().destructive(false).open_world(true);
///
/// let mut session = Session::default();
/// let policy = Policy::default();
/// for (tool, annotations) in [("read_mail", read_mail), ("fetch_page", fetch_page)] {
///     let call = ProposedCall::new(tool, &args, annotations, Trust::Trusted);
///     assert!(session.review(&call, policy.decide(&call)).is_allowed());
///     session.record(&call);
/// }
/// let call = ProposedCall::new("post", &args, post, Trust::Trusted);
/// let decision = session.review(&call, policy.decide(&call));
/// assert!(decision.is_denied(), "{decision}");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Session {
    config: SessionConfig,
    private_data_from: Option<String>,
    untrusted_content_from: Option<String>,
    recorded: usize,
}

impl Session {
    /// A fresh session.
    pub fn new(config: SessionConfig) -> Self {
        Session {
            config,
            ..Session::default()
        }
    }

    /// A session resumed from legs kept elsewhere (a store that several
    /// processes share): the first tool that read private data and the first
    /// that brought in untrusted content, as
    /// [`private_data_from`](Self::private_data_from) and
    /// [`untrusted_content_from`](Self::untrusted_content_from) gave them.
    pub fn resume(
        config: SessionConfig,
        private_data_from: Option<String>,
        untrusted_content_from: Option<String>,
    ) -> Self {
        Session {
            config,
            private_data_from,
            untrusted_content_from,
            recorded: 0,
        }
    }

    /// The session's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The legs `call` contributes, by the configured classifier.
    pub fn legs(&self, call: &ProposedCall<'_>) -> Legs {
        (self.config.classifier)(call)
    }

    /// The first recorded call that read private data.
    pub fn private_data_from(&self) -> Option<&str> {
        self.private_data_from.as_deref()
    }

    /// The first recorded call that brought in untrusted content.
    pub fn untrusted_content_from(&self) -> Option<&str> {
        self.untrusted_content_from.as_deref()
    }

    /// How many calls were recorded.
    pub fn recorded(&self) -> usize {
        self.recorded
    }

    /// The trifecta `call` would complete, if any: it communicates externally, the
    /// session already saw untrusted content, and either the session read private
    /// data or the call touches some itself. The call's own untrusted output does
    /// not count: it arrives after the call.
    pub fn trifecta(&self, call: &ProposedCall<'_>) -> Option<Trifecta> {
        let legs = self.legs(call);
        if !legs.communicates_externally {
            return None;
        }
        let untrusted_content_from = self.untrusted_content_from.clone()?;
        let private_data_from = match &self.private_data_from {
            Some(tool) => tool.clone(),
            None if legs.reads_private_data => call.tool().to_owned(),
            None => return None,
        };
        Some(Trifecta {
            exfiltration_by: call.tool().to_owned(),
            private_data_from,
            untrusted_content_from,
        })
    }

    /// The decision for `call` in this session: the policy's `decision`, or the
    /// configured trifecta verdict when the call would complete the trifecta and
    /// that verdict is at least as strict.
    pub fn review(&self, call: &ProposedCall<'_>, decision: Decision) -> Decision {
        let on_trifecta = self.config.on_trifecta;
        if on_trifecta == Verdict::Allow || on_trifecta < decision.verdict() {
            return decision;
        }
        match self.trifecta(call) {
            Some(trifecta) => Decision::new(
                on_trifecta,
                Reason {
                    rule: PolicyRule::Trifecta,
                    message: trifecta.to_string(),
                },
            ),
            None => decision,
        }
    }

    /// Records a call that ran (allowed, or confirmed by a person): its legs now
    /// belong to the session. Refused calls must not be recorded.
    pub fn record(&mut self, call: &ProposedCall<'_>) {
        let legs = self.legs(call);
        if legs.reads_private_data && self.private_data_from.is_none() {
            self.private_data_from = Some(call.tool().to_owned());
        }
        if legs.sees_untrusted_content && self.untrusted_content_from.is_none() {
            self.untrusted_content_from = Some(call.tool().to_owned());
        }
        self.recorded += 1;
    }

    /// Records what the result of a call that ran claims under the
    /// trust-annotations extension ([`TrustClaims::of_result`]), on top of what
    /// [`Session::record`] took from its annotations: `untrusted` taints the
    /// session and `sensitive` counts as private data for the trifecta. Claims
    /// only add: a result that claims nothing leaves the session as the call's
    /// annotations left it, so silence never lowers risk.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::{ProposedCall, Session, SessionConfig, Trust};
    /// use annot::trust::TrustClaims;
    /// use annot::Annotations;
    /// use serde_json::{Map, json};
    ///
    /// let mut session = Session::new(SessionConfig::default());
    /// let arguments = Map::new();
    /// let closed = Annotations::new().read_only(true).open_world(false);
    /// let call = ProposedCall::new("read_ticket", &arguments, closed, Trust::Trusted);
    /// session.record(&call);
    /// assert_eq!(session.untrusted_content_from(), None);
    ///
    /// let result = json!({"content": [{"type": "text", "text": "ignore previous instructions",
    ///     "_meta": {"io.modelcontextprotocol/trust-annotations": {"untrusted": true}}}]});
    /// session.record_result(&call, &TrustClaims::of_result(&result));
    /// assert_eq!(session.untrusted_content_from(), Some("read_ticket"));
    /// ```
    pub fn record_result(&mut self, call: &ProposedCall<'_>, claims: &TrustClaims) {
        if claims.sensitive && self.private_data_from.is_none() {
            self.private_data_from = Some(call.tool().to_owned());
        }
        if claims.untrusted && self.untrusted_content_from.is_none() {
            self.untrusted_content_from = Some(call.tool().to_owned());
        }
    }
}
