//! Checks of rules against the tool: every field exists and has a type its
//! tests fit, every pattern compiles, scopes are consistent.

use syn::ext::IdentExt;

use super::authorization::check_authorization;
use crate::internals::ast::{Actions, Field, Shape, Tool};
use crate::internals::ctxt::Errors;
use crate::internals::types::kind_of;
use crate::rules::{Checked, CheckedRule, Place, Rule};
use annot_model::{Annotations, action_base};
use annot_rules::check::{FieldKinds, check_predicate};
use annot_rules::patterns::collect_patterns;

use crate::internals::suggest::did_you_mean;

/// Where a rule was written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// `#[mcp_tool(...)]`: every action that has its fields.
    Tool,
    /// The `#[annotate(...)]` of the variant at this position.
    Variant(usize),
}

/// Rules and scopes are not for an `#[mcp_actions]` enum, which has no fields.
pub fn check_actions_enum(actions: &Actions, errors: &Errors) {
    let rules_here = "rules go on the #[mcp_tool] struct whose action field has this type, \
                      where they can test its fields and the action: \
                      `#[mcp_tool(when(method == \"DELETE\") => (destructive = false))]`";
    let auth_here = "authorization goes on the #[mcp_tool] struct whose action field has this \
                     type: `#[mcp_tool(scopes = [\"repo\"])]`, or in its rules";
    for rule in &actions.options.rules {
        errors.at(rule.span, rules_here);
    }
    if let Some(auth) = &actions.options.auth {
        errors.at(auth.span(), auth_here);
    }
    for variant in &actions.variants {
        let Some(annotate) = &variant.annotate else {
            continue;
        };
        for rule in &annotate.rules {
            errors.at(rule.span, rules_here);
        }
        if let Some(auth) = &annotate.auth {
            errors.at(auth.span(), auth_here);
        }
    }
}

/// Every check of the rules and authorization of a `#[mcp_tool]` item.
pub fn check_tool(tool: &Tool, errors: &Errors) -> Checked {
    let mut checked = Checked::default();
    let mut owned: Vec<(Owner, &Rule)> = tool
        .options
        .rules
        .iter()
        .map(|rule| (Owner::Tool, rule))
        .collect();
    if let Shape::Enum(variants) = &tool.shape {
        for (position, variant) in variants.iter().enumerate() {
            if let Some(annotate) = &variant.annotate {
                owned.extend(annotate.rules.iter().map(|r| (Owner::Variant(position), r)));
            }
        }
    }
    let mut too_many_patterns = false;
    for (index, (owner, rule)) in owned.into_iter().enumerate() {
        let applies = match (&tool.shape, owner) {
            (Shape::Struct(fields), _) => {
                let kinds = field_kinds(fields, Some(&tool.discriminator.0));
                check_predicate(&rule.predicate, &kinds, &Place::Struct, errors);
                vec![true]
            }
            (Shape::Single { fields, .. }, _) => {
                let kinds = field_kinds(fields, None);
                check_predicate(&rule.predicate, &kinds, &Place::Struct, errors);
                vec![true]
            }
            (Shape::Enum(variants), Owner::Variant(position)) => {
                let variant = &variants[position];
                let kinds = field_kinds(&variant.fields, None);
                let place = Place::Variant(variant.ident.to_string(), &tool.discriminator.0);
                check_predicate(&rule.predicate, &kinds, &place, errors);
                (0..variants.len()).map(|i| i == position).collect()
            }
            (Shape::Enum(variants), Owner::Tool) => {
                tool_rule_on_enum(rule, variants, &tool.discriminator.0, errors)
            }
        };
        collect_patterns(&rule.predicate, &mut checked.patterns);
        annot_rules::limits::check(
            rule.span,
            index,
            &checked.patterns,
            &mut too_many_patterns,
            errors,
        );
        checked.rules.push(CheckedRule {
            index,
            rule: rule.clone(),
            applies,
            source: rule.to_string(),
        });
    }
    check_pattern_sets(&checked, errors);
    check_authorization(tool, &mut checked, errors);
    let defaults = &tool.options.defaults;
    match &tool.shape {
        Shape::Enum(variants) => {
            let actions: Vec<(String, Annotations)> = variants
                .iter()
                .map(|variant| {
                    let hints = variant.annotate.as_ref().map(|a| a.hints.to_model());
                    let base = action_base(hints.unwrap_or_default(), defaults.to_model());
                    (format!("action `{}`", variant.ident), base)
                })
                .collect();
            check_dead_hints(&checked, &actions, errors);
        }
        Shape::Single { .. } => {
            let base = action_base(Annotations::new(), defaults.to_model());
            let actions = [(format!("tool `{}`", tool.ident), base)];
            check_dead_hints(&checked, &actions, errors);
        }
        Shape::Struct(_) => {} // checked in const evaluation, see `expand`
    }
    checked
}

/// A rule that sets write-only hints on a read-only action (its own, or the
/// tool default's read-only) does nothing there: an error, so that no
/// declaration silently does nothing.
fn check_dead_hints(checked: &Checked, actions: &[(String, Annotations)], errors: &Errors) {
    for rule in &checked.rules {
        let dead = rule.rule.write_only_hints();
        if dead.is_empty() {
            continue;
        }
        let read_only: Vec<&str> = actions
            .iter()
            .zip(&rule.applies)
            .filter(|((_, base), applies)| **applies && base.is_read_only())
            .map(|((name, _), _)| name.as_str())
            .collect();
        if read_only.is_empty() {
            continue;
        }
        for (key, span) in dead {
            let several = rule.applies.iter().filter(|applies| **applies).count() > 1;
            errors.at(
                span,
                annot_rules::hints::dead_on_read_only(key, &read_only, several),
            );
        }
    }
}

fn field_kinds(fields: &[Field], discriminator: Option<&str>) -> FieldKinds {
    fields
        .iter()
        .map(|field| {
            let action = discriminator == Some(field.name.as_str());
            (
                field.ident.unraw().to_string(),
                (kind_of(&field.ty, action), field.skip),
            )
        })
        .collect()
}

/// A tool-level rule applies to every variant that has all its fields; their
/// types must agree.
fn tool_rule_on_enum(
    rule: &Rule,
    variants: &[crate::internals::ast::Variant],
    discriminator: &str,
    errors: &Errors,
) -> Vec<bool> {
    let names: Vec<&str> = rule
        .predicate
        .fields()
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    let has = |variant: &crate::internals::ast::Variant, name: &str| {
        variant.fields.iter().any(|f| f.ident.unraw() == name)
    };
    let applies: Vec<bool> = variants
        .iter()
        .map(|variant| names.iter().all(|name| has(variant, name)))
        .collect();
    let mut kinds = FieldKinds::new();
    let mut reported = false;
    for field in rule.predicate.fields() {
        if !variants.iter().any(|variant| has(variant, &field.name)) {
            reported = true;
            let all = variants
                .iter()
                .flat_map(|v| &v.fields)
                .map(|f| f.ident.unraw().to_string());
            let all: Vec<String> = all.collect();
            let mut message = format!(
                "no action has a field `{}`{}",
                field.name,
                did_you_mean(&field.name, all.iter().map(String::as_str))
            );
            if field.name == discriminator {
                message.push_str(
                    "\nthe action is the variant itself: put the rule in that variant's \
                     #[annotate(...)]",
                );
            }
            errors.at(field.span, message);
        }
    }
    if reported {
        return applies;
    }
    if !applies.contains(&true) {
        errors.at(
            rule.span,
            format!(
                "no action has all the fields this rule tests ({})",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        return applies;
    }
    for (variant, _) in variants
        .iter()
        .zip(&applies)
        .filter(|(_, applies)| **applies)
    {
        for field in &variant.fields {
            let name = field.ident.unraw().to_string();
            if !names.contains(&name.as_str()) {
                continue;
            }
            let kind = kind_of(&field.ty, false);
            match kinds.get_mut(&name) {
                None => {
                    kinds.insert(name, (kind, field.skip));
                }
                Some((known, skip)) => {
                    if known.base != kind.base {
                        let at = rule.predicate.fields().into_iter().find(|f| f.name == name);
                        errors.at(
                            at.map_or(rule.span, |f| f.span),
                            format!(
                                "`{name}` is `{}` in one action and `{}` in `{}`: a rule of the \
                                 whole tool needs one type; write it on each action instead",
                                known.text, kind.text, variant.ident
                            ),
                        );
                    }
                    known.optional |= kind.optional;
                    *skip |= field.skip;
                }
            }
        }
    }
    check_predicate(&rule.predicate, &kinds, &Place::Tool, errors);
    applies
}

/// Each field's patterns together must compile as one set, as at run time.
fn check_pattern_sets(checked: &Checked, errors: &Errors) {
    let predicates = checked.rules.iter().map(|rule| &rule.rule.predicate);
    annot_rules::patterns::check_pattern_sets(&checked.patterns, predicates, errors);
}
