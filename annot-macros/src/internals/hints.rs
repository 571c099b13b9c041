//! The ten hints as the macro knows them, and a set of hint values as written.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// One hint: the key written in attributes and the facts the checks need,
/// read from `annot_model`, where the runtime reads them too.
#[derive(Clone, Copy)]
pub struct Hint {
    /// Key in `#[annotate(...)]`, also the name of the `Annotations` setter.
    pub key: &'static str,
    /// Name on the wire, accepted by nothing but suggested from.
    pub wire: &'static str,
    /// The hint in the shared model.
    pub model: annot_model::Hint,
}

/// Every hint, in the model's `Hint::ALL` order.
pub const HINTS: [Hint; 10] = {
    let all = annot_model::Hint::ALL;
    let mut hints = [Hint {
        key: "",
        wire: "",
        model: annot_model::Hint::ReadOnly,
    }; 10];
    let mut index = 0;
    while index < all.len() {
        hints[index] = Hint {
            key: all[index].attribute_name(),
            wire: all[index].wire_name(),
            model: all[index],
        };
        index += 1;
    }
    hints
};

/// The position of `readOnlyHint`.
pub const READ_ONLY: usize = annot_model::Hint::ReadOnly as usize;

/// Whether the hint at `index` only means something for writes
/// (`destructive`, `idempotent`, `reversible`).
pub fn is_write_only(index: usize) -> bool {
    HINTS[index].model.only_meaningful_when_writing()
}

pub fn hint_index(key: &str) -> Option<usize> {
    HINTS.iter().position(|hint| hint.key == key)
}

/// The attribute key of a hint's wire name (`readOnlyHint` -> `read_only`).
pub fn key_of_wire_name(wire: &str) -> Option<&'static str> {
    HINTS
        .iter()
        .find(|hint| hint.wire == wire)
        .map(|hint| hint.key)
}

pub use annot_rules::hints::HintValue;

/// The hint values of one `#[annotate]` or of the tool-level defaults.
#[derive(Clone, Default)]
pub struct HintSet {
    pub values: [Option<HintValue>; 10],
}

impl HintSet {
    pub fn is_empty(&self) -> bool {
        self.values.iter().all(Option::is_none)
    }

    /// These values, with `defaults` filling the hints left unset; on a
    /// read-only action, defaults of the hints that only mean something for
    /// writes are skipped (they would be normalised away, and contradict).
    pub fn with_defaults(&self, defaults: &HintSet) -> HintSet {
        let mut merged = self.clone();
        let read_only = matches!(
            self.values[READ_ONLY].or(defaults.values[READ_ONLY]),
            Some(HintValue { value: true, .. })
        );
        for (index, (value, default)) in merged.values.iter_mut().zip(&defaults.values).enumerate()
        {
            if read_only && is_write_only(index) {
                continue;
            }
            if value.is_none() {
                *value = default.map(|default| HintValue {
                    inherited: true,
                    ..default
                });
            }
        }
        merged
    }

    /// Contradictions between `read_only` and the hints that only mean something
    /// for writes. A contradiction made only of inherited values is not
    /// reported again here: the tool-level check reports it once.
    pub fn contradictions(&self) -> Vec<syn::Error> {
        annot_rules::hints::contradictions(&self.values)
    }

    /// These values in the shared model, to reason with as the runtime will.
    pub fn to_model(&self) -> annot_model::Annotations {
        let mut annotations = annot_model::Annotations::new();
        for (value, hint) in self.values.iter().zip(&HINTS) {
            annotations = annotations.with(hint.model, value.map(|value| value.value));
        }
        annotations
    }

    /// `<private>::Annotations::new().read_only(true)...` with an optional title.
    pub fn to_annotations(&self, private: &TokenStream, title: Option<&str>) -> TokenStream {
        let setters = self.values.iter().zip(&HINTS).filter_map(|(value, hint)| {
            let value = value.as_ref()?.value;
            let setter = format_ident!("{}", hint.key);
            Some(quote!(.#setter(#value)))
        });
        let title = title.map(|title| quote!(.title(#title)));
        quote!(#private::Annotations::new() #title #(#setters)*)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    fn set(values: &[(&str, bool)], inherited: bool) -> HintSet {
        let mut set = HintSet::default();
        for (key, value) in values {
            set.values[hint_index(key).unwrap()] = Some(HintValue {
                value: *value,
                span: Span::call_site(),
                inherited,
            });
        }
        set
    }

    #[test]
    fn read_only_contradicts_only_risky_write_hints() {
        let risky = set(
            &[
                ("read_only", true),
                ("destructive", true),
                ("idempotent", false),
                ("reversible", false),
            ],
            false,
        );
        assert_eq!(risky.contradictions().len(), 3);
        let harmless = set(
            &[
                ("read_only", true),
                ("destructive", false),
                ("idempotent", true),
                ("reversible", true),
            ],
            false,
        );
        assert!(harmless.contradictions().is_empty());
        let writing = set(&[("read_only", false), ("destructive", true)], false);
        assert!(writing.contradictions().is_empty());
    }

    #[test]
    fn defaults_fill_unset_hints_and_are_reported_once() {
        let defaults = set(&[("read_only", true), ("destructive", true)], false);
        let action = set(&[("destructive", false), ("open_world", false)], false);
        let merged = action.with_defaults(&defaults);
        assert_eq!(
            merged.values[0].map(|v| (v.value, v.inherited)),
            Some((true, true))
        );
        assert_eq!(
            merged.values[1].map(|v| (v.value, v.inherited)),
            Some((false, false))
        );
        assert!(merged.contradictions().is_empty());
        // Both sides inherited: the tool-level check reports it, not each action.
        assert!(
            HintSet::default()
                .with_defaults(&defaults)
                .contradictions()
                .is_empty()
        );
        assert_eq!(defaults.contradictions().len(), 1);
    }
}
