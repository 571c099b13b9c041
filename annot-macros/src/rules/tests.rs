//! What the macro emits for rules, read as tokens: the proof of the bound
//! and the limits of the masks.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::attr::{OptionsOf, parse_options};
use crate::internals::ctxt::Errors;

/// The expansion of `#[mcp_tool(#args)] #item`, or its errors.
fn expand(args: TokenStream, item: TokenStream) -> Result<String, String> {
    let errors = Errors::new();
    let options = parse_options(args, OptionsOf::Tool, &errors);
    let item: syn::DeriveInput = syn::parse2(item).expect("an item");
    let model = crate::internals::ast::model(&item, options, OptionsOf::Tool, &errors)
        .map(|model| crate::check::model(model, &errors));
    match (errors.finish(), model) {
        (Ok(()), Some(crate::internals::ast::Model::Tool(tool))) => {
            Ok(crate::expand::tool(&tool).to_string())
        }
        (Err(error), _) => Err(error.to_string()),
        _ => Err("no model".to_owned()),
    }
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect()
}

#[test]
fn every_shape_asserts_its_table_within_the_static_annotations() {
    let tools = [
        (
            quote!(),
            quote! {
                enum Files {
                    #[annotate(read_only, when(path matches "^/etc") => (sensitive_data))]
                    Read { path: String },
                }
            },
        ),
        (
            quote!(when(path matches "^/etc") => (sensitive_data)),
            quote!(
                struct Read {
                    path: String,
                }
            ),
        ),
        (
            quote!(discriminator = "method", when(method == "GET") => (read_only)),
            quote!(
                struct Api {
                    method: Method,
                    path: String,
                }
            ),
        ),
    ];
    for (args, item) in tools {
        let expanded = squeeze(&expand(args, item).expect("expands"));
        // The table is a `const`, and a `const` item asserts it within the
        // trait's `STATIC_ANNOTATIONS` and `STATIC_AUTHORIZATION`.
        assert!(
            expanded.contains("const__MASKS:__annot::RuleTable=__annot::RuleTable::new(")
                && expanded.contains("const__TABLE:__annot::RuleTable=__MASKS.with_outcomes("),
            "{expanded}"
        );
        assert!(
            expanded.contains("const_:()=::core::assert!(__annot::table_within(&__TABLE,<"),
            "{expanded}"
        );
        assert!(expanded.contains("as__annot::AnnotatedTool>::STATIC_ANNOTATIONS,<"));
        assert!(expanded.contains("as__annot::AnnotatedTool>::STATIC_AUTHORIZATION,)"));
    }
}

#[test]
fn sixty_four_rules_at_most() {
    let rules = |count: usize| {
        let rules = (0..count).map(|index| {
            let pattern = format!("^/{index}");
            quote!(when(path matches #pattern) => (sensitive_data),)
        });
        quote!(#(#rules)*)
    };
    let item = quote!(
        struct Read {
            path: String,
        }
    );
    assert!(expand(rules(64), item.clone()).is_ok());
    let error = expand(rules(65), item).unwrap_err();
    assert!(error.contains("at most 64 rules"), "{error}");
    assert!(error.contains("this is rule 65"), "{error}");
}

#[test]
fn sixty_four_patterns_per_field_at_most() {
    let patterns = (0..65).map(|index| format!("^/{index}"));
    let item = quote!(
        struct Read {
            path: String,
        }
    );
    let args = quote!(when(any(#(path matches #patterns),*)) => (sensitive_data));
    let error = expand(args, item).unwrap_err();
    assert!(error.contains("more than 64 patterns"), "{error}");
}
