//! The bound a static declaration sets on every resolution of its tool:
//! checked on every request, so the declared side is ranked once.

use core::fmt;

use crate::{Annotations, Hint};

impl Annotations {
    /// Checks a resolution against a static declaration, the conservative bound of
    /// the protocol: after defaults, a resolution may claim less risk than the
    /// static annotations for each hint, never more. Hints that only mean something
    /// for writes are compared only when the resolution is not read-only.
    ///
    /// Returns the first violation, hints in [`Hint::ALL`] order.
    ///
    /// ```
    /// # use annot_model as annot;
    /// use annot::{Annotations, Hint};
    ///
    /// let declared = Annotations::new().destructive(false);
    /// let resolved = Annotations::new().destructive(true);
    /// let violation = resolved.check_within(&declared).unwrap_err();
    /// assert_eq!(violation.hint, Hint::Destructive);
    /// ```
    pub const fn check_within(&self, declared: &Annotations) -> Result<(), BoundViolation> {
        Bound::new(declared).check(self)
    }

    /// Whether [`check_within`](Self::check_within) finds no violation.
    pub const fn is_within(&self, declared: &Annotations) -> bool {
        self.check_within(declared).is_ok()
    }
}

/// A resolution that claims more risk than the static declaration allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundViolation {
    /// The hint that broke the bound.
    pub hint: Hint,
    /// Its effective value in the static declaration.
    pub declared: Option<bool>,
    /// Its effective value in the resolution.
    pub resolved: Option<bool>,
}

impl fmt::Display for BoundViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "resolved {} is {} but the static declaration allows at most {}",
            self.hint,
            show(self.resolved),
            show(self.declared)
        )
    }
}

impl core::error::Error for BoundViolation {}

/// A static declaration made ready to check many resolutions against, as
/// [`Annotations::check_within`] does: a server checks every resolution
/// against the same bound, so the declared side's work is done once.
///
/// ```
/// # use annot_model as annot;
/// use annot::{Annotations, Bound, Hint};
///
/// let bound = Bound::new(&Annotations::new().destructive(false));
/// assert!(bound.check(&Annotations::new().read_only(true)).is_ok());
/// let violation = bound.check(&Annotations::new().destructive(true)).unwrap_err();
/// assert_eq!(violation.hint, Hint::Destructive);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The declaration, defaults applied.
    declared: Annotations,
    /// Its hints' risk ranks plus one, a lane of four bits each.
    ranks_above: u64,
}

impl Bound {
    /// The bound `declared` sets.
    pub const fn new(declared: &Annotations) -> Self {
        let declared = declared.effective();
        Bound {
            declared,
            ranks_above: risk_ranks(&declared) + LOW_BITS,
        }
    }

    /// The declaration, defaults applied.
    pub const fn declared(&self) -> &Annotations {
        &self.declared
    }

    /// `resolved` checked against the bound: the first hint (in
    /// [`Hint::ALL`]'s order) whose effective value claims more risk, if any.
    pub const fn check(&self, resolved: &Annotations) -> Result<(), BoundViolation> {
        let resolved = resolved.effective();
        // Every hint at once: `(r | 8) - (d + 1)` has its lane's high bit set
        // exactly when rank r is over rank d (both at most 2, so no lane
        // borrows from the next).
        let mut over = ((risk_ranks(&resolved) | HIGH_BITS) - self.ranks_above) & HIGH_BITS;
        if resolved.is_read_only() {
            over &= !WRITING_HINTS;
        }
        if over == 0 {
            return Ok(());
        }
        let hint = Hint::ALL[over.trailing_zeros() as usize / 4];
        Err(BoundViolation {
            hint,
            declared: self.declared.get(hint),
            resolved: resolved.get(hint),
        })
    }
}

/// Each hint's [`risk_rank`](Hint::risk_rank) in a lane of four bits,
/// `Hint::ALL[i]` in lane `i`.
#[inline(always)]
const fn risk_ranks(annotations: &Annotations) -> u64 {
    const fn rank(value: Option<bool>, lane: usize) -> u64 {
        (Hint::ALL[lane].risk_rank(value) as u64) << (4 * lane)
    }
    rank(annotations.read_only, 0)
        | rank(annotations.destructive, 1)
        | rank(annotations.idempotent, 2)
        | rank(annotations.open_world, 3)
        | rank(annotations.ai_processing, 4)
        | rank(annotations.slow_execution, 5)
        | rank(annotations.resource_intensive, 6)
        | rank(annotations.sensitive_data, 7)
        | rank(annotations.privileged_access, 8)
        | rank(annotations.reversible, 9)
}

/// One in the lowest bit of each hint's lane, and in the highest.
const LOW_BITS: u64 = 0x11_1111_1111;
const HIGH_BITS: u64 = LOW_BITS << 3;

/// The high bits of the lanes of the hints that only mean something for a
/// tool that writes, which a read-only resolution makes no claim about.
const WRITING_HINTS: u64 = {
    let mut bits = 0;
    let mut index = 0;
    while index < Hint::ALL.len() {
        if Hint::ALL[index].only_meaningful_when_writing() {
            bits |= 8 << (4 * index);
        }
        index += 1;
    }
    bits
};

fn show(value: Option<bool>) -> &'static str {
    match value {
        None => "absent",
        Some(true) => "true",
        Some(false) => "false",
    }
}
