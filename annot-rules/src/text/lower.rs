//! A checked predicate, lowered for evaluation: no spans (the tree can be
//! sent across threads and kept), patterns by their set and position, SQL
//! names by their runtime variant, literals as values of the field's type.

use crate::kind::Base;
use crate::patterns::{FieldPatterns, find_pattern};
use crate::syntax::{Comparison, Haystack, Literal, Predicate, Test};

/// A predicate ready to evaluate.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    All(Vec<Condition>),
    Any(Vec<Condition>),
    Not(Box<Condition>),
    /// `some(field)`: present and not null.
    Present(String),
    /// Pattern `position` of pattern set `set` (the field's, for `haystack`).
    Pattern {
        field: String,
        set: usize,
        position: usize,
        haystack: Haystack,
    },
    /// `is sql(dialect, class)`, by the runtime's variant names (`Postgres`, `Read`).
    Sql {
        field: String,
        dialect: &'static str,
        class: &'static str,
    },
    /// `==`, `in [...]` (any of `values`), or `!=` (`negated`).
    Equals {
        field: String,
        values: Vec<Operand>,
        negated: bool,
    },
    /// `<`, `<=`, `>`, `>=`.
    Compare {
        field: String,
        comparison: Comparison,
        value: Operand,
    },
}

/// A literal, as a value of its field's type (an integer compared with a
/// float field is a float).
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Str(String),
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// `predicate`, checked, with its patterns in `sets`; `base` is each
/// field's [`Base`]. `None` if a pattern of it is in no set (it did not
/// compile, an error already recorded).
pub(super) fn lower(
    predicate: &Predicate,
    sets: &[FieldPatterns],
    base: &dyn Fn(&str) -> Base,
) -> Option<Condition> {
    let recurse = |part: &Predicate| lower(part, sets, base);
    Some(match predicate {
        Predicate::All(parts) => Condition::All(parts.iter().map(recurse).collect::<Option<_>>()?),
        Predicate::Any(parts) => Condition::Any(parts.iter().map(recurse).collect::<Option<_>>()?),
        Predicate::Not(inner) => Condition::Not(Box::new(recurse(inner)?)),
        Predicate::Some(field) => Condition::Present(field.name.clone()),
        Predicate::Test(field, test) => {
            let name = field.name.clone();
            if let (Some((set, position)), Some(haystack)) =
                (find_pattern(sets, &field.name, test), test.haystack())
            {
                return Some(Condition::Pattern {
                    field: name,
                    set,
                    position,
                    haystack,
                });
            }
            let base = base(&field.name);
            match test {
                Test::Sql(sql) => Condition::Sql {
                    field: name,
                    dialect: sql.dialect_variant(),
                    class: sql.class_variant(),
                },
                Test::Equals { value, negated } => Condition::Equals {
                    field: name,
                    values: vec![operand(value, &base)],
                    negated: *negated,
                },
                Test::In(values) => Condition::Equals {
                    field: name,
                    values: values.iter().map(|value| operand(value, &base)).collect(),
                    negated: false,
                },
                Test::Compare(comparison, value) => Condition::Compare {
                    field: name,
                    comparison: *comparison,
                    value: operand(value, &base),
                },
                // A pattern that does not compile is in no set.
                Test::Matches(_) | Test::PathMatches(_) | Test::MatchesTemplate(_) => return None,
            }
        }
    })
}

fn operand(literal: &Literal, base: &Base) -> Operand {
    match (literal, base) {
        (Literal::Str(lit), _) => Operand::Str(lit.value()),
        (Literal::Bool(lit), _) => Operand::Bool(lit.value),
        (Literal::Int { value, .. }, Base::Float) => Operand::Float(*value as f64),
        (Literal::Int { value, .. }, _) => Operand::Int(*value),
        (Literal::Float { value, .. }, _) => Operand::Float(*value),
    }
}

/// Whether a rule of the whole tool can fire on `action`, from the
/// discriminator alone: `Some(true)` on every call of it, `Some(false)` on
/// none, `None` when the other fields decide (the macro's `code::tri`).
pub(super) fn fires_on(predicate: &Predicate, discriminator: &str, action: &str) -> Option<bool> {
    let names = |values: &[&Literal]| {
        values
            .iter()
            .any(|value| matches!(value, Literal::Str(lit) if lit.value() == action))
    };
    match predicate {
        Predicate::All(parts) => kleene(parts, discriminator, action, false),
        Predicate::Any(parts) => kleene(parts, discriminator, action, true),
        Predicate::Not(inner) => fires_on(inner, discriminator, action).map(|value| !value),
        Predicate::Test(field, Test::Equals { value, negated }) if field.name == discriminator => {
            Some(names(&[value]) != *negated)
        }
        Predicate::Test(field, Test::In(values)) if field.name == discriminator => {
            Some(names(&values.iter().collect::<Vec<_>>()))
        }
        _ => None,
    }
}

/// `all` (`any` when `decisive` is true) in Kleene's logic: one part at
/// `decisive` decides, else any undecided part leaves it undecided.
fn kleene(parts: &[Predicate], discriminator: &str, action: &str, decisive: bool) -> Option<bool> {
    let mut undecided = false;
    for part in parts {
        match fires_on(part, discriminator, action) {
            Some(value) if value == decisive => return Some(decisive),
            Some(_) => {}
            None => undecided = true,
        }
    }
    if undecided { None } else { Some(!decisive) }
}
