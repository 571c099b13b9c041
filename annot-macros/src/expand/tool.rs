//! Code generation for `#[mcp_tool]`: the `AnnotatedTool` impl of an annotated
//! enum (shape a) or struct (shape b), with its hidden `GENERATED` table (the
//! runtime's `Generated`: the compiled rules and the fast paths, each a
//! function of the `const _` block).
//!
//! Everything lives in `const _: () = { ... };`, every path goes through
//! `<crate>::__private`, and every generated identifier starts with `__`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use crate::expand::input_schema::{Builder, FillKind};
use crate::expand::schema_json::{Json, Piece};
use crate::internals::ast::{Field, Shape, Tool, Variant};
use crate::internals::attr::SchemaShape;
use crate::internals::serde_attr::FieldDefault;
use crate::rules::{self, RulesCode};

/// `use <crate>::__private as __annot;`, with `::annot` unless overridden. Each
/// generated `const _` block starts with it and names everything through
/// `__annot::` (as serde_derive's `extern crate serde as _serde`), so a wrong
/// `crate = "..."` gives one error, not one per path.
pub fn import_private(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(use #path::__private as __annot;),
        None => quote!(
            use ::annot::__private as __annot;
        ),
    }
}

/// The name generated code reaches the facade's `__private` module by.
pub fn private() -> TokenStream {
    quote!(__annot)
}

fn option_str(value: Option<String>, p: &TokenStream) -> TokenStream {
    match value {
        Some(value) => quote!(#p::core::option::Option::Some(#value)),
        None => quote!(#p::core::option::Option::None),
    }
}

/// The `AnnotatedTool` impl of a checked model.
pub fn tool(tool: &Tool) -> TokenStream {
    let import = import_private(tool.options.krate.as_ref());
    let p = private();
    let ident = &tool.ident;
    let name = match &tool.options.name {
        Some(name) => name.value(),
        None => crate::internals::case::derived_tool_name(ident),
    };
    let title = tool.options.title.as_ref().map(|title| title.value());
    let title_tokens = option_str(title.clone(), &p);
    let description = option_str(
        tool.options
            .description
            .as_ref()
            .map(|description| description.value())
            .or_else(|| tool.doc.clone()),
        &p,
    );
    let discriminator = &tool.discriminator.0;
    let discriminator_tokens = match &tool.shape {
        Shape::Single { .. } => option_str(None, &p),
        _ => option_str(Some(discriminator.clone()), &p),
    };

    let mut builder = Builder::default();
    let shape = tool.options.schema_shape();
    // The exact schema too, when the advertised one is wider.
    let mut exact = None;
    let (schema, from_arguments) = match &tool.shape {
        Shape::Enum(variants) => (
            {
                let schema = builder.enum_schema(discriminator, variants, shape);
                let full = builder.enum_schema(discriminator, variants, SchemaShape::Exact);
                exact = (full != schema).then_some(full);
                schema
            },
            enum_from_arguments(discriminator, variants, &p),
        ),
        Shape::Struct(fields) => {
            let action = fields
                .iter()
                .find(|field| &field.name == discriminator)
                .expect("checked: the struct has its discriminator field");
            (
                builder.struct_schema(Some(discriminator), fields),
                struct_from_arguments(discriminator, action, fields, &p),
            )
        }
        Shape::Single { fields, braced } => (
            builder.struct_schema(None, fields),
            single_from_arguments(fields, *braced, &p),
        ),
    };
    let RulesCode {
        items,
        trait_items,
        resolve,
        generated_fields,
    } = rules::generate(tool, &p);
    let (schema_items, input_schema) = schema_code(&schema, &builder, &p);
    let action_fields = action_fields_item(&tool.shape);
    let display = display_items(tool, &p);
    let (result_claims_items, result_claims) = result_claims_fn(tool, &p);
    let from_members = crate::expand::from_members::from_members(tool, &p);
    let output_schema = tool
        .options
        .output
        .as_ref()
        .map(|ty| output_schema_fn(ty, &p));
    let exact_input_schema = exact.map(|exact| {
        let (items, body) = schema_code(&exact, &builder, &p);
        quote!(fn exact_input_schema() -> &'static str { #items #body })
    });

    quote! {
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #import
            #items
            #schema_items
            #result_claims_items
            #from_members

            #[automatically_derived]
            impl #p::AnnotatedTool for #ident {
                const NAME: &'static str = #name;
                const TITLE: #p::core::option::Option<&'static str> = #title_tokens;
                const DESCRIPTION: #p::core::option::Option<&'static str> = #description;
                const DISCRIMINATOR: #p::core::option::Option<&'static str> =
                    #discriminator_tokens;
                const ACTIONS: &'static [#p::Action] = &__ACTIONS;
                const STATIC_ANNOTATIONS: #p::Annotations =
                    #p::static_annotations(&__ACTIONS, #title_tokens);

                fn input_schema() -> &'static str {
                    #input_schema
                }

                #action_fields
                #display
                #result_claims
                #exact_input_schema
                #output_schema

                fn resolve(&self) -> #p::Annotations {
                    #resolve
                }

                #trait_items

                fn from_arguments(
                    __arguments: &#p::serde_json::Value,
                ) -> #p::core::result::Result<Self, #p::ArgumentError> {
                    #from_arguments
                }

                const GENERATED: #p::Generated<Self> = #p::Generated {
                    #generated_fields
                    result_claims_of: __result_claims_of,
                    from_members: __from_members,
                };
            }
        };
    }
}

/// `output_schema()` of a tool declared with `output = Type`: `Type`'s
/// schema, made once at run time (`schemars` builds it), spanned on the type
/// so that a type without `JsonSchema` is reported where it was written.
fn output_schema_fn(ty: &Type, p: &TokenStream) -> TokenStream {
    let schema = quote_spanned!(ty.span()=> #p::output_schema::<#ty>);
    quote! {
        fn output_schema() -> #p::core::option::Option<&'static str> {
            static __OUTPUT_SCHEMA: #p::std::sync::OnceLock<#p::std::string::String> =
                #p::std::sync::OnceLock::new();
            #p::core::option::Option::Some(__OUTPUT_SCHEMA.get_or_init(#schema))
        }
    }
}

/// The value of one field, read from `__object`.
fn field_value(field: &Field, p: &TokenStream) -> TokenStream {
    let ty = &field.ty;
    let name = &field.name;
    let default = match &field.default {
        FieldDefault::Path(path) => quote!(#path()),
        _ => quote!(#p::core::default::Default::default()),
    };
    if field.skip {
        return default;
    }
    // Integral floats are read as integers only where an integer can be.
    let (required, optional) = if crate::internals::types::holds_no_integer(ty) {
        (quote!(required_verbatim), quote!(optional_verbatim))
    } else {
        (quote!(required), quote!(optional))
    };
    if field.required() {
        quote_spanned!(ty.span()=> #p::#required::<#ty>(__object, #name)?)
    } else {
        let read = quote_spanned!(ty.span()=> #p::#optional::<#ty>(__object, #name)?);
        quote! {
            match #read {
                #p::core::option::Option::Some(__value) => __value,
                #p::core::option::Option::None => #default,
            }
        }
    }
}

fn allowed_fields<'a>(discriminator: &'a str, fields: &'a [Field]) -> Vec<&'a str> {
    let mut allowed = vec![discriminator];
    allowed.extend(
        fields
            .iter()
            .filter(|field| !field.skip && field.name != discriminator)
            .map(|field| field.name.as_str()),
    );
    allowed
}

/// A single-action tool: the object's fields, none other.
fn single_from_arguments(fields: &[Field], braced: bool, p: &TokenStream) -> TokenStream {
    let allowed = fields
        .iter()
        .filter(|field| !field.skip)
        .map(|field| field.name.as_str());
    let idents = fields.iter().map(|field| &field.ident);
    let values = fields.iter().map(|field| field_value(field, p));
    let construct = if braced {
        quote!(Self { #(#idents: #values,)* })
    } else {
        quote!(Self)
    };
    quote! {
        let __object = #p::object(__arguments)?;
        #p::deny_unknown_fields(__object, &[#(#allowed),*])?;
        #p::core::result::Result::Ok(#construct)
    }
}

fn enum_from_arguments(discriminator: &str, variants: &[Variant], p: &TokenStream) -> TokenStream {
    let names = variants.iter().map(|variant| &variant.name);
    let arms = variants.iter().map(|variant| {
        let ident = &variant.ident;
        let name = &variant.name;
        let allowed = allowed_fields(discriminator, &variant.fields);
        let idents = variant.fields.iter().map(|field| &field.ident);
        let values = variant.fields.iter().map(|field| field_value(field, p));
        let construct = if variant.braced {
            quote!(Self::#ident { #(#idents: #values,)* })
        } else {
            quote!(Self::#ident)
        };
        quote! {
            #name => {
                #p::deny_unknown_fields(__object, &[#(#allowed),*])?;
                #p::core::result::Result::Ok(#construct)
            }
        }
    });
    quote! {
        const __NAMES: &[&str] = &[#(#names),*];
        let __object = #p::object(__arguments)?;
        match #p::discriminator(__object, #discriminator, __NAMES)? {
            #(#arms)*
            __other => #p::core::result::Result::Err(
                #p::unknown_action(#discriminator, __other, __NAMES),
            ),
        }
    }
}

fn struct_from_arguments(
    discriminator: &str,
    action: &Field,
    fields: &[Field],
    p: &TokenStream,
) -> TokenStream {
    let ty = &action.ty;
    let allowed = allowed_fields(discriminator, fields);
    let values = fields.iter().map(|field| {
        let ident = &field.ident;
        if field.name == discriminator {
            quote!(#ident: __action)
        } else {
            let value = field_value(field, p);
            quote!(#ident: #value)
        }
    });
    quote! {
        let __object = #p::object(__arguments)?;
        let __action = #p::action(
            __object,
            #discriminator,
            <#ty as #p::AnnotatedActions>::NAMES,
            <#ty as #p::AnnotatedActions>::from_name,
        )?;
        #p::deny_unknown_fields(__object, &[#(#allowed),*])?;
        #p::core::result::Result::Ok(Self { #(#values,)* })
    }
}

/// `ACTION_FIELDS` of an enum of actions: each action's fields (with whether
/// it requires them), so a profile can narrow the schema to some actions.
/// Nothing for the other shapes, whose actions all take the same fields.
fn action_fields_item(shape: &Shape) -> TokenStream {
    let Shape::Enum(variants) = shape else {
        return TokenStream::new();
    };
    let rows = variants.iter().map(|variant| {
        let fields = variant
            .fields
            .iter()
            .filter(|field| !field.skip)
            .map(|field| {
                let name = &field.name;
                let required = field.required();
                quote!((#name, #required))
            });
        quote!(&[#(#fields),*])
    });
    quote! {
        const ACTION_FIELDS: &'static [&'static [(&'static str, bool)]] = &[#(#rows),*];
    }
}

/// `DISPLAY_TEMPLATE` and `DISPLAY_TEMPLATES`: the call previews. In the
/// struct shape every action takes the tool's (their count is the action
/// type's, known to the compiler).
fn display_items(tool: &Tool, p: &TokenStream) -> TokenStream {
    let listed = &tool.display.tool;
    let per_action = match &tool.shape {
        Shape::Struct(fields) => {
            let action = fields
                .iter()
                .find(|field| field.name == tool.discriminator.0)
                .expect("checked: the struct has its discriminator field");
            let ty = &action.ty;
            quote!(&[#listed; <#ty as #p::AnnotatedActions>::ACTIONS.len()])
        }
        _ => {
            let templates = &tool.display.actions;
            quote!(&[#(#templates),*])
        }
    };
    quote! {
        const DISPLAY_TEMPLATE: #p::core::option::Option<&'static str> =
            #p::core::option::Option::Some(#listed);
        const DISPLAY_TEMPLATES: &'static [&'static str] = #per_action;
    }
}

/// The items and the body of `input_schema()`: a literal when the whole schema
/// is known here, a `const` concatenation when it includes an `#[mcp_actions]`
/// enum's schema, a text built once at run time when it includes `schemars`
/// schemas.
fn schema_code(schema: &Json, builder: &Builder, p: &TokenStream) -> (TokenStream, TokenStream) {
    let pieces = schema.render();
    if builder.needs_runtime() {
        let pieces = pieces.iter().map(|piece| match piece {
            Piece::Text(text) => quote!(#p::SchemaPiece::Text(#text)),
            Piece::Fill(index) => {
                let fill = &builder.fills[*index];
                match (&fill.kind, &fill.ty) {
                    (FillKind::Defs, _) => quote!(#p::SchemaPiece::Defs),
                    (FillKind::Schemars, Some(ty)) => {
                        let subschema = quote_spanned!(ty.span()=> #p::subschema::<#ty>);
                        quote!(#p::SchemaPiece::Type(#subschema))
                    }
                    (_, ty) => {
                        let text = actions_const(&fill.kind, ty.as_ref(), p);
                        quote!(#p::SchemaPiece::Text(#text))
                    }
                }
            }
        });
        let body = quote! {
            static __SCHEMA: #p::std::sync::OnceLock<#p::std::string::String> =
                #p::std::sync::OnceLock::new();
            __SCHEMA.get_or_init(|| #p::assemble_schema(&[#(#pieces),*]))
        };
        return (TokenStream::new(), body);
    }
    match pieces.as_slice() {
        [Piece::Text(text)] => (TokenStream::new(), quote!(#text)),
        _ => {
            let parts = pieces.iter().map(|piece| match piece {
                Piece::Text(text) => quote!(#text),
                Piece::Fill(index) => {
                    let fill = &builder.fills[*index];
                    actions_const(&fill.kind, fill.ty.as_ref(), p)
                }
            });
            let items = quote! {
                const __SCHEMA_PARTS: &[&str] = &[#(#parts),*];
                const __SCHEMA_LEN: usize = #p::concat_len(__SCHEMA_PARTS);
                const __SCHEMA_BYTES: [u8; __SCHEMA_LEN] =
                    #p::concat_bytes::<__SCHEMA_LEN>(__SCHEMA_PARTS);
                const __SCHEMA: &str = #p::utf8(&__SCHEMA_BYTES);
            };
            (items, quote!(__SCHEMA))
        }
    }
}

fn actions_const(kind: &FillKind, ty: Option<&Type>, p: &TokenStream) -> TokenStream {
    let constant = match kind {
        FillKind::ActionsNames => quote!(NAMES_JSON),
        _ => quote!(SCHEMA),
    };
    quote!(<#ty as #p::AnnotatedActions>::#constant)
}

/// What is emitted when the input has errors: an impl whose items are never
/// used, so that code naming the trait's items reports nothing more.
pub fn tool_fallback(ident: &Ident, krate: Option<&syn::Path>) -> TokenStream {
    let import = import_private(krate);
    let p = private();
    quote! {
        #[allow(unreachable_code, clippy::all)]
        const _: () = {
            #import
            impl #p::AnnotatedTool for #ident {
                const NAME: &'static str = "";
                const TITLE: #p::core::option::Option<&'static str> = #p::core::option::Option::None;
                const DESCRIPTION: #p::core::option::Option<&'static str> =
                    #p::core::option::Option::None;
                const DISCRIMINATOR: #p::core::option::Option<&'static str> =
                    #p::core::option::Option::None;
                const ACTIONS: &'static [#p::Action] = &[];
                const STATIC_ANNOTATIONS: #p::Annotations = #p::Annotations::new();
                fn input_schema() -> &'static str {
                    ::core::unreachable!()
                }
                fn resolve(&self) -> #p::Annotations {
                    ::core::unreachable!()
                }
                fn from_arguments(
                    _: &#p::serde_json::Value,
                ) -> #p::core::result::Result<Self, #p::ArgumentError> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// The claims of a call: `fn __result_claims_of`, an item of the `const _`
/// block (the `result_claims_of` of the tool's `Generated` table), and the
/// `fn result_claims(&self)` of the impl, for a tool that declares claims
/// anywhere: the union of the tool's `results(...)`, its action's (an
/// enum's variant, or the `#[mcp_actions]` enum's through
/// `AnnotatedActions::result_claims`) and those of its rules in play on the
/// call (held or undecided: a few bit operations on the evaluation's
/// masks), or nothing (the trait's default, no claim) when the declaration
/// claims nothing. When no rule claims, `__result_claims_of` is
/// `result_claims`, which needs no evaluation.
fn result_claims_fn(tool: &Tool, p: &TokenStream) -> (TokenStream, TokenStream) {
    let tool_ident = &tool.ident;
    let declared = |claims: Option<&crate::internals::result_claims::ResultClaims>| {
        claims.map_or((false, false), |claims| {
            (claims.sensitive, claims.untrusted)
        })
    };
    let (tool_sensitive, tool_untrusted) = declared(tool.options.results.as_ref());
    let action = match &tool.shape {
        Shape::Enum(variants) => {
            let arms: Vec<TokenStream> = variants
                .iter()
                .filter_map(|variant| {
                    let claims = variant.annotate.as_ref()?.results.as_ref()?;
                    let ident = &variant.ident;
                    let (sensitive, untrusted) = (claims.sensitive, claims.untrusted);
                    Some(quote!(#tool_ident::#ident { .. } => (#sensitive, #untrusted),))
                })
                .collect();
            (!arms.is_empty()).then(|| {
                quote! {
                    match __tool {
                        #(#arms)*
                        _ => (false, false),
                    }
                }
            })
        }
        // The action type's claims are known to the compiler, not here.
        Shape::Struct(fields) => {
            let field = fields
                .iter()
                .find(|field| field.name == tool.discriminator.0)
                .expect("checked: the struct has its discriminator field");
            let (ty, ident) = (&field.ty, &field.ident);
            Some(quote! {{
                let __claims = <#ty as #p::AnnotatedActions>::result_claims(__tool.#ident);
                (__claims.sensitive, __claims.untrusted)
            }})
        }
        Shape::Single { .. } => None,
    };
    let mask = |claimed: fn(&crate::internals::result_claims::ResultClaims) -> bool| {
        tool.checked
            .rules
            .iter()
            .filter(|rule| rule.rule.results.as_ref().is_some_and(claimed))
            .fold(0u64, |mask, rule| mask | 1 << rule.index)
    };
    let (sensitive_rules, untrusted_rules) = (mask(|c| c.sensitive), mask(|c| c.untrusted));
    let rules_claim = sensitive_rules | untrusted_rules != 0;
    let tool_claims = tool_sensitive || tool_untrusted;
    // Without rules that claim, the claims need no evaluation.
    let claims_alone = quote! {
        fn __result_claims_of(__tool: &#tool_ident, _: &#p::Outcome) -> #p::TrustClaims {
            <#tool_ident as #p::AnnotatedTool>::result_claims(__tool)
        }
    };
    if !tool_claims && !rules_claim && action.is_none() {
        return (claims_alone, TokenStream::new());
    }
    let action = action.unwrap_or_else(|| quote!((false, false)));
    let rules = if rules_claim {
        quote! {
            let __in_play = __outcome.rules_in_play();
            let __sensitive = __sensitive || __in_play & #sensitive_rules != 0;
            let __untrusted = __untrusted || __in_play & #untrusted_rules != 0;
        }
    } else {
        TokenStream::new()
    };
    let body = quote! {
        let (__sensitive, __untrusted): (bool, bool) = #action;
        let __sensitive = __sensitive || #tool_sensitive;
        let __untrusted = __untrusted || #tool_untrusted;
        #rules
        #p::TrustClaims {
            sensitive: __sensitive,
            untrusted: __untrusted,
            evidence_ref: #p::core::option::Option::None,
        }
    };
    if rules_claim {
        let result_claims_of = quote! {
            #[inline]
            #[allow(unreachable_patterns)]
            fn __result_claims_of(
                __tool: &#tool_ident,
                __outcome: &#p::Outcome,
            ) -> #p::TrustClaims {
                #body
            }
        };
        let result_claims = quote! {
            fn result_claims(&self) -> #p::TrustClaims {
                __result_claims_of(self, &__evaluate(self))
            }
        };
        (result_claims_of, result_claims)
    } else {
        let result_claims = quote! {
            #[allow(unreachable_patterns)]
            fn result_claims(&self) -> #p::TrustClaims {
                let __tool = self;
                #body
            }
        };
        (claims_alone, result_claims)
    }
}
