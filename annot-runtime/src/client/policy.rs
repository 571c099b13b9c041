//! Turning the annotations of a proposed call into allow, confirm or deny.

use core::fmt;
use std::sync::Arc;

use super::{ProposedCall, Trust};

/// How insistent a confirmation is; the host maps each to its own UI (an inline
/// notice, a dialog, a dialog that makes the person type the tool's name, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strength {
    /// A low-friction confirmation, for changes that can be undone.
    Light,
    /// The usual confirmation.
    Normal,
    /// A confirmation the person cannot click through by habit.
    Strong,
}

impl fmt::Display for Strength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strength::Light => "light",
            Strength::Normal => "normal",
            Strength::Strong => "strong",
        })
    }
}

/// What to do with a call, without the reason. Ordered from the most permissive
/// to the strictest, so the stricter of two verdicts is their `max`.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::{Strength, Verdict};
///
/// assert!(Verdict::Allow < Verdict::Confirm(Strength::Light));
/// assert!(Verdict::Confirm(Strength::Light) < Verdict::Confirm(Strength::Strong));
/// assert!(Verdict::Confirm(Strength::Strong) < Verdict::Deny);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// Run the call without asking.
    Allow,
    /// Ask a person first.
    Confirm(Strength),
    /// Do not run the call.
    Deny,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Allow => f.write_str("allow"),
            Verdict::Confirm(strength) => write!(f, "confirm ({strength})"),
            Verdict::Deny => f.write_str("deny"),
        }
    }
}

/// Which rule of a [`Policy`] (or of a [`Session`](super::Session)) decided
/// a call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PolicyRule {
    /// [`Policy::read_only`].
    ReadOnly,
    /// [`Policy::destructive`].
    Destructive,
    /// [`Policy::reversible_non_destructive`].
    ReversibleNonDestructive,
    /// [`Policy::non_destructive_write`].
    NonDestructiveWrite,
    /// [`Policy::sensitive_and_privileged`].
    SensitiveAndPrivileged,
    /// [`Policy::privileged_access`].
    PrivilegedAccess,
    /// [`Policy::sensitive_data`].
    SensitiveData,
    /// [`Policy::untrusted_server`].
    UntrustedServer,
    /// A [`HostRule`] of this name.
    Host(String),
    /// The call would complete the lethal trifecta ([`Session`](super::Session)).
    Trifecta,
}

/// Why a decision was taken: the rule and a sentence a person can read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reason {
    /// The rule that decided.
    pub rule: PolicyRule,
    /// The explanation, for the confirmation prompt or the log.
    pub message: String,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the host should do with a proposed call, and why.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Run the call.
    Allow {
        /// Why no confirmation is needed.
        reason: Reason,
    },
    /// Ask a person first.
    Confirm {
        /// How insistently.
        strength: Strength,
        /// What to tell the person.
        reason: Reason,
    },
    /// Do not run the call.
    Deny {
        /// Why.
        reason: Reason,
    },
}

impl Decision {
    /// A decision of this verdict.
    pub fn new(verdict: Verdict, reason: Reason) -> Self {
        match verdict {
            Verdict::Allow => Decision::Allow { reason },
            Verdict::Confirm(strength) => Decision::Confirm { strength, reason },
            Verdict::Deny => Decision::Deny { reason },
        }
    }

    /// The verdict, without the reason.
    pub fn verdict(&self) -> Verdict {
        match self {
            Decision::Allow { .. } => Verdict::Allow,
            Decision::Confirm { strength, .. } => Verdict::Confirm(*strength),
            Decision::Deny { .. } => Verdict::Deny,
        }
    }

    /// Why.
    pub fn reason(&self) -> &Reason {
        match self {
            Decision::Allow { reason }
            | Decision::Confirm { reason, .. }
            | Decision::Deny { reason } => reason,
        }
    }

    /// Whether the call may run without asking.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allow { .. })
    }

    /// Whether a person must confirm the call.
    pub fn needs_confirmation(&self) -> bool {
        matches!(self, Decision::Confirm { .. })
    }

    /// Whether the call must not run.
    pub fn is_denied(&self) -> bool {
        matches!(self, Decision::Deny { .. })
    }
}

impl fmt::Display for Decision {
    /// `confirm (strong): <reason>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.verdict(), self.reason())
    }
}

type HostCheck = dyn Fn(&ProposedCall<'_>) -> Option<(Verdict, String)> + Send + Sync;

/// A rule of the host's own, consulted before the built-in ones: it returns a
/// verdict and a reason for the calls it cares about, `None` for the others.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::{HostRule, Policy, ProposedCall, PolicyRule, Trust, Verdict};
/// use annot::Annotations;
/// use serde_json::{json, Map, Value};
///
/// let policy = Policy::default().with_rule(HostRule::new("no-etc", |call| {
///     let path = call.arguments().get("path")?.as_str()?;
///     path.starts_with("/etc/")
///         .then(|| (Verdict::Deny, format!("`{}` may not touch {path}", call.tool())))
/// }));
/// let arguments: Map<String, Value> =
///     serde_json::from_value(json!({"path": "/etc/passwd"})).unwrap();
/// let read = Annotations::new().read_only(true);
/// let call = ProposedCall::new("read_file", &arguments, read, Trust::Trusted);
/// let decision = policy.decide(&call);
/// assert!(decision.is_denied());
/// assert_eq!(decision.reason().rule, PolicyRule::Host("no-etc".into()));
/// ```
#[derive(Clone)]
pub struct HostRule {
    name: String,
    check: Arc<HostCheck>,
}

impl HostRule {
    /// A rule named `name` (shown in [`PolicyRule::Host`]) that runs `check`.
    pub fn new(
        name: impl Into<String>,
        check: impl Fn(&ProposedCall<'_>) -> Option<(Verdict, String)> + Send + Sync + 'static,
    ) -> Self {
        HostRule {
            name: name.into(),
            check: Arc::new(check),
        }
    }

    /// The rule's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for HostRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostRule")
            .field("name", &self.name)
            .finish()
    }
}

/// The confirmation policy: one verdict per rule, every one the host's to change.
///
/// [`decide`](Self::decide) looks at the annotations the client believes (see
/// [`ProposedCall::annotations`]), collects the verdict of every rule that
/// applies and keeps the strictest; on a tie the first in this order gives the
/// reason: host rules, `sensitive_and_privileged`, `untrusted_server`, the one
/// write-or-read rule that fits (`read_only`, `destructive`,
/// `reversible_non_destructive` or `non_destructive_write`), `privileged_access`,
/// `sensitive_data`. Setting a rule to [`Verdict::Allow`] switches it off.
///
/// The defaults follow the seeds of the protocol: read-only calls from trusted
/// servers run, destructive ones are confirmed, sensitive data with privileged
/// access is a strong confirmation, a reversible non-destructive change a light
/// one; untrusted servers' claims of safety are not believed.
///
/// Silence never lowers risk: for an untrusted server, a hint that is missing or
/// rules a risk out counts as the risky value (see [`Trust::screen`]), so by
/// default its every call is a strong confirmation (sensitive data with
/// privileged access); for a trusted one, a hint its resolution leaves out keeps
/// its static value (see [`Resolution`](super::Resolution)).
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::{Policy, Strength, Verdict};
///
/// // A host that refuses destructive calls outright and lets reversible ones run.
/// let policy = Policy {
///     destructive: Verdict::Deny,
///     reversible_non_destructive: Verdict::Allow,
///     ..Policy::default()
/// };
/// assert_eq!(policy.sensitive_and_privileged, Verdict::Confirm(Strength::Strong));
/// ```
#[derive(Clone, Debug)]
pub struct Policy {
    /// A read-only call from a trusted server. Default: allow.
    pub read_only: Verdict,
    /// A call that is not read-only and may be destructive (the default of an
    /// unannotated tool). Default: confirm (normal).
    pub destructive: Verdict,
    /// A non-destructive call whose effects can be undone (`reversibleHint`).
    /// Default: confirm (light).
    pub reversible_non_destructive: Verdict,
    /// A non-destructive call not known to be reversible. Default: confirm
    /// (normal).
    pub non_destructive_write: Verdict,
    /// A call that touches sensitive data with privileged access, read-only or
    /// not. Default: confirm (strong).
    pub sensitive_and_privileged: Verdict,
    /// A call that needs privileged access. Default: confirm (normal).
    pub privileged_access: Verdict,
    /// A call that touches sensitive data. Default: allow (the session tracker
    /// watches what such data could leak to).
    pub sensitive_data: Verdict,
    /// Any call to an untrusted server. Default: confirm (normal).
    pub untrusted_server: Verdict,
    /// The host's own rules, consulted first, in order.
    pub host_rules: Vec<HostRule>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            read_only: Verdict::Allow,
            destructive: Verdict::Confirm(Strength::Normal),
            reversible_non_destructive: Verdict::Confirm(Strength::Light),
            non_destructive_write: Verdict::Confirm(Strength::Normal),
            sensitive_and_privileged: Verdict::Confirm(Strength::Strong),
            privileged_access: Verdict::Confirm(Strength::Normal),
            sensitive_data: Verdict::Allow,
            untrusted_server: Verdict::Confirm(Strength::Normal),
            host_rules: Vec::new(),
        }
    }
}

impl Policy {
    /// Adds a host rule after the existing ones.
    #[must_use]
    pub fn with_rule(mut self, rule: HostRule) -> Self {
        self.host_rules.push(rule);
        self
    }

    /// Decides what to do with `call`.
    pub fn decide(&self, call: &ProposedCall<'_>) -> Decision {
        let tool = call.tool();
        let believed = call.annotations();
        let is = |value: Option<bool>| value == Some(true);
        let sensitive = is(believed.sensitive_data);
        let privileged = is(believed.privileged_access);

        let mut applicable: Vec<(Verdict, PolicyRule, String)> = Vec::new();
        for rule in &self.host_rules {
            if let Some((verdict, message)) = (rule.check)(call) {
                applicable.push((verdict, PolicyRule::Host(rule.name.clone()), message));
            }
        }
        if sensitive && privileged {
            let message = if call.trust() == Trust::Untrusted {
                format!(
                    "the server of `{tool}` is not trusted, so its silence and its claims of \
                     safety count as risk: `{tool}` is treated as touching sensitive data with \
                     privileged access"
                )
            } else {
                format!("`{tool}` touches sensitive data with privileged access")
            };
            applicable.push((
                self.sensitive_and_privileged,
                PolicyRule::SensitiveAndPrivileged,
                message,
            ));
        }
        if call.trust() == Trust::Untrusted {
            applicable.push((
                self.untrusted_server,
                PolicyRule::UntrustedServer,
                format!(
                    "the server of `{tool}` is not trusted, so its claims of safety count for nothing"
                ),
            ));
        }
        applicable.push(if believed.is_read_only() {
            (
                self.read_only,
                PolicyRule::ReadOnly,
                format!("`{tool}` only reads, and its server is trusted"),
            )
        } else if is(believed.destructive) {
            (
                self.destructive,
                PolicyRule::Destructive,
                format!("`{tool}` may delete or overwrite data"),
            )
        } else if is(believed.reversible) {
            (
                self.reversible_non_destructive,
                PolicyRule::ReversibleNonDestructive,
                format!("`{tool}` changes data without destroying any, and the change can be undone"),
            )
        } else {
            (
                self.non_destructive_write,
                PolicyRule::NonDestructiveWrite,
                format!("`{tool}` changes data without destroying any, but the change may not be undoable"),
            )
        });
        if privileged {
            applicable.push((
                self.privileged_access,
                PolicyRule::PrivilegedAccess,
                format!("`{tool}` needs privileged access"),
            ));
        }
        if sensitive {
            applicable.push((
                self.sensitive_data,
                PolicyRule::SensitiveData,
                format!("`{tool}` touches sensitive data"),
            ));
        }

        // The strictest verdict; on a tie the earliest rule, which is the more
        // specific one. `applicable` always holds the read-or-write rule.
        let strictest = (0..applicable.len()).fold(0, |best, index| {
            if applicable[index].0 > applicable[best].0 {
                index
            } else {
                best
            }
        });
        let (verdict, rule, message) = applicable.swap_remove(strictest);
        Decision::new(verdict, Reason { rule, message })
    }
}
