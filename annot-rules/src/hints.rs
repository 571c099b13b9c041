//! The hints a rule sets, as written: `read_only`, `destructive = false`...
//! The same keys as `#[annotate(...)]`, read by [`set_hint`] for both.

use proc_macro2::Span;
use syn::Ident;

use crate::errors::Errors;
use crate::meta::{RawValue, bool_value};
use annot_model::Hint;

/// One hint value and where it was written.
#[derive(Clone, Copy)]
pub struct HintValue {
    pub value: bool,
    pub span: Span,
    /// Filled in from a tool-level default rather than written on the action.
    pub inherited: bool,
}

/// The values of the ten hints, in [`Hint::ALL`] order; `None` where unset.
pub type HintValues = [Option<HintValue>; 10];

/// The key of each hint in attributes and rules (`read_only`), in
/// [`Hint::ALL`] order.
pub fn hint_keys() -> [&'static str; 10] {
    Hint::ALL.map(Hint::attribute_name)
}

/// The position of the hint whose key is `key`.
pub fn hint_index(key: &str) -> Option<usize> {
    hint_keys().iter().position(|known| *known == key)
}

/// Records a hint written as `key` or `key = bool`.
pub fn set_hint(
    values: &mut HintValues,
    index: usize,
    key: &Ident,
    raw: RawValue,
    errors: &Errors,
) {
    let Some(value) = errors.ok(bool_value(key, raw)) else {
        return;
    };
    if values[index].is_some() {
        errors.spanned(key, format!("duplicate hint `{key}`"));
        return;
    }
    values[index] = Some(HintValue {
        value,
        span: key.span(),
        inherited: false,
    });
}

/// Why a read-only action cannot hold a write-only hint at its risky value.
fn read_only_reason(hint: Hint) -> &'static str {
    match hint {
        Hint::Destructive => "a read-only action changes nothing, so it cannot be destructive",
        Hint::Idempotent => "a read-only action is always idempotent",
        _ => "a read-only action has nothing to undo, so it cannot be irreversible",
    }
}

/// Contradictions between `read_only` and the hints that only mean something
/// for writes. A contradiction made only of inherited values is not
/// reported: the tool-level check reports it once.
pub fn contradictions(values: &HintValues) -> Vec<syn::Error> {
    let read_only = values[Hint::ReadOnly as usize];
    let Some(read_only) = read_only.filter(|read_only| read_only.value) else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    for (index, hint) in Hint::ALL.into_iter().enumerate() {
        if !hint.only_meaningful_when_writing() {
            continue;
        }
        let risky = hint.risky_value();
        let Some(other) = values[index].filter(|other| other.value == risky) else {
            continue;
        };
        if other.inherited && read_only.inherited {
            continue;
        }
        let key = hint.attribute_name();
        let written = if risky {
            key.to_owned()
        } else {
            format!("{key} = false")
        };
        let span = if other.inherited {
            read_only.span
        } else {
            other.span
        };
        errors.push(syn::Error::new(
            span,
            format!(
                "`{written}` contradicts `read_only`: {}",
                read_only_reason(hint)
            ),
        ));
    }
    errors
}

/// These values in the shared model.
pub fn to_model(values: &HintValues) -> annot_model::Annotations {
    let mut annotations = annot_model::Annotations::new();
    for (value, hint) in values.iter().zip(Hint::ALL) {
        annotations = annotations.with(hint, value.map(|value| value.value));
    }
    annotations
}

/// The error on hint `key` of a rule that fires on the read-only actions
/// `read_only`, where it means nothing; `several` when the rule applies to
/// more than one action, so it could be written on the writing ones alone.
pub fn dead_on_read_only(key: &str, read_only: &[&str], several: bool) -> String {
    format!(
        "`{key}` does nothing on read-only {}: a read-only call is never \
         destructive, always idempotent, has nothing to reverse. If the call \
         writes when the rule fires, add `read_only = false` to the rule; \
         otherwise remove `{key}`{}",
        read_only.join(", "),
        if several {
            ", or write the rule on the actions that write"
        } else {
            ""
        }
    )
}
