//! Rules on argument values: `when(<predicate>) => (<hints>)` in
//! `#[mcp_tool(...)]` and `#[annotate(...)]`.
//!
//! `parse` reads them into the typed model below, `check` types them against
//! the tool's fields and compiles their patterns, `expand` generates the
//! evaluation and the static bound.

mod check;
mod code;
mod dfa;
#[cfg(test)]
mod dfa_tests;
mod expand;
mod limits;
mod parse;
mod patterns;
mod predicate_check;
mod scopes;
mod struct_shape;
mod template;
#[cfg(test)]
mod tests;
mod view;

use core::fmt;

use proc_macro2::Span;
use syn::{LitBool, LitStr};

use crate::hints::{HINTS, HintSet};
use crate::results::ResultClaims;

pub use check::{check_actions_enum, check_tool};
pub use expand::{Generated, generate};
pub use parse::{parse_auth, parse_rule};

/// A rule that passed the checks, with its place among the tool's rules.
pub struct CheckedRule {
    pub index: usize,
    pub rule: Rule,
    /// Whether it applies to each variant (shape a); all true for shape b.
    pub applies: Vec<bool>,
    /// The normalised source text.
    pub source: String,
}

/// The patterns every rule tests one field against, read one way (raw, as
/// a file path, as a URL path): one `RegexSet`.
pub struct FieldPatterns {
    pub field: String,
    pub haystack: Haystack,
    pub regexes: Vec<String>,
}

/// What the checks found, for code generation.
#[derive(Default)]
pub struct Checked {
    pub rules: Vec<CheckedRule>,
    pub patterns: Vec<FieldPatterns>,
    /// Every scope named, in order of first appearance (bit `i` is `scopes[i]`).
    pub scopes: Vec<String>,
    /// Whether the tool declares authorization anywhere.
    pub uses_auth: bool,
}

impl Checked {
    /// The bit of a scope in the table.
    pub fn scope_bit(&self, scope: &str) -> u64 {
        let index = self
            .scopes
            .iter()
            .position(|known| known == scope)
            .expect("checked: every scope is in the table");
        1 << index
    }
}

/// Where a predicate's fields come from, for messages.
pub enum Place<'a> {
    Struct,
    /// A variant's rule, and the tool's discriminator.
    Variant(String, &'a str),
    /// A tool-level rule on an enum of actions.
    Tool,
}

/// One rule as written.
#[derive(Clone)]
pub struct Rule {
    /// The `when` keyword.
    pub span: Span,
    pub predicate: Predicate,
    /// The hints the rule sets.
    pub hints: HintSet,
    /// The authorization the rule sets.
    pub auth: Option<AuthSpec>,
    /// What the results of a call it fires on claim: `results(...)`.
    pub results: Option<ResultClaims>,
}

/// A test of the arguments.
#[derive(Clone)]
pub enum Predicate {
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
    Not(Box<Predicate>),
    /// `some(field)`: an `Option` field is present and not null.
    Some(FieldRef),
    /// `field <op> <operand>`.
    Test(FieldRef, Test),
}

/// A field named in a predicate, by its Rust name.
#[derive(Clone)]
pub struct FieldRef {
    pub name: String,
    pub span: Span,
}

/// What a field is tested with.
#[derive(Clone)]
pub enum Test {
    /// `matches "regex"`: an unanchored regex search of the raw string.
    Matches(LitStr),
    /// `path_matches "regex"`: a regex search of the normalised file path.
    PathMatches(LitStr),
    /// `matches_template "/repos/:owner/:repo"`: the normalised URL path.
    MatchesTemplate(LitStr),
    /// `== lit`, `!= lit` (`negated`).
    Equals { value: Literal, negated: bool },
    /// `in [lit, ...]`.
    In(Vec<Literal>),
    /// `< n`, `<= n`, `> n`, `>= n`.
    Compare(Comparison, Literal),
    /// `is sql(<dialect>, <class>)`: the SQL text's class, by a parser.
    Sql(SqlTest),
}

/// The dialects and classes `is sql(...)` accepts, as the runtime names them
/// (`annot::rules::sql::SqlDialect`, `SqlClass`).
pub const SQL_DIALECTS: [(&str, &str); 4] = [
    ("generic", "Generic"),
    ("postgres", "Postgres"),
    ("mysql", "MySql"),
    ("sqlite", "Sqlite"),
];
/// See [`SQL_DIALECTS`]. `riskiest` is not among them: no rule fires on it.
pub const SQL_CLASSES: [(&str, &str); 3] = [
    ("read", "Read"),
    ("insert", "Insert"),
    ("destructive", "Destructive"),
];

/// `is sql(<dialect>, <class>)`, its names checked against
/// [`SQL_DIALECTS`] and [`SQL_CLASSES`].
#[derive(Clone)]
pub struct SqlTest {
    /// The `sql` keyword, where a missing `sql` feature is reported.
    pub sql: Span,
    pub dialect: String,
    pub class: String,
}

impl SqlTest {
    /// The runtime variant of the dialect, such as `Postgres`.
    pub fn dialect_variant(&self) -> &'static str {
        variant(&SQL_DIALECTS, &self.dialect)
    }

    /// The runtime variant of the class, such as `Read`.
    pub fn class_variant(&self) -> &'static str {
        variant(&SQL_CLASSES, &self.class)
    }
}

fn variant(names: &[(&str, &'static str)], name: &str) -> &'static str {
    names
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, variant)| *variant)
        .expect("checked when parsed")
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Comparison {
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::Less => "<",
            Comparison::LessOrEqual => "<=",
            Comparison::Greater => ">",
            Comparison::GreaterOrEqual => ">=",
        }
    }
}

/// A literal operand.
#[derive(Clone)]
pub enum Literal {
    Str(LitStr),
    /// An integer, its sign applied; `text` as written.
    Int {
        value: i128,
        text: String,
        span: Span,
    },
    Float {
        value: f64,
        text: String,
        span: Span,
    },
    Bool(LitBool),
}

impl Literal {
    pub fn span(&self) -> Span {
        match self {
            Literal::Str(lit) => lit.span(),
            Literal::Bool(lit) => lit.span,
            Literal::Int { span, .. } | Literal::Float { span, .. } => *span,
        }
    }

    /// "a string", "an integer", ... for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Literal::Str(_) => "a string",
            Literal::Int { .. } => "an integer",
            Literal::Float { .. } => "a float",
            Literal::Bool(_) => "a boolean",
        }
    }
}

/// `no_auth` or `scopes = [...]`.
#[derive(Clone)]
pub enum AuthSpec {
    NoAuth(Span),
    Scopes(Vec<LitStr>, Span),
}

impl AuthSpec {
    pub fn span(&self) -> Span {
        match self {
            AuthSpec::NoAuth(span) | AuthSpec::Scopes(_, span) => *span,
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Str(lit) => f.write_str(&lit.token().to_string()),
            Literal::Int { text, .. } | Literal::Float { text, .. } => f.write_str(text),
            Literal::Bool(lit) => write!(f, "{}", lit.value),
        }
    }
}

fn list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::All(parts) => {
                f.write_str("all(")?;
                list(f, parts)?;
                f.write_str(")")
            }
            Predicate::Any(parts) => {
                f.write_str("any(")?;
                list(f, parts)?;
                f.write_str(")")
            }
            Predicate::Not(inner) => write!(f, "not({inner})"),
            Predicate::Some(field) => write!(f, "some({})", field.name),
            Predicate::Test(field, test) => {
                write!(f, "{} ", field.name)?;
                match test {
                    Test::Matches(lit) => write!(f, "matches {}", lit.token()),
                    Test::PathMatches(lit) => write!(f, "path_matches {}", lit.token()),
                    Test::MatchesTemplate(lit) => write!(f, "matches_template {}", lit.token()),
                    Test::Equals { value, negated } => {
                        write!(f, "{} {value}", if *negated { "!=" } else { "==" })
                    }
                    Test::In(values) => {
                        f.write_str("in [")?;
                        list(f, values)?;
                        f.write_str("]")
                    }
                    Test::Compare(comparison, value) => {
                        write!(f, "{} {value}", comparison.symbol())
                    }
                    Test::Sql(sql) => write!(f, "is sql({}, {})", sql.dialect, sql.class),
                }
            }
        }
    }
}

impl fmt::Display for AuthSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthSpec::NoAuth(_) => f.write_str("no_auth"),
            AuthSpec::Scopes(scopes, _) => {
                f.write_str("scopes = [")?;
                let tokens: Vec<String> = scopes.iter().map(|s| s.token().to_string()).collect();
                list(f, &tokens)?;
                f.write_str("]")
            }
        }
    }
}

/// The rule as its source text: `when(<predicate>) => (<hints>)`, normalised
/// (hints, then authorization, then `results(...)`).
impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "when({}) => (", self.predicate)?;
        let mut parts: Vec<String> = self
            .hints
            .values
            .iter()
            .zip(&HINTS)
            .filter_map(|(value, hint)| {
                let value = value.as_ref()?.value;
                Some(if value {
                    hint.key.to_owned()
                } else {
                    format!("{} = false", hint.key)
                })
            })
            .collect();
        if let Some(auth) = &self.auth {
            parts.push(auth.to_string());
        }
        if let Some(results) = &self.results {
            parts.push(results.to_string());
        }
        list(f, &parts)?;
        f.write_str(")")
    }
}

impl Predicate {
    /// Every field the predicate names, in order, with repeats.
    pub fn fields(&self) -> Vec<&FieldRef> {
        let mut fields = Vec::new();
        self.collect_fields(&mut fields);
        fields
    }

    fn collect_fields<'a>(&'a self, into: &mut Vec<&'a FieldRef>) {
        match self {
            Predicate::All(parts) | Predicate::Any(parts) => {
                for part in parts {
                    part.collect_fields(into);
                }
            }
            Predicate::Not(inner) => inner.collect_fields(into),
            Predicate::Some(field) | Predicate::Test(field, _) => into.push(field),
        }
    }
}

/// What a pattern test searches: the raw string or a normalised path.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Haystack {
    /// `matches`.
    Raw,
    /// `path_matches`.
    FilePath,
    /// `matches_template`.
    UrlPath,
}

impl Test {
    /// The haystack of a pattern test; `None` for other tests.
    pub fn haystack(&self) -> Option<Haystack> {
        match self {
            Test::Matches(_) => Some(Haystack::Raw),
            Test::PathMatches(_) => Some(Haystack::FilePath),
            Test::MatchesTemplate(_) => Some(Haystack::UrlPath),
            _ => None,
        }
    }

    /// The operator's name, for messages.
    pub fn operator(&self) -> &'static str {
        match self {
            Test::Matches(_) => "matches",
            Test::PathMatches(_) => "path_matches",
            Test::MatchesTemplate(_) => "matches_template",
            Test::Equals { negated: false, .. } => "==",
            Test::Equals { negated: true, .. } => "!=",
            Test::In(_) => "in",
            Test::Compare(comparison, _) => comparison.symbol(),
            Test::Sql(_) => "is sql",
        }
    }
}
