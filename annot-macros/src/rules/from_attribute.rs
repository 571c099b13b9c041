//! Reading a rule from `#[mcp_tool(...)]` or `#[annotate(...)]`: the rule
//! language's parser (`annot_rules::parse`), with `results(...)` read as the
//! macro reads it on actions and tools.

use syn::Ident;
use syn::meta::ParseNestedMeta;

use super::Rule;
use crate::internals::ctxt::Errors;
use crate::internals::hints::HintSet;
use crate::internals::meta::RawValue;
use crate::internals::result_claims::{Claimant, ResultClaims};
pub use annot_rules::parse::parse_auth;

/// Parses a rule whose `when` key has just been read with its `(...)`: the
/// `=> (<hints>)` still waits in `meta.input`. `None` after recording an error.
pub fn parse_rule(
    when: &Ident,
    raw: RawValue,
    meta: &ParseNestedMeta,
    errors: &Errors,
) -> Option<Rule> {
    let mut results: Option<ResultClaims> = None;
    let mut on_results = |key: &Ident, raw: RawValue| {
        let parsed = crate::internals::result_claims::parse(key, raw, Claimant::Rule, errors);
        match (&results, parsed) {
            (Some(_), _) => errors.spanned(key, "duplicate `results`"),
            (None, parsed) => results = parsed,
        }
    };
    let parsed = annot_rules::parse::parse_rule(when, raw, meta.input, errors, &mut on_results)?;
    Some(Rule {
        span: when.span(),
        predicate: parsed.predicate,
        hints: HintSet {
            values: parsed.settings.hints,
        },
        auth: parsed.settings.auth,
        results,
    })
}
