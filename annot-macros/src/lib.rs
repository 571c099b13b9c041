//! The attribute macros of annot: `#[mcp_tool]` and `#[mcp_actions]`. Use them
//! through the `annot` crate, which documents them.
//!
//! Each call goes through three phases: the item is parsed into a typed model
//! ([`ast`]), the model is checked ([`check`]), and the code is generated
//! ([`expand`], [`actions`]). Errors of all phases are collected and reported
//! together; the user's item is still emitted, stripped of the helper
//! attributes, so that one mistake gives one error.

mod actions;
mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod hints;
mod json;
mod schema;
mod serde_attr;
mod suggest;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{Data, DeriveInput, Fields};

use crate::attr::{OptionsOf, derives_serde, is_annotate, is_serde, parse_options};
use crate::ctxt::Errors;

/// Generates `annot::AnnotatedTool` for an enum whose variants are a tool's
/// actions, or for a struct whose action field has an `#[mcp_actions]` type.
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let errors = Errors::new();
    let options = parse_options(args.into(), OptionsOf::Tool, &errors);
    let mut item: DeriveInput = match syn::parse(input.clone()) {
        Ok(item) => item,
        Err(error) => return with_error(input, error),
    };
    let krate = options.krate.clone();
    let model = ast::tool(&item, options, &errors);
    if let Some(model) = &model {
        check::tool(model, &errors);
    }
    strip_helper_attributes(&mut item);
    let generated = match (errors.finish(), model) {
        (Ok(()), Some(model)) => expand::tool(&model),
        (Err(error), _) => {
            let fallback =
                item.generics.params.is_empty().then(|| expand::tool_fallback(&item.ident, krate.as_ref()));
            let error = error.into_compile_error();
            quote!(#fallback #error)
        }
        (Ok(()), None) => unreachable!("an unusable item always records an error"),
    };
    quote!(#item #generated).into()
}

/// Generates `annot::AnnotatedActions` for an enum of unit variants, each an
/// action with its `#[annotate(...)]`, used as the action field of an
/// `#[mcp_tool]` struct.
#[proc_macro_attribute]
pub fn mcp_actions(args: TokenStream, input: TokenStream) -> TokenStream {
    let errors = Errors::new();
    let options = parse_options(args.into(), OptionsOf::Actions, &errors);
    let mut item: DeriveInput = match syn::parse(input.clone()) {
        Ok(item) => item,
        Err(error) => return with_error(input, error),
    };
    let krate = options.krate.clone();
    let model = ast::actions(&item, options, &errors);
    if let Some(model) = &model {
        check::actions(model, &errors);
    }
    strip_helper_attributes(&mut item);
    let generated = match (errors.finish(), model) {
        (Ok(()), Some(model)) => actions::actions(&model, &item.attrs),
        (Err(error), _) => {
            let unit_enum = matches!(&item.data, Data::Enum(data)
                if data.variants.iter().all(|variant| matches!(variant.fields, Fields::Unit)));
            let fallback = (unit_enum && item.generics.params.is_empty())
                .then(|| actions::actions_fallback(&item.ident, &item.attrs, krate.as_ref()));
            let error = error.into_compile_error();
            quote!(#fallback #error)
        }
        (Ok(()), None) => unreachable!("an unusable item always records an error"),
    };
    quote!(#item #generated).into()
}

fn with_error(input: TokenStream, error: syn::Error) -> TokenStream {
    let input = TokenStream2::from(input);
    let error = error.into_compile_error();
    quote!(#input #error).into()
}

/// Removes `#[annotate]` everywhere, and `#[serde]` too unless the item derives
/// serde's traits (an attribute macro, unlike a derive, registers no helper
/// attributes, so the compiler would reject them).
fn strip_helper_attributes(item: &mut DeriveInput) {
    let keep_serde = derives_serde(&item.attrs);
    let strip = |attrs: &mut Vec<syn::Attribute>| {
        attrs.retain(|attr| !is_annotate(attr) && (keep_serde || !is_serde(attr)));
    };
    strip(&mut item.attrs);
    match &mut item.data {
        Data::Enum(data) => {
            for variant in &mut data.variants {
                strip(&mut variant.attrs);
                for field in variant.fields.iter_mut() {
                    strip(&mut field.attrs);
                }
            }
        }
        Data::Struct(data) => {
            for field in data.fields.iter_mut() {
                strip(&mut field.attrs);
            }
        }
        Data::Union(data) => {
            for field in data.fields.named.iter_mut() {
                strip(&mut field.attrs);
            }
        }
    }
}
