//! `[policy]` and `confirm`: what a call gets, by its class, and who confirms it.

use annot_runtime::client::{Policy, Strength, Verdict};
use serde::Deserialize;

/// What the gateway does with a call its policy wants a person to confirm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfirmMode {
    /// Ask the host (`elicitation/create`); a host that cannot be asked gets
    /// a refusal, or with the approvals page on, the page decides.
    Ask,
    /// Refuse every call that needs confirmation.
    Deny,
    /// Forward it: the host's own approval flow is trusted to ask.
    Host,
    /// Queue it on the approvals page (`/approvals`), where a person
    /// approves or denies it, whatever the host can do.
    Page,
}

/// `[policy]`: a verdict per class of call (`allow`, `confirm-light`,
/// `confirm`, `confirm-strong`, `deny`); a class left out keeps annot's
/// default (`annot::client::Policy`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySection {
    /// A read-only call.
    pub read_only: Option<VerdictName>,
    /// A call that may be destructive.
    pub destructive: Option<VerdictName>,
    /// A non-destructive write whose effects can be undone.
    pub reversible_non_destructive: Option<VerdictName>,
    /// Any other non-destructive write.
    pub non_destructive_write: Option<VerdictName>,
    /// Sensitive data with privileged access.
    pub sensitive_and_privileged: Option<VerdictName>,
    /// Privileged access.
    pub privileged_access: Option<VerdictName>,
    /// Sensitive data.
    pub sensitive_data: Option<VerdictName>,
    /// A call that would complete the lethal trifecta (default `deny`).
    pub trifecta: Option<VerdictName>,
}

/// A verdict as the configuration spells it.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictName {
    /// Run it.
    Allow,
    /// Ask, lightly.
    ConfirmLight,
    /// Ask.
    Confirm,
    /// Ask so that nobody clicks through by habit.
    ConfirmStrong,
    /// Refuse it.
    Deny,
}

impl From<VerdictName> for Verdict {
    fn from(name: VerdictName) -> Verdict {
        match name {
            VerdictName::Allow => Verdict::Allow,
            VerdictName::ConfirmLight => Verdict::Confirm(Strength::Light),
            VerdictName::Confirm => Verdict::Confirm(Strength::Normal),
            VerdictName::ConfirmStrong => Verdict::Confirm(Strength::Strong),
            VerdictName::Deny => Verdict::Deny,
        }
    }
}

impl PolicySection {
    /// annot's default policy with this section's verdicts.
    pub fn policy(&self) -> Policy {
        let mut policy = Policy::default();
        let fields = [
            (self.read_only, &mut policy.read_only),
            (self.destructive, &mut policy.destructive),
            (
                self.reversible_non_destructive,
                &mut policy.reversible_non_destructive,
            ),
            (
                self.non_destructive_write,
                &mut policy.non_destructive_write,
            ),
            (
                self.sensitive_and_privileged,
                &mut policy.sensitive_and_privileged,
            ),
            (self.privileged_access, &mut policy.privileged_access),
            (self.sensitive_data, &mut policy.sensitive_data),
        ];
        for (configured, field) in fields {
            if let Some(name) = configured {
                *field = name.into();
            }
        }
        policy
    }

    /// What a call completing the trifecta gets.
    pub fn on_trifecta(&self) -> Verdict {
        self.trifecta.map_or(Verdict::Deny, Verdict::from)
    }
}
