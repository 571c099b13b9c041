//! Checks of authorization: valid scope names, a table of at most 64, and a
//! requirement to start from for every call once the tool declares any.

use crate::internals::ast::{Shape, Tool};
use crate::internals::ctxt::Errors;
use crate::rules::{AuthSpec, Checked};

/// OAuth scope tokens: printable ASCII but space, `"` and `\` (RFC 6749, 3.3).
fn valid_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

pub fn check_authorization(tool: &Tool, checked: &mut Checked, errors: &Errors) {
    let mut specs: Vec<&AuthSpec> = Vec::new();
    specs.extend(&tool.options.auth);
    specs.extend(
        checked
            .rules
            .iter()
            .filter_map(|rule| rule.rule.auth.as_ref()),
    );
    let variants: &[crate::internals::ast::Variant] = match &tool.shape {
        Shape::Enum(variants) => variants,
        Shape::Struct(_) | Shape::Single { .. } => &[],
    };
    specs.extend(
        variants
            .iter()
            .filter_map(|v| v.annotate.as_ref().and_then(|a| a.auth.as_ref())),
    );
    checked.uses_auth = !specs.is_empty();
    for spec in &specs {
        if let AuthSpec::Scopes(scopes, _) = spec {
            for scope in scopes {
                let value = scope.value();
                if !valid_scope(&value) {
                    errors.spanned(
                        scope,
                        "an OAuth scope is a non-empty token of printable ASCII, without \
                         spaces, `\"` or `\\`",
                    );
                } else if !checked.scopes.contains(&value) {
                    checked.scopes.push(value);
                }
            }
        }
    }
    if checked.scopes.len() > 64 {
        errors.at(
            specs[0].span(),
            format!(
                "a tool names at most 64 scopes, this one names {}",
                checked.scopes.len()
            ),
        );
    }
    if !checked.uses_auth || tool.options.auth.is_some() {
        return;
    }
    match &tool.shape {
        Shape::Struct(_) | Shape::Single { .. } => errors.at(
            specs[0].span(),
            "rules set authorization, so every call needs one to start from: add \
             `scopes = [...]` or `no_auth` to #[mcp_tool(...)]",
        ),
        Shape::Enum(variants) => {
            for variant in variants {
                if variant.annotate.as_ref().is_none_or(|a| a.auth.is_none()) {
                    errors.spanned(
                        &variant.ident,
                        format!(
                            "action `{}` declares no authorization, but the tool does elsewhere: \
                             add `scopes = [...]` or `no_auth` to its #[annotate(...)], or a \
                             default to #[mcp_tool(...)]",
                            variant.ident
                        ),
                    );
                }
            }
        }
    }
}
