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

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::AuthSpec;
use super::check::{Checked, CheckedRule};
use super::code;
use crate::ast::{Field, Shape, Tool, Variant};

/// The generated pieces: items of the `const _` block, items of the
/// `AnnotatedTool` impl, and the body of `resolve`.
pub struct Generated {
    pub items: TokenStream,
    pub trait_items: TokenStream,
    pub resolve: TokenStream,
}

/// Everything about annotations, rules and authorization of a checked tool.
pub fn generate(tool: &Tool, checked: &Checked, p: &TokenStream) -> Generated {
    let generator = Gen { tool, checked, p };
    let shared = generator.shared_items();
    let (items, resolve, evaluate) = match &tool.shape {
        Shape::Enum(variants) => generator.enum_shape(variants),
        Shape::Struct(fields) => generator.struct_shape(fields),
        Shape::Single { fields, .. } => generator.single_shape(fields),
    };
    let ident = &tool.ident;
    let view = super::view::view(tool, checked, p);
    let trait_items = quote! {
        const RULES: &'static [#p::Rule] = __RULES;
        const RULE_TABLE: #p::core::option::Option<&'static #p::RuleTable> =
            #p::core::option::Option::Some(&__TABLE);
        const STATIC_AUTHORIZATION: #p::core::option::Option<#p::Authorization> =
            #p::static_authorization(&__AUTHORIZATIONS);

        fn resolve_authorization(&self) -> #p::core::option::Option<#p::Authorization> {
            __evaluate(self).authorization()
        }

        fn explain(&self) -> #p::Explanation {
            __evaluate(self).explain()
        }

        #[inline]
        fn evaluate(&self) -> #p::Outcome {
            __evaluate(self)
        }

        fn evaluate_view(__text: &str) -> #p::core::option::Option<#p::Outcome> {
            __view(__text)
        }

        fn evaluate_arguments_str(
            __text: &str,
        ) -> #p::core::result::Result<#p::Outcome, #p::ArgumentError> {
            match __view(__text) {
                #p::core::option::Option::Some(__outcome) => {
                    #p::core::result::Result::Ok(__outcome)
                }
                // Invalid, or beyond the borrowing path: the owned path
                // decides, and gives the error.
                #p::core::option::Option::None => #p::core::result::Result::Ok(
                    <Self as #p::AnnotatedTool>::from_arguments_str(__text)?.evaluate(),
                ),
            }
        }
    };
    let items = quote! {
        #shared
        #items
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
        fn __view(__text: &str) -> #p::core::option::Option<#p::Outcome> {
            #view
        }
    };
    Generated {
        items,
        trait_items,
        resolve,
    }
}

struct Gen<'a> {
    tool: &'a Tool,
    checked: &'a Checked,
    p: &'a TokenStream,
}

impl Gen<'_> {
    fn option(&self, value: Option<TokenStream>) -> TokenStream {
        let p = self.p;
        match value {
            Some(value) => quote!(#p::core::option::Option::Some(#value)),
            None => quote!(#p::core::option::Option::None),
        }
    }

    fn authorization(&self, spec: Option<&AuthSpec>) -> TokenStream {
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
                quote!(static #name: #p::PatternSet = #p::PatternSet::new(&[#(#regexes),*]);)
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
            let body = code::fire_rules(self.checked, &applicable, fields, None, p);
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

impl Gen<'_> {
    fn struct_shape(&self, fields: &[Field]) -> (TokenStream, TokenStream, TokenStream) {
        let p = self.p;
        let discriminator = &self.tool.discriminator.0;
        let action_field = fields
            .iter()
            .find(|field| &field.name == discriminator)
            .expect("checked: the struct has its discriminator field");
        let ty = &action_field.ty;
        let field = &action_field.ident;
        let declared_actions = quote_spanned!(ty.span()=> <#ty as #p::AnnotatedActions>::ACTIONS);
        let tris = self
            .checked
            .rules
            .iter()
            .map(|rule| code::tri(&rule.rule.predicate, fields, discriminator, p));
        let rule_count = self.checked.rules.len();
        let name_checks = code::action_name_checks(self.checked, action_field, ty, p);
        let dead_checks = self.dead_hint_checks(ty);
        let items = quote! {
            const __DECLARED_ACTIONS: &[#p::Action] = #declared_actions;
            const __ACTION_COUNT: usize = __DECLARED_ACTIONS.len();
            #[allow(unused_variables)]
            const fn __fires(__action: &str) -> [#p::Tri; #rule_count] {
                [#(#tris),*]
            }
            const __ACTIONS: [#p::Action; __ACTION_COUNT] = {
                let mut __actions = [#p::Action {
                    name: "",
                    annotations: #p::Annotations::new(),
                }; __ACTION_COUNT];
                let mut __index = 0;
                while __index < __ACTION_COUNT {
                    let __declared = __DECLARED_ACTIONS[__index];
                    __actions[__index] = #p::Action {
                        name: __declared.name,
                        annotations: #p::bound_annotations(
                            #p::action_base(__declared.annotations, __DEFAULTS),
                            __RULES,
                            &__fires(__declared.name),
                        ),
                    };
                    __index += 1;
                }
                __actions
            };
            const __ROWS: [#p::ActionRow; __ACTION_COUNT] = {
                let mut __rows = [#p::ActionRow::new(
                    "",
                    #p::Annotations::new(),
                    #p::core::option::Option::None,
                    #p::Annotations::new(),
                    #p::core::option::Option::None,
                    &[],
                ); __ACTION_COUNT];
                let mut __index = 0;
                while __index < __ACTION_COUNT {
                    let __declared = __DECLARED_ACTIONS[__index];
                    __rows[__index] = #p::ActionRow::new(
                        __declared.name,
                        __declared.annotations,
                        #p::core::option::Option::None,
                        __DEFAULTS,
                        __DEFAULT_AUTHORIZATION,
                        &__fires(__declared.name),
                    );
                    __index += 1;
                }
                __rows
            };
            const __AUTHORIZATIONS: [#p::core::option::Option<#p::Authorization>; __ACTION_COUNT] = {
                let mut __authorizations = [#p::core::option::Option::None; __ACTION_COUNT];
                let mut __index = 0;
                while __index < __ACTION_COUNT {
                    __authorizations[__index] = #p::bound_authorization(
                        __DEFAULT_AUTHORIZATION,
                        __RULES,
                        &__fires(__DECLARED_ACTIONS[__index].name),
                    );
                    __index += 1;
                }
                __authorizations
            };
            #name_checks
            #dead_checks
        };
        // The action's row of its table, by index: the rows `ACTIONS` (and so
        // the static bound) is built from.
        let row = quote! {
            #p::declared_action(
                <#ty as #p::AnnotatedActions>::ACTIONS,
                <#ty as #p::AnnotatedActions>::index(self.#field),
            )
        };
        let resolve = if self.checked.rules.is_empty() {
            // The action's precomputed row; past the table's end, its worst case.
            quote! {
                match __ROWS.get(<#ty as #p::AnnotatedActions>::index(self.#field)) {
                    #p::core::option::Option::Some(__row) => __row.resolved,
                    #p::core::option::Option::None => {
                        #p::action_base(#row.annotations, __DEFAULTS).effective()
                    }
                }
            }
        } else {
            quote!(__evaluate(self).annotations())
        };
        let rules: Vec<&CheckedRule> = self.checked.rules.iter().collect();
        let bindings = used_fields(&rules, fields).into_iter().map(|used| {
            let binding = binding(used);
            let ident = &used.ident;
            quote!(let #binding = &__tool.#ident;)
        });
        let body = code::fire_rules(self.checked, &rules, fields, Some(discriminator), p);
        let evaluate = quote! {
            // The row of `__ROWS` is the action's row of its table: both are
            // built from the same `ACTIONS`, in order.
            let __index = <#ty as #p::AnnotatedActions>::index(__tool.#field);
            let __action_name = #p::declared_action(
                <#ty as #p::AnnotatedActions>::ACTIONS,
                __index,
            ).name;
            let mut __fired: u64 = 0;
            let mut __undecided: u64 = 0;
            #(#bindings)*
            #body
            #p::Outcome::compiled(&__TABLE, __index, __fired, __undecided)
        };
        (items, resolve, evaluate)
    }
}

impl Gen<'_> {
    /// A single-action tool: the tool-level hints are its action's, every
    /// rule may fire, and the action is named after the tool.
    fn single_shape(&self, fields: &[Field]) -> (TokenStream, TokenStream, TokenStream) {
        let p = self.p;
        let ident = &self.tool.ident;
        let maybe = self.checked.rules.iter().map(|_| quote!(#p::Tri::Maybe));
        let items = quote! {
            const __BASE: #p::Annotations = #p::action_base(#p::Annotations::new(), __DEFAULTS);
            const __FIRES: &[#p::Tri] = &[#(#maybe),*];
            const __ROWS: [#p::ActionRow; 1] = [#p::ActionRow::new(
                <#ident as #p::AnnotatedTool>::NAME,
                #p::Annotations::new(),
                #p::core::option::Option::None,
                __DEFAULTS,
                __DEFAULT_AUTHORIZATION,
                __FIRES,
            )];
            const __ACTIONS: [#p::Action; 1] = [#p::Action {
                name: <#ident as #p::AnnotatedTool>::NAME,
                annotations: #p::bound_annotations(__BASE, __RULES, __FIRES),
            }];
            const __AUTHORIZATIONS: [#p::core::option::Option<#p::Authorization>; 1] =
                [#p::bound_authorization(__DEFAULT_AUTHORIZATION, __RULES, __FIRES)];
        };
        let resolve = if self.checked.rules.is_empty() {
            quote!(__BASE.effective())
        } else {
            quote!(__evaluate(self).annotations())
        };
        let rules: Vec<&CheckedRule> = self.checked.rules.iter().collect();
        let bindings = used_fields(&rules, fields).into_iter().map(|used| {
            let binding = binding(used);
            let ident = &used.ident;
            quote!(let #binding = &__tool.#ident;)
        });
        let body = code::fire_rules(self.checked, &rules, fields, None, p);
        let evaluate = quote! {
            let mut __fired: u64 = 0;
            let mut __undecided: u64 = 0;
            #(#bindings)*
            #body
            #p::Outcome::compiled(&__TABLE, 0, __fired, __undecided)
        };
        (items, resolve, evaluate)
    }

    /// For each rule setting hints that only mean something for writes
    /// without turning `read_only` off: a compile-time check that it cannot
    /// fire on a read-only action of the action type, where it would do
    /// nothing.
    fn dead_hint_checks(&self, ty: &syn::Type) -> TokenStream {
        let checks = self.checked.rules.iter().filter_map(|rule| {
            let dead = super::check::write_only_hints(&rule.rule);
            let (key, span) = *dead.first()?;
            let index = self
                .checked
                .rules
                .iter()
                .position(|r| r.index == rule.index)?;
            let message = format!(
                "`{key}` does nothing on the read-only actions of `{}` this rule can fire on: \
                 a read-only call is never destructive, always idempotent, has nothing to \
                 reverse. If the call writes when the rule fires, add `read_only = false` to \
                 the rule; otherwise test the action field so that it skips the read-only \
                 actions (`method != \"GET\"`), or remove `{key}`",
                quote!(#ty).to_string().replace(' ', "")
            );
            let p = code::respan(self.p, span);
            Some(quote_spanned! {span=>
                const _: () = {
                    let mut __index = 0;
                    while __index < __ACTION_COUNT {
                        let __declared = __DECLARED_ACTIONS[__index];
                        if #p::action_base(__declared.annotations, __DEFAULTS).is_read_only()
                            && !#p::core::matches!(__fires(__declared.name)[#index], #p::Tri::Never)
                        {
                            #p::core::panic!(#message);
                        }
                        __index += 1;
                    }
                };
            })
        });
        quote!(#(#checks)*)
    }
}

/// The fields the rules test, each once.
fn used_fields<'f>(rules: &[&CheckedRule], fields: &'f [Field]) -> Vec<&'f Field> {
    fields
        .iter()
        .filter(|field| {
            let name = code::rust_name(field);
            rules
                .iter()
                .any(|rule| rule.rule.predicate.fields().iter().any(|f| f.name == name))
        })
        .collect()
}

/// The local a field's value is bound to while its rules are evaluated.
fn binding(field: &Field) -> Ident {
    format_ident!("__field_{}", code::rust_name(field))
}
