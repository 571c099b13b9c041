//! Call previews of the `io.modelcontextprotocol/display-templates`
//! extension: `display = "delete {path}"` on an action (or on the tool), its
//! placeholders checked against the action's arguments, and the plain default
//! of an action that declares none.
//!
//! A template is rendered by the client against the call's top-level
//! arguments, so a placeholder names a field by its name on the wire (after
//! serde's renames). `{{` and `}}` are literal braces.

use syn::LitStr;
use syn::ext::IdentExt;

use crate::internals::ast::{Display, Field, Shape, Tool, Variant};
use crate::internals::ctxt::Errors;
use crate::internals::suggest::did_you_mean;

/// One piece of a template.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    /// `{{` or `}}`: a literal brace.
    Brace(char),
    Placeholder(&'a str),
}

/// Splits a template into its pieces, or says what is malformed.
fn pieces(template: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        if at > 0 {
            pieces.push(Piece::Text(&rest[..at]));
        }
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{").or_else(|| tail.strip_prefix("}}")) {
            pieces.push(Piece::Brace(tail.as_bytes()[0] as char));
            rest = after;
        } else if let Some(open) = tail.strip_prefix('{') {
            match open.find(['{', '}']) {
                Some(end) if open[end..].starts_with('}') => {
                    let name = &open[..end];
                    if name.is_empty() {
                        return Err("an empty placeholder `{}`: name an argument, as in \
                                    `{path}`, or write `{{}}` for literal braces"
                            .to_owned());
                    }
                    pieces.push(Piece::Placeholder(name));
                    rest = &open[end + 1..];
                }
                _ => {
                    return Err(format!(
                        "`{{{}` is not closed: close the placeholder with `}}`, or write `{{{{` \
                         for a literal brace",
                        truncate(open)
                    ));
                }
            }
        } else {
            return Err(format!(
                "`}}` after `{}` closes nothing: write `}}}}` for a literal brace",
                truncate_end(&template[..template.len() - tail.len()])
            ));
        }
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    Ok(pieces)
}

/// The last 20 characters of `text`, for a message.
fn truncate_end(text: &str) -> String {
    let count = text.chars().count();
    let shown: String = text.chars().skip(count.saturating_sub(20)).collect();
    if shown.len() < text.len() {
        format!("...{shown}")
    } else {
        shown
    }
}

/// The first 20 characters of `text`, for a message.
fn truncate(text: &str) -> String {
    let shown: String = text.chars().take(20).collect();
    if shown.len() < text.len() {
        format!("{shown}...")
    } else {
        shown
    }
}

/// `text` with its braces doubled, for a literal in a template.
fn literal(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// The arguments a placeholder may name: the wire names of the fields a
/// call carries.
fn wire_names(fields: &[Field]) -> Vec<&str> {
    fields
        .iter()
        .filter(|field| !field.skip)
        .map(|field| field.name.as_str())
        .collect()
}

/// Checks `template` against the arguments in `names`, recording an error at
/// the literal for each problem. `fields` gives the Rust names for a hint.
fn check(template: &LitStr, names: &[&str], fields: &[&Field], whose: &str, errors: &Errors) {
    let text = template.value();
    let pieces = match pieces(&text) {
        Ok(pieces) => pieces,
        Err(problem) => {
            errors.at(
                template.span(),
                format!("malformed display template: {problem}"),
            );
            return;
        }
    };
    for piece in pieces {
        let Piece::Placeholder(name) = piece else {
            continue;
        };
        if names.contains(&name) {
            continue;
        }
        let same = |field: &&&Field| field.ident.unraw() == name || field.name == name;
        let hint = match fields.iter().find(same) {
            Some(field) if field.skip => " (its field is `#[serde(skip)]`: never sent)".to_owned(),
            Some(field) => format!(": the field `{name}` is `{}` on the wire", field.name),
            None => did_you_mean(name, names.iter().copied()),
        };
        let listed = if names.is_empty() {
            format!("{whose} takes no arguments")
        } else {
            format!(
                "{whose} takes {}",
                names
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        errors.at(
            template.span(),
            format!("display template names `{{{name}}}`, which is no argument{hint}\n{listed}"),
        );
    }
}

/// The plain preview of an action without a declared one: its label, then
/// its argument (`delete {path}`) or each argument as `name={name}`
/// (`copy: from={from}, to={to}`).
fn default_template(label: &str, names: &[&str]) -> String {
    with_arguments(literal(label), names)
}

/// `head` (template text) followed by the arguments in `names`.
fn with_arguments(head: String, names: &[&str]) -> String {
    let names: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| !name.contains(['{', '}']))
        .collect();
    let joined = match names.as_slice() {
        [] => return head,
        [one] => return format!("{head} {{{one}}}"),
        several => several
            .iter()
            .map(|name| format!("{name}={{{name}}}"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    if head.is_empty() {
        joined
    } else {
        format!("{head}: {joined}")
    }
}

/// The templates of a tool: each action's, declared or derived, and the one
/// listed on the tool.
pub fn tool(tool: &Tool, errors: &Errors) -> Display {
    let declared_on_tool = tool.options.display.as_ref();
    let discriminator = tool.discriminator.0.as_str();
    let tool_label = tool
        .options
        .title
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| tool_name(tool));
    match &tool.shape {
        Shape::Single { fields, .. } => {
            let names = wire_names(fields);
            let template = match declared_on_tool {
                Some(declared) => {
                    let rust: Vec<&Field> = fields.iter().collect();
                    check(declared, &names, &rust, "the tool", errors);
                    declared.value()
                }
                None => default_template(&tool_label, &names),
            };
            Display {
                actions: vec![template.clone()],
                tool: template,
            }
        }
        Shape::Enum(variants) => {
            let actions = variants
                .iter()
                .map(|variant| action_template(variant, errors))
                .collect();
            // One template over the discriminator: annot's schemas have no
            // `oneOf` branches to carry each action's own.
            let template = match declared_on_tool {
                Some(declared) => {
                    let mut names = vec![discriminator];
                    let rust: Vec<&Field> = variants.iter().flat_map(|v| &v.fields).collect();
                    for name in rust.iter().filter(|f| !f.skip).map(|f| f.name.as_str()) {
                        if !names.contains(&name) {
                            names.push(name);
                        }
                    }
                    check(declared, &names, &rust, "some action of the tool", errors);
                    declared.value()
                }
                None => {
                    let shared: Vec<&str> = wire_names(&variants[0].fields)
                        .into_iter()
                        .filter(|name| {
                            variants[1..]
                                .iter()
                                .all(|variant| wire_names(&variant.fields).contains(name))
                        })
                        .collect();
                    over_discriminator(discriminator, &shared)
                }
            };
            Display {
                actions,
                tool: template,
            }
        }
        Shape::Struct(fields) => {
            let names = wire_names(fields);
            let others: Vec<&str> = names
                .iter()
                .copied()
                .filter(|name| *name != discriminator)
                .collect();
            let template = match declared_on_tool {
                Some(declared) => {
                    let rust: Vec<&Field> = fields.iter().collect();
                    check(declared, &names, &rust, "the tool", errors);
                    declared.value()
                }
                None => over_discriminator(discriminator, &others),
            };
            // Every action takes the same arguments: the tool's template is
            // each action's (the runtime knows the actions' names, the macro
            // does not).
            Display {
                actions: Vec::new(),
                tool: template,
            }
        }
    }
}

/// `{action} {path}`: the action's name, then the arguments.
fn over_discriminator(discriminator: &str, names: &[&str]) -> String {
    let head = if discriminator.contains(['{', '}']) {
        String::new()
    } else {
        format!("{{{discriminator}}}")
    };
    with_arguments(head, names)
}

/// A variant's template: declared, or derived from its title (else its name
/// on the wire) and its fields.
fn action_template(variant: &Variant, errors: &Errors) -> String {
    let names = wire_names(&variant.fields);
    let annotate = variant.annotate.as_ref();
    match annotate.and_then(|annotate| annotate.display.as_ref()) {
        Some(declared) => {
            let rust: Vec<&Field> = variant.fields.iter().collect();
            let whose = format!("action `{}`", variant.ident);
            check(declared, &names, &rust, &whose, errors);
            declared.value()
        }
        None => {
            let label = annotate
                .and_then(|annotate| annotate.title.as_ref())
                .map(LitStr::value)
                .unwrap_or_else(|| variant.name.clone());
            default_template(&label, &names)
        }
    }
}

fn tool_name(tool: &Tool) -> String {
    match &tool.options.name {
        Some(name) => name.value(),
        None => crate::internals::case::derived_tool_name(&tool.ident),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_split_into_text_braces_and_placeholders() {
        assert_eq!(
            pieces("delete {path} {{x}}").unwrap(),
            [
                Piece::Text("delete "),
                Piece::Placeholder("path"),
                Piece::Text(" "),
                Piece::Brace('{'),
                Piece::Text("x"),
                Piece::Brace('}'),
            ]
        );
        assert_eq!(
            pieces("delete {path").unwrap_err(),
            "`{path` is not closed: close the placeholder with `}`, or write `{{` for a \
             literal brace"
        );
        assert_eq!(
            pieces("delete path} now").unwrap_err(),
            "`}` after `delete path` closes nothing: write `}}` for a literal brace"
        );
        assert!(
            pieces("a {} b")
                .unwrap_err()
                .starts_with("an empty placeholder")
        );
        assert!(
            pieces("{a{b}")
                .unwrap_err()
                .starts_with("`{a{b}` is not closed")
        );
    }

    #[test]
    fn defaults_name_every_argument_and_escape_the_label() {
        assert_eq!(
            default_template("Read {a} file", &["path", "mode"]),
            "Read {{a}} file: path={path}, mode={mode}"
        );
        assert_eq!(default_template("delete", &["path"]), "delete {path}");
        assert_eq!(default_template("ping", &[]), "ping");
        assert_eq!(over_discriminator("action", &["path"]), "{action} {path}");
        assert_eq!(
            over_discriminator("method", &["path", "body"]),
            "{method}: path={path}, body={body}"
        );
        assert_eq!(over_discriminator("action", &[]), "{action}");
    }
}
