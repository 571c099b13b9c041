//! A server's resolution for one call, combined with the static annotations and
//! checked against them: the only form in which the policy accepts one.

use crate::{Annotations, BoundViolation, Hint};

/// A resolution the client may act on: what the server stated for one argument
/// set, with every hint it did not state kept at its static value, checked
/// against the conservative bound.
///
/// **Silence never lowers risk.** A hint the answer leaves out is no claim, so
/// it keeps the value of the static annotations of `tools/list` (the worst case
/// over every argument set), in every dialect: a tool declared
/// `sensitiveDataHint: true` stays sensitive when its resolution lists only the
/// four core hints. The only way to build a `Resolution` is
/// [`check`](Self::check), so a resolution that claims more risk than the static
/// annotations allow never reaches the policy.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::client::Resolution;
/// use annot::Annotations;
///
/// let declared = Annotations::new().sensitive_data(true).privileged_access(true);
/// // The server answers with the core hints only.
/// let stated = Annotations::new().read_only(true).open_world(false);
/// let resolution = Resolution::check(declared, stated).unwrap();
/// let acted_on = resolution.annotations();
/// assert_eq!(acted_on.read_only, Some(true));
/// assert_eq!(acted_on.sensitive_data, Some(true), "silence kept the static value");
/// assert_eq!(acted_on.privileged_access, Some(true));
///
/// // More risk than the static annotations allow: rejected.
/// let riskier = Annotations::new().read_only(true).open_world(true);
/// let within = Annotations::new().read_only(true).open_world(false);
/// assert!(Resolution::check(within, riskier).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolution {
    declared: Annotations,
    stated: Annotations,
    combined: Annotations,
}

impl Resolution {
    /// Combines what a server `stated` for a call with the tool's `declared`
    /// (static) annotations, and checks the result against them.
    ///
    /// # Errors
    ///
    /// The first hint (in [`Hint::ALL`] order) for which the resolution claims more
    /// risk than the static annotations allow.
    pub fn check(declared: Annotations, stated: Annotations) -> Result<Self, BoundViolation> {
        let combined = keep_static_where_silent(declared, stated);
        combined.check_within(&declared)?;
        Ok(Resolution {
            declared,
            stated,
            combined,
        })
    }

    /// The static annotations this resolution was checked against.
    pub fn declared(&self) -> Annotations {
        self.declared
    }

    /// What the server stated, exactly (absent hints absent).
    pub fn stated(&self) -> Annotations {
        self.stated
    }

    /// The annotations to act on, defaults not applied: every stated hint, and
    /// the static value of every hint the server left out.
    pub fn annotations(&self) -> Annotations {
        self.combined
    }

    /// The same resolution checked against other static annotations: itself when
    /// they are the ones it was checked against.
    pub(crate) fn against(self, declared: Annotations) -> Result<Self, BoundViolation> {
        if self.declared == declared {
            Ok(self)
        } else {
            Resolution::check(declared, self.stated)
        }
    }
}

/// `acted_on` with every hint an answer the client rejected (`admitted`, as
/// stated) claims riskier taken at that riskier value, hint by hint: an
/// answer that breaks the bound is not believed, but the risk a server
/// admits is never dropped for the static annotations' safer claim.
pub(crate) fn with_admitted_risk(
    acted_on: Annotations,
    admitted: Option<Annotations>,
) -> Annotations {
    let Some(admitted) = admitted else {
        return acted_on;
    };
    Hint::ALL
        .into_iter()
        .fold(acted_on, |joined, hint| match admitted.get(hint) {
            Some(value) => joined.with(hint, hint.join(acted_on.get(hint), Some(value))),
            None => joined,
        })
}

/// Every hint `stated` leaves out takes its value from `declared`.
fn keep_static_where_silent(declared: Annotations, stated: Annotations) -> Annotations {
    let mut combined =
        Hint::ALL
            .into_iter()
            .fold(stated, |combined, hint| match stated.get(hint) {
                Some(_) => combined,
                None => combined.with(hint, declared.get(hint)),
            });
    combined.title = stated.title.or(declared.title);
    combined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unstated_hint_keeps_its_static_value() {
        for hint in Hint::ALL {
            for declared_value in [None, Some(false), Some(true)] {
                let declared = Annotations::new().with(hint, declared_value);
                let resolution = Resolution::check(declared, Annotations::new()).unwrap();
                assert_eq!(resolution.annotations().get(hint), declared_value, "{hint}");
            }
        }
    }

    #[test]
    fn a_stated_hint_replaces_the_static_one_within_the_bound() {
        let declared = Annotations::new().destructive(true).sensitive_data(true);
        let stated = Annotations::new().destructive(false).sensitive_data(false);
        let resolution = Resolution::check(declared, stated).unwrap();
        assert_eq!(resolution.annotations().destructive, Some(false));
        assert_eq!(resolution.annotations().sensitive_data, Some(false));
        let violation = Resolution::check(stated, declared).expect_err("more risk than declared");
        assert_eq!(violation.hint, Hint::Destructive);
    }

    #[test]
    fn rechecking_against_other_static_annotations() {
        let loose = Annotations::new();
        let strict = Annotations::new().read_only(true);
        let resolution = Resolution::check(loose, Annotations::new().read_only(false)).unwrap();
        assert_eq!(resolution.against(loose), Ok(resolution));
        assert_eq!(resolution.against(strict).unwrap_err().hint, Hint::ReadOnly);
    }
}
