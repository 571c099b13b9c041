//! How many rules a tool, and patterns a field, can have: one bit of a
//! `u64` mask each in the generated code (see the runtime's `rules::table`).

use proc_macro2::Span;

use crate::errors::Errors;
use crate::patterns::FieldPatterns;

/// The most rules a tool can have, and patterns a field can be tested
/// against.
pub const MAX_RULES: usize = 64;

/// Reports rule `index` (whose span is `span`) if it is one too many, and
/// the first rule that takes a field past the most patterns (once:
/// `reported` remembers it).
pub fn check(
    span: Span,
    index: usize,
    patterns: &[FieldPatterns],
    reported: &mut bool,
    errors: &Errors,
) {
    if index == MAX_RULES {
        errors.at(
            span,
            format_args!(
                "a tool has at most {MAX_RULES} rules (each is one bit of the masks its \
                 resolution is computed from); this is rule {}",
                index + 1
            ),
        );
    }
    if !*reported && let Some(set) = patterns.iter().find(|set| set.regexes.len() > MAX_RULES) {
        *reported = true;
        errors.at(
            span,
            format_args!(
                "the rules test `{}` against more than {MAX_RULES} patterns, the most one \
                 field can have",
                set.field
            ),
        );
    }
}
