//! Code generation for `#[mcp_actions]`: the `AnnotatedActions` impl of an enum
//! of unit variants, used as the action field of an annotated struct.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Attribute, Ident};

use crate::expand::schema_json::Json;
use crate::expand::shape_schemas::actions_schema;
use crate::expand::tool::{import_private, private};
use crate::internals::ast::Actions;
use crate::internals::attr::derives;

/// `Clone` and `Copy`, which the trait needs, unless the enum derives them.
fn copy_impls(
    ident: &Ident,
    derives_clone: bool,
    derives_copy: bool,
    p: &TokenStream,
) -> TokenStream {
    let clone = (!derives_clone).then(|| {
        quote! {
            #[automatically_derived]
            impl #p::core::clone::Clone for #ident {
                #[inline]
                fn clone(&self) -> Self {
                    *self
                }
            }
        }
    });
    let copy = (!derives_copy).then(|| {
        quote! {
            #[automatically_derived]
            impl #p::core::marker::Copy for #ident {}
        }
    });
    quote!(#clone #copy)
}

/// serde's `Deserialize`, reading a wire name as `from_name` does, unless the
/// enum derives it: so that a struct whose action field has this type can
/// derive `Deserialize` too. (A derive above the attribute is not seen here,
/// and conflicts with this impl: E0119 names the trait and both places.)
fn deserialize_impl(ident: &Ident, derives_deserialize: bool, p: &TokenStream) -> TokenStream {
    if derives_deserialize {
        return TokenStream::new();
    }
    quote! {
        #[automatically_derived]
        impl<'de> #p::serde::Deserialize<'de> for #ident {
            fn deserialize<__D: #p::serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> #p::core::result::Result<Self, __D::Error> {
                #p::deserialize_action::<Self, __D>(__deserializer)
            }
        }
    }
}

/// The `AnnotatedActions` impl of a checked model.
pub fn actions(actions: &Actions) -> TokenStream {
    let import = import_private(actions.options.krate.as_ref());
    let p = private();
    let ident = &actions.ident;
    let defaults = &actions.options.defaults;
    let consts: Vec<Ident> = (0..actions.variants.len())
        .map(|i| format_ident!("__ACTION_{}", i))
        .collect();
    let values = actions.variants.iter().map(|variant| {
        let annotate = variant.annotate.clone().unwrap_or_default();
        let title = annotate.title.as_ref().map(|title| title.value());
        annotate
            .hints
            .with_defaults(defaults)
            .to_annotations(&p, title.as_deref())
    });
    let idents: Vec<&Ident> = actions
        .variants
        .iter()
        .map(|variant| &variant.ident)
        .collect();
    let names: Vec<&String> = actions
        .variants
        .iter()
        .map(|variant| &variant.name)
        .collect();
    let indices = 0..actions.variants.len();
    let names_json = Json::strings(names.iter().map(|name| name.as_str())).text();
    let schema = actions_schema(actions.doc.as_deref(), &actions.variants).text();
    let copy = copy_impls(ident, actions.derives_clone, actions.derives_copy, &p);
    let deserialize = deserialize_impl(ident, actions.derives_deserialize, &p);
    let result_claims = result_claims_fn(actions, &p);

    quote! {
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #import
            #copy
            #deserialize
            #(const #consts: #p::Annotations = #values;)*

            #[automatically_derived]
            impl #p::AnnotatedActions for #ident {
                const ACTIONS: &'static [#p::Action] = &[
                    #(#p::Action { name: #names, annotations: #consts },)*
                ];
                const NAMES: &'static [&'static str] = &[#(#names),*];
                const NAMES_JSON: &'static str = #names_json;
                const SCHEMA: &'static str = #schema;

                fn index(self) -> usize {
                    match self {
                        #(Self::#idents => #indices,)*
                    }
                }

                fn from_name(__name: &str) -> #p::core::option::Option<Self> {
                    match __name {
                        #(#names => #p::core::option::Option::Some(Self::#idents),)*
                        _ => #p::core::option::Option::None,
                    }
                }

                #result_claims
            }
        };
    }
}

/// `fn result_claims(self)` when a variant declares `results(...)`; nothing
/// (the trait's default, no claim) when none does.
fn result_claims_fn(actions: &Actions, p: &TokenStream) -> TokenStream {
    let arms: Vec<TokenStream> = actions
        .variants
        .iter()
        .filter_map(|variant| {
            let claims = variant.annotate.as_ref()?.results.as_ref()?;
            let ident = &variant.ident;
            let (sensitive, untrusted) = (claims.sensitive, claims.untrusted);
            Some(quote! {
                Self::#ident => #p::TrustClaims {
                    sensitive: #sensitive,
                    untrusted: #untrusted,
                    evidence_ref: #p::core::option::Option::None,
                },
            })
        })
        .collect();
    if arms.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn result_claims(self) -> #p::TrustClaims {
            #[allow(unreachable_patterns)]
            match self {
                #(#arms)*
                _ => #p::TrustClaims::NONE,
            }
        }
    }
}

/// What is emitted when the input has errors (see `tool::tool_fallback`).
pub fn actions_fallback(
    ident: &Ident,
    attrs: &[Attribute],
    krate: Option<&syn::Path>,
) -> TokenStream {
    let import = import_private(krate);
    let p = private();
    let copy = copy_impls(ident, derives(attrs, "Clone"), derives(attrs, "Copy"), &p);
    quote! {
        #[allow(unreachable_code, clippy::all)]
        const _: () = {
            #import
            #copy
            impl #p::AnnotatedActions for #ident {
                const ACTIONS: &'static [#p::Action] = &[];
                const NAMES: &'static [&'static str] = &[];
                const NAMES_JSON: &'static str = "[]";
                const SCHEMA: &'static str = "{}";
                fn index(self) -> usize {
                    ::core::unreachable!()
                }
                fn from_name(_: &str) -> #p::core::option::Option<Self> {
                    ::core::unreachable!()
                }
            }
        };
    }
}
