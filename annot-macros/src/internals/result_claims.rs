//! `results(sensitive, untrusted)`: what results claim under the
//! trust-annotations extension, beyond what their resolved annotations imply,
//! written on a tool (`#[mcp_tool(results(...))]`, every action), on an
//! action (`#[annotate(results(...))]`, an enum's variant or an
//! `#[mcp_actions]` variant) or in a rule's outcome
//! (`when(...) => (results(...))`). Parsed and checked here (only the two
//! claims, each once, at least one); `expand` turns them into
//! `AnnotatedTool::result_claims`, which the server joins with the floor the
//! resolution gives: a declaration only ever adds.

use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Ident, Token};

use crate::internals::ctxt::Errors;
use crate::internals::meta::RawValue;
use crate::internals::suggest::did_you_mean;

/// The claims one action declares.
#[derive(Clone)]
pub struct ResultClaims {
    pub sensitive: bool,
    pub untrusted: bool,
}

const CLAIMS: [&str; 2] = ["sensitive", "untrusted"];

/// `results(sensitive, untrusted)`, normalised: the claims in that order.
impl std::fmt::Display for ResultClaims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let claims: Vec<&str> = [(self.sensitive, "sensitive"), (self.untrusted, "untrusted")]
            .into_iter()
            .filter_map(|(claimed, name)| claimed.then_some(name))
            .collect();
        write!(f, "results({})", claims.join(", "))
    }
}

/// Whose results a `results(...)` claims, for its messages.
#[derive(Clone, Copy)]
pub enum Claimant {
    /// `#[annotate(...)]`.
    Action,
    /// `#[mcp_tool(...)]`.
    Tool,
    /// A rule's `=> (...)`.
    Rule,
}

impl Claimant {
    fn whose(self) -> &'static str {
        match self {
            Claimant::Action => "this action's results",
            Claimant::Tool => "the results of every action of this tool",
            Claimant::Rule => "the results of the calls this rule fires on",
        }
    }
}

/// Reads `results(...)`: a parenthesised list of `sensitive` and `untrusted`.
pub fn parse(
    key: &Ident,
    raw: RawValue,
    claimant: Claimant,
    errors: &Errors,
) -> Option<ResultClaims> {
    let usage = format!(
        "`results` takes the claims of {}: `results(sensitive)`, `results(untrusted)` or \
         `results(sensitive, untrusted)`",
        claimant.whose()
    );
    let group = match raw {
        RawValue::List(group) if group.delimiter() == proc_macro2::Delimiter::Parenthesis => group,
        RawValue::List(group) => {
            errors.spanned(&group, &usage);
            return None;
        }
        RawValue::Flag => {
            errors.spanned(key, &usage);
            return None;
        }
        RawValue::Assigned { eq, tokens } => {
            errors.spanned(quote!(#eq #tokens), &usage);
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
