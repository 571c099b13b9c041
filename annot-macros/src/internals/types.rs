//! Field types, classified once: the schema, the parser's notion of an
//! optional field and the rules all read a type through [`classify`], so
//! they cannot disagree on what a type is (as serde_derive, by name). What a
//! rule can test of a field ([`kind_of`]) is that class, seen through an
//! `Option`.

use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Type};

/// What a field's type is, as the generated code treats it.
#[derive(Clone, Copy)]
pub enum Class<'a> {
    Bool,
    /// `String`, `Box<str>`, `Arc<str>`, `Rc<str>`, `Cow<str>`.
    Str,
    Char,
    /// A primitive integer, with the range a JSON argument can hold.
    Int(IntRange),
    /// `f32`, `f64`.
    Float,
    /// `Option<T>`: may be absent or null.
    Option(&'a Type),
    /// `Vec<T>`, `VecDeque<T>`, `HashSet<T>`, `BTreeSet<T>`.
    Seq(&'a Type),
    /// `HashMap<String, T>`, `BTreeMap<String, T>`.
    Map(&'a Type),
    /// `Box<T>` of anything but `str`.
    Boxed(&'a Type),
    /// `serde_json::Value` (written with its crate's name).
    JsonValue,
    /// Anything else: the schema asks `schemars`, rules cannot test it.
    Other,
}

/// The values an integer field can take from JSON arguments.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IntRange {
    pub min: i128,
    pub max: i128,
}

/// The range of a primitive integer type. `usize`/`isize` take the 64-bit
/// range; `i128` and `u128` the range JSON arguments reach them in
/// (`serde_json` reads numbers as 64-bit integers).
pub fn integer_range(name: &str) -> Option<IntRange> {
    let (min, max): (i128, i128) = match name {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" | "u128" => (0, u64::MAX.into()),
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "i128" => (i64::MIN.into(), u64::MAX.into()),
        _ => return None,
    };
    Some(IntRange { min, max })
}

/// The class of `ty`.
pub fn classify(ty: &Type) -> Class<'_> {
    let ty = peel(ty);
    let Some((name, args)) = last_segment(ty) else {
        return Class::Other;
    };
    match (name.as_str(), args.as_slice()) {
        ("bool", []) => Class::Bool,
        ("String", []) => Class::Str,
        ("Box" | "Arc" | "Rc" | "Cow", [inner]) if is_str(inner) => Class::Str,
        ("char", []) => Class::Char,
        ("f32" | "f64", []) => Class::Float,
        ("Option", [inner]) => Class::Option(inner),
        ("Vec" | "VecDeque" | "HashSet" | "BTreeSet", [item, ..]) => Class::Seq(item),
        ("HashMap" | "BTreeMap", [key, value, ..]) if matches!(classify(key), Class::Str) => {
            Class::Map(value)
        }
        ("Box", [inner]) => Class::Boxed(inner),
        ("Value", []) if is_serde_json_value(ty) => Class::JsonValue,
        (integer, []) => integer_range(integer).map_or(Class::Other, Class::Int),
        _ => Class::Other,
    }
}

/// Whether a value of `ty` can hold no integer anywhere (a string, a
/// `serde_json::Value`, collections of those): its argument is read as sent,
/// without reading integral floats as integers, which would turn a
/// `serde_json::Value`'s `1.0` into `1`. `false` when unsure (a user type).
pub fn holds_no_integer(ty: &Type) -> bool {
    match classify(ty) {
        Class::Bool | Class::Str | Class::Char | Class::Float | Class::JsonValue => true,
        Class::Option(inner) | Class::Seq(inner) | Class::Map(inner) | Class::Boxed(inner) => {
            holds_no_integer(inner)
        }
        Class::Int(_) | Class::Other => false,
    }
}

/// The `T` of `Option<T>`, recognised by name as serde does.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    match classify(ty) {
        Class::Option(inner) => Some(inner),
        _ => None,
    }
}

fn is_str(ty: &Type) -> bool {
    matches!(last_segment(peel(ty)), Some((name, args)) if name == "str" && args.is_empty())
}

fn is_serde_json_value(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    segments.len() >= 2 && segments[segments.len() - 2] == "serde_json"
}

/// Strips groups and parentheses around a type.
pub fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => peel(&group.elem),
        Type::Paren(paren) => peel(&paren.elem),
        other => other,
    }
}

/// The last path segment's name and its type arguments.
fn last_segment(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::None => Vec::new(),
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        PathArguments::Parenthesized(_) => return None,
    };
    Some((segment.ident.to_string(), args))
}

pub use annot_rules::{Base, Kind};

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

    fn class(ty: &str) -> String {
        let ty: Type = syn::parse_str(ty).unwrap();
        match classify(&ty) {
            Class::Bool => "bool".into(),
            Class::Str => "str".into(),
            Class::Char => "char".into(),
            Class::Int(range) => format!("int {}..={}", range.min, range.max),
            Class::Float => "float".into(),
            Class::Option(_) => "option".into(),
            Class::Seq(_) => "seq".into(),
            Class::Map(_) => "map".into(),
            Class::Boxed(_) => "boxed".into(),
            Class::JsonValue => "value".into(),
            Class::Other => "other".into(),
        }
    }

    #[test]
    fn one_answer_per_type() {
        for (ty, expected) in [
            ("String", "str"),
            ("std::string::String", "str"),
            ("Box<str>", "str"),
            ("std::sync::Arc<str>", "str"),
            ("Rc<str>", "str"),
            ("Cow<'static, str>", "str"),
            ("Box<u8>", "boxed"),
            ("u8", "int 0..=255"),
            ("i128", "int -9223372036854775808..=18446744073709551615"),
            ("u128", "int 0..=18446744073709551615"),
            ("usize", "int 0..=18446744073709551615"),
            ("f32", "float"),
            ("Option<u8>", "option"),
            ("Vec<String>", "seq"),
            ("BTreeMap<String, u8>", "map"),
            ("HashMap<Box<str>, u8>", "map"),
            ("HashMap<u8, u8>", "other"),
            ("serde_json::Value", "value"),
            ("::serde_json::Value", "value"),
            ("Value", "other"),
            ("(bool)", "bool"),
            ("Custom", "other"),
        ] {
            assert_eq!(class(ty), expected, "{ty}");
        }
    }

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
        let verbatim = |ty: &str| holds_no_integer(&syn::parse_str(ty).unwrap());
        assert!(verbatim("Option<serde_json::Value>") && verbatim("Vec<String>"));
        assert!(verbatim("BTreeMap<String, serde_json::Value>") && verbatim("f64"));
        assert!(!verbatim("Vec<u8>") && !verbatim("Custom") && !verbatim("Option<i64>"));
        assert_eq!(kind("Vec<String>").text, "Vec<String>");
    }
}
