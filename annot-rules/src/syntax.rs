//! The syntax tree of the rule language: the predicate of `when(<predicate>)`
//! and the authorization a rule or a tool sets, as written. Printed back
//! (`Display`) in the normal form a rule's `source` keeps.

use core::fmt;

use proc_macro2::Span;
use syn::{LitBool, LitStr};

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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
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
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
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

/// A rule's normal form, as its `source` keeps it:
/// `when(<predicate>) => (<hints>, <authorization>, <results>)`, the hints in
/// [`Hint::ALL`](annot_model::Hint::ALL) order, `true` ones by their key alone.
pub fn rule_source(
    predicate: &Predicate,
    hints: &crate::hints::HintValues,
    auth: Option<&AuthSpec>,
    results: Option<String>,
) -> String {
    let mut parts: Vec<String> = hints
        .iter()
        .zip(crate::hints::hint_keys())
        .filter_map(|(value, key)| {
            let value = value.as_ref()?.value;
            Some(if value {
                key.to_owned()
            } else {
                format!("{key} = false")
            })
        })
        .collect();
    parts.extend(auth.map(AuthSpec::to_string));
    parts.extend(results);
    format!("when({predicate}) => ({})", parts.join(", "))
}
