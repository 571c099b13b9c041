//! What a field's type lets a rule test, read from the type as written.

use quote::ToTokens;
use syn::Type;

use crate::types::{Class, IntRange, classify, option_inner};

/// The value a rule sees, once an `Option` is unwrapped.
#[derive(Clone, PartialEq)]
pub enum Base {
    /// `String`, `Box<str>`, `Arc<str>`, `Rc<str>`, `Cow<str>`.
    Str,
    /// A primitive integer, with its range.
    Int {
        min: i128,
        max: i128,
    },
    /// `f32`, `f64`.
    Float,
    Bool,
    /// The action field of an annotated struct: tested by action name.
    Action,
    /// Anything else: rules cannot test it.
    Other,
}

/// A field's type as rules see it.
#[derive(Clone)]
pub struct Kind {
    /// `Option<T>`: absent or null makes every test but `not(...)` false.
    pub optional: bool,
    pub base: Base,
    /// The type as written, for messages.
    pub text: String,
}

/// The kind of a field of type `ty`; `action` for the discriminator of an
/// annotated struct.
pub fn kind_of(ty: &Type, action: bool) -> Kind {
    let text = ty
        .to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">");
    if action {
        return Kind {
            optional: false,
            base: Base::Action,
            text,
        };
    }
    let (optional, inner) = match option_inner(ty) {
        Some(inner) => (true, inner),
        None => (false, ty),
    };
    Kind {
        optional,
        base: base_of(inner),
        text,
    }
}

fn base_of(ty: &Type) -> Base {
    match classify(ty) {
        Class::Str => Base::Str,
        Class::Bool => Base::Bool,
        Class::Float => Base::Float,
        Class::Int(IntRange { min, max }) => Base::Int { min, max },
        _ => Base::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(ty: &str) -> Kind {
        kind_of(&syn::parse_str(ty).unwrap(), false)
    }

    #[test]
    fn strings_numbers_and_options() {
        assert!(kind("String").base == Base::Str && !kind("String").optional);
        assert!(kind("Option<std::string::String>").optional);
        assert!(kind("Box<str>").base == Base::Str);
        assert!(kind("Cow<'static, str>").base == Base::Str);
        assert!(kind("u8").base == Base::Int { min: 0, max: 255 });
        assert!(kind("Option<f64>").base == Base::Float);
        assert!(kind("bool").base == Base::Bool);
        assert!(kind("Vec<String>").base == Base::Other);
        assert!(kind("Option<Option<u8>>").base == Base::Other);
        assert!(
            kind("u128").base
                == Base::Int {
                    min: 0,
                    max: u64::MAX.into()
                }
        );
        assert!(kind("Arc<str>").base == Base::Str);
        assert_eq!(kind("Vec<String>").text, "Vec<String>");
    }
}
