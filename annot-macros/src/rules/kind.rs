//! What a field's type lets a rule test, read from the type as written.

use quote::ToTokens;
use syn::Type;

use crate::schema::{last_segment, option_inner, peel};

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
    let Some((name, args)) = last_segment(peel(ty)) else {
        return Base::Other;
    };
    let is_str = |ty: &Type| matches!(last_segment(peel(ty)), Some((name, args)) if name == "str" && args.is_empty());
    match (name.as_str(), args.as_slice()) {
        ("String", []) => Base::Str,
        ("Box" | "Arc" | "Rc" | "Cow", [inner]) if is_str(inner) => Base::Str,
        ("bool", []) => Base::Bool,
        ("f32" | "f64", []) => Base::Float,
        (integer, []) => match integer_range(integer) {
            Some((min, max)) => Base::Int { min, max },
            None => Base::Other,
        },
        _ => Base::Other,
    }
}

fn integer_range(name: &str) -> Option<(i128, i128)> {
    Some(match name {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "i128" => (i128::MIN, i128::MAX),
        _ => return None,
    })
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
        assert!(kind("u128").base == Base::Other);
        assert_eq!(kind("Vec<String>").text, "Vec<String>");
    }
}
