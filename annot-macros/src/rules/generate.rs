//! Code generation for the annotations of a tool: each action's static bound
//! under its rules, the evaluation of the rules for one call, and the
//! authorization and explanation that come with it.
//!
//! What is generated computes only what depends on the arguments: the action's
//! index and, as two bit masks, which applicable rules held and which were
//! undecided. Everything else is a constant `RuleTable` built by `const`
//! evaluation of the lattice functions the runtime uses (see the runtime's
//! `rules::table` module for the representation), asserted within the static
//! annotations at compile time. An action that no rule applies to resolves to
//! a constant. Patterns of one field live in one `static` pattern set.

use proc_macro2::{Literal as TokenLiteral, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use super::AuthSpec;
use super::dfa_builder::serialized_dfa;
use super::predicate_code;
use super::{Checked, CheckedRule};
use crate::internals::ast::{Field, Shape, Tool, Variant};

/// The generated pieces: items of the `const _` block, items of the
/// `AnnotatedTool` impl, the body of `resolve`, and the fields of the
/// tool's `Generated` table that come from its rules (each names a
/// function or constant of the `const _` block).
pub struct RulesCode {
    pub items: TokenStream,
    pub trait_items: TokenStream,
    pub resolve: TokenStream,
    pub generated_fields: TokenStream,
}

/// Everything about annotations, rules and authorization of a checked tool.
pub fn generate(tool: &Tool, p: &TokenStream) -> RulesCode {
    let checked = &tool.checked;
    let generator = Gen { tool, checked, p };
    let shared = generator.shared_items();
    let (items, resolve, evaluate) = match &tool.shape {
        Shape::Enum(variants) => generator.enum_shape(variants),
        Shape::Struct(fields) => generator.struct_shape(fields),
        Shape::Single { fields, .. } => generator.single_shape(fields),
    };
    let ident = &tool.ident;
    let view = super::borrowing_evaluation::view(tool, checked, p);
    let sets = (0..checked.patterns.len()).map(|index| format_ident!("__PATTERNS_{}", index));
    let trait_items = quote! {
        const RULES: &'static [#p::Rule] = __RULES;
        const STATIC_AUTHORIZATION: #p::core::option::Option<#p::Authorization> =
            #p::static_authorization(&__AUTHORIZATIONS);

        fn resolve_authorization(&self) -> #p::core::option::Option<#p::Authorization> {
            __evaluate(self).authorization()
        }

        fn explain(&self) -> #p::Explanation {
            __evaluate(self).explain()
        }
    };
    let generated_fields = quote! {
        rule_table: #p::core::option::Option::Some(&__TABLE),
        pattern_sets: __pattern_sets,
        evaluate: __evaluate,
        evaluate_arguments_str: __evaluate_arguments_str,
        evaluate_view: __evaluate_view,
        evaluate_split: __evaluate_split,
    };
    let contract = quote! {
        fn __pattern_sets() -> &'static [&'static #p::PatternSet] {
            static __SETS: &[&#p::PatternSet] = &[#(&#sets),*];
            __SETS
        }

        fn __evaluate_view(__text: &str) -> #p::core::option::Option<#p::Outcome> {
            __view(__text, #p::core::option::Option::None)
        }

        fn __evaluate_split(
            __text: &str,
            __split: &#p::SplitArguments<'_>,
        ) -> #p::core::option::Option<#p::Outcome> {
            __view(__text, #p::core::option::Option::Some(__split))
        }

        fn __evaluate_arguments_str(
            __text: &str,
        ) -> #p::core::result::Result<#p::Outcome, #p::ArgumentError> {
            match __view(__text, #p::core::option::Option::None) {
                #p::core::option::Option::Some(__outcome) => {
                    #p::core::result::Result::Ok(__outcome)
                }
                // Invalid, or beyond the borrowing path: the owned path
                // decides, and gives the error.
                #p::core::option::Option::None => #p::core::result::Result::Ok(__evaluate(
                    &<#ident as #p::AnnotatedTool>::from_arguments_str(__text)?,
                )),
            }
        }
    };
    let items = quote! {
        #shared
        #items
        #contract
        const __MASKS: #p::RuleTable =
            #p::RuleTable::new(__RULES, __DEFAULTS, __DEFAULT_AUTHORIZATION, &__ROWS);
        // With few rules, every outcome with no undecided rule, precomputed.
        const __OUTCOME_BITS: u32 = #p::outcome_bits(__RULES.len(), __ROWS.len());
        const __OUTCOMES: [#p::Annotations; __ROWS.len() << __OUTCOME_BITS] =
            #p::full_outcomes(&__MASKS, __OUTCOME_BITS);
        const __TABLE: #p::RuleTable = __MASKS.with_outcomes(__OUTCOME_BITS, &__OUTCOMES);
        // The proof of the bound: every outcome the table can give is within
        // what `tools/list` advertises, or the tool does not build.
        const _: () = ::core::assert!(
            #p::table_within(
                &__TABLE,
                <#ident as #p::AnnotatedTool>::STATIC_ANNOTATIONS,
                <#ident as #p::AnnotatedTool>::STATIC_AUTHORIZATION,
            ),
            "a resolution of this tool could exceed its static annotations",
        );
        #[allow(unused_variables, unused_mut, unreachable_patterns)]
        #[inline]
        fn __evaluate(__tool: &#ident) -> #p::Outcome {
            #evaluate
        }
        #[allow(unused_variables, unused_mut, unreachable_patterns, unreachable_code)]
        fn __view<'__a>(
            __text: &'__a str,
            __split: #p::core::option::Option<&#p::SplitArguments<'__a>>,
        ) -> #p::core::option::Option<#p::Outcome> {
            #view
        }
    };
    RulesCode {
        items,
        trait_items,
        resolve,
        generated_fields,
    }
}

pub(super) struct Gen<'a> {
    pub(super) tool: &'a Tool,
    pub(super) checked: &'a Checked,
    pub(super) p: &'a TokenStream,
}

impl Gen<'_> {
    pub(super) fn option(&self, value: Option<TokenStream>) -> TokenStream {
        let p = self.p;
        match value {
            Some(value) => quote!(#p::core::option::Option::Some(#value)),
            None => quote!(#p::core::option::Option::None),
        }
    }

    pub(super) fn authorization(&self, spec: Option<&AuthSpec>) -> TokenStream {
        let p = self.p;
        let value = spec.map(|spec| match spec {
            AuthSpec::NoAuth(_) => quote!(#p::Authorization::NoAuth),
            AuthSpec::Scopes(scopes, _) => {
                let bits: u64 = scopes
                    .iter()
                    .map(|scope| self.checked.scope_bit(&scope.value()))
                    .fold(0, |bits, bit| bits | bit);
                quote!(#p::Authorization::OAuth2(#p::Scopes::new(__SCOPES, #bits)))
            }
        });
        self.option(value)
    }

    /// Defaults, scope table, rules and pattern sets.
    fn shared_items(&self) -> TokenStream {
        let p = self.p;
        let defaults = self.tool.options.defaults.to_annotations(p, None);
        let default_auth = self.authorization(self.tool.options.auth.as_ref());
        let scopes = &self.checked.scopes;
        let rules = self.checked.rules.iter().map(|rule| {
            let index = rule.index;
            let source = &rule.source;
            let hints = rule.rule.hints.to_annotations(p, None);
            let auth = self.authorization(rule.rule.auth.as_ref());
            quote! {
                #p::Rule { index: #index, source: #source, hints: #hints, authorization: #auth }
            }
        });
        let sets = self
            .checked
            .patterns
            .iter()
            .enumerate()
            .map(|(index, set)| {
                let name = format_ident!("__PATTERNS_{}", index);
                let regexes = &set.regexes;
                match serialized_dfa(regexes) {
                    Some(dfa) => {
                        let little = TokenLiteral::byte_string(&dfa.little_endian);
                        let little_len = dfa.little_endian.len();
                        let big = TokenLiteral::byte_string(&dfa.big_endian);
                        let big_len = dfa.big_endian.len();
                        // Only the DFA of the target's byte order is compiled
                        // in; `from_bytes` needs it 4-aligned.
                        quote! {
                            static #name: #p::PatternSet = #p::PatternSet::with_dfa(&[#(#regexes),*], {
                                #[cfg(target_endian = "little")]
                                static __DFA: #p::AlignedBytes<#little_len> = #p::AlignedBytes(*#little);
                                #[cfg(target_endian = "big")]
                                static __DFA: #p::AlignedBytes<#big_len> = #p::AlignedBytes(*#big);
                                &__DFA.0
                            });
                        }
                    }
                    None => quote!(static #name: #p::PatternSet = #p::PatternSet::new(&[#(#regexes),*]);),
                }
            });
        quote! {
            const __DEFAULTS: #p::Annotations = #defaults;
            const __DEFAULT_AUTHORIZATION: #p::core::option::Option<#p::Authorization> =
                #default_auth;
            const __SCOPES: &[&str] = &[#(#scopes),*];
            const __RULES: &[#p::Rule] = &[#(#rules),*];
            #(#sets)*
        }
    }

    fn enum_shape(&self, variants: &[Variant]) -> (TokenStream, TokenStream, TokenStream) {
        let p = self.p;
        let count = variants.len();
        let mut items = TokenStream::new();
        let mut actions = Vec::new();
        let mut authorizations = Vec::new();
        let mut rows = Vec::new();
        let mut resolve_arms = Vec::new();
        let mut resolved_table = Vec::new();
        let mut evaluate_arms = Vec::new();
        let mut all_constant = true;
        for (position, variant) in variants.iter().enumerate() {
            let declared = format_ident!("__DECLARED_{}", position);
            let declared_auth = format_ident!("__DECLARED_AUTHORIZATION_{}", position);
            let base = format_ident!("__BASE_{}", position);
            let action = format_ident!("__ACTION_{}", position);
            let authorization = format_ident!("__AUTHORIZATION_{}", position);
            let resolved = format_ident!("__RESOLVED_{}", position);
            let annotate = variant.annotate.clone().unwrap_or_default();
            let title = annotate.title.as_ref().map(|title| title.value());
            let declared_value = annotate.hints.to_annotations(p, title.as_deref());
            let declared_auth_value = self.authorization(annotate.auth.as_ref());
            let tris = self.checked.rules.iter().map(|rule| {
                if rule.applies[position] {
                    quote!(#p::Tri::Maybe)
                } else {
                    quote!(#p::Tri::Never)
                }
            });
            let tris = quote!(&[#(#tris),*]);
            let base_auth = format_ident!("__BASE_AUTHORIZATION_{}", position);
            items.extend(quote! {
                const #declared: #p::Annotations = #declared_value;
                const #declared_auth: #p::core::option::Option<#p::Authorization> =
                    #declared_auth_value;
                const #base: #p::Annotations = #p::action_base(#declared, __DEFAULTS);
                const #resolved: #p::Annotations = #base.effective();
                const #action: #p::Annotations = #p::bound_annotations(#base, __RULES, #tris);
                // The authorization a call starts from: the action's own, else the tool's.
                const #base_auth: #p::core::option::Option<#p::Authorization> =
                    match #declared_auth {
                        #p::core::option::Option::Some(__own) => {
                            #p::core::option::Option::Some(__own)
                        }
                        #p::core::option::Option::None => __DEFAULT_AUTHORIZATION,
                    };
                const #authorization: #p::core::option::Option<#p::Authorization> =
                    #p::bound_authorization(#base_auth, __RULES, #tris);
            });
            let name = &variant.name;
            rows.push(quote! {
                #p::ActionRow::new(
                    #name, #declared, #declared_auth, __DEFAULTS, __DEFAULT_AUTHORIZATION, #tris,
                )
            });
            actions.push(quote!(#p::Action { name: #name, annotations: #action }));
            authorizations.push(authorization.clone());
            let ident = &variant.ident;
            let applicable: Vec<&CheckedRule> = self
                .checked
                .rules
                .iter()
                .filter(|rule| rule.applies[position])
                .collect();
            resolved_table.push(resolved.clone());
            if applicable.is_empty() {
                resolve_arms.push(quote!(Self::#ident { .. } => #position,));
            } else {
                all_constant = false;
            }
            let fields = &variant.fields;
            let used = used_fields(&applicable, fields);
            let bindings = used.iter().map(|field| {
                let binding = binding(field);
                let ident = &field.ident;
                quote!(#ident: #binding)
            });
            let body = predicate_code::fire_rules(self.checked, &applicable, fields, None, p);
            let tool_ident = &self.tool.ident;
            evaluate_arms.push(if applicable.is_empty() {
                quote!(#tool_ident::#ident { .. } => (#position, 0, 0),)
            } else {
                quote! {
                    #tool_ident::#ident { #(#bindings,)* .. } => {
                        let mut __fired: u64 = 0;
                        let mut __undecided: u64 = 0;
                        #body
                        (#position, __fired, __undecided)
                    }
                }
            });
        }
        if !all_constant {
            resolve_arms.push(quote!(_ => return __evaluate(self).annotations(),));
        }
        items.extend(quote! {
            const __ROWS: [#p::ActionRow; #count] = [#(#rows),*];
            const __ACTIONS: [#p::Action; #count] = [#(#actions),*];
            const __AUTHORIZATIONS: [#p::core::option::Option<#p::Authorization>; #count] =
                [#(#authorizations),*];
            // Indexed, not matched to constants: one load, where a `match`
            // of many arms becomes an indirect jump.
            const __RESOLVED: [#p::Annotations; #count] = [#(#resolved_table),*];
        });
        let evaluate = quote! {
            let (__action, __fired, __undecided): (usize, u64, u64) = match __tool {
                #(#evaluate_arms)*
            };
            #p::Outcome::compiled(&__TABLE, __action, __fired, __undecided)
        };
        let resolve = if resolve_arms.len() == 1 && !all_constant {
            // No action resolves to a constant.
            quote!(__evaluate(self).annotations())
        } else {
            quote! {
                let __position: usize = match self { #(#resolve_arms)* };
                __RESOLVED[__position]
            }
        };
        (items, resolve, evaluate)
    }
}

/// The fields the rules test, each once.
pub(super) fn used_fields<'f>(rules: &[&CheckedRule], fields: &'f [Field]) -> Vec<&'f Field> {
    fields
        .iter()
        .filter(|field| {
            let name = predicate_code::rust_name(field);
            rules
                .iter()
                .any(|rule| rule.rule.predicate.fields().iter().any(|f| f.name == name))
        })
        .collect()
}

/// The local a field's value is bound to while its rules are evaluated.
pub(super) fn binding(field: &Field) -> Ident {
    format_ident!("__field_{}", predicate_code::rust_name(field))
}
