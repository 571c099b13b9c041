//! A call a model proposes, with the annotations the client may believe.

use serde_json::{Map, Value};

use super::resolution::with_admitted_risk;
use super::{Preflight, Resolution};
use crate::{Annotations, BoundViolation, Hint};

/// How far the host trusts a server's annotations.
///
/// Every annotation is a hint. A trusted server (one the host or its
/// organisation runs, or the user vouched for) is believed; an untrusted one is
/// believed only where it admits risk, never where it claims safety, and its
/// silence counts as an admission: a missing or `false` `sensitiveDataHint`
/// from an untrusted server is read as `true` by the policy and the session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Trust {
    /// The server's annotations are believed.
    Trusted,
    /// The server's claims of safety count as no claim.
    #[default]
    Untrusted,
}

impl Trust {
    /// The annotations a client may believe from a server of this trust level.
    ///
    /// A trusted server's annotations are returned as they are. For an untrusted
    /// server, silence never lowers risk: every hint that is absent or rules a risk
    /// out (`readOnlyHint: true`, `destructiveHint: false`,
    /// `sensitiveDataHint: false` or absent, ...) becomes its risky value, so
    /// wherever a decision depends on a hint, it sees the worst case. Claims of
    /// risk stay as they are, which makes every hint risky.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::Trust;
    /// use annot::Annotations;
    ///
    /// let claimed = Annotations::new().read_only(true).sensitive_data(false);
    /// let believed = Trust::Untrusted.screen(claimed).effective();
    /// assert_eq!(believed.read_only, Some(false));
    /// assert_eq!(believed.destructive, Some(true));
    /// assert_eq!(believed.sensitive_data, Some(true));
    /// assert_eq!(believed.privileged_access, Some(true), "silence counts as risk");
    /// assert_eq!(Trust::Trusted.screen(claimed), claimed);
    /// ```
    #[must_use]
    pub fn screen(self, annotations: Annotations) -> Annotations {
        match self {
            Trust::Trusted => annotations,
            Trust::Untrusted => Hint::ALL.into_iter().fold(annotations, |screened, hint| {
                // Absent (no claim) and the safe value both count as the risk.
                screened.with(hint, Some(hint.risky_value()))
            }),
        }
    }
}

/// A tool call a model proposes, as the policy and the session tracker see it.
///
/// It holds what the server claims (static annotations and, if any, a checked
/// [`Resolution`]) and derives what the client believes: for a trusted server
/// the resolution, whose unstated hints keep their static values (silence never
/// lowers risk), or the static annotations; for an untrusted one the worst case
/// of every hint ([`Trust::screen`]), since its claims of safety and its silence
/// are not believed.
#[derive(Clone, Debug, PartialEq)]
pub struct ProposedCall<'a> {
    tool: &'a str,
    arguments: &'a Map<String, Value>,
    trust: Trust,
    declared: Annotations,
    resolved: Option<Resolution>,
    /// What a rejected answer stated: its risk is kept, hint by hint.
    admitted: Option<Annotations>,
}

impl<'a> ProposedCall<'a> {
    /// A call of a tool with these static annotations (as listed), unresolved.
    pub fn new(
        tool: &'a str,
        arguments: &'a Map<String, Value>,
        declared: Annotations,
        trust: Trust,
    ) -> Self {
        ProposedCall {
            tool,
            arguments,
            trust,
            declared,
            resolved: None,
            admitted: None,
        }
    }

    /// The same call with the server's checked resolution for its arguments.
    ///
    /// # Errors
    ///
    /// When `resolution` was checked against other static annotations than this
    /// call's, it is checked again against this call's; the violation, if any.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::client::{ProposedCall, Resolution, Trust};
    /// use annot::{Annotations, Hint};
    /// use serde_json::Map;
    ///
    /// let arguments = Map::new();
    /// let declared = Annotations::new().read_only(true).open_world(false);
    /// let call = ProposedCall::new("read", &arguments, declared, Trust::Trusted);
    /// // Checked against looser annotations, the claim of open-world access
    /// // breaks this tool's bound.
    /// let loose = Resolution::check(Annotations::new(), Annotations::new().open_world(true))
    ///     .unwrap();
    /// assert_eq!(call.with_resolution(loose).unwrap_err().hint, Hint::OpenWorld);
    /// ```
    pub fn with_resolution(mut self, resolution: Resolution) -> Result<Self, BoundViolation> {
        self.resolved = Some(resolution.against(self.declared)?);
        Ok(self)
    }

    /// A call as a [`Preflight`] saw it: its static annotations and resolution.
    ///
    /// A resolution checked against other static annotations than the
    /// preflight's is checked again, and dropped if it breaks their bound.
    pub fn from_preflight(
        preflight: &'a Preflight,
        arguments: &'a Map<String, Value>,
        trust: Trust,
    ) -> Self {
        let checked = preflight
            .resolved
            .map(|resolution| resolution.against(preflight.declared));
        // A resolution that breaks these static annotations is dropped, and
        // the risk it states stays, as for an answer the preflight rejected.
        let rejected = match checked {
            Some(Err(_)) => preflight.resolved.map(|resolution| resolution.stated()),
            _ => None,
        };
        let admitted = match (preflight.admitted, rejected) {
            (Some(admitted), Some(stated)) => Some(with_admitted_risk(admitted, Some(stated))),
            (admitted, stated) => admitted.or(stated),
        };
        ProposedCall {
            tool: &preflight.tool,
            arguments,
            trust,
            declared: preflight.declared,
            resolved: checked.and_then(Result::ok),
            admitted,
        }
    }

    /// The tool's name.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The arguments of the call.
    pub fn arguments(&self) -> &'a Map<String, Value> {
        self.arguments
    }

    /// The trust level of the tool's server.
    pub fn trust(&self) -> Trust {
        self.trust
    }

    /// The static annotations of the tool, as listed.
    pub fn declared(&self) -> Annotations {
        self.declared
    }

    /// The checked resolution, if the server resolved the call.
    pub fn resolution(&self) -> Option<&Resolution> {
        self.resolved.as_ref()
    }

    /// What the server claims for this call: its resolution (unstated hints at
    /// their static values), else its static annotations, each hint at least
    /// as risky as an answer that broke the bound stated; defaults not
    /// applied, nothing screened.
    pub fn claimed(&self) -> Annotations {
        let claimed = self
            .resolved
            .map_or(self.declared, |resolution| resolution.annotations());
        with_admitted_risk(claimed, self.admitted)
    }

    /// What the client believes, defaults applied: the claim for a trusted server,
    /// the screened static annotations for an untrusted one.
    pub fn annotations(&self) -> Annotations {
        match self.trust {
            Trust::Trusted => self.claimed().effective(),
            Trust::Untrusted => Trust::Untrusted.screen(self.claimed()).effective(),
        }
    }

    /// Whether the call may be retried after a failure without asking again: the
    /// server is trusted and the call is idempotent (read-only calls are).
    pub fn retry_is_safe(&self) -> bool {
        self.annotations().idempotent == Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_safety_and_silence_both_count_as_the_risk_for_every_hint() {
        for hint in Hint::ALL {
            for value in [None, Some(false), Some(true)] {
                let claimed = Annotations::new().with(hint, value);
                assert_eq!(
                    Trust::Untrusted.screen(claimed).get(hint),
                    Some(hint.risky_value()),
                    "{hint} = {value:?}"
                );
                assert_eq!(Trust::Trusted.screen(claimed), claimed);
            }
        }
    }

    #[test]
    fn an_untrusted_resolution_is_ignored() {
        let arguments = Map::new();
        let declared = Annotations::new().destructive(true).open_world(false);
        let stated = Annotations::new().read_only(true).open_world(false);
        let resolution = Resolution::check(declared, stated).unwrap();
        let trusted = ProposedCall::new("t", &arguments, declared, Trust::Trusted)
            .with_resolution(resolution)
            .unwrap();
        assert!(trusted.annotations().is_read_only());
        assert!(trusted.retry_is_safe());
        let untrusted = ProposedCall {
            trust: Trust::Untrusted,
            ..trusted.clone()
        };
        assert_eq!(untrusted.claimed(), stated.destructive(true));
        let believed = untrusted.annotations();
        assert!(!believed.is_read_only());
        assert_eq!(believed.destructive, Some(true));
        assert_eq!(believed.open_world, Some(true));
        assert_eq!(believed.sensitive_data, Some(true));
        assert!(!untrusted.retry_is_safe());
    }

    #[test]
    fn a_resolution_for_other_static_annotations_is_checked_again() {
        let arguments = Map::new();
        let declared = Annotations::new().read_only(true).open_world(false);
        let loose =
            Resolution::check(Annotations::new(), Annotations::new().read_only(false)).unwrap();
        let call = ProposedCall::new("t", &arguments, declared, Trust::Trusted);
        assert_eq!(
            call.clone().with_resolution(loose).unwrap_err().hint,
            Hint::ReadOnly
        );
        let fits =
            Resolution::check(Annotations::new(), Annotations::new().read_only(true)).unwrap();
        let call = call.with_resolution(fits).unwrap();
        assert_eq!(call.resolution().unwrap().declared(), declared);
    }
}
