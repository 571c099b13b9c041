//! One call's arguments against compiled rule text: each rule's condition
//! evaluated on the fields it reads, in the three-valued logic of the
//! generated code, into the masks an [`Outcome`] reads.

use serde_json::{Map, Value};

use annot_rules::text::{Condition, Operand};
use annot_rules::{Base, Comparison, Haystack};

use std::collections::HashMap;

use annot_rules::Kind;

use crate::ArgumentError;
use crate::argument_error::json_type;
use crate::rules::PathKind;
use crate::rules::Tri;
use crate::rules::patterns::PatternSet;
use crate::rules::patterns::{Matches, pattern_tri};

/// A field's value, read as its kind says.
enum Read<'a> {
    Absent,
    Str(&'a str),
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// One call: its arguments and the pattern sets searched so far.
pub(super) struct Call<'a> {
    /// The tool's pattern sets, fields and the fields' `default`s.
    pub sets: &'a [&'static PatternSet],
    pub fields: &'a HashMap<String, Kind>,
    pub defaults: &'a HashMap<String, Value>,
    pub object: &'a Map<String, Value>,
    pub action: &'a str,
    /// Per pattern set, once searched: `None` inside for a path with no
    /// safe normal form.
    pub found: Vec<Option<Option<Matches>>>,
}

impl<'a> Call<'a> {
    pub fn condition(&mut self, condition: &Condition) -> Result<Tri, ArgumentError> {
        Ok(match condition {
            Condition::All(parts) => {
                let parts = self.parts(parts)?;
                Tri::all(&parts)
            }
            Condition::Any(parts) => {
                let parts = self.parts(parts)?;
                Tri::any(&parts)
            }
            Condition::Not(inner) => self.condition(inner)?.not(),
            Condition::Present(field) => Tri::from_bool(!matches!(self.read(field)?, Read::Absent)),
            Condition::Pattern {
                field,
                set,
                position,
                haystack,
            } => self.pattern(field, *set, *position, *haystack)?,
            Condition::Sql {
                field,
                dialect,
                class,
            } => match self.read(field)? {
                Read::Str(text) => sql(Some(text), dialect, class),
                _ => sql(None, dialect, class),
            },
            Condition::Equals {
                field,
                values,
                negated,
            } => match self.read(field)? {
                Read::Absent => Tri::Never,
                value => {
                    Tri::from_bool(values.iter().any(|operand| equal(&value, operand)) != *negated)
                }
            },
            Condition::Compare {
                field,
                comparison,
                value,
            } => Tri::from_bool(compare(&self.read(field)?, *comparison, value)),
        })
    }

    fn parts(&mut self, parts: &[Condition]) -> Result<Vec<Tri>, ArgumentError> {
        parts.iter().map(|part| self.condition(part)).collect()
    }

    fn pattern(
        &mut self,
        field: &str,
        set: usize,
        position: usize,
        haystack: Haystack,
    ) -> Result<Tri, ArgumentError> {
        if self.found[set].is_none() {
            let patterns = self.sets[set];
            let found = match (self.read(field)?, haystack) {
                (Read::Str(text), Haystack::Raw) => Some(patterns.matches(text)),
                (Read::Str(text), Haystack::FilePath) => {
                    patterns.matches_path(text, PathKind::File)
                }
                (Read::Str(text), Haystack::UrlPath) => patterns.matches_path(text, PathKind::Url),
                // Absent: no pattern matches.
                _ => Some(Matches::NONE),
            };
            self.found[set] = Some(found);
        }
        let found = self.found[set].expect("searched above");
        Ok(match haystack {
            Haystack::Raw => Tri::from_bool(found.is_some_and(|found| found.matched(position))),
            Haystack::FilePath | Haystack::UrlPath => pattern_tri(&found, position),
        })
    }

    /// The value of `field`, checked against its kind; the discriminator is
    /// the call's action.
    fn read(&self, field: &str) -> Result<Read<'a>, ArgumentError> {
        let Some(kind) = self.fields.get(field) else {
            return Ok(Read::Absent);
        };
        let given = self.object.get(field);
        let value = match given.or_else(|| self.defaults.get(field)) {
            None | Some(Value::Null) if kind.optional => return Ok(Read::Absent),
            None => {
                return Err(ArgumentError::MissingField {
                    field: field.to_owned(),
                });
            }
            Some(value) => value,
        };
        let invalid = |expected: &str| ArgumentError::InvalidValue {
            path: field.to_owned(),
            message: format!("invalid type: {}, expected {expected}", json_type(value)),
        };
        Ok(match (&kind.base, value) {
            (Base::Action, _) => Read::Str(self.action),
            (Base::Str, Value::String(text)) => Read::Str(text),
            (Base::Bool, Value::Bool(value)) => Read::Bool(*value),
            (Base::Float, Value::Number(number)) => {
                Read::Float(number.as_f64().ok_or_else(|| invalid("a number"))?)
            }
            (Base::Int { min, max }, Value::Number(number)) => {
                let integer = number
                    .as_i64()
                    .map(i128::from)
                    .or_else(|| number.as_u64().map(i128::from))
                    .ok_or_else(|| invalid("an integer"))?;
                if integer < *min || integer > *max {
                    return Err(ArgumentError::InvalidValue {
                        path: field.to_owned(),
                        message: format!("{integer} is out of range ({min} to {max})"),
                    });
                }
                Read::Int(integer)
            }
            (Base::Str, _) => return Err(invalid("a string")),
            (Base::Bool, _) => return Err(invalid("a boolean")),
            (Base::Float, _) => return Err(invalid("a number")),
            (Base::Int { .. }, _) => return Err(invalid("an integer")),
            // Checked: no rule tests a field of another type.
            (Base::Other, _) => Read::Absent,
        })
    }
}

fn equal(value: &Read, operand: &Operand) -> bool {
    match (value, operand) {
        (Read::Str(value), Operand::Str(operand)) => value == operand,
        (Read::Int(value), Operand::Int(operand)) => value == operand,
        (Read::Float(value), Operand::Float(operand)) => value == operand,
        (Read::Bool(value), Operand::Bool(operand)) => value == operand,
        _ => false,
    }
}

fn compare(value: &Read, comparison: Comparison, operand: &Operand) -> bool {
    let ordering = match (value, operand) {
        (Read::Int(value), Operand::Int(operand)) => value.partial_cmp(operand),
        (Read::Float(value), Operand::Float(operand)) => value.partial_cmp(operand),
        _ => None,
    };
    let Some(ordering) = ordering else {
        return false; // absent, or NaN
    };
    match comparison {
        Comparison::Less => ordering.is_lt(),
        Comparison::LessOrEqual => ordering.is_le(),
        Comparison::Greater => ordering.is_gt(),
        Comparison::GreaterOrEqual => ordering.is_ge(),
    }
}

/// `is sql(dialect, class)` of `text` (`None`: absent).
fn sql(text: Option<&str>, dialect: &str, class: &str) -> Tri {
    use crate::rules::sql::{SqlClass, SqlDialect, sql_class, sql_tri};
    let dialect = match dialect {
        "Postgres" => SqlDialect::Postgres,
        "MySql" => SqlDialect::MySql,
        "Sqlite" => SqlDialect::Sqlite,
        _ => SqlDialect::Generic,
    };
    let class = match class {
        "Read" => SqlClass::Read,
        "Insert" => SqlClass::Insert,
        _ => SqlClass::Destructive,
    };
    sql_tri(text.map(|text| sql_class(text, dialect)), class)
}
