//! The value written after a key of an attribute (`key`, `key = tokens`,
//! `key(...)`), read the same way by every attribute the macros parse: their
//! own, serde's, and the settings of rules.

use syn::{Ident, Lit};

use crate::internals::ctxt::Errors;
use crate::internals::hints::HintSet;
use annot_rules::meta::describe;
pub use annot_rules::meta::{RawValue, bool_value, str_value, take_value};

/// `key = Type`.
pub fn type_value(key: &Ident, raw: RawValue) -> syn::Result<syn::Type> {
    let expected = format!("`{key}` takes a type: `{key} = Report`");
    match raw {
        RawValue::Assigned { eq, tokens } if tokens.is_empty() => {
            Err(syn::Error::new(eq.span, expected))
        }
        RawValue::Assigned { tokens, .. } => match syn::parse2::<Lit>(tokens.clone()) {
            Ok(other) => Err(syn::Error::new_spanned(
                &other,
                format!("{expected}, found {}", describe(&other)),
            )),
            Err(_) => syn::parse2::<syn::Type>(tokens.clone()).map_err(|_| {
                syn::Error::new_spanned(
                    tokens,
                    format!("{expected} (a type with a comma, such as a map, needs an alias)"),
                )
            }),
        },
        RawValue::Flag => Err(syn::Error::new_spanned(key, expected)),
        RawValue::List(group) => Err(syn::Error::new_spanned(group, expected)),
    }
}

/// Records a hint written as `key` or `key = bool`.
pub fn set_hint(set: &mut HintSet, index: usize, key: &Ident, raw: RawValue, errors: &Errors) {
    annot_rules::hints::set_hint(&mut set.values, index, key, raw, errors);
}
