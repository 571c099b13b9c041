//! The value written after a key of an attribute (`key`, `key = tokens`,
//! `key(...)`), read the same way by every attribute the macros parse: their
//! own, serde's, and the settings of rules; and the text front-end the same.

use proc_macro2::{Group, TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::{Ident, Lit, LitStr, Token};

/// The value written after a key.
pub enum RawValue {
    /// `key`
    Flag,
    /// `key = tokens`
    Assigned { eq: Token![=], tokens: TokenStream },
    /// `key(...)`
    List(Group),
}

/// Consumes the value of the current key, whatever it is, up to the next `,`.
pub fn take_value(meta: &ParseNestedMeta) -> syn::Result<RawValue> {
    let input = meta.input;
    if input.peek(Token![=]) {
        let eq: Token![=] = input.parse()?;
        let tokens = input.step(|cursor| {
            let mut rest = *cursor;
            let mut tokens = TokenStream::new();
            while let Some((token, next)) = rest.token_tree() {
                if matches!(&token, TokenTree::Punct(punct) if punct.as_char() == ',') {
                    break;
                }
                tokens.extend([token]);
                rest = next;
            }
            Ok((tokens, rest))
        })?;
        Ok(RawValue::Assigned { eq, tokens })
    } else if input.peek(syn::token::Paren)
        || input.peek(syn::token::Bracket)
        || input.peek(syn::token::Brace)
    {
        match input.parse::<TokenTree>()? {
            TokenTree::Group(group) => Ok(RawValue::List(group)),
            other => Err(syn::Error::new_spanned(other, "expected a group")),
        }
    } else {
        Ok(RawValue::Flag)
    }
}

/// What kind of literal `lit` is, for an error that names what was found.
pub fn describe(lit: &Lit) -> &'static str {
    match lit {
        Lit::Str(_) => "a string",
        Lit::Int(_) => "an integer",
        Lit::Float(_) => "a float",
        Lit::Bool(_) => "a boolean",
        Lit::Char(_) => "a character",
        _ => "a literal of another kind",
    }
}

/// `key` (true) or `key = true|false`.
pub fn bool_value(key: &Ident, raw: RawValue) -> syn::Result<bool> {
    let expected = format!("`{key}` takes `true` or `false` (or nothing, meaning `true`)");
    match raw {
        RawValue::Flag => Ok(true),
        RawValue::Assigned { eq, tokens } if tokens.is_empty() => {
            Err(syn::Error::new(eq.span, expected))
        }
        RawValue::Assigned { tokens, .. } => match syn::parse2::<Lit>(tokens.clone()) {
            Ok(Lit::Bool(value)) => Ok(value.value),
            Ok(other) => Err(syn::Error::new_spanned(
                &other,
                format!("{expected}, found {}", describe(&other)),
            )),
            Err(_) => Err(syn::Error::new_spanned(tokens, expected)),
        },
        RawValue::List(group) => Err(syn::Error::new_spanned(
            group,
            format!("write `{key}` or `{key} = false`"),
        )),
    }
}

/// `key = "text"`.
pub fn str_value(key: &Ident, raw: RawValue) -> syn::Result<LitStr> {
    let expected = format!("`{key}` takes a string: `{key} = \"...\"`");
    match raw {
        RawValue::Flag => Err(syn::Error::new_spanned(key, expected)),
        RawValue::Assigned { eq, tokens } if tokens.is_empty() => {
            Err(syn::Error::new(eq.span, expected))
        }
        RawValue::Assigned { tokens, .. } => match syn::parse2::<Lit>(tokens.clone()) {
            Ok(Lit::Str(value)) => Ok(value),
            Ok(other) => Err(syn::Error::new_spanned(
                &other,
                format!("{expected}, found {}", describe(&other)),
            )),
            Err(_) => Err(syn::Error::new_spanned(tokens, expected)),
        },
        RawValue::List(group) => Err(syn::Error::new_spanned(group, expected)),
    }
}
