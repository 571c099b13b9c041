//! The borrowing path: code that reads a tool's arguments straight from their
//! text into borrowed values of the fields rules test, then runs the same
//! predicate code as `evaluate` (see `predicate_code::fire_rules`) and reads the same
//! table. Anything it does not accept it leaves to the owned path (it
//! answers `None`), which gives the error.

use proc_macro2::{Literal as TokenLiteral, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::predicate_code;
use super::{Checked, CheckedRule};
use crate::expand::member_slots::Slots;
use crate::internals::ast::{Field, Shape, Tool};
use crate::internals::serde_attr::FieldDefault;
use crate::internals::types::{Base, Class, IntRange, classify, holds_no_integer, kind_of};

/// The body of `fn __view(__text: &str, __split: Option<&SplitArguments>)
/// -> Option<Outcome>`.
pub fn view(tool: &Tool, checked: &Checked, p: &TokenStream) -> TokenStream {
    let discriminator = &tool.discriminator.0;
    let Some(slots) = Slots::of(tool) else {
        // More members than a mask holds: the owned path reads them.
        return quote!(#p::core::option::Option::None);
    };
    let names = &slots.names;
    let view = View {
        checked,
        slots: &slots,
        p,
    };
    let count = names.len();
    let prelude = quote! {
        const __VIEW_NAMES: [&str; #count] = [#(#names),*];
        let (__slots, __plain) = #p::members(__text, __split, &__VIEW_NAMES)?;
        let _ = __plain;
    };
    match &tool.shape {
        Shape::Enum(variants) => {
            let slot = view.slot(discriminator);
            let arms = variants.iter().enumerate().map(|(position, variant)| {
                let name = &variant.name;
                let applicable: Vec<&CheckedRule> = checked
                    .rules
                    .iter()
                    .filter(|rule| rule.applies[position])
                    .collect();
                let fire =
                    view.read_and_fire(&variant.fields, &applicable, None, Some(discriminator));
                quote! {
                    #name => {
                        #fire
                        (#position, __fired, __undecided)
                    }
                }
            });
            quote! {
                #prelude
                let __name = #p::text_known(__slots[#slot]?, __plain >> #slot & 1 == 1)?;
                let (__action, __fired, __undecided): (usize, u64, u64) =
                    match #p::core::convert::AsRef::<str>::as_ref(&__name) {
                        #(#arms)*
                        _ => return #p::core::option::Option::None,
                    };
                #p::core::option::Option::Some(
                    #p::Outcome::compiled(&__TABLE, __action, __fired, __undecided),
                )
            }
        }
        Shape::Struct(fields) => {
            let action = fields
                .iter()
                .find(|field| &field.name == discriminator)
                .expect("checked: the struct has its discriminator field");
            let ty = &action.ty;
            let slot = view.slot(discriminator);
            let rules: Vec<&CheckedRule> = checked.rules.iter().collect();
            let fire = view.read_and_fire(fields, &rules, Some(discriminator), None);
            let actions = quote_spanned!(ty.span()=> <#ty as #p::AnnotatedActions>);
            quote! {
                #prelude
                let __name = #p::text_known(__slots[#slot]?, __plain >> #slot & 1 == 1)?;
                let __index = #actions::index(#actions::from_name(
                    #p::core::convert::AsRef::<str>::as_ref(&__name),
                )?);
                let __action_name = #p::declared_action(#actions::ACTIONS, __index).name;
                #fire
                #p::core::option::Option::Some(
                    #p::Outcome::compiled(&__TABLE, __index, __fired, __undecided),
                )
            }
        }
        Shape::Single { fields, .. } => {
            let rules: Vec<&CheckedRule> = checked.rules.iter().collect();
            let fire = view.read_and_fire(fields, &rules, None, None);
            quote! {
                #prelude
                #fire
                #p::core::option::Option::Some(
                    #p::Outcome::compiled(&__TABLE, 0, __fired, __undecided),
                )
            }
        }
    }
}

struct View<'a> {
    checked: &'a Checked,
    slots: &'a Slots,
    p: &'a TokenStream,
}

impl View<'_> {
    fn slot(&self, name: &str) -> usize {
        self.slots.slot(name)
    }

    /// Refuses members `fields` do not name (besides the enum's `tag`),
    /// reads the rest (all but the struct's `action_field`), and sets
    /// `__fired` and `__undecided` from `rules`.
    fn read_and_fire(
        &self,
        fields: &[Field],
        rules: &[&CheckedRule],
        action_field: Option<&str>,
        tag: Option<&str>,
    ) -> TokenStream {
        let p = self.p;
        let allowed = self.slots.allowed(fields, tag);
        let read = self.fields(fields, rules, action_field);
        let body = predicate_code::fire_rules(self.checked, rules, fields, action_field, p);
        quote! {
            if !#p::only(&__slots, #allowed) {
                return #p::core::option::Option::None;
            }
            #read
            let mut __fired: u64 = 0;
            let mut __undecided: u64 = 0;
            #body
        }
    }

    /// Reads and validates every member of `fields` but the action field
    /// (`skip`): rule-tested ones into their `__field_` binding, the others
    /// only checked.
    fn fields(&self, fields: &[Field], rules: &[&CheckedRule], skip: Option<&str>) -> TokenStream {
        let p = self.p;
        let reads = fields
            .iter()
            .filter(|field| !field.skip && Some(field.name.as_str()) != skip)
            .map(|field| {
                let slot = self.slot(&field.name);
                let raw = quote!(__slots[#slot]);
                let tested = rules.iter().any(|rule| {
                    let name = predicate_code::rust_name(field);
                    rule.rule.predicate.fields().iter().any(|f| f.name == name)
                });
                let simple = !matches!(kind_of(&field.ty, false).base, Base::Other);
                if tested {
                    self.tested(field, &raw)
                } else {
                    let ty = &field.ty;
                    // Strings, numbers and booleans are checked without
                    // allocating, as a rule would read them.
                    let read = if simple {
                        let read = self.present(field);
                        quote!((|| #p::core::option::Option::Some(#read))())
                    } else if let Some(shape) = shape(ty, p) {
                        // Collections of those too, without building them.
                        quote!(#p::shape_checked(__raw, &#shape))
                    } else if holds_no_integer(ty) {
                        quote_spanned!(ty.span()=> #p::verbatim::<#ty>(__raw))
                    } else {
                        quote_spanned!(ty.span()=> #p::rewritten::<#ty>(__raw))
                    };
                    let absent = if field.required() {
                        quote!(return #p::core::option::Option::None)
                    } else {
                        quote!({})
                    };
                    quote! {
                        match #raw {
                            #p::core::option::Option::Some(__raw) => {
                                #read?;
                            }
                            #p::core::option::Option::None => #absent,
                        }
                    }
                }
            });
        quote!(#(#reads)*)
    }

    /// A present member of a type rules can test but none does, checked from
    /// `__raw` (in a function answering `Option`). A string is checked, not
    /// decoded, so an escape costs no allocation.
    fn present(&self, field: &Field) -> TokenStream {
        let p = self.p;
        let kind = kind_of(&field.ty, false);
        let ty = &field.ty;
        match (&kind.base, kind.optional) {
            (Base::Str, false) => {
                let slot = self.slot(&field.name);
                quote!(#p::string_checked_known(__raw, __plain >> #slot & 1 == 1)?)
            }
            (Base::Str, true) => quote!(#p::optional_string_checked(__raw)?),
            (Base::Int { min, max }, optional) => {
                let (min, max) = bounds(*min, *max);
                if optional {
                    quote!(#p::optional_integer(#p::core::option::Option::Some(__raw), #min, #max)?)
                } else {
                    quote!(#p::integer(__raw, #min, #max)?)
                }
            }
            _ => quote!(#p::verbatim::<#ty>(__raw)?),
        }
    }

    /// A field a rule tests, borrowed into its binding.
    fn tested(&self, field: &Field, raw: &TokenStream) -> TokenStream {
        let p = self.p;
        let binding = format_ident!("__field_{}", predicate_code::rust_name(field));
        let kind = kind_of(&field.ty, false);
        let none = quote!(return #p::core::option::Option::None);
        if kind.optional {
            let read = match &kind.base {
                Base::Str => quote!(#p::optional_text(#raw)?),
                Base::Int { min, max } => {
                    let (min, max) = bounds(*min, *max);
                    quote!(#p::optional_integer(#raw, #min, #max)?)
                }
                _ => {
                    let ty = &field.ty;
                    quote! {
                        match #raw {
                            #p::core::option::Option::Some(__raw) => #p::verbatim::<#ty>(__raw)?,
                            #p::core::option::Option::None => #p::core::option::Option::None,
                        }
                    }
                }
            };
            return quote!(let #binding = &#read;);
        }
        let (read, default) = match &kind.base {
            Base::Str => (
                {
                    let slot = self.slot(&field.name);
                    quote!(#p::text_known(__raw, __plain >> #slot & 1 == 1)?)
                },
                quote!(#p::Text(#p::std::borrow::Cow::Borrowed(""))),
            ),
            Base::Int { min, max } => {
                let (min, max) = bounds(*min, *max);
                (quote!(#p::integer(__raw, #min, #max)?), quote!(0i128))
            }
            _ => {
                let ty = &field.ty;
                (
                    quote!(#p::verbatim::<#ty>(__raw)?),
                    quote!(<#ty as #p::core::default::Default>::default()),
                )
            }
        };
        let absent = match field.default {
            FieldDefault::None => none,
            FieldDefault::Default => default,
            // A default function's value is the owned path's to compute.
            FieldDefault::Path(_) => none,
        };
        quote! {
            let #binding = &match #raw {
                #p::core::option::Option::Some(__raw) => #read,
                #p::core::option::Option::None => #absent,
            };
        }
    }
}

/// The `Shape` that checks a member of type `ty` without building it, if
/// `ty` is made of strings, booleans, integers, options and collections.
fn shape(ty: &Type, p: &TokenStream) -> Option<TokenStream> {
    Some(match classify(ty) {
        Class::Str => quote!(#p::Shape::Str),
        Class::Bool => quote!(#p::Shape::Bool),
        Class::Int(IntRange { min, max }) => {
            let (min, max) = bounds(min, max);
            quote!(#p::Shape::Int(#min, #max))
        }
        Class::Option(inner) => {
            let inner = shape(inner, p)?;
            quote!(#p::Shape::Option(&#inner))
        }
        Class::Seq(item) => {
            let item = shape(item, p)?;
            quote!(#p::Shape::Seq(&#item))
        }
        Class::Map(value) => {
            let value = shape(value, p)?;
            quote!(#p::Shape::Map(&#value))
        }
        Class::Boxed(inner) => shape(inner, p)?,
        Class::Char | Class::Float | Class::JsonValue | Class::Other => return None,
    })
}

/// An integer field's range as `i128` literals, for the generated reads.
fn bounds(min: i128, max: i128) -> (TokenLiteral, TokenLiteral) {
    (
        TokenLiteral::i128_suffixed(min),
        TokenLiteral::i128_suffixed(max),
    )
}
