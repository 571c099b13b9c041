//! The value written after a key of an attribute (`key`, `key = tokens`,
//! `key(...)`), read the same way by every attribute the macros parse: their
//! own, serde's, and the settings of rules.

use syn::Ident;

use crate::ctxt::Errors;
use crate::hints::HintSet;
pub use annot_rules::meta::{RawValue, bool_value, str_value, take_value};

/// Records a hint written as `key` or `key = bool`.
pub fn set_hint(set: &mut HintSet, index: usize, key: &Ident, raw: RawValue, errors: &Errors) {
    annot_rules::hints::set_hint(&mut set.values, index, key, raw, errors);
}
