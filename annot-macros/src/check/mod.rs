//! The second phase: every check of the model, which completes it. Here,
//! the checks that look across the whole model (annotations of every
//! action, names on the wire, the discriminator); then those of the rules
//! and authorization (`rules`, `authorization`) and of the call previews
//! (`display_templates`), whose findings complete the model.
//!
//! What the first phase refuses while it reads the item (an unknown key, a
//! generic item, a `#[serde]` key the schema could not follow) is reported
//! there, in `internals`.

mod authorization;
mod display_templates;
mod rules;

use std::collections::HashMap;

use proc_macro2::Span;

use crate::internals::ast::{Actions, Field, Model, Shape, Tool, Variant};
use crate::internals::attr::ToolOptions;
use crate::internals::ctxt::Errors;

/// Every check of the model, completing it: a tool's rules and
/// authorization are checked into `Tool::checked`, which code generation reads.
pub fn model(mut model: Model, errors: &Errors) -> Model {
    match &mut model {
        Model::Tool(built) => {
            tool(built, errors);
            built.checked = rules::check_tool(built, errors);
            built.display = display_templates::tool(built, errors);
        }
        Model::Actions(built) => {
            actions(built, errors);
            rules::check_actions_enum(built, errors);
        }
    }
    model
}

/// Every check of a `#[mcp_tool]` item but its rules.
fn tool(tool: &Tool, errors: &Errors) {
    match &tool.options.name {
        Some(name) => {
            if let Err(problem) = valid_tool_name(&name.value()) {
                errors.spanned(name, problem);
            }
        }
        None => {
            // The derived name is checked like an explicit one.
            let derived = crate::internals::case::derived_tool_name(&tool.ident);
            if let Err(problem) = valid_tool_name(&derived) {
                errors.spanned(
                    &tool.ident,
                    format!(
                        "the tool name derived from `{}` is `{derived}`: {problem}; name the \
                         tool with #[mcp_tool(name = \"...\")]",
                        tool.ident
                    ),
                );
            }
        }
    }
    let discriminator = &tool.discriminator.0;
    match &tool.shape {
        Shape::Enum(variants) => {
            annotations(variants, &tool.options, "#[mcp_tool(...)]", errors);
            for variant in variants {
                for field in &variant.fields {
                    if &field.name == discriminator {
                        errors.at(
                            field.name_span,
                            format!(
                                "field `{}` clashes with the discriminator `{discriminator}`: \
                                 rename the field, or choose another discriminator with \
                                 #[mcp_tool(discriminator = \"...\")]",
                                field.name
                            ),
                        );
                    }
                }
                unique_field_names(&variant.fields, errors);
            }
        }
        Shape::Single { fields, .. } => {
            tool_defaults(&tool.options, errors);
            unique_field_names(fields, errors);
            if tool.options.single.is_none() {
                actions_field_without_discriminator(fields, errors);
            }
        }
        Shape::Struct(fields) => {
            tool_defaults(&tool.options, errors);
            unique_field_names(fields, errors);
            match fields.iter().find(|field| &field.name == discriminator) {
                None => errors.at(
                    tool.discriminator.1,
                    format!(
                        "no field `{discriminator}` selects the action: add a field \
                         `{discriminator}: YourActions` whose type is an #[mcp_actions] enum, \
                         name the field with #[mcp_tool(discriminator = \"...\")], or leave \
                         `discriminator` out for a tool with a single action"
                    ),
                ),
                Some(field) if !field.required() => errors.at(
                    field.name_span,
                    format!(
                        "the action field `{discriminator}` must be required: not an Option, \
                         not defaulted, not skipped"
                    ),
                ),
                Some(_) => {}
            }
        }
    }
}

/// A field of annot's own enum of actions, `HttpMethod`, in a struct that
/// names no discriminator: the struct is then a tool of one action, every
/// method resolving alike, which is never what such a field means. Said
/// here, before the type errors a field of an enum of actions would bring.
fn actions_field_without_discriminator(fields: &[Field], errors: &Errors) {
    for field in fields {
        let syn::Type::Path(path) = &field.ty else {
            continue;
        };
        if path
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "HttpMethod")
        {
            errors.spanned(
                &field.ty,
                format!(
                    "field `{name}` is an enum of actions (`HttpMethod`), but no discriminator \
                     names it, so this struct is a tool of one action: add \
                     #[mcp_tool(discriminator = \"{name}\")] so that each method resolves to \
                     its own annotations",
                    name = field.name
                ),
            );
        }
    }
}

/// Every check of an `#[mcp_actions]` enum but its rules.
fn actions(actions: &Actions, errors: &Errors) {
    for variant in &actions.variants {
        if let Some(display) = variant.annotate.as_ref().and_then(|a| a.display.as_ref()) {
            errors.spanned(
                display,
                "a call preview names the tool's arguments, which an #[mcp_actions] enum does \
                 not know: write `display = \"...\"` in the #[mcp_tool(...)] of the struct whose \
                 action field has this type, as in `display = \"{method} {path}\"`",
            );
        }
    }
    annotations(
        &actions.variants,
        &actions.options,
        "#[mcp_actions(...)]",
        errors,
    );
}

fn tool_defaults(options: &ToolOptions, errors: &Errors) {
    for error in options.defaults.contradictions() {
        errors.push(error);
    }
}

/// Each action is annotated (or the tool gives defaults), its hints agree, and
/// the actions have distinct names.
fn annotations(variants: &[Variant], options: &ToolOptions, attribute: &str, errors: &Errors) {
    tool_defaults(options, errors);
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for variant in variants {
        if seen.insert(&variant.name, variant.name_span).is_some() {
            errors.at(
                variant.name_span,
                format!("two actions are named `{}` on the wire", variant.name),
            );
        }
        match &variant.annotate {
            None if options.defaults.is_empty() => errors.spanned(
                &variant.ident,
                format!(
                    "action `{}` has no #[annotate(...)]: declare its hints (for example \
                     #[annotate(read_only)] or #[annotate(destructive = false)]); an action \
                     with every hint at the specification's worst case is #[annotate]",
                    variant.ident
                ),
            ),
            None => errors.spanned(
                &variant.ident,
                format!(
                    "action `{}` has no #[annotate(...)]: declare its hints (for example \
                     #[annotate(read_only)]), or write a bare #[annotate] to take the \
                     defaults of {attribute} as they are",
                    variant.ident
                ),
            ),
            Some(annotate) => {
                for error in annotate
                    .hints
                    .with_defaults(&options.defaults)
                    .contradictions()
                {
                    errors.push(error);
                }
            }
        }
    }
}

fn unique_field_names(fields: &[Field], errors: &Errors) {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for field in fields.iter().filter(|field| !field.skip) {
        if seen.insert(&field.name, ()).is_some() {
            errors.at(
                field.name_span,
                format!("two fields are named `{}` on the wire", field.name),
            );
        }
    }
}

/// MCP tool names (`annot_model::check_tool_name`, which the runtime's
/// builder checks too), as a message naming `name`.
pub fn valid_tool_name(name: &str) -> Result<(), String> {
    use annot_model::{MAX_TOOL_NAME_LEN, ToolNameError};
    annot_model::check_tool_name(name).map_err(|problem| match problem {
        ToolNameError::Length(length) => {
            format!("a tool name has 1 to {MAX_TOOL_NAME_LEN} characters, `{name}` has {length}")
        }
        ToolNameError::Character(bad) => format!(
            "a tool name may hold ASCII letters, digits, `_`, `-` and `.`; `{name}` holds `{bad}`"
        ),
        other => format!("`{name}` is not an MCP tool name: {other}"),
    })
}

#[cfg(test)]
mod tests {
    use super::valid_tool_name;

    #[test]
    fn tool_names_follow_mcp() {
        assert!(valid_tool_name("manage_files").is_ok());
        assert!(valid_tool_name("api.v2-get").is_ok());
        assert!(valid_tool_name("").is_err());
        assert!(valid_tool_name("has space").is_err());
        assert!(valid_tool_name(&"x".repeat(129)).is_err());
    }
}
