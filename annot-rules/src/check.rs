//! Checks of a rule's predicate against the fields of its place: each field
//! exists there, and each test and literal fits the field's type. Whatever
//! describes the fields (Rust types, a JSON Schema), the checks are these.

use std::collections::HashMap;

use proc_macro2::Span;

use crate::errors::Errors;
use crate::kind::{Base, Kind};
use crate::suggest::did_you_mean;
use crate::syntax::{Literal, Predicate, Test};
use crate::template::template_regex;

/// Where a predicate's fields come from, for messages.
pub enum Place<'a> {
    Struct,
    /// A variant's rule, and the tool's discriminator.
    Variant(String, &'a str),
    /// A tool-level rule on an enum of actions.
    Tool,
    /// A rule written as text for one action, and the tool's discriminator.
    Action(String, &'a str),
}

/// The fields a rule can name where it is written: each one's kind, and
/// whether it is skipped (never read from the arguments).
pub type FieldKinds = HashMap<String, (Kind, bool)>;

/// Checks that every field `predicate` names is in `kinds`, and that each
/// test and literal fits its field's type.
pub fn check_predicate(predicate: &Predicate, kinds: &FieldKinds, place: &Place, errors: &Errors) {
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            for part in parts {
                check_predicate(part, kinds, place, errors);
            }
        }
        Predicate::Not(inner) => check_predicate(inner, kinds, place, errors),
        Predicate::Some(field) | Predicate::Test(field, _) => {
            let Some((kind, skip)) = kinds.get(&field.name) else {
                missing_field(&field.name, field.span, kinds, place, errors);
                return;
            };
            if *skip {
                errors.at(
                    field.span,
                    format!(
                        "`{}` is skipped (#[serde(skip)]): it is never read from the \
                         arguments, so no rule can test it",
                        field.name
                    ),
                );
                return;
            }
            match predicate {
                Predicate::Some(_) if !kind.optional => errors.at(
                    field.span,
                    format!(
                        "`some({})` tests whether an `Option` field is present; `{}` is `{}`, \
                         always present",
                        field.name, field.name, kind.text
                    ),
                ),
                Predicate::Test(_, test) => check_test(&field.name, field.span, kind, test, errors),
                _ => {}
            }
        }
    }
}

fn missing_field(name: &str, span: Span, kinds: &FieldKinds, place: &Place, errors: &Errors) {
    let mut known: Vec<&str> = kinds.keys().map(String::as_str).collect();
    known.sort_unstable();
    let suggestion = did_you_mean(name, known.iter().copied());
    let message = match place {
        Place::Struct => format!("no field `{name}` in the tool{suggestion}"),
        Place::Tool => format!("no action has a field `{name}`{suggestion}"),
        Place::Variant(variant, discriminator) => {
            let mut message = format!("action `{variant}` has no field `{name}`{suggestion}");
            if name == *discriminator {
                message.push_str(
                    "\na rule in a variant's #[annotate(...)] already applies to that action only",
                );
            }
            message
        }
        Place::Action(action, discriminator) => {
            let mut message = format!("action `{action}` has no field `{name}`{suggestion}");
            if name == *discriminator {
                message.push_str("\na rule of one action already applies to that action only");
            }
            message
        }
    };
    errors.at(span, message);
}

fn check_test(name: &str, span: Span, kind: &Kind, test: &Test, errors: &Errors) {
    let ty = &kind.text;
    match (&kind.base, test) {
        (Base::Other, _) => errors.at(
            span,
            format!(
                "rules test strings, numbers and booleans, and `Option`s of them: `{name}` is \
                 `{ty}`"
            ),
        ),
        (Base::Str, Test::Matches(lit) | Test::PathMatches(lit)) => {
            if let Err(problem) = regex::Regex::new(&lit.value()) {
                errors.spanned(lit, format!("invalid regex: {problem}"));
            }
        }
        (Base::Str, Test::MatchesTemplate(lit)) => {
            if let Err(problem) = template_regex(&lit.value()) {
                errors.spanned(lit, format!("invalid path template: {problem}"));
            }
        }
        (Base::Str, Test::Sql(_)) => {}
        (_, Test::Matches(_) | Test::PathMatches(_) | Test::MatchesTemplate(_) | Test::Sql(_)) => {
            let operator = test.operator();
            errors.at(
                span,
                format!("`{operator}` tests a string field; `{name}` is `{ty}`"),
            );
        }
        (base, Test::Compare(comparison, value)) => {
            if !matches!(base, Base::Int { .. } | Base::Float) {
                errors.at(
                    span,
                    format!(
                        "`{}` compares numbers; `{name}` is `{ty}`",
                        comparison.symbol()
                    ),
                );
            } else {
                check_literal(name, kind, value, errors);
            }
        }
        (_, Test::Equals { value, .. }) => check_literal(name, kind, value, errors),
        (_, Test::In(values)) => {
            for value in values {
                check_literal(name, kind, value, errors);
            }
        }
    }
}

fn check_literal(name: &str, kind: &Kind, value: &Literal, errors: &Errors) {
    let ty = &kind.text;
    let wrong = |expected: &str| {
        errors.at(
            value.span(),
            format!(
                "`{name}` is `{ty}`: compare it with {expected}, not {}",
                value.describe()
            ),
        );
    };
    match (&kind.base, value) {
        (Base::Str | Base::Action, Literal::Str(_))
        | (Base::Bool, Literal::Bool(_))
        | (Base::Float, Literal::Int { .. } | Literal::Float { .. }) => {}
        (Base::Int { min, max }, Literal::Int { value: number, .. }) => {
            if number < min || number > max {
                errors.at(
                    value.span(),
                    format!("`{number}` does not fit `{name}`, a `{ty}` ({min} to {max})"),
                );
            }
        }
        (Base::Str, _) => wrong("a string"),
        (Base::Action, _) => wrong("the name of an action, a string"),
        (Base::Bool, _) => wrong("`true` or `false`"),
        (Base::Int { .. }, _) => wrong("an integer"),
        (Base::Float, _) => wrong("a number"),
        (Base::Other, _) => {}
    }
}
