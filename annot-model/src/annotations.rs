//! The annotations of one tool or one resolution, and their lattice.

use core::fmt;

use crate::Hint;

/// The annotations of a tool or of one resolution: a title and ten tri-state hints.
///
/// `Copy` and built in `const` context, so a tool's static worst case and the
/// annotations of each action are compile-time constants and resolving one costs
/// no allocation. `None` means the hint is absent from the wire; for core hints
/// that stands for the specification's default, see [`Annotations::effective`].
///
/// ```
/// # use annot_model as annot;
/// use annot::Annotations;
///
/// const READ: Annotations = Annotations::new().read_only(true).open_world(false);
/// const DELETE: Annotations = Annotations::new().destructive(true).idempotent(true);
/// const WORST: Annotations = Annotations::join_all(&[READ, DELETE]);
///
/// assert_eq!(WORST.read_only, Some(false));
/// assert_eq!(WORST.destructive, Some(true));
/// assert_eq!(WORST.idempotent, Some(true));
/// assert_eq!(WORST.open_world, Some(true)); // DELETE left it at its default
/// assert!(READ.is_within(&WORST) && DELETE.is_within(&WORST));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Annotations {
    /// Human-readable title of the tool or action.
    pub title: Option<&'static str>,
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
    /// `aiProcessingHint` (SEP-1984).
    pub ai_processing: Option<bool>,
    /// `slowExecutionHint` (SEP-1984).
    pub slow_execution: Option<bool>,
    /// `resourceIntensiveHint` (SEP-1984).
    pub resource_intensive: Option<bool>,
    /// `sensitiveDataHint` (SEP-1984).
    pub sensitive_data: Option<bool>,
    /// `privilegedAccessHint` (SEP-1984).
    pub privileged_access: Option<bool>,
    /// `reversibleHint` (SEP-1984).
    pub reversible: Option<bool>,
}

macro_rules! hint_setters {
    ($($field:ident: $doc:literal),* $(,)?) => {
        $(
            #[doc = concat!("Sets `", $doc, "`.")]
            #[must_use]
            pub const fn $field(mut self, value: bool) -> Self {
                self.$field = Some(value);
                self
            }
        )*
    };
}

impl Annotations {
    /// No title and every hint absent.
    pub const fn new() -> Self {
        Annotations {
            title: None,
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
            ai_processing: None,
            slow_execution: None,
            resource_intensive: None,
            sensitive_data: None,
            privileged_access: None,
            reversible: None,
        }
    }

    /// Every hint at its risky value: the most a call can claim.
    ///
    /// ```
    /// # use annot_model as annot;
    /// use annot::{Annotations, Hint};
    ///
    /// let worst = Annotations::worst();
    /// assert!(Hint::ALL.iter().all(|h| worst.get(*h) == Some(h.risky_value())));
    /// assert!(Annotations::new().read_only(true).is_within(&worst));
    /// ```
    pub const fn worst() -> Self {
        let mut worst = Annotations::new();
        let mut index = 0;
        while index < Hint::ALL.len() {
            let hint = Hint::ALL[index];
            worst = worst.with(hint, Some(hint.risky_value()));
            index += 1;
        }
        worst
    }

    hint_setters! {
        read_only: "readOnlyHint",
        destructive: "destructiveHint",
        idempotent: "idempotentHint",
        open_world: "openWorldHint",
        ai_processing: "aiProcessingHint",
        slow_execution: "slowExecutionHint",
        resource_intensive: "resourceIntensiveHint",
        sensitive_data: "sensitiveDataHint",
        privileged_access: "privilegedAccessHint",
        reversible: "reversibleHint",
    }

    /// Sets the title.
    #[must_use]
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// The value of one hint.
    pub const fn get(&self, hint: Hint) -> Option<bool> {
        match hint {
            Hint::ReadOnly => self.read_only,
            Hint::Destructive => self.destructive,
            Hint::Idempotent => self.idempotent,
            Hint::OpenWorld => self.open_world,
            Hint::AiProcessing => self.ai_processing,
            Hint::SlowExecution => self.slow_execution,
            Hint::ResourceIntensive => self.resource_intensive,
            Hint::SensitiveData => self.sensitive_data,
            Hint::PrivilegedAccess => self.privileged_access,
            Hint::Reversible => self.reversible,
        }
    }

    /// Returns a copy with one hint set to `value` (`None` removes it).
    #[must_use]
    pub const fn with(mut self, hint: Hint, value: Option<bool>) -> Self {
        match hint {
            Hint::ReadOnly => self.read_only = value,
            Hint::Destructive => self.destructive = value,
            Hint::Idempotent => self.idempotent = value,
            Hint::OpenWorld => self.open_world = value,
            Hint::AiProcessing => self.ai_processing = value,
            Hint::SlowExecution => self.slow_execution = value,
            Hint::ResourceIntensive => self.resource_intensive = value,
            Hint::SensitiveData => self.sensitive_data = value,
            Hint::PrivilegedAccess => self.privileged_access = value,
            Hint::Reversible => self.reversible = value,
        }
        self
    }

    /// Whether these annotations, with defaults applied, describe a read-only call.
    pub const fn is_read_only(&self) -> bool {
        matches!(self.read_only, Some(true))
    }

    /// The annotations a client acts on: core hints absent on the wire get the
    /// specification's defaults, and on a read-only call the hints that only mean
    /// something for writes are normalised (`destructiveHint: false`,
    /// `idempotentHint: true`, `reversibleHint` absent).
    ///
    /// ```
    /// # use annot_model as annot;
    /// use annot::Annotations;
    ///
    /// let none = Annotations::new().effective();
    /// assert_eq!(
    ///     (none.read_only, none.destructive, none.idempotent, none.open_world),
    ///     (Some(false), Some(true), Some(false), Some(true))
    /// );
    /// let read = Annotations::new().read_only(true).effective();
    /// assert_eq!((read.destructive, read.idempotent), (Some(false), Some(true)));
    /// ```
    #[must_use]
    pub const fn effective(mut self) -> Self {
        // Most annotations met on the hot path are effective already (the
        // tables hold effective values): read, and leave them unwritten.
        if self.is_effective() {
            return self;
        }
        let mut index = 0;
        while index < Hint::CORE.len() {
            let hint = Hint::CORE[index];
            if self.get(hint).is_none() {
                self = self.with(hint, hint.default_value());
            }
            index += 1;
        }
        if self.is_read_only() {
            self.destructive = Some(false);
            self.idempotent = Some(true);
            self.reversible = None;
        }
        self
    }

    /// Whether [`effective`](Self::effective) would give these annotations
    /// back unchanged.
    const fn is_effective(&self) -> bool {
        let core_present = self.read_only.is_some()
            && self.destructive.is_some()
            && self.idempotent.is_some()
            && self.open_world.is_some();
        core_present
            && (!self.is_read_only()
                || (matches!(self.destructive, Some(false))
                    && matches!(self.idempotent, Some(true))
                    && self.reversible.is_none()))
    }

    /// The worst case of two annotations: for each hint the riskier effective value.
    ///
    /// Hints that only mean something for writes ignore a read-only side, so the
    /// worst case of a read and an append is as reversible as the append. The title
    /// is `self`'s, or `other`'s when `self` has none.
    #[must_use]
    pub const fn join(self, other: Annotations) -> Annotations {
        let a = self.effective();
        let b = other.effective();
        let mut joined = Annotations::new();
        joined.title = match a.title {
            Some(title) => Some(title),
            None => b.title,
        };
        let mut index = 0;
        while index < Hint::ALL.len() {
            let hint = Hint::ALL[index];
            let value = if hint.only_meaningful_when_writing() && a.is_read_only() {
                b.get(hint)
            } else if hint.only_meaningful_when_writing() && b.is_read_only() {
                a.get(hint)
            } else {
                hint.join(a.get(hint), b.get(hint))
            };
            joined = joined.with(hint, value);
            index += 1;
        }
        joined.effective()
    }

    /// The worst case of every element; [`Annotations::new`]`.effective()` (the
    /// specification's defaults, the worst case there is) for an empty slice.
    pub const fn join_all(all: &[Annotations]) -> Annotations {
        if all.is_empty() {
            return Annotations::new().effective();
        }
        let mut joined = all[0].effective();
        let mut index = 1;
        while index < all.len() {
            joined = joined.join(all[index]);
            index += 1;
        }
        joined
    }
}

/// Serializes with the wire names, omitting absent hints.
#[cfg(feature = "serde")]
impl serde::Serialize for Annotations {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        if let Some(title) = self.title {
            map.serialize_entry("title", title)?;
        }
        for hint in Hint::ALL {
            if let Some(value) = self.get(hint) {
                map.serialize_entry(hint.wire_name(), &value)?;
            }
        }
        map.end()
    }
}

impl fmt::Display for Annotations {
    /// Compact JSON, as on the wire: the title, then the hints present in
    /// [`Hint::ALL`] order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        let mut first = true;
        if let Some(title) = self.title {
            f.write_str("\"title\":")?;
            json_string(f, title)?;
            first = false;
        }
        for hint in Hint::ALL {
            if let Some(value) = self.get(hint) {
                if !first {
                    f.write_str(",")?;
                }
                write!(f, "\"{}\":{value}", hint.wire_name())?;
                first = false;
            }
        }
        f.write_str("}")
    }
}

/// `text` as a JSON string, escaped as `serde_json` does.
fn json_string(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    fn all_annotations() -> Vec<Annotations> {
        // Every combination of the four core hints and two SEP-1984 hints.
        let values = [None, Some(false), Some(true)];
        let mut all = vec![];
        for read_only in values {
            for destructive in values {
                for idempotent in values {
                    for open_world in values {
                        for sensitive_data in values {
                            for reversible in values {
                                all.push(Annotations {
                                    read_only,
                                    destructive,
                                    idempotent,
                                    open_world,
                                    sensitive_data,
                                    reversible,
                                    ..Annotations::new()
                                });
                            }
                        }
                    }
                }
            }
        }
        all
    }

    #[test]
    fn effective_fills_the_specification_defaults_and_normalises_reads() {
        // Written out from the specification: absent core hints default to
        // readOnly false, destructive true, idempotent false, openWorld true;
        // a read-only call is not destructive, is idempotent, and has no
        // reversibility claim.
        for annotations in all_annotations() {
            let read_only = annotations.read_only.unwrap_or(false);
            let expected = Annotations {
                read_only: Some(read_only),
                destructive: if read_only {
                    Some(false)
                } else {
                    Some(annotations.destructive.unwrap_or(true))
                },
                idempotent: if read_only {
                    Some(true)
                } else {
                    Some(annotations.idempotent.unwrap_or(false))
                },
                open_world: Some(annotations.open_world.unwrap_or(true)),
                reversible: if read_only {
                    None
                } else {
                    annotations.reversible
                },
                ..annotations
            };
            assert_eq!(annotations.effective(), expected, "{annotations}");
            assert_eq!(expected.effective(), expected, "{annotations}");
        }
    }

    /// Hint by hint, as docs/PROTOCOL.md section 4 states it: the reference
    /// `check_within` is held to.
    fn within_by_hand(resolved: &Annotations, declared: &Annotations) -> bool {
        let (resolved, declared) = (resolved.effective(), declared.effective());
        Hint::ALL.iter().all(|hint| {
            (hint.only_meaningful_when_writing() && resolved.read_only == Some(true))
                || hint.risk_rank(resolved.get(*hint)) <= hint.risk_rank(declared.get(*hint))
        })
    }

    #[test]
    fn a_violation_says_which_hint_and_both_values() {
        let violation = Annotations::new()
            .destructive(true)
            .check_within(&Annotations::new().destructive(false))
            .unwrap_err();
        assert_eq!(
            violation.to_string(),
            "resolved destructiveHint is true but the static declaration allows at most false"
        );
        let violation = Annotations::new()
            .check_within(&Annotations::new().sensitive_data(false))
            .unwrap_err();
        assert_eq!(
            violation.to_string(),
            "resolved sensitiveDataHint is absent but the static declaration allows at most false"
        );
    }

    #[test]
    fn the_bound_check_agrees_with_the_hint_by_hint_reference() {
        let all = all_annotations();
        let mut violations = 0;
        for resolved in &all {
            for declared in all.iter().step_by(3) {
                let checked = resolved.check_within(declared);
                assert_eq!(
                    checked.is_ok(),
                    within_by_hand(resolved, declared),
                    "{resolved} within {declared}"
                );
                if let Err(violation) = checked {
                    violations += 1;
                    let hint = violation.hint;
                    // The first hint over the bound, in `Hint::ALL`'s order.
                    let (r, d) = (resolved.effective(), declared.effective());
                    let first = Hint::ALL.iter().find(|hint| {
                        !(hint.only_meaningful_when_writing() && r.read_only == Some(true))
                            && hint.risk_rank(r.get(**hint)) > hint.risk_rank(d.get(**hint))
                    });
                    assert_eq!(Some(&hint), first, "{resolved} within {declared}");
                    assert_eq!(
                        (violation.resolved, violation.declared),
                        (r.get(hint), d.get(hint))
                    );
                    assert!(
                        hint.risk_rank(resolved.effective().get(hint))
                            > hint.risk_rank(declared.effective().get(hint))
                    );
                }
            }
        }
        assert!(violations > 1000, "{violations}");
        // Every hint with every value, in pseudo-random pairs.
        let values = [None, Some(false), Some(true)];
        let annotations = |mut seed: u64| {
            Hint::ALL
                .iter()
                .fold(Annotations::new(), |annotations, hint| {
                    let value = values[(seed % 3) as usize];
                    seed /= 3;
                    annotations.with(*hint, value)
                })
        };
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..50_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (resolved, declared) = (annotations(state), annotations(state >> 20));
            assert_eq!(
                resolved.check_within(&declared).is_ok(),
                within_by_hand(&resolved, &declared),
                "{resolved} within {declared}"
            );
        }
    }

    #[test]
    fn every_operand_is_within_the_join() {
        let all = all_annotations();
        for (i, a) in all.iter().enumerate().step_by(7) {
            for b in all.iter().skip(i % 5).step_by(11) {
                let joined = a.join(*b);
                assert!(a.is_within(&joined), "{a} not within {joined}");
                assert!(b.is_within(&joined), "{b} not within {joined}");
                assert_eq!(joined, b.join(*a));
            }
        }
    }

    #[test]
    fn effective_is_idempotent_and_within_itself() {
        for a in all_annotations() {
            assert_eq!(a.effective(), a.effective().effective());
            assert!(a.is_within(&a), "{a}");
        }
    }

    #[test]
    fn protocol_section_four_rules() {
        let read_only = Annotations::new().read_only(true);
        let writes = Annotations::new().read_only(false);
        assert_eq!(
            writes.check_within(&read_only).unwrap_err().hint,
            Hint::ReadOnly
        );

        let not_destructive = Annotations::new().destructive(false);
        let destructive = Annotations::new().destructive(true).open_world(true);
        assert_eq!(
            destructive.check_within(&not_destructive).unwrap_err().hint,
            Hint::Destructive
        );

        let idempotent = Annotations::new().idempotent(true).destructive(false);
        let repeated = Annotations::new().idempotent(false).destructive(false);
        assert_eq!(
            repeated.check_within(&idempotent).unwrap_err().hint,
            Hint::Idempotent
        );
        // A read-only resolution of an idempotent tool is fine.
        assert!(read_only.is_within(&idempotent));

        let closed = Annotations::new().open_world(false);
        assert_eq!(
            Annotations::new().check_within(&closed).unwrap_err().hint,
            Hint::OpenWorld
        );
    }

    #[test]
    fn sep_1984_hints_may_only_claim_less() {
        let silent = Annotations::new();
        let sensitive = Annotations::new().sensitive_data(true);
        let not_sensitive = Annotations::new().sensitive_data(false);
        assert!(not_sensitive.is_within(&silent));
        assert!(silent.is_within(&sensitive));
        assert_eq!(
            sensitive.check_within(&silent).unwrap_err().hint,
            Hint::SensitiveData
        );

        let reversible = Annotations::new().reversible(true);
        let irreversible = Annotations::new().reversible(false);
        assert!(reversible.is_within(&irreversible));
        assert!(irreversible.check_within(&reversible).is_err());
        // Reversibility means nothing for a read.
        let read = Annotations::new().read_only(true).reversible(false);
        assert!(read.is_within(&reversible));
    }

    #[test]
    fn join_of_read_and_append_keeps_the_appends_reversibility() {
        let read = Annotations::new().read_only(true);
        let append = Annotations::new().destructive(false).reversible(true);
        let joined = read.join(append);
        assert_eq!(joined.reversible, Some(true));
        assert_eq!(joined.destructive, Some(false));
        assert_eq!(joined.idempotent, Some(false));
        assert_eq!(joined.read_only, Some(false));
    }

    #[test]
    fn display_escapes_the_title_as_json() {
        let a = Annotations::new()
            .title("a \"b\"\\\n\u{1}é")
            .read_only(false);
        assert_eq!(
            a.to_string(),
            r#"{"title":"a \"b\"\\\n\u0001é","readOnlyHint":false}"#
        );
        assert_eq!(Annotations::new().to_string(), "{}");
    }

    #[test]
    fn join_all_of_nothing_is_the_specification_default() {
        assert_eq!(Annotations::join_all(&[]), Annotations::new().effective());
    }

    #[test]
    fn serializes_wire_names_and_skips_absent_hints() {
        let a = Annotations::new()
            .title("Read")
            .read_only(true)
            .sensitive_data(false);
        assert_eq!(
            a.to_string(),
            r#"{"title":"Read","readOnlyHint":true,"sensitiveDataHint":false}"#
        );
    }
}
