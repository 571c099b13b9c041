//! Profiles: what a server lets through, judged on resolved annotations.
//!
//! A [`Profile`] is a predicate over a call's resolved annotations (defaults
//! applied). [`ServerBuilder::profile`](crate::server::ServerBuilder::profile) applies
//! it at two moments:
//!
//! - **When the server is built**, per tool: an action that can never satisfy
//!   the profile is dropped (see [`Profile::can_satisfy_action`]); the listing shows
//!   the `inputSchema` narrowed to the actions that remain and static
//!   annotations joined over them; a tool with no action left is not listed.
//! - **On every call and resolution** of what remains: the resolved
//!   annotations are checked. Outside the profile, a resolution answers
//!   `-32602` and a `tools/call` an `isError` result, both naming the profile
//!   and the hint; the handler never runs. A call to a dropped action is
//!   outside the profile too, and gets the same answer.
//!
//! Silence never lowers risk: a hint that is absent after defaults (an
//! extension hint such as `privilegedAccessHint` that nothing declared)
//! counts as its risky value.

use core::fmt;

use crate::rules::table::RuleTable;
use crate::{Annotations, Hint, Rule};

/// A set of restrictions on the calls a server lets through; combine them with
/// [`and`](Profile::and). The empty set, [`Profile::any`], lets everything
/// through.
///
/// A server built with one ([`ServerBuilder::profile`](crate::server::ServerBuilder::profile))
/// drops from `tools/list` the actions that can never pass
/// ([`can_satisfy_action`](Profile::can_satisfy_action)), lists the `inputSchema` narrowed to
/// the others ([`AnnotatedTool::input_schema_for`](crate::AnnotatedTool::input_schema_for))
/// with static annotations joined over them, and leaves out a tool with
/// nothing left. Every call and resolution is checked on its resolved
/// annotations: outside the profile, a resolution answers `-32602` and a
/// `tools/call` an `isError` result, both with the [`ProfileViolation`]'s
/// message, and the handler never runs.
///
/// | profile | a call passes when (defaults applied) |
/// |---|---|
/// | [`read_only`](Profile::read_only) | `readOnlyHint` is `true` |
/// | [`no_destructive`](Profile::no_destructive) | `destructiveHint` is `false` (every read-only call; additive writes) |
/// | [`closed_world`](Profile::closed_world) | `openWorldHint` is `false` |
/// | [`no_privileged`](Profile::no_privileged) | `privilegedAccessHint` is `false` (absent counts as `true`) |
///
/// ```
/// # use annot_runtime as annot;
/// use annot::Annotations;
/// use annot::server::Profile;
///
/// let profile = Profile::no_destructive().and(Profile::closed_world());
/// assert_eq!(profile.to_string(), "no_destructive+closed_world");
/// let append = Annotations::new().read_only(false).destructive(false).open_world(false);
/// assert!(profile.allows(&append));
/// let violation = profile.check(&append.open_world(true)).unwrap_err();
/// assert_eq!(violation.hint.wire_name(), "openWorldHint");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Profile {
    bits: u8,
}

const READ_ONLY: u8 = 1;
const NO_DESTRUCTIVE: u8 = 2;
const CLOSED_WORLD: u8 = 4;
const NO_PRIVILEGED: u8 = 8;

/// Each restriction: its bit, its name, the hint it tests.
const RESTRICTIONS: [(u8, &str, Hint); 4] = [
    (READ_ONLY, "read_only", Hint::ReadOnly),
    (NO_DESTRUCTIVE, "no_destructive", Hint::Destructive),
    (CLOSED_WORLD, "closed_world", Hint::OpenWorld),
    (NO_PRIVILEGED, "no_privileged", Hint::PrivilegedAccess),
];

impl Profile {
    /// No restriction: every call passes (what a server without a profile does).
    pub const fn any() -> Self {
        Profile { bits: 0 }
    }

    /// Read-only calls only: `readOnlyHint: true`.
    pub const fn read_only() -> Self {
        Profile { bits: READ_ONLY }
    }

    /// Reads and additive writes only: `destructiveHint: false` (a read-only
    /// call is never destructive).
    pub const fn no_destructive() -> Self {
        Profile {
            bits: NO_DESTRUCTIVE,
        }
    }

    /// No call that reaches outside the server's own world: `openWorldHint: false`.
    pub const fn closed_world() -> Self {
        Profile { bits: CLOSED_WORLD }
    }

    /// No call that needs privileged access: `privilegedAccessHint: false`
    /// (absent counts as `true`).
    pub const fn no_privileged() -> Self {
        Profile {
            bits: NO_PRIVILEGED,
        }
    }

    /// The restriction of one name as [`Display`](fmt::Display) writes it
    /// (`read_only`), or as a command-line flag spells it (`read-only`);
    /// `None` for any other name.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::Profile;
    ///
    /// assert_eq!(Profile::named("read-only"), Some(Profile::read_only()));
    /// assert_eq!(Profile::named("no_privileged"), Some(Profile::no_privileged()));
    /// assert_eq!(Profile::named("read-mostly"), None);
    /// ```
    pub fn named(name: &str) -> Option<Profile> {
        RESTRICTIONS
            .iter()
            .find(|(_, known, _)| {
                known.len() == name.len()
                    && known
                        .bytes()
                        .zip(name.bytes())
                        .all(|(k, n)| k == n || (k == b'_' && n == b'-'))
            })
            .map(|&(bits, _, _)| Profile { bits })
    }

    /// The names [`named`](Self::named) knows, in `Display` order.
    pub const NAMES: [&'static str; 4] = [
        RESTRICTIONS[0].1,
        RESTRICTIONS[1].1,
        RESTRICTIONS[2].1,
        RESTRICTIONS[3].1,
    ];

    /// Both restrictions: a call passes only if it passes each.
    #[must_use]
    pub const fn and(self, other: Profile) -> Self {
        Profile {
            bits: self.bits | other.bits,
        }
    }

    /// Whether this profile lets every call through.
    pub const fn is_any(self) -> bool {
        self.bits == 0
    }

    /// Whether annotations (defaults are applied here) pass the profile.
    pub fn allows(self, annotations: &Annotations) -> bool {
        self.check(annotations).is_ok()
    }

    /// The first restriction annotations (defaults applied here) break, in
    /// the order of the table above.
    pub fn check(self, annotations: &Annotations) -> Result<(), ProfileViolation> {
        // Every resolution of a server without a profile comes here.
        if self.is_any() {
            return Ok(());
        }
        let effective = annotations.effective();
        for (bit, _, hint) in RESTRICTIONS {
            if self.bits & bit == 0 {
                continue;
            }
            let value = effective.get(hint);
            // The one value that passes is the safe one; absent is risky.
            if value != Some(!hint.risky_value()) {
                return Err(ProfileViolation {
                    profile: self,
                    restriction: Profile { bits: bit },
                    hint,
                    value,
                });
            }
        }
        Ok(())
    }

    /// Whether an action whose worst case is `bound` can satisfy the profile
    /// for some arguments, given the rules of its tool. Decided conservatively
    /// (it may answer `true` for an action that never does; the check of every
    /// call catches those), never the other way:
    ///
    /// - if `bound` passes, every resolution of the action does (each is
    ///   within it, and each restriction is monotone in risk);
    /// - else, a resolution can differ from `bound` on a hint only when a rule
    ///   names that hint (a rule that fires replaces the action's value), or,
    ///   for `destructiveHint`, when a rule names `readOnlyHint` (a read-only
    ///   call is never destructive). A broken hint that no rule can change
    ///   breaks every resolution, so the action is dropped.
    ///
    /// The tool's rules are not known per action here, only per tool: a rule
    /// that can never fire on this action still keeps it listed. A tool
    /// `#[mcp_tool]` generates has its compiled rules, and a server decides
    /// with [`can_satisfy_action`](Self::can_satisfy_action) instead.
    pub fn can_satisfy(self, bound: &Annotations, rules: &[Rule]) -> bool {
        let named = |hint: Hint| rules.iter().any(|rule| rule.hints.get(hint).is_some());
        let effective = bound.effective();
        RESTRICTIONS.iter().all(|&(bit, _, hint)| {
            self.bits & bit == 0
                || effective.get(hint) == Some(!hint.risky_value())
                || named(hint)
                || (hint == Hint::Destructive && named(Hint::ReadOnly))
        })
    }
}

impl Profile {
    /// Whether some call of the action at row `action` of `table` (a tool's
    /// compiled rules, the `rule_table` of what `#[mcp_tool]` generates)
    /// can satisfy the profile: `false` only when no combination of the rules
    /// that can fire on it gives a resolution that passes. `true` for a row
    /// the table does not have.
    ///
    /// A call resolves from the action's base
    /// ([`action_base`](annot_model::action_base): a read-only action
    /// already has the write-only hints a rule turning `read_only` off
    /// exposes), each hint firing rules name set to their join; undecided
    /// rules only add risk, so it suffices to try sets of rules that fire,
    /// each holding the certain rules and within the applicable ones. The
    /// hints a profile tests are risky when absent: safe iff a firing rule
    /// names it and none sets it risky, or none names it and the base is
    /// safe. For hints that must be safe together the best set is every
    /// applicable rule setting none of them risky (none may be certain).
    /// From [`Annotations::effective`]: a read-only call is never
    /// destructive, so `no_destructive` is tried through `readOnlyHint: true`
    /// and through `destructiveHint: false`.
    ///
    /// Exact as far as the table tells: it treats every set of applicable
    /// rules as reachable, which arguments may not be (two predicates that
    /// exclude each other), so it can keep an action that no call passes;
    /// every call is still checked. It never drops one that some call passes.
    #[doc(hidden)]
    pub fn can_satisfy_action(self, table: &RuleTable, action: usize) -> bool {
        let Some(row) = table.actions.get(action) else {
            return true;
        };
        let masks = |hint: Hint| {
            let index = Hint::ALL
                .iter()
                .position(|&known| known == hint)
                .expect("every hint is in Hint::ALL");
            table.hints[index]
        };
        // Whether a set of rules that can fire together makes every hint of
        // `needed` safe (before `effective`).
        let together = |needed: &[Hint]| {
            let forbidden = needed
                .iter()
                .fold(0, |mask, &hint| mask | masks(hint).risky);
            if row.certain & forbidden != 0 {
                return false;
            }
            let fired = row.applicable & !forbidden;
            needed.iter().all(|&hint| {
                fired & masks(hint).named != 0 || row.base.get(hint) == Some(!hint.risky_value())
            })
        };
        let mut needed: Vec<Hint> = RESTRICTIONS
            .iter()
            .filter(|&&(bit, _, hint)| self.bits & bit != 0 && hint != Hint::Destructive)
            .map(|&(_, _, hint)| hint)
            .collect();
        if self.bits & NO_DESTRUCTIVE == 0 {
            return together(&needed);
        }
        let mut through = |hint: Hint| {
            needed.push(hint);
            let passes = together(&needed);
            needed.pop();
            passes
        };
        through(Hint::ReadOnly) || through(Hint::Destructive)
    }
}

impl fmt::Display for Profile {
    /// The restrictions' names joined by `+` (`read_only+no_privileged`);
    /// `any` for none.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_any() {
            return f.write_str("any");
        }
        let mut first = true;
        for (bit, name, _) in RESTRICTIONS {
            if self.bits & bit != 0 {
                if !first {
                    f.write_str("+")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// Why annotations are outside a profile: the restriction and the hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "outside the server's profile `{profile}`: {} is {}, and {restriction} needs {}",
    hint.wire_name(),
    value_text(*value),
    !hint.risky_value()
)]
pub struct ProfileViolation {
    /// The server's whole profile.
    pub profile: Profile,
    /// The one restriction broken (`read_only`).
    pub restriction: Profile,
    /// The hint that breaks it.
    pub hint: Hint,
    /// Its value, defaults applied (`None`: absent, counted as risky).
    pub value: Option<bool>,
}

fn value_text(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "true",
        Some(false) => "false",
        None => "absent (counted as risky)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Tri;
    use crate::rules::table::ActionRow;

    #[test]
    fn messages_name_profile_restriction_and_hint() {
        let profile = Profile::read_only().and(Profile::no_privileged());
        let violation = profile
            .check(&Annotations::new().read_only(true))
            .unwrap_err();
        assert_eq!(
            violation.to_string(),
            "outside the server's profile `read_only+no_privileged`: privilegedAccessHint is \
             absent (counted as risky), and no_privileged needs false"
        );
        let violation = profile.check(&Annotations::new()).unwrap_err();
        assert_eq!(
            violation.to_string(),
            "outside the server's profile `read_only+no_privileged`: readOnlyHint is false, \
             and read_only needs true"
        );
        assert_eq!(Profile::any().to_string(), "any");
        assert!(Profile::any().allows(&Annotations::worst()));
    }

    /// A table of rules `hints` (in order) and rows `(declared, fires)`
    /// under `defaults`.
    fn table(
        hints: &[Annotations],
        defaults: Annotations,
        rows: &[(Annotations, &[Tri])],
    ) -> &'static RuleTable {
        let rules: Vec<Rule> = hints
            .iter()
            .enumerate()
            .map(|(index, &hints)| Rule {
                index,
                source: "when(...)",
                hints,
                authorization: None,
            })
            .collect();
        let rows: Vec<ActionRow> = rows
            .iter()
            .map(|&(declared, fires)| ActionRow::new("a", declared, None, defaults, None, fires))
            .collect();
        let rules = Box::leak(rules.into_boxed_slice());
        let rows = Box::leak(rows.into_boxed_slice());
        Box::leak(Box::new(RuleTable::new(rules, defaults, None, rows)))
    }

    #[test]
    fn an_action_is_kept_only_if_some_rule_set_can_pass() {
        use Tri::{Always, Maybe, Never};
        let write = Annotations::new()
            .destructive(true)
            .open_world(false)
            .privileged_access(false);
        let rules = [
            Annotations::new().destructive(false),
            Annotations::new().destructive(true).reversible(false),
            Annotations::new().destructive(false).open_world(true),
            Annotations::new().read_only(false),
        ];
        let rows: &[(Annotations, &[Tri])] = &[
            // 0: a rule that clears `destructive` may fire.
            (write, &[Maybe, Never, Never, Never]),
            // 1: the clearing rule never fires here; the other only raises.
            (write, &[Never, Maybe, Never, Never]),
            // 2: the clearing rule may fire, but a raising one always does.
            (write, &[Maybe, Always, Never, Never]),
            // 3: clears `destructive` only while opening the world.
            (write, &[Never, Never, Maybe, Never]),
            // 4: a read that a certain rule turns into a write.
            (
                Annotations::new().read_only(true),
                &[Never, Never, Never, Always],
            ),
            // 5: a read that a rule may turn into a write.
            (
                Annotations::new().read_only(true),
                &[Never, Never, Never, Maybe],
            ),
        ];
        let defaults = Annotations::new()
            .open_world(false)
            .privileged_access(false);
        let t = table(&rules, defaults, rows);
        let no_destructive = Profile::no_destructive();
        let both = no_destructive.and(Profile::closed_world());
        let kept = |profile: Profile| {
            (0..rows.len())
                .filter(|&row| profile.can_satisfy_action(t, row))
                .collect::<Vec<_>>()
        };
        // Row 4 becomes a write with the specification's `destructive`.
        assert_eq!(kept(no_destructive), [0, 3, 5]);
        assert_eq!(kept(Profile::closed_world()), [0, 1, 2, 3, 4, 5]);
        // Row 3's rule cannot make both hints safe at once.
        assert_eq!(kept(both), [0, 5]);
        assert_eq!(kept(Profile::read_only()), [5]);
        assert_eq!(kept(Profile::no_privileged()), [0, 1, 2, 3, 4, 5]);
        // Row 4 again, under a tool whose writes are additive by default.
        let additive = defaults.destructive(false);
        let t = table(&rules, additive, rows);
        assert!(no_destructive.can_satisfy_action(t, 4));
        assert!(!Profile::read_only().can_satisfy_action(t, 4));
        // A row the table does not have is kept (checked per call).
        assert!(Profile::read_only().can_satisfy_action(t, rows.len()));
    }

    /// Against the resolution itself: for every profile and row, kept iff
    /// some set of the row's rules holding (none undecided) resolves, by
    /// [`Outcome`](crate::rules::table::Outcome), to annotations the profile allows.
    #[test]
    fn the_answer_is_the_resolutions_over_every_rule_set() {
        use Tri::{Always, Maybe, Never};
        let rules = [
            Annotations::new().destructive(false),
            Annotations::new().read_only(true).open_world(true),
            Annotations::new().read_only(false).privileged_access(false),
            Annotations::new().open_world(false).destructive(true),
        ];
        let tris = [Never, Maybe, Always];
        let mut rows: Vec<(Annotations, Vec<Tri>)> = Vec::new();
        for declared in [
            Annotations::new(),
            Annotations::new().read_only(true),
            Annotations::new().destructive(false).open_world(false),
            Annotations::new().privileged_access(false),
        ] {
            for code in 0..81 {
                let fires = (0..4)
                    .map(|rule| tris[code / 3usize.pow(rule) % 3])
                    .collect();
                rows.push((declared, fires));
            }
        }
        let rows: Vec<(Annotations, &[Tri])> = rows
            .iter()
            .map(|(declared, fires)| (*declared, fires.as_slice()))
            .collect();
        for defaults in [Annotations::new(), Annotations::new().destructive(false)] {
            let t = table(&rules, defaults, &rows);
            for bits in 0..16u8 {
                let profile = Profile { bits };
                for (index, row) in t.actions.iter().enumerate() {
                    let passes = (0..16u64).any(|fired| {
                        fired & row.certain == row.certain
                            && fired & !row.applicable == 0
                            && profile.allows(
                                &crate::rules::table::Outcome::compiled(t, index, fired, 0)
                                    .annotations(),
                            )
                    });
                    assert_eq!(
                        profile.can_satisfy_action(t, index),
                        passes,
                        "{profile} {defaults:?} {:?}",
                        rows[index]
                    );
                }
            }
        }
    }

    #[test]
    fn a_read_is_never_destructive() {
        let read = Annotations::new().read_only(true).destructive(true);
        assert!(Profile::no_destructive().allows(&read));
        assert!(!Profile::no_destructive().allows(&Annotations::new().read_only(false)));
    }
}
