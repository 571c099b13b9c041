//! How a call's annotations are put together: an action's declared hints,
//! the tool's defaults, and the rules that fire.

use crate::{Annotations, Hint};

/// `declared` with every hint it leaves unset taken from `defaults`, without
/// [`Annotations::effective`].
pub const fn fill_defaults(declared: Annotations, defaults: Annotations) -> Annotations {
    let mut filled = declared;
    let mut index = 0;
    while index < Hint::ALL.len() {
        let hint = Hint::ALL[index];
        if filled.get(hint).is_none() {
            filled = filled.with(hint, defaults.get(hint));
        }
        index += 1;
    }
    filled
}

/// The annotations a call of an action starts from, before rules and
/// [`Annotations::effective`]: the action's declared hints, then the tool's
/// `defaults` for the hints it leaves unset.
///
/// On a read-only action the hints that only mean something for writes
/// ([`Hint::only_meaningful_when_writing`]) are the tool's defaults (or
/// unset), whatever the action declares: they are normalised away while the
/// call stays read-only, and if a rule turns `read_only` off they are what an
/// action declared `read_only = false` would have. So a tool-level
/// `destructive` default never contradicts a read-only action, and a rule
/// that makes a GET a write is as risky as the same rule on any read-only
/// action.
///
/// ```
/// use annot_model::{Annotations, action_base};
///
/// let read = Annotations::new().read_only(true).destructive(false);
/// let defaults = Annotations::new().open_world(false).idempotent(false);
/// let base = action_base(read, defaults);
/// assert_eq!(
///     (base.read_only, base.destructive, base.idempotent, base.open_world),
///     (Some(true), None, Some(false), Some(false))
/// );
/// ```
pub const fn action_base(declared: Annotations, defaults: Annotations) -> Annotations {
    let mut base = fill_defaults(declared, defaults);
    if base.is_read_only() {
        let mut index = 0;
        while index < Hint::ALL.len() {
            let hint = Hint::ALL[index];
            if hint.only_meaningful_when_writing() {
                base = base.with(hint, defaults.get(hint));
            }
            index += 1;
        }
    }
    base
}

/// `joined` with each hint `named` sets replaced by the join of both values
/// (the value of `named` where `joined` has none): how the hints of several
/// firing rules combine.
///
/// ```
/// use annot_model::{Annotations, join_named};
///
/// let fired = join_named(Annotations::new(), Annotations::new().destructive(false));
/// let fired = join_named(fired, Annotations::new().destructive(true).reversible(true));
/// assert_eq!((fired.destructive, fired.reversible), (Some(true), Some(true)));
/// assert_eq!(fired.read_only, None);
/// ```
pub const fn join_named(joined: Annotations, named: Annotations) -> Annotations {
    let mut result = joined;
    let mut index = 0;
    while index < Hint::ALL.len() {
        let hint = Hint::ALL[index];
        if let Some(value) = named.get(hint) {
            let value = match joined.get(hint) {
                None => Some(value),
                Some(before) => hint.join(Some(before), Some(value)),
            };
            result = result.with(hint, value);
        }
        index += 1;
    }
    result
}

/// The effective annotations of a call: for each hint, the joined value of
/// the rules that `fired` (decided) when one names it, else the `base`'s
/// (see [`action_base`]); then the join with the value of the rules whose
/// predicate was `undecided`, which never lower risk; then
/// [`Annotations::effective`].
///
/// ```
/// use annot_model::{Annotations, resolve};
///
/// let base = Annotations::new().destructive(true);
/// let lowers = Annotations::new().destructive(false);
/// assert_eq!(resolve(base, lowers, Annotations::new()).destructive, Some(false));
/// // Undecided, the same rule cannot lower risk.
/// assert_eq!(resolve(base, Annotations::new(), lowers).destructive, Some(true));
/// ```
pub const fn resolve(base: Annotations, fired: Annotations, undecided: Annotations) -> Annotations {
    let mut resolved = base;
    let mut index = 0;
    while index < Hint::ALL.len() {
        let hint = Hint::ALL[index];
        let decided = match fired.get(hint) {
            Some(value) => Some(value),
            None => base.get(hint),
        };
        let value = match undecided.get(hint) {
            Some(value) => hint.join(decided, Some(value)),
            None => decided,
        };
        resolved = resolved.with(hint, value);
        index += 1;
    }
    resolved.effective()
}
