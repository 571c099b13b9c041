//! The ten behaviour hints and the risk order of each.

use core::fmt;

/// One behaviour hint of a tool: the four core hints of MCP 2025-11-25 and the six
/// hints proposed by SEP-1984.
///
/// Each hint has a *risky* value (the one a cautious client must assume) and a
/// risk order over its three states `Some(safe) < None < Some(risky)`: an absent
/// SEP-1984 hint makes no claim, which is less than claiming the risk and more than
/// ruling it out. Core hints are never absent once [`Annotations::effective`] has
/// applied their defaults.
///
/// [`Annotations::effective`]: crate::Annotations::effective
///
/// ```
/// # use annot_model as annot;
/// use annot::Hint;
///
/// assert_eq!(Hint::ReadOnly.wire_name(), "readOnlyHint");
/// assert!(Hint::Destructive.risky_value());
/// assert!(!Hint::Reversible.risky_value());
/// assert_eq!(Hint::from_attribute_name("open_world"), Some(Hint::OpenWorld));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hint {
    /// `readOnlyHint`: the tool does not modify its environment.
    ReadOnly,
    /// `destructiveHint`: modifications may be destructive rather than additive.
    Destructive,
    /// `idempotentHint`: repeating the call with the same arguments has no further effect.
    Idempotent,
    /// `openWorldHint`: the tool interacts with an open world of external entities.
    OpenWorld,
    /// `aiProcessingHint` (SEP-1984): the tool sends data to an AI model.
    AiProcessing,
    /// `slowExecutionHint` (SEP-1984): the call may take long.
    SlowExecution,
    /// `resourceIntensiveHint` (SEP-1984): the call may use much CPU, memory or money.
    ResourceIntensive,
    /// `sensitiveDataHint` (SEP-1984): the call may touch sensitive or private data.
    SensitiveData,
    /// `privilegedAccessHint` (SEP-1984): the call needs elevated privileges.
    PrivilegedAccess,
    /// `reversibleHint` (SEP-1984): the effects can be undone.
    Reversible,
}

impl Hint {
    /// Every hint, core hints first, in wire order.
    pub const ALL: [Hint; 10] = [
        Hint::ReadOnly,
        Hint::Destructive,
        Hint::Idempotent,
        Hint::OpenWorld,
        Hint::AiProcessing,
        Hint::SlowExecution,
        Hint::ResourceIntensive,
        Hint::SensitiveData,
        Hint::PrivilegedAccess,
        Hint::Reversible,
    ];

    /// The four core hints of MCP 2025-11-25.
    pub const CORE: [Hint; 4] = [
        Hint::ReadOnly,
        Hint::Destructive,
        Hint::Idempotent,
        Hint::OpenWorld,
    ];

    /// The JSON name of the hint, as in `tools/list`.
    pub const fn wire_name(self) -> &'static str {
        match self {
            Hint::ReadOnly => "readOnlyHint",
            Hint::Destructive => "destructiveHint",
            Hint::Idempotent => "idempotentHint",
            Hint::OpenWorld => "openWorldHint",
            Hint::AiProcessing => "aiProcessingHint",
            Hint::SlowExecution => "slowExecutionHint",
            Hint::ResourceIntensive => "resourceIntensiveHint",
            Hint::SensitiveData => "sensitiveDataHint",
            Hint::PrivilegedAccess => "privilegedAccessHint",
            Hint::Reversible => "reversibleHint",
        }
    }

    /// The name used in `#[annotate(...)]` and `#[mcp_tool(...)]`.
    pub const fn attribute_name(self) -> &'static str {
        match self {
            Hint::ReadOnly => "read_only",
            Hint::Destructive => "destructive",
            Hint::Idempotent => "idempotent",
            Hint::OpenWorld => "open_world",
            Hint::AiProcessing => "ai_processing",
            Hint::SlowExecution => "slow_execution",
            Hint::ResourceIntensive => "resource_intensive",
            Hint::SensitiveData => "sensitive_data",
            Hint::PrivilegedAccess => "privileged_access",
            Hint::Reversible => "reversible",
        }
    }

    /// Looks a hint up by its wire name (`"readOnlyHint"`).
    pub fn from_wire_name(name: &str) -> Option<Hint> {
        Hint::ALL.into_iter().find(|hint| hint.wire_name() == name)
    }

    /// Looks a hint up by its attribute name (`"read_only"`).
    pub fn from_attribute_name(name: &str) -> Option<Hint> {
        Hint::ALL
            .into_iter()
            .find(|hint| hint.attribute_name() == name)
    }

    /// Whether the hint is one of the four core hints (which have defaults).
    pub const fn is_core(self) -> bool {
        matches!(
            self,
            Hint::ReadOnly | Hint::Destructive | Hint::Idempotent | Hint::OpenWorld
        )
    }

    /// The value a cautious client must assume: `true` for every hint but
    /// `readOnlyHint`, `idempotentHint` and `reversibleHint`.
    pub const fn risky_value(self) -> bool {
        !matches!(self, Hint::ReadOnly | Hint::Idempotent | Hint::Reversible)
    }

    /// The value the specification assumes when the hint is absent: the risky value
    /// for core hints, no claim (`None`) for SEP-1984 hints.
    pub const fn default_value(self) -> Option<bool> {
        if self.is_core() {
            Some(self.risky_value())
        } else {
            None
        }
    }

    /// Whether the hint only means something when the tool is not read-only
    /// (`destructiveHint`, `idempotentHint`, `reversibleHint`).
    pub const fn only_meaningful_when_writing(self) -> bool {
        matches!(
            self,
            Hint::Destructive | Hint::Idempotent | Hint::Reversible
        )
    }

    /// The position of `value` in this hint's risk order: 0 rules the risk out,
    /// 1 makes no claim, 2 claims the risk.
    pub const fn risk_rank(self, value: Option<bool>) -> u8 {
        match value {
            None => 1,
            Some(value) if value == self.risky_value() => 2,
            Some(_) => 0,
        }
    }

    /// The riskier of two values of this hint (the join of the risk order).
    ///
    /// ```
    /// # use annot_model as annot;
    /// use annot::Hint;
    ///
    /// assert_eq!(Hint::Destructive.join(Some(false), Some(true)), Some(true));
    /// assert_eq!(Hint::Reversible.join(Some(true), None), None);
    /// assert_eq!(Hint::SensitiveData.join(None, Some(true)), Some(true));
    /// ```
    pub const fn join(self, a: Option<bool>, b: Option<bool>) -> Option<bool> {
        if self.risk_rank(b) > self.risk_rank(a) {
            b
        } else {
            a
        }
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wire_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for hint in Hint::ALL {
            assert_eq!(Hint::from_wire_name(hint.wire_name()), Some(hint));
            assert_eq!(Hint::from_attribute_name(hint.attribute_name()), Some(hint));
        }
        assert_eq!(Hint::from_wire_name("readonlyHint"), None);
    }

    #[test]
    fn defaults_follow_the_specification() {
        assert_eq!(Hint::ReadOnly.default_value(), Some(false));
        assert_eq!(Hint::Destructive.default_value(), Some(true));
        assert_eq!(Hint::Idempotent.default_value(), Some(false));
        assert_eq!(Hint::OpenWorld.default_value(), Some(true));
        for hint in &Hint::ALL[4..] {
            assert_eq!(hint.default_value(), None, "{hint}");
        }
    }

    #[test]
    fn join_is_commutative_associative_and_idempotent() {
        let values = [None, Some(false), Some(true)];
        for hint in Hint::ALL {
            for a in values {
                assert_eq!(hint.join(a, a), a);
                for b in values {
                    assert_eq!(hint.join(a, b), hint.join(b, a));
                    for c in values {
                        assert_eq!(hint.join(hint.join(a, b), c), hint.join(a, hint.join(b, c)));
                    }
                }
            }
        }
    }

    #[test]
    fn risky_value_is_the_top() {
        for hint in Hint::ALL {
            let top = Some(hint.risky_value());
            for value in [None, Some(false), Some(true)] {
                assert_eq!(hint.join(value, top), top);
            }
        }
    }
}
