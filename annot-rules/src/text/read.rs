//! Reading rule text: `when(<predicate>) => (<hints>)`, one or more,
//! separated by commas or new lines, lexed as Rust tokens and parsed by the
//! parser the macro uses.

use core::str::FromStr;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::Ident;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};

use crate::errors::Errors;
use crate::meta::RawValue;
use crate::parse::{ParsedRule, parse_rule, skip_to_comma};

/// A rule read from text, and where its `when` is.
pub(super) struct TextRule {
    pub when: Span,
    pub parsed: ParsedRule,
}

/// The rules of `text`; every error recorded in `errors`.
pub(super) fn read_rules(text: &str, errors: &Errors) -> Vec<TextRule> {
    let tokens = match TokenStream::from_str(text) {
        Ok(tokens) => tokens,
        Err(error) => {
            errors.at(
                error.span(),
                "rule text does not lex as Rust tokens: check its quotes and that every \
                 `(`, `[` and `{` is closed",
            );
            return Vec::new();
        }
    };
    let mut rules = Vec::new();
    let parser = |input: ParseStream| {
        while !input.is_empty() {
            if let Some(rule) = one_rule(input, errors) {
                rules.push(rule);
            }
            if input.is_empty() {
                break;
            }
            if input.peek(syn::Token![,]) {
                input.parse::<syn::Token![,]>()?;
            } else if !starts_a_rule(input) {
                errors.at(
                    input.span(),
                    "expected `,` or the next rule, `when(<predicate>) => (<hints>)`",
                );
                skip_to_comma(input);
            }
        }
        Ok(())
    };
    errors.ok(Parser::parse2(parser, tokens));
    rules
}

/// Whether the next token is the `when` of a rule.
fn starts_a_rule(input: ParseStream) -> bool {
    input
        .fork()
        .call(Ident::parse_any)
        .is_ok_and(|ident| ident == "when")
}

fn one_rule(input: ParseStream, errors: &Errors) -> Option<TextRule> {
    if !starts_a_rule(input) {
        errors.at(
            input.span(),
            "expected a rule, `when(<predicate>) => (<hints>)`, for example \
             `when(path matches \"^/etc\") => (privileged_access)`",
        );
        skip_to_comma(input);
        return None;
    }
    let when = input.call(Ident::parse_any).ok()?;
    let raw = match input.cursor().group(Delimiter::Parenthesis) {
        Some(_) => match input.parse::<TokenTree>() {
            Ok(TokenTree::Group(group)) => RawValue::List(group),
            _ => RawValue::Flag,
        },
        None => RawValue::Flag,
    };
    let mut on_results = |key: &Ident, _raw: RawValue| {
        errors.spanned(
            key,
            "`results(...)` claims are declared by the tool's own server; rule text sets \
             hints",
        );
    };
    let parsed = parse_rule(&when, raw, input, errors, &mut on_results)?;
    Some(TextRule {
        when: when.span(),
        parsed,
    })
}
