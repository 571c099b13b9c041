//! The code of one rule: its predicate evaluated on a call's fields, what the
//! discriminator tells about it at compile time, and the checks of action
//! names against the action type.

use proc_macro2::{Literal as TokenLiteral, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Ident, Type};

use super::{Checked, CheckedRule};
use super::{Comparison, Haystack, Literal, Predicate, SqlTest, Test};
use crate::internals::ast::Field;
use crate::internals::types::{Base, Kind, kind_of};

/// A field's Rust name, unrawed, as rules name it.
pub fn rust_name(field: &Field) -> String {
    field.ident.unraw().to_string()
}

fn field_named<'f>(fields: &'f [Field], name: &str) -> &'f Field {
    fields
        .iter()
        .find(|field| rust_name(field) == name)
        .expect("checked: every field a rule names exists where it applies")
}

fn binding(name: &str) -> Ident {
    format_ident!("__field_{}", name)
}

/// Evaluates the pattern sets the rules need, then sets each rule's bit in
/// `__fired` when its predicate holds, in `__undecided` when it is undecided. `discriminator` is the action field of shape (b).
pub fn fire_rules(
    checked: &Checked,
    rules: &[&CheckedRule],
    fields: &[Field],
    discriminator: Option<&str>,
    p: &TokenStream,
) -> TokenStream {
    let mut sets: Vec<usize> = Vec::new();
    for rule in rules {
        pattern_sets(checked, &rule.rule.predicate, &mut sets);
    }
    let evaluations = sets.iter().map(|&set| {
        let name = &checked.patterns[set].field;
        let field = field_named(fields, name);
        let kind = kind_of(&field.ty, false);
        let patterns = format_ident!("__PATTERNS_{}", set);
        let matches = format_ident!("__matches_{}", set);
        let value = binding(name);
        let search = |value: TokenStream| {
            let text = quote!(#p::core::convert::AsRef::<str>::as_ref(#value));
            match checked.patterns[set].haystack {
                Haystack::Raw => quote!(#patterns.matches(#text)),
                Haystack::FilePath => quote!(#patterns.matches_path(#text, #p::PathKind::File)),
                Haystack::UrlPath => quote!(#patterns.matches_path(#text, #p::PathKind::Url)),
            }
        };
        let absent = match checked.patterns[set].haystack {
            Haystack::Raw => quote!(#p::Matches::NONE),
            _ => quote!(#p::core::option::Option::Some(#p::Matches::NONE)),
        };
        if kind.optional {
            let search = search(quote!(__value));
            quote! {
                let #matches = match #value {
                    #p::core::option::Option::Some(__value) => #search,
                    #p::core::option::Option::None => #absent,
                };
            }
        } else {
            let search = search(quote!(#value));
            quote!(let #matches = #search;)
        }
    });
    let mut sql_tests: Vec<(&str, &SqlTest)> = Vec::new();
    for rule in rules {
        collect_sql_tests(&rule.rule.predicate, &mut sql_tests);
    }
    let classifications = sql_tests.iter().map(|(name, sql)| {
        let field = field_named(fields, name);
        let kind = kind_of(&field.ty, false);
        let class = sql_binding(name, sql);
        let value = binding(name);
        let dialect = format_ident!("{}", sql.dialect_variant());
        let classify = |value: TokenStream| {
            quote!(#p::sql_class(
                #p::core::convert::AsRef::<str>::as_ref(#value),
                #p::SqlDialect::#dialect,
            ))
        };
        // Without annot's `sql` feature this is the one error, on `sql`.
        let require = respan(p, sql.sql);
        let require = quote_spanned!(sql.sql=> #require::require_sql_feature!(););
        if kind.optional {
            let classify = classify(quote!(__value));
            quote! {
                #require
                let #class = match #value {
                    #p::core::option::Option::Some(__value) => {
                        #p::core::option::Option::Some(#classify)
                    }
                    #p::core::option::Option::None => #p::core::option::Option::None,
                };
            }
        } else {
            let classify = classify(quote!(#value));
            quote! {
                #require
                let #class = #p::core::option::Option::Some(#classify);
            }
        }
    });
    let fires = rules.iter().map(|rule| {
        let index = rule.index;
        let condition = predicate(checked, &rule.rule.predicate, fields, discriminator, p);
        quote! {
            match #condition {
                #p::Tri::Always => __fired |= 1 << #index,
                #p::Tri::Maybe => __undecided |= 1 << #index,
                #p::Tri::Never => {}
            }
        }
    });
    quote!(#(#evaluations)* #(#classifications)* #(#fires)*)
}

/// Each field and dialect an `is sql(...)` test classifies, once.
fn collect_sql_tests<'a>(predicate: &'a Predicate, into: &mut Vec<(&'a str, &'a SqlTest)>) {
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            for part in parts {
                collect_sql_tests(part, into);
            }
        }
        Predicate::Not(inner) => collect_sql_tests(inner, into),
        Predicate::Some(_) => {}
        Predicate::Test(field, Test::Sql(sql)) => {
            if !into
                .iter()
                .any(|(name, known)| *name == field.name && known.dialect == sql.dialect)
            {
                into.push((&field.name, sql));
            }
        }
        Predicate::Test(..) => {}
    }
}

/// The variable holding the class of field `name` in the test's dialect.
fn sql_binding(name: &str, sql: &SqlTest) -> Ident {
    format_ident!("__sql_{}_{}", name, sql.dialect)
}

fn pattern_sets(checked: &Checked, predicate: &Predicate, into: &mut Vec<usize>) {
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            for part in parts {
                pattern_sets(checked, part, into);
            }
        }
        Predicate::Not(inner) => pattern_sets(checked, inner, into),
        Predicate::Some(_) => {}
        Predicate::Test(field, test) => {
            if let Some((set, _)) = checked.pattern(&field.name, test)
                && !into.contains(&set)
            {
                into.push(set);
            }
        }
    }
}

fn predicate(
    checked: &Checked,
    predicate: &Predicate,
    fields: &[Field],
    discriminator: Option<&str>,
    p: &TokenStream,
) -> TokenStream {
    let recurse = |part: &Predicate| self::predicate(checked, part, fields, discriminator, p);
    match predicate {
        Predicate::All(parts) => {
            let parts = parts.iter().map(recurse);
            quote!(#p::Tri::all(&[#(#parts),*]))
        }
        Predicate::Any(parts) => {
            let parts = parts.iter().map(recurse);
            quote!(#p::Tri::any(&[#(#parts),*]))
        }
        Predicate::Not(inner) => {
            let inner = recurse(inner);
            quote!(#inner.not())
        }
        Predicate::Some(field) => {
            let kind = kind_of(&field_named(fields, &field.name).ty, false);
            let value = binding(&field.name);
            if kind.optional {
                quote!(#p::Tri::from_bool(#value.is_some()))
            } else {
                quote!(#p::Tri::Always)
            }
        }
        Predicate::Test(field, Test::Sql(sql)) => {
            let class = sql_binding(&field.name, sql);
            let expected = format_ident!("{}", sql.class_variant());
            quote!(#p::sql_tri(#class, #p::SqlClass::#expected))
        }
        Predicate::Test(field, test) => {
            if let Some((set, position)) = checked.pattern(&field.name, test) {
                let matches = format_ident!("__matches_{}", set);
                return match test.haystack() {
                    Some(Haystack::Raw) => {
                        quote!(#p::Tri::from_bool(#matches.matched(#position)))
                    }
                    _ => quote!(#p::pattern_tri(&#matches, #position)),
                };
            }
            let found = field_named(fields, &field.name);
            let is_action = discriminator == Some(found.name.as_str());
            let test = if is_action {
                value_test(&quote!(__action_name), &Base::Str, test, p)
            } else {
                let kind = kind_of(&found.ty, false);
                optional_test(&binding(&field.name), &kind, test, p)
            };
            quote!(#p::Tri::from_bool(#test))
        }
    }
}

/// A test of a field that may be an `Option`: false when it is absent.
fn optional_test(value: &Ident, kind: &Kind, test: &Test, p: &TokenStream) -> TokenStream {
    let unwrapped = quote!(__value);
    let inner = match kind.base {
        Base::Str => value_test(
            &quote!(#p::core::convert::AsRef::<str>::as_ref(#unwrapped)),
            &kind.base,
            test,
            p,
        ),
        Base::Int { .. } => value_test(&quote!((*#unwrapped as i128)), &kind.base, test, p),
        Base::Float => value_test(&quote!((*#unwrapped as f64)), &kind.base, test, p),
        _ => value_test(&quote!((*#unwrapped)), &kind.base, test, p),
    };
    if kind.optional {
        quote! {
            match #value {
                #p::core::option::Option::Some(#unwrapped) => #inner,
                #p::core::option::Option::None => false,
            }
        }
    } else {
        quote!({ let #unwrapped = #value; #inner })
    }
}

fn literal_tokens(literal: &Literal, base: &Base) -> TokenStream {
    match (literal, base) {
        (Literal::Str(lit), _) => {
            let value = lit.value();
            quote!(#value)
        }
        (Literal::Bool(lit), _) => {
            let value = lit.value;
            quote!(#value)
        }
        (Literal::Int { value, .. }, Base::Float) => {
            let token = TokenLiteral::f64_suffixed(*value as f64);
            quote!(#token)
        }
        (Literal::Int { value, .. }, _) => {
            let token = TokenLiteral::i128_suffixed(*value);
            quote!(#token)
        }
        (Literal::Float { value, .. }, _) => {
            let token = TokenLiteral::f64_suffixed(*value);
            quote!(#token)
        }
    }
}

/// A test of a present value (`&str`, `i128`, `f64` or `bool`).
fn value_test(value: &TokenStream, base: &Base, test: &Test, p: &TokenStream) -> TokenStream {
    match test {
        Test::Equals {
            value: literal,
            negated,
        } => {
            let literal = literal_tokens(literal, base);
            if *negated {
                quote!(#value != #literal)
            } else {
                quote!(#value == #literal)
            }
        }
        Test::In(literals) => {
            let literals = literals.iter().map(|literal| literal_tokens(literal, base));
            if matches!(base, Base::Float) {
                quote!([#(#literals),*].contains(&#value))
            } else {
                quote!(#p::core::matches!(#value, #(#literals)|*))
            }
        }
        Test::Compare(comparison, literal) => {
            let literal = literal_tokens(literal, base);
            match comparison {
                Comparison::Less => quote!(#value < #literal),
                Comparison::LessOrEqual => quote!(#value <= #literal),
                Comparison::Greater => quote!(#value > #literal),
                Comparison::GreaterOrEqual => quote!(#value >= #literal),
            }
        }
        Test::Matches(_) | Test::PathMatches(_) | Test::MatchesTemplate(_) | Test::Sql(_) => {
            unreachable!("pattern and SQL tests read their field's evaluation")
        }
    }
}

/// What the discriminator tells about a rule on one action (shape b), as a
/// `const` expression over `__action`, the action's name.
pub fn tri(
    predicate: &Predicate,
    fields: &[Field],
    discriminator: &str,
    p: &TokenStream,
) -> TokenStream {
    let is_action = |name: &str| {
        fields
            .iter()
            .any(|field| rust_name(field) == name && field.name == discriminator)
    };
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            let parts = parts.iter().map(|part| tri(part, fields, discriminator, p));
            let combine = if matches!(predicate, Predicate::All(_)) {
                quote!(all)
            } else {
                quote!(any)
            };
            quote!(#p::Tri::#combine(&[#(#parts),*]))
        }
        Predicate::Not(inner) => {
            let inner = tri(inner, fields, discriminator, p);
            quote!(#inner.not())
        }
        Predicate::Test(field, Test::Equals { value, negated }) if is_action(&field.name) => {
            let value = literal_tokens(value, &Base::Str);
            let tri = quote!(#p::Tri::action_in(__action, &[#value]));
            if *negated { quote!(#tri.not()) } else { tri }
        }
        Predicate::Test(field, Test::In(values)) if is_action(&field.name) => {
            let values = values.iter().map(|value| literal_tokens(value, &Base::Str));
            quote!(#p::Tri::action_in(__action, &[#(#values),*]))
        }
        _ => quote!(#p::Tri::Maybe),
    }
}

/// A compile-time check, spanned on each action name a rule compares the
/// action field with, that the action type has such an action.
pub fn action_name_checks(
    checked: &Checked,
    action_field: &Field,
    ty: &Type,
    p: &TokenStream,
) -> TokenStream {
    let action = rust_name(action_field);
    let mut names = Vec::new();
    for rule in &checked.rules {
        action_literals(&rule.rule.predicate, &action, &mut names);
    }
    let checks = names.into_iter().filter_map(|literal| {
        let Literal::Str(lit) = literal else {
            return None;
        };
        let name = lit.value();
        let message = format!(
            "`{name}` is not an action of `{}`; expected one of ",
            quote!(#ty).to_string().replace(' ', "")
        );
        // Every token on the literal, `__annot` too: the error points there.
        let p = respan(p, lit.span());
        Some(quote_spanned! {lit.span()=>
            const _: () = {
                const __PARTS: &[&str] = &[#message, <#ty as #p::AnnotatedActions>::NAMES_JSON];
                const __LEN: usize = #p::concat_len(__PARTS);
                const __BYTES: [u8; __LEN] = #p::concat_bytes::<__LEN>(__PARTS);
                if !#p::contains(<#ty as #p::AnnotatedActions>::NAMES, #name) {
                    #p::core::panic!("{}", #p::utf8(&__BYTES));
                }
            };
        })
    });
    quote!(#(#checks)*)
}

/// `tokens` with every span set to `span`.
pub fn respan(tokens: &TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

fn action_literals<'a>(predicate: &'a Predicate, action: &str, into: &mut Vec<&'a Literal>) {
    match predicate {
        Predicate::All(parts) | Predicate::Any(parts) => {
            for part in parts {
                action_literals(part, action, into);
            }
        }
        Predicate::Not(inner) => action_literals(inner, action, into),
        Predicate::Some(_) => {}
        Predicate::Test(field, _) if field.name != action => {}
        Predicate::Test(_, test) => match test {
            Test::Equals { value, .. } => into.push(value),
            Test::In(values) => into.extend(values),
            _ => {}
        },
    }
}
