//! What a rule can test of a field: its type as rules see it. The macro reads
//! it from the field's Rust type, the text front-end from the tool's
//! `inputSchema`.

/// The value a rule sees, once an `Option` is unwrapped.
#[derive(Clone, PartialEq, Debug)]
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
#[derive(Clone, Debug)]
pub struct Kind {
    /// `Option<T>`: absent or null makes every test but `not(...)` false.
    pub optional: bool,
    pub base: Base,
    /// The type as written, for messages.
    pub text: String,
}
