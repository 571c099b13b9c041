//! A call a model proposes, with the annotations the client may believe.

use serde_json::{Map, Value};

use super::Preflight;
use crate::{Annotations, Hint};

/// How far the host trusts a server's annotations.
///
/// Every annotation is a hint. A trusted server (one the host or its
/// organisation runs, or the user vouched for) is believed; an untrusted one is
/// believed only where it admits risk, never where it claims safety.
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
    /// For an untrusted server every claim that rules a risk out (`readOnlyHint:
    /// true`, `destructiveHint: false`, `sensitiveDataHint: false`, ...) becomes no
    /// claim, so the specification's cautious defaults apply; claims of risk stay.
    /// Defaults are not applied here.
    ///
    /// ```
    /// use annot_runtime::client::Trust;
    /// use annot_runtime::Annotations;
    ///
    /// let claimed = Annotations::new().read_only(true).sensitive_data(true);
    /// let believed = Trust::Untrusted.screen(claimed).effective();
    /// assert_eq!(believed.read_only, Some(false));
    /// assert_eq!(believed.destructive, Some(true));
    /// assert_eq!(believed.sensitive_data, Some(true));
    /// assert_eq!(Trust::Trusted.screen(claimed), claimed);
    /// ```
    #[must_use]
    pub fn screen(self, annotations: Annotations) -> Annotations {
        match self {
            Trust::Trusted => annotations,
            Trust::Untrusted => Hint::ALL.into_iter().fold(annotations, |screened, hint| {
                let value = screened.get(hint);
                if hint.risk_rank(value) == 0 {
                    screened.with(hint, None)
                } else {
                    screened
                }
            }),
        }
    }
}

/// A tool call a model proposes, as the policy and the session tracker see it.
///
/// It holds what the server claims (static annotations and, if any, the
/// resolution) and derives what the client believes: for a trusted server the
/// resolution (or the static annotations), for an untrusted one the static
/// annotations [screened](Trust::screen), since a resolution can only claim less
/// risk than the static ones and an untrusted server's claims of less risk are
/// not believed (a resolution that claims more risk still adds it).
#[derive(Clone, Debug, PartialEq)]
pub struct ProposedCall<'a> {
    tool: &'a str,
    arguments: &'a Map<String, Value>,
    trust: Trust,
    declared: Annotations,
    resolved: Option<Annotations>,
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
        }
    }

    /// The same call with the server's resolution for its arguments.
    #[must_use]
    pub fn with_resolution(mut self, resolved: Annotations) -> Self {
        self.resolved = Some(resolved);
        self
    }

    /// A call as a [`Preflight`] saw it: its static annotations and resolution.
    pub fn from_preflight(
        preflight: &'a Preflight,
        arguments: &'a Map<String, Value>,
        trust: Trust,
    ) -> Self {
        ProposedCall {
            tool: &preflight.tool,
            arguments,
            trust,
            declared: preflight.declared,
            resolved: preflight.resolved,
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

    /// What the server claims for this call: its resolution, else its static
    /// annotations; defaults not applied, nothing screened.
    pub fn claimed(&self) -> Annotations {
        self.resolved.unwrap_or(self.declared)
    }

    /// What the client believes, defaults applied: the claim for a trusted server,
    /// the screened static annotations for an untrusted one.
    pub fn annotations(&self) -> Annotations {
        match self.trust {
            Trust::Trusted => self.claimed().effective(),
            Trust::Untrusted => {
                // A checked resolution is within the static annotations; joining
                // keeps any risk an unchecked one adds.
                let claimed = match self.resolved {
                    Some(resolved) => self.declared.join(resolved),
                    None => self.declared,
                };
                Trust::Untrusted.screen(claimed).effective()
            }
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
    fn untrusted_claims_of_safety_are_dropped_for_every_hint() {
        for hint in Hint::ALL {
            let safe = Annotations::new().with(hint, Some(!hint.risky_value()));
            let risky = Annotations::new().with(hint, Some(hint.risky_value()));
            assert_eq!(Trust::Untrusted.screen(safe).get(hint), None, "{hint}");
            assert_eq!(
                Trust::Untrusted.screen(risky).get(hint),
                Some(hint.risky_value()),
                "{hint}"
            );
        }
    }

    #[test]
    fn an_untrusted_resolution_is_ignored() {
        let arguments = Map::new();
        let declared = Annotations::new().destructive(true).open_world(false);
        let resolved = Annotations::new().read_only(true).open_world(false);
        let trusted =
            ProposedCall::new("t", &arguments, declared, Trust::Trusted).with_resolution(resolved);
        assert!(trusted.annotations().is_read_only());
        assert!(trusted.retry_is_safe());
        let untrusted = ProposedCall {
            trust: Trust::Untrusted,
            ..trusted.clone()
        };
        assert_eq!(untrusted.claimed(), resolved);
        let believed = untrusted.annotations();
        assert!(!believed.is_read_only());
        assert_eq!(believed.destructive, Some(true));
        assert_eq!(believed.open_world, Some(true));
        assert!(!untrusted.retry_is_safe());
    }

    #[test]
    fn an_untrusted_resolution_may_still_add_risk() {
        let arguments = Map::new();
        let declared = Annotations::new().read_only(true).open_world(false);
        let riskier = Annotations::new().read_only(true).privileged_access(true);
        let call =
            ProposedCall::new("t", &arguments, declared, Trust::Untrusted).with_resolution(riskier);
        assert_eq!(call.annotations().privileged_access, Some(true));
        assert!(!call.annotations().is_read_only());
    }
}
