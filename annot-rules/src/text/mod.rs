//! Rules written as text: the run-time front-end of the rule language.
//!
//! [`compile`] reads text such as
//! `when(path path_matches r"^/tmp/") => (destructive = false)`, one rule or
//! several (separated by commas or new lines), with the parser the
//! `#[mcp_tool]` macro uses; checks it against a description of the tool's
//! fields ([`ToolFields`], which `annot-runtime` builds from a tool's
//! `inputSchema`) with the macro's checks; and lowers it to a [`Program`]:
//! per rule its hints, a [`Condition`] to evaluate and, per action, whether
//! it can fire there. `annot-runtime` (feature `rule-text`) turns a program
//! into the tables the macro's code reads and evaluates it on arguments.
//!
//! Every error is a [`RuleError`] at a line and a column of the text it was
//! found in, with the line and the snippet, and the macro's message and
//! suggestion: `unknown operator `match`; did you mean `matches`?`.
//!
//! Not in text (each refused with a message): `results(...)` claims and
//! authorization (`scopes`, `no_auth`), which a tool's own server declares.

mod diagnostic;
mod lower;
mod read;

use crate::check::{FieldKinds, Place, check_predicate};
use crate::errors::Errors;
use crate::hints::{HintValues, to_model};
use crate::kind::Base;
use crate::patterns::{FieldPatterns, collect_patterns};
use crate::syntax::{Predicate, Test, rule_source};
use annot_model::{Annotations, Hint};

pub use diagnostic::{Location, RuleError, RuleErrors};
pub use lower::{Condition, Operand};

/// What rule text is checked against: the tool's fields and actions.
pub struct ToolFields<'a> {
    /// Every field a rule may name, with its kind and whether it is never
    /// read; the discriminator among them, of kind [`Base::Action`].
    pub fields: &'a FieldKinds,
    /// The field whose value names the call's action, if the tool has one.
    pub discriminator: Option<&'a str>,
    /// Each action: how messages name it (`action `delete``, `tool
    /// `search``), its name (the discriminator's value) and what a call of
    /// it starts from ([`annot_model::action_base`]). One for a tool
    /// without a discriminator.
    pub actions: &'a [ActionBase],
    /// Whether `is sql(...)` can be evaluated (annot's `sql` feature).
    pub sql: bool,
}

/// One action of a [`ToolFields`].
pub struct ActionBase {
    pub name: String,
    /// How messages name it.
    pub described: String,
    pub base: Annotations,
}

/// Whose rules a text holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// The whole tool's: every action it can fire on.
    Tool,
    /// One action's, by its position in [`ToolFields::actions`].
    Action(usize),
}

/// One text of rules.
pub struct RuleSource<'a> {
    pub owner: Owner,
    /// How errors name it: `rules of tool `files``.
    pub origin: String,
    pub text: &'a str,
}

/// Checked rules, lowered: what the runtime builds its tables from.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every rule, the sources' in order: rule `k` is bit `k` of the masks.
    pub rules: Vec<CompiledRule>,
    /// The patterns of each field and haystack, one set each.
    pub patterns: Vec<FieldPatterns>,
}

/// One checked rule.
#[derive(Clone, Debug)]
pub struct CompiledRule {
    /// Its normal form, as the macro writes a rule's `source`.
    pub source: String,
    /// The hints it sets; the others `None`.
    pub hints: Annotations,
    pub condition: Condition,
    /// Per action: `Some(true)` if it fires on every call of it (a test of
    /// the discriminator alone), `Some(false)` if on none, `None` if the
    /// arguments decide.
    pub fires: Vec<Option<bool>>,
}

/// Reads, checks and lowers every text of `sources` against `tool`; all
/// the errors of all of them, or the program.
pub fn compile(tool: &ToolFields, sources: &[RuleSource]) -> Result<Program, RuleErrors> {
    let mut found = Vec::new();
    let mut program = Program {
        rules: Vec::new(),
        patterns: Vec::new(),
    };
    let mut too_many_patterns = false;
    for source in sources {
        let errors = Errors::new();
        let rules = read::read_rules(source.text, &errors);
        for rule in rules {
            let index = program.rules.len();
            // (a rule with an error is not pushed: the count is only exact
            // when there is none, the one case a program is returned)
            let predicate = &rule.parsed.predicate;
            check_rule(tool, source.owner, predicate, &errors);
            if let Some(auth) = &rule.parsed.settings.auth {
                errors.at(
                    auth.span(),
                    "authorization (`scopes`, `no_auth`) is declared by the tool's own \
                     server; rule text sets hints",
                );
            }
            collect_patterns(predicate, &mut program.patterns);
            crate::limits::check(
                rule.when,
                index,
                &program.patterns,
                &mut too_many_patterns,
                &errors,
            );
            let fires = fires(tool, source.owner, predicate);
            let hints = &rule.parsed.settings.hints;
            dead_hints(tool, hints, &fires, &errors);
            // `None` only for a predicate with an error, recorded above.
            let base = |name: &str| base_of(tool.fields, name);
            if let Some(condition) = lower::lower(predicate, &program.patterns, &base) {
                program.rules.push(CompiledRule {
                    source: rule_source(predicate, hints, None, None),
                    hints: to_model(hints),
                    condition,
                    fires,
                });
            }
        }
        if let Err(error) = errors.finish() {
            // In the order of the text, whichever phase found them.
            let mut placed = Vec::new();
            diagnostic::place(error, &source.origin, source.text, &mut placed);
            placed.sort_by_key(|error| {
                let at = error.location.as_ref();
                at.map(|at| (at.line, at.column))
            });
            found.extend(placed);
        }
    }
    for set in &program.patterns {
        if let Err(problem) = regex::RegexSet::new(&set.regexes) {
            found.push(RuleError {
                origin: "the rules".to_owned(),
                message: format!(
                    "the patterns of `{}` do not compile together: {problem}",
                    set.field
                ),
                location: None,
            });
        }
    }
    if found.is_empty() {
        Ok(program)
    } else {
        Err(RuleErrors(found))
    }
}

fn base_of(fields: &FieldKinds, name: &str) -> Base {
    fields
        .get(name)
        .map_or(Base::Other, |(kind, _)| kind.base.clone())
}

/// The macro's checks of a predicate, at the rule's place: a rule of one
/// action cannot name the discriminator.
fn check_rule(tool: &ToolFields, owner: Owner, predicate: &Predicate, errors: &Errors) {
    match (owner, tool.discriminator) {
        (Owner::Action(position), Some(discriminator)) => {
            let mut fields = tool.fields.clone();
            fields.remove(discriminator);
            let place = Place::Action(tool.actions[position].name.clone(), discriminator);
            check_predicate(predicate, &fields, &place, errors);
        }
        _ => check_predicate(predicate, tool.fields, &Place::Struct, errors),
    }
    if !tool.sql {
        sql_unavailable(predicate, errors);
    }
}

fn sql_unavailable(predicate: &Predicate, errors: &Errors) {
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            for part in parts {
                sql_unavailable(part, errors);
            }
        }
        Predicate::Not(inner) => sql_unavailable(inner, errors),
        Predicate::Test(_, Test::Sql(sql)) => errors.at(
            sql.sql,
            "`is sql(...)` needs annot's `sql` feature, which classifies SQL with a parser",
        ),
        Predicate::Some(_) | Predicate::Test(..) => {}
    }
}

fn fires(tool: &ToolFields, owner: Owner, predicate: &Predicate) -> Vec<Option<bool>> {
    (0..tool.actions.len())
        .map(|position| match (owner, tool.discriminator) {
            (Owner::Action(own), _) => {
                if own == position {
                    None
                } else {
                    Some(false)
                }
            }
            (Owner::Tool, Some(discriminator)) => {
                lower::fires_on(predicate, discriminator, &tool.actions[position].name)
            }
            (Owner::Tool, None) => None,
        })
        .collect()
}

/// A rule that sets hints meaningful only for writes, without turning
/// `read_only` off, does nothing on a read-only action: refused, as the
/// macro refuses it.
fn dead_hints(tool: &ToolFields, hints: &HintValues, fires: &[Option<bool>], errors: &Errors) {
    if matches!(hints[Hint::ReadOnly as usize], Some(value) if !value.value) {
        return;
    }
    let applies: Vec<&ActionBase> = tool
        .actions
        .iter()
        .zip(fires)
        .filter(|(_, fires)| **fires != Some(false))
        .map(|(action, _)| action)
        .collect();
    let read_only: Vec<&str> = applies
        .iter()
        .filter(|action| action.base.is_read_only())
        .map(|action| action.described.as_str())
        .collect();
    if read_only.is_empty() {
        return;
    }
    for (hint, value) in Hint::ALL.into_iter().zip(hints) {
        let Some(value) = value.filter(|_| hint.only_meaningful_when_writing()) else {
            continue;
        };
        let key = hint.attribute_name();
        errors.at(
            value.span,
            crate::hints::dead_on_read_only(key, &read_only, applies.len() > 1),
        );
    }
}
#[cfg(test)]
mod tests;
