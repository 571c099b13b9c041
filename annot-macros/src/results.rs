//! `#[annotate(results(sensitive, untrusted))]`: what an action's results
//! claim under the trust-annotations extension, beyond what its resolved
//! annotations imply. Parsed and checked here (only the two claims, each once,
//! at least one); `expand` turns them into `AnnotatedTool::result_claims`,
//! which the server joins with the floor the resolution gives: a declaration
//! only ever adds.

use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

use crate::ctxt::Errors;
use crate::meta::RawValue;
use crate::suggest::did_you_mean;

/// The claims one action declares.
#[derive(Clone)]
pub struct ResultClaims {
    /// The `results` key, for errors about the declaration as a whole.
    pub key: Ident,
    pub sensitive: bool,
    pub untrusted: bool,
}

const CLAIMS: [&str; 2] = ["sensitive", "untrusted"];

/// Reads `results(...)`: a parenthesised list of `sensitive` and `untrusted`.
pub fn parse(key: &Ident, raw: RawValue, errors: &Errors) -> Option<ResultClaims> {
    let usage = "`results` takes the claims of this action's results: \
                 `results(sensitive)`, `results(untrusted)` or `results(sensitive, untrusted)`";
    let group = match raw {
        RawValue::List(group) if group.delimiter() == proc_macro2::Delimiter::Parenthesis => group,
        RawValue::List(group) => {
            errors.spanned(&group, usage);
            return None;
        }
        RawValue::Flag => {
            errors.spanned(key, usage);
            return None;
        }
        RawValue::Assigned { eq, tokens } => {
            errors.spanned(quote!(#eq #tokens), usage);
            return None;
        }
    };
    let parser = Punctuated::<Ident, Token![,]>::parse_terminated;
    let names = errors.ok(syn::parse::Parser::parse2(parser, group.stream()))?;
    if names.is_empty() {
        errors.spanned(&group, format!("`results()` claims nothing: {usage}"));
        return None;
    }
    let mut claims = ResultClaims {
        key: key.clone(),
        sensitive: false,
        untrusted: false,
    };
    for name in &names {
        let slot = match name.to_string().as_str() {
            "sensitive" => &mut claims.sensitive,
            "untrusted" => &mut claims.untrusted,
            other => {
                errors.spanned(
                    name,
                    format!(
                        "unknown claim `{other}`: trust-annotations has `sensitive` and \
                         `untrusted`{}",
                        did_you_mean(other, CLAIMS)
                    ),
                );
                continue;
            }
        };
        if *slot {
            errors.spanned(name, format!("duplicate claim `{name}`"));
        }
        *slot = true;
    }
    Some(claims)
}
