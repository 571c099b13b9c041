//! Code generation for the two struct shapes: a struct whose action field
//! names the action (its type's `AnnotatedActions` give the table's rows),
//! and a single-action struct (`#[mcp_tool(single)]`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::CheckedRule;
use super::generate::{Gen, binding, used_fields};
use super::predicate_code;
use crate::internals::ast::Field;

impl Gen<'_> {
    pub(super) fn struct_shape(&self, fields: &[Field]) -> (TokenStream, TokenStream, TokenStream) {
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
            .map(|rule| predicate_code::tri(&rule.rule.predicate, fields, discriminator, p));
        let rule_count = self.checked.rules.len();
        let name_checks = predicate_code::action_name_checks(self.checked, action_field, ty, p);
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
        let fire = self.fire_every_rule(fields, Some(discriminator));
        let evaluate = quote! {
            // The row of `__ROWS` is the action's row of its table: both are
            // built from the same `ACTIONS`, in order.
            let __index = <#ty as #p::AnnotatedActions>::index(__tool.#field);
            let __action_name = #p::declared_action(
                <#ty as #p::AnnotatedActions>::ACTIONS,
                __index,
            ).name;
            #fire
            #p::Outcome::compiled(&__TABLE, __index, __fired, __undecided)
        };
        (items, resolve, evaluate)
    }
}

impl Gen<'_> {
    /// A single-action tool: the tool-level hints are its action's, every
    /// rule may fire, and the action is named after the tool.
    pub(super) fn single_shape(&self, fields: &[Field]) -> (TokenStream, TokenStream, TokenStream) {
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
        let fire = self.fire_every_rule(fields, None);
        let evaluate = quote! {
            #fire
            #p::Outcome::compiled(&__TABLE, 0, __fired, __undecided)
        };
        (items, resolve, evaluate)
    }

    /// Binds the fields the rules test and sets `__fired` and `__undecided`
    /// from every rule of the tool (all of them may fire on a struct).
    fn fire_every_rule(&self, fields: &[Field], discriminator: Option<&str>) -> TokenStream {
        let rules: Vec<&CheckedRule> = self.checked.rules.iter().collect();
        let bindings = used_fields(&rules, fields).into_iter().map(|used| {
            let binding = binding(used);
            let ident = &used.ident;
            quote!(let #binding = &__tool.#ident;)
        });
        let body = predicate_code::fire_rules(self.checked, &rules, fields, discriminator, self.p);
        quote! {
            let mut __fired: u64 = 0;
            let mut __undecided: u64 = 0;
            #(#bindings)*
            #body
        }
    }

    /// For each rule setting hints that only mean something for writes
    /// without turning `read_only` off: a compile-time check that it cannot
    /// fire on a read-only action of the action type, where it would do
    /// nothing.
    fn dead_hint_checks(&self, ty: &syn::Type) -> TokenStream {
        let checks = self.checked.rules.iter().filter_map(|rule| {
            let dead = rule.rule.write_only_hints();
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
            let p = predicate_code::respan(self.p, span);
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
