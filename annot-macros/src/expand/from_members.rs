//! Code generation for the `from_members` of a tool's `Generated` table: a
//! tool's value read straight from its argument object's members (as the
//! server's request reader split them, or from the text), each as its
//! field's type, with no `serde_json::Value` in between. What a
//! `tools/call` hands the handler.
//!
//! It accepts only what `from_arguments` accepts and builds the same value:
//! the same names (renames, `#[serde(skip)]`), the same defaults, each
//! member read as the owned path reads its field (`private/view.rs`).
//! Anything else (an error, a repeated member, an unknown one) it leaves to
//! the owned path, which gives the error.

use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::expand::member_slots::Slots;
use crate::internals::ast::{Field, Shape, Tool};
use crate::internals::serde_attr::FieldDefault;
use crate::internals::types::{Class, classify, holds_no_integer, peel};

/// `fn __from_members`, an item of the `const _` block: the `from_members`
/// of the tool's `Generated` table.
pub fn from_members(tool: &Tool, p: &TokenStream) -> TokenStream {
    let body = body(tool, p);
    let ident = &tool.ident;
    quote! {
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __from_members(
            __text: &str,
            __split: #p::core::option::Option<&#p::SplitArguments<'_>>,
        ) -> #p::core::option::Option<#ident> {
            #body
        }
    }
}

fn body(tool: &Tool, p: &TokenStream) -> TokenStream {
    let discriminator = &tool.discriminator.0;
    let tool_ident = &tool.ident;
    let Some(slots) = Slots::of(tool) else {
        // More members than a mask holds: the owned path reads them.
        return quote!(#p::core::option::Option::None);
    };
    let names = &slots.names;
    let reader = Reader { slots: &slots, p };
    let count = names.len();
    let prelude = quote! {
        const __NAMES: [&str; #count] = [#(#names),*];
        let (__slots, __plain) = #p::members(__text, __split, &__NAMES)?;
    };
    match &tool.shape {
        Shape::Enum(variants) => {
            let slot = reader.slot(discriminator);
            let arms = variants.iter().map(|variant| {
                let name = &variant.name;
                let ident = &variant.ident;
                let allowed = reader.allowed(&variant.fields, Some(discriminator));
                let construct = if variant.braced {
                    let values = variant.fields.iter().map(|field| reader.field(field));
                    quote!(#tool_ident::#ident { #(#values,)* })
                } else {
                    quote!(#tool_ident::#ident)
                };
                quote! {
                    #name => {
                        if !#p::only(&__slots, #allowed) {
                            return #p::core::option::Option::None;
                        }
                        #p::core::option::Option::Some(#construct)
                    }
                }
            });
            quote! {
                #prelude
                let __name = #p::text_known(__slots[#slot]?, __plain >> #slot & 1 == 1)?;
                match #p::core::convert::AsRef::<str>::as_ref(&__name) {
                    #(#arms)*
                    _ => #p::core::option::Option::None,
                }
            }
        }
        Shape::Struct(fields) => {
            let slot = reader.slot(discriminator);
            let allowed = reader.allowed(fields, None);
            let values = fields.iter().map(|field| {
                if &field.name == discriminator {
                    let ident = &field.ident;
                    quote!(#ident: __action)
                } else {
                    reader.field(field)
                }
            });
            let ty = &fields
                .iter()
                .find(|field| &field.name == discriminator)
                .expect("checked: the struct has its discriminator field")
                .ty;
            let actions = quote_spanned!(ty.span()=> <#ty as #p::AnnotatedActions>);
            quote! {
                #prelude
                if !#p::only(&__slots, #allowed) {
                    return #p::core::option::Option::None;
                }
                let __name = #p::text_known(__slots[#slot]?, __plain >> #slot & 1 == 1)?;
                let __action = #actions::from_name(
                    #p::core::convert::AsRef::<str>::as_ref(&__name),
                )?;
                #p::core::option::Option::Some(#tool_ident { #(#values,)* })
            }
        }
        Shape::Single { fields, braced } => {
            let allowed = reader.allowed(fields, None);
            let construct = if *braced {
                let values = fields.iter().map(|field| reader.field(field));
                quote!(#tool_ident { #(#values,)* })
            } else {
                quote!(#tool_ident)
            };
            quote! {
                #prelude
                if !#p::only(&__slots, #allowed) {
                    return #p::core::option::Option::None;
                }
                #p::core::option::Option::Some(#construct)
            }
        }
    }
}

struct Reader<'a> {
    slots: &'a Slots,
    p: &'a TokenStream,
}

impl Reader<'_> {
    fn slot(&self, name: &str) -> usize {
        self.slots.slot(name)
    }

    /// [`Slots::allowed`] as a literal of the generated code.
    fn allowed(&self, fields: &[Field], discriminator: Option<&str>) -> Literal {
        Literal::u64_suffixed(self.slots.allowed(fields, discriminator))
    }

    /// `ident: value` of one field, as the owned path reads it
    /// (`field_value` in `tool.rs`): its default when skipped or absent
    /// and not required, else its member read as its type.
    fn field(&self, field: &Field) -> TokenStream {
        let p = self.p;
        let ident = &field.ident;
        let default = match &field.default {
            FieldDefault::Path(path) => quote!(#path()),
            _ => quote!(#p::core::default::Default::default()),
        };
        if field.skip {
            return quote!(#ident: #default);
        }
        let slot = self.slot(&field.name);
        let read = self.read(&field.ty, slot);
        let absent = if field.required() {
            quote!(return #p::core::option::Option::None)
        } else {
            default
        };
        quote! {
            #ident: match __slots[#slot] {
                #p::core::option::Option::Some(__raw) => #read,
                #p::core::option::Option::None => #absent,
            }
        }
    }

    /// A present member `__raw` (slot `slot`) read as `ty`, in a function
    /// answering `Option`.
    fn read(&self, ty: &Type, slot: usize) -> TokenStream {
        let p = self.p;
        let plain = quote!(__plain >> #slot & 1 == 1);
        let bounds =
            |min: i128, max: i128| (Literal::i128_suffixed(min), Literal::i128_suffixed(max));
        if is_string(ty) {
            return quote!(#p::string(__raw, #plain)?);
        }
        match classify(ty) {
            Class::Int(range) => {
                let (min, max) = bounds(range.min, range.max);
                return quote_spanned!(ty.span()=> #p::integer_as::<#ty>(__raw, #min, #max)?);
            }
            Class::Option(inner) if is_string(inner) => {
                return quote!(#p::optional_string(__raw)?);
            }
            Class::Option(inner) => {
                if let Class::Int(range) = classify(inner) {
                    let (min, max) = bounds(range.min, range.max);
                    return quote_spanned!(ty.span()=>
                        #p::optional_integer_as::<#inner>(__raw, #min, #max)?
                    );
                }
            }
            _ => {}
        }
        // Read as the owned path reads it: as sent when it holds no integer,
        // else through a `Value` with integral floats read as integers.
        if holds_no_integer(ty) {
            quote_spanned!(ty.span()=> #p::verbatim::<#ty>(__raw)?)
        } else {
            quote_spanned!(ty.span()=> #p::rewritten::<#ty>(__raw)?)
        }
    }
}

/// Whether `ty` is `String` itself (the other string types are read as
/// sent, by serde).
fn is_string(ty: &Type) -> bool {
    let Type::Path(path) = peel(ty) else {
        return false;
    };
    path.qself.is_none()
        && path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "String" && segment.arguments.is_empty())
}
