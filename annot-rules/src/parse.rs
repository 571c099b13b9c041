//! Parsing `when(<predicate>) => (<hints>)`, `scopes = [...]` and `no_auth`,
//! from an attribute's tokens or from text's: the same grammar, the same messages.

use proc_macro2::{Delimiter, Group, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, Lit, LitStr, Token, bracketed, parenthesized};

use crate::errors::Errors;
use crate::hints::{HintValues, hint_index, hint_keys, set_hint};
use crate::meta::{RawValue, take_value};
use crate::suggest::did_you_mean;
use crate::syntax::{
    AuthSpec, Comparison, FieldRef, Literal, Predicate, SQL_CLASSES, SQL_DIALECTS, SqlTest, Test,
};

const COMBINATORS: [&str; 4] = ["all", "any", "not", "some"];
const OPERATORS: &str = "`matches`, `path_matches`, `matches_template`, `is sql(...)`, `==`, \
                         `!=`, `in`, `<`, `<=`, `>` or `>=`";

/// A rule as parsed: its predicate and what it sets when it fires.
pub struct ParsedRule {
    pub predicate: Predicate,
    pub settings: Settings,
}

/// What a rule sets when it fires, but `results(...)` (read by the caller).
pub struct Settings {
    pub hints: HintValues,
    pub auth: Option<AuthSpec>,
}

/// Parses a rule whose `when` key has just been read with its `(...)`: the
/// `=> (<hints>)` still waits in `input`. `results(...)` in the hints is
/// handed to `on_results`. `None` after recording an error.
pub fn parse_rule(
    when: &Ident,
    raw: RawValue,
    input: ParseStream,
    errors: &Errors,
    on_results: &mut dyn FnMut(&Ident, RawValue),
) -> Option<ParsedRule> {
    let predicate_group = match raw {
        RawValue::List(group) if group.delimiter() == Delimiter::Parenthesis => group,
        _ => {
            skip_to_comma(input);
            errors.spanned(
                when,
                "a rule is written `when(<predicate>) => (<hints>)`, for example \
                 `when(path matches \"^/etc\") => (privileged_access)`",
            );
            return None;
        }
    };
    let hints_group = match arrow_and_hints(input) {
        Ok(group) => group,
        Err(error) => {
            skip_to_comma(input);
            errors.push(error);
            return None;
        }
    };
    let predicate = if predicate_group.stream().is_empty() {
        errors.spanned(
            &predicate_group,
            "`when()` needs a predicate, such as `path matches \"^/etc\"` or `count > 10`",
        );
        None
    } else {
        errors.ok(Parser::parse2(whole_predicate, predicate_group.stream()))
    };
    let Outcome {
        hints,
        auth,
        written,
    } = rule_hints(&hints_group, errors, on_results)?;
    // A key written wrong has its own error; only `=> ()` gets this one.
    if !written {
        errors.spanned(
            &hints_group,
            "a rule must set at least one hint (such as `read_only` or `destructive = false`), \
             `scopes = [...]`, `no_auth`, or claims on the results (`results(sensitive)`)",
        );
        return None;
    }
    for error in crate::hints::contradictions(&hints) {
        errors.push(error);
    }
    Some(ParsedRule {
        predicate: predicate?,
        settings: Settings { hints, auth },
    })
}

fn arrow_and_hints(input: ParseStream) -> syn::Result<Group> {
    if !input.peek(Token![=>]) {
        return Err(input.error("expected `=> (<hints>)` after `when(...)`"));
    }
    input.parse::<Token![=>]>()?;
    match input.parse::<TokenTree>() {
        Ok(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => Ok(group),
        Ok(other) => Err(syn::Error::new_spanned(
            other,
            "expected the hints the rule sets, in parentheses: `=> (read_only)`",
        )),
        Err(error) => Err(error),
    }
}

/// Consumes everything up to the next top-level `,`, so the next key parses.
pub fn skip_to_comma(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((token, next)) = rest.token_tree() {
            if matches!(&token, TokenTree::Punct(punct) if punct.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

/// What a rule sets when it fires.
struct Outcome {
    hints: HintValues,
    auth: Option<AuthSpec>,
    /// Whether any key was written, valid or not.
    written: bool,
}

/// The `(<hints>)` of a rule: the hints of `#[annotate]` (without `title`),
/// `scopes = [...]` or `no_auth`, and `results(...)`.
fn rule_hints(
    group: &Group,
    errors: &Errors,
    on_results: &mut dyn FnMut(&Ident, RawValue),
) -> Option<Outcome> {
    let mut hints: HintValues = [None; 10];
    let mut auth = None;
    let mut written = false;
    let valid: Vec<&str> = hint_keys()
        .into_iter()
        .chain(["scopes", "no_auth", "results"])
        .collect();
    let parser = syn::meta::parser(|meta| {
        written = true;
        let key = meta.path.get_ident().cloned();
        let raw = take_value(&meta)?;
        let Some(key) = key else {
            errors.spanned(
                &meta.path,
                "expected a hint such as `read_only`, not a path",
            );
            return Ok(());
        };
        let name = key.to_string();
        if let Some(index) = hint_index(&name) {
            set_hint(&mut hints, index, &key, raw, errors);
        } else if name == "scopes" || name == "no_auth" {
            parse_auth(&key, raw, &mut auth, errors);
        } else if name == "results" {
            on_results(&key, raw);
        } else if name == "title" {
            errors.spanned(&key, "a rule cannot change the title: it sets hints only");
        } else {
            errors.spanned(
                &key,
                format!(
                    "unknown hint `{name}` in a rule{}\nexpected one of: {}",
                    did_you_mean(&name, valid.iter().copied()),
                    valid
                        .iter()
                        .map(|key| format!("`{key}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        Ok(())
    });
    errors.ok(Parser::parse2(parser, group.stream()))?;
    Some(Outcome {
        hints,
        auth,
        written,
    })
}

/// `no_auth` or `scopes = ["a", ...]`, stored once in `slot`.
pub fn parse_auth(key: &Ident, raw: RawValue, slot: &mut Option<AuthSpec>, errors: &Errors) {
    let spec = if key == "no_auth" {
        match raw {
            RawValue::Flag => AuthSpec::NoAuth(key.span()),
            _ => {
                errors.spanned(key, "`no_auth` takes no value");
                return;
            }
        }
    } else {
        let expected = "`scopes` takes a list of strings: `scopes = [\"repo\"]`";
        let RawValue::Assigned { tokens, .. } = raw else {
            errors.spanned(key, expected);
            return;
        };
        let parsed = Parser::parse2(
            |input: ParseStream| {
                let content;
                bracketed!(content in input);
                Punctuated::<LitStr, Token![,]>::parse_terminated(&content)
            },
            tokens.clone(),
        );
        match parsed {
            Ok(scopes) => AuthSpec::Scopes(scopes.into_iter().collect(), key.span()),
            Err(_) => {
                errors.spanned(tokens, expected);
                return;
            }
        }
    };
    match slot {
        Some(AuthSpec::NoAuth(_)) if key == "no_auth" => {
            errors.spanned(key, "duplicate `no_auth`");
        }
        Some(AuthSpec::Scopes(..)) if key == "scopes" => {
            errors.spanned(key, "duplicate `scopes`");
        }
        Some(_) => errors.spanned(
            key,
            "`no_auth` and `scopes` contradict each other: a call needs no credentials, or \
             OAuth 2 with scopes",
        ),
        None => *slot = Some(spec),
    }
}

/// The one predicate inside `when(...)`.
fn whole_predicate(input: ParseStream) -> syn::Result<Predicate> {
    let predicate = predicate(input)?;
    if !input.is_empty() {
        return Err(input.error(
            "one predicate per rule: combine several with `all(...)`, `any(...)` or `not(...)`",
        ));
    }
    Ok(predicate)
}

fn predicate(input: ParseStream) -> syn::Result<Predicate> {
    let ident = Ident::parse_any(input).map_err(|error| {
        syn::Error::new(
            error.span(),
            "expected a field name or `all`, `any`, `not`, `some`",
        )
    })?;
    let name = ident.unraw().to_string();
    let raw = ident.to_string().starts_with("r#");
    if !raw && COMBINATORS.contains(&name.as_str()) && input.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        return match name.as_str() {
            "all" | "any" => {
                let parts =
                    Punctuated::<Predicate, Token![,]>::parse_terminated_with(&content, predicate)?;
                if parts.is_empty() {
                    return Err(syn::Error::new(
                        ident.span(),
                        format!("`{name}()` needs at least one predicate"),
                    ));
                }
                let parts = parts.into_iter().collect();
                Ok(if name == "all" {
                    Predicate::All(parts)
                } else {
                    Predicate::Any(parts)
                })
            }
            "not" => {
                let inner = predicate(&content)?;
                if !content.is_empty() {
                    return Err(content.error("`not(...)` takes one predicate"));
                }
                Ok(Predicate::Not(Box::new(inner)))
            }
            _ => {
                let field = Ident::parse_any(&content)?;
                if !content.is_empty() {
                    return Err(content.error("`some(...)` takes one field name"));
                }
                Ok(Predicate::Some(FieldRef {
                    name: field.unraw().to_string(),
                    span: field.span(),
                }))
            }
        };
    }
    let field = FieldRef {
        name,
        span: ident.span(),
    };
    let test = test(input, &field)?;
    Ok(Predicate::Test(field, test))
}

fn test(input: ParseStream, field: &FieldRef) -> syn::Result<Test> {
    if input.peek(Token![in]) {
        input.parse::<Token![in]>()?;
        let content;
        let brackets = bracketed!(content in input);
        let values = Punctuated::<Literal, Token![,]>::parse_terminated_with(&content, literal)?;
        if values.is_empty() {
            return Err(syn::Error::new(
                brackets.span.join(),
                "`in []` never holds: list at least one value",
            ));
        }
        return Ok(Test::In(values.into_iter().collect()));
    }
    if input.peek(Token![==]) || input.peek(Token![!=]) {
        let negated = input.peek(Token![!=]);
        if negated {
            input.parse::<Token![!=]>()?;
        } else {
            input.parse::<Token![==]>()?;
        }
        let value = literal(input)?;
        return Ok(Test::Equals { value, negated });
    }
    let comparison = if input.peek(Token![<=]) {
        input.parse::<Token![<=]>()?;
        Some(Comparison::LessOrEqual)
    } else if input.peek(Token![>=]) {
        input.parse::<Token![>=]>()?;
        Some(Comparison::GreaterOrEqual)
    } else if input.peek(Token![<]) {
        input.parse::<Token![<]>()?;
        Some(Comparison::Less)
    } else if input.peek(Token![>]) {
        input.parse::<Token![>]>()?;
        Some(Comparison::Greater)
    } else {
        None
    };
    if let Some(comparison) = comparison {
        return Ok(Test::Compare(comparison, literal(input)?));
    }
    if input.peek(Token![=]) {
        return Err(input.error("write `==` to compare"));
    }
    if input.peek(Ident) {
        let operator: Ident = input.parse()?;
        let pattern = |input: ParseStream| {
            input.parse::<LitStr>().map_err(|error| {
                syn::Error::new(error.span(), format!("`{operator}` takes a string literal"))
            })
        };
        if operator == "matches" {
            return Ok(Test::Matches(pattern(input)?));
        }
        if operator == "path_matches" {
            return Ok(Test::PathMatches(pattern(input)?));
        }
        if operator == "matches_template" {
            return Ok(Test::MatchesTemplate(pattern(input)?));
        }
        if operator == "is" {
            return sql_test(input, &operator);
        }
        let candidates = ["matches", "path_matches", "matches_template", "is"];
        return Err(syn::Error::new(
            operator.span(),
            format!(
                "unknown operator `{operator}`{}\nexpected {OPERATORS}",
                did_you_mean(&operator.to_string(), candidates)
            ),
        ));
    }
    Err(syn::Error::new(
        if input.is_empty() {
            field.span
        } else {
            input.span()
        },
        format!("expected {OPERATORS} after `{}`", field.name),
    ))
}

/// `sql(<dialect>, <class>)` after `is`.
fn sql_test(input: ParseStream, is: &Ident) -> syn::Result<Test> {
    const EXPECTED: &str = "expected `sql(<dialect>, <class>)` after `is`, for example \
                            `statement is sql(postgres, read)`";
    let sql = Ident::parse_any(input).map_err(|_| syn::Error::new(is.span(), EXPECTED))?;
    if sql != "sql" || !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(sql.span(), EXPECTED));
    }
    let content;
    let parens = parenthesized!(content in input);
    let names = Punctuated::<Ident, Token![,]>::parse_terminated_with(&content, Ident::parse_any)
        .map_err(|error| {
        syn::Error::new(
            error.span(),
            "`sql(...)` takes a dialect and a class: `sql(postgres, read)`",
        )
    })?;
    let names: Vec<Ident> = names.into_iter().collect();
    let [dialect, class] = names.as_slice() else {
        return Err(syn::Error::new(
            parens.span.join(),
            "`sql(...)` takes a dialect and a class: `sql(postgres, read)`",
        ));
    };
    let dialect_name = dialect.to_string();
    if !SQL_DIALECTS.iter().any(|(name, _)| *name == dialect_name) {
        let names = SQL_DIALECTS.map(|(name, _)| name);
        return Err(syn::Error::new(
            dialect.span(),
            format!(
                "unknown SQL dialect `{dialect_name}`{}\nexpected one of: {}",
                did_you_mean(&dialect_name, names),
                names.map(|name| format!("`{name}`")).join(", ")
            ),
        ));
    }
    let class_name = class.to_string();
    if class_name == "riskiest" {
        return Err(syn::Error::new(
            class.span(),
            "no rule fires on the riskiest class: a text of that class (DDL, text that does \
             not parse, a function outside the allowlist...) keeps the action's own hints. \
             Declare them on the action",
        ));
    }
    if !SQL_CLASSES.iter().any(|(name, _)| *name == class_name) {
        let names = SQL_CLASSES.map(|(name, _)| name);
        return Err(syn::Error::new(
            class.span(),
            format!(
                "unknown SQL class `{class_name}`{}\nexpected one of: {}",
                did_you_mean(&class_name, names),
                names.map(|name| format!("`{name}`")).join(", ")
            ),
        ));
    }
    Ok(Test::Sql(SqlTest {
        sql: sql.span(),
        dialect: dialect_name,
        class: class_name,
    }))
}

fn literal(input: ParseStream) -> syn::Result<Literal> {
    let minus: Option<Token![-]> = input.parse()?;
    let lit: Lit = input.parse().map_err(|error| {
        syn::Error::new(
            error.span(),
            "expected a literal: a string, a number, `true` or `false`",
        )
    })?;
    let span = minus.map_or(lit.span(), |minus| {
        minus.span.join(lit.span()).unwrap_or(lit.span())
    });
    let sign = if minus.is_some() { "-" } else { "" };
    match lit {
        Lit::Int(int) => {
            let value: i128 = int.base10_parse()?;
            Ok(Literal::Int {
                value: if minus.is_some() { -value } else { value },
                text: format!("{sign}{}", int.base10_digits()),
                span,
            })
        }
        Lit::Float(float) => {
            let value: f64 = float.base10_parse()?;
            Ok(Literal::Float {
                value: if minus.is_some() { -value } else { value },
                text: format!("{sign}{}", float.base10_digits()),
                span,
            })
        }
        Lit::Str(text) if minus.is_none() => Ok(Literal::Str(text)),
        Lit::Bool(value) if minus.is_none() => Ok(Literal::Bool(value)),
        other => Err(syn::Error::new_spanned(
            &other,
            "expected a literal: a string, a number, `true` or `false`",
        )),
    }
}
