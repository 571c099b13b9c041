//! The one model of a `#[mcp_tool]` or `#[mcp_actions]` item, built from syn's
//! syntax tree. Problems found while building it are recorded, and the model is
//! built as far as it can be so the checks can still run. `check::model`
//! completes it (the checked rules and authorization of a tool), and code
//! generation reads nothing else.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::internals::attr::{
    Annotate, OptionsOf, ToolOptions, derives, doc_string, is_annotate, parse_annotate,
};
use crate::internals::case::RenameRule;
use crate::internals::ctxt::Errors;
use crate::internals::serde_attr::{FieldDefault, Level, Serde, parse_serde};
use crate::rules::Checked;

/// One named field: an argument of the tool.
pub struct Field {
    pub ident: Ident,
    /// The name on the wire, after serde renames.
    pub name: String,
    /// Where that name was written (the rename literal, or the identifier).
    pub name_span: Span,
    pub ty: Type,
    pub doc: Option<String>,
    pub default: FieldDefault,
    /// `#[serde(skip)]`: never read, always `Default::default()`.
    pub skip: bool,
}

impl Field {
    /// Whether the arguments must carry this field.
    pub fn required(&self) -> bool {
        !self.skip && !self.is_option() && matches!(self.default, FieldDefault::None)
    }

    /// Whether the field's type is `Option<_>` (as serde decides it: by name).
    pub fn is_option(&self) -> bool {
        crate::internals::types::option_inner(&self.ty).is_some()
    }
}

/// One variant: an action.
pub struct Variant {
    pub ident: Ident,
    pub name: String,
    pub name_span: Span,
    pub doc: Option<String>,
    pub annotate: Option<Annotate>,
    pub fields: Vec<Field>,
    /// Written with braces (`Read { .. }`) rather than as a unit.
    pub braced: bool,
}

/// What `#[mcp_tool]` was put on.
pub enum Shape {
    /// Shape (a): an enum whose variants are the actions.
    Enum(Vec<Variant>),
    /// Shape (b): a struct whose discriminator field has an `#[mcp_actions]` type.
    Struct(Vec<Field>),
    /// A single-action tool: a struct of arguments with no discriminator;
    /// `braced` unless a unit struct (a tool without arguments).
    Single { fields: Vec<Field>, braced: bool },
}

pub struct Tool {
    pub ident: Ident,
    pub doc: Option<String>,
    pub options: ToolOptions,
    /// The discriminator's wire name and where it was chosen.
    pub discriminator: (String, Span),
    pub shape: Shape,
    /// What the checks of its rules and authorization found: empty until
    /// `check::model` has run.
    pub checked: Checked,
    /// Its call previews: empty until `check::model` has run.
    pub display: Display,
}

/// An `#[mcp_actions]` enum.
pub struct Actions {
    pub ident: Ident,
    pub doc: Option<String>,
    pub options: ToolOptions,
    pub variants: Vec<Variant>,
    /// Whether the enum derives `Clone`, and `Copy`: the impls the trait
    /// needs are generated otherwise.
    pub derives_clone: bool,
    pub derives_copy: bool,
    /// `#[derive(Deserialize)]` below the attribute: serde's, not the
    /// macro's, reads the enum.
    pub derives_deserialize: bool,
}

/// The call previews of a tool, completed by the checks (see `check::display_templates`).
#[derive(Default)]
pub struct Display {
    /// Each action's template, in the order of its actions.
    pub actions: Vec<String>,
    /// The template listed on the tool itself.
    pub tool: String,
}

/// What a macro was put on.
pub enum Model {
    Tool(Tool),
    Actions(Actions),
}

/// Builds the model of the item an attribute macro was put on; `None` when
/// its kind is unusable (the reason is recorded).
pub fn model(
    input: &DeriveInput,
    options: ToolOptions,
    of: OptionsOf,
    errors: &Errors,
) -> Option<Model> {
    match of {
        OptionsOf::Tool => tool(input, options, errors).map(Model::Tool),
        OptionsOf::Actions => actions(input, options, errors).map(Model::Actions),
    }
}

fn reject_generics(input: &DeriveInput, macro_name: &str, errors: &Errors) {
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        errors.spanned(
            &input.generics,
            format!("{macro_name} does not support generic parameters: a tool has one schema"),
        );
    }
}

/// `#[cfg]` and `#[cfg_attr]` on a variant or a field would remove it (or
/// change its serde attributes) after the schema, the parser and the
/// annotations were derived from it: refused, spanned on the attribute.
fn reject_cfg(attrs: &[syn::Attribute], what: &str, errors: &Errors) {
    for attr in attrs {
        if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
            errors.spanned(
                attr,
                format!(
                    "#[mcp_tool] and #[mcp_actions] do not support `#[{}]` on {what}: the schema, \
                     the parser and the annotations are derived before configuration; put the \
                     `#[cfg]` on the whole item, with one declaration per configuration",
                    attr.path()
                        .get_ident()
                        .map_or_else(String::new, ToString::to_string)
                ),
            );
        }
    }
}

fn reject_annotate(attrs: &[syn::Attribute], place: &str, errors: &Errors) {
    for attr in attrs.iter().filter(|attr| is_annotate(attr)) {
        errors.spanned(
            attr,
            format!("#[annotate] goes on the variants of the actions enum, not on {place}"),
        );
    }
}

/// `single` says the tool has no discriminator: it contradicts one chosen by
/// `discriminator` or `#[serde(tag)]`, and an enum, whose variants are actions.
fn reject_single(key: &Ident, options: &ToolOptions, serde: &Serde, data: &Data, errors: &Errors) {
    if let Some(chosen) = &options.discriminator {
        errors.spanned(
            chosen,
            "`discriminator` names the field selecting the action, but `single` says there \
             is none: keep one of the two",
        );
    }
    if let Some(tag) = &serde.tag {
        errors.spanned(
            tag,
            "`#[serde(tag)]` names a discriminator, but `#[mcp_tool(single)]` says there is \
             none: remove one of the two",
        );
    }
    if let Data::Enum(_) = data {
        errors.spanned(
            key,
            "`single` is for a struct of arguments: the variants of an enum are its \
             actions, selected by a discriminator",
        );
    }
}

/// Builds the model of a `#[mcp_tool]` item; `None` when its kind is unusable.
pub fn tool(input: &DeriveInput, options: ToolOptions, errors: &Errors) -> Option<Tool> {
    reject_generics(input, "#[mcp_tool]", errors);
    reject_annotate(&input.attrs, "the tool itself", errors);
    let serde = parse_serde(&input.attrs, Level::Container, errors);
    let chose_discriminator = options.discriminator.is_some() || serde.tag.is_some();
    let discriminator = match (&options.discriminator, &serde.tag) {
        (Some(discriminator), Some(tag)) if discriminator.value() != tag.value() => {
            errors.spanned(
                tag,
                format!(
                    "`#[serde(tag = \"{}\")]` disagrees with `discriminator = \"{}\"`",
                    tag.value(),
                    discriminator.value()
                ),
            );
            (discriminator.value(), discriminator.span())
        }
        (Some(chosen), _) | (None, Some(chosen)) => (chosen.value(), chosen.span()),
        (None, None) => ("action".to_owned(), input.ident.span()),
    };
    if discriminator.0.is_empty() {
        errors.at(discriminator.1, "the discriminator needs a name");
    }
    let single = options.single.is_some();
    if let Some(key) = &options.single {
        reject_single(key, &options, &serde, &input.data, errors);
    }
    let shape = match &input.data {
        Data::Union(data) => {
            errors.spanned(
                data.union_token,
                "#[mcp_tool] goes on an enum whose variants are the actions, or on a struct \
                 with an action field; not on a union",
            );
            return None;
        }
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => {
                let fields = fields(
                    named.named.iter(),
                    serde.rename_all,
                    "a field of the tool",
                    errors,
                );
                // No discriminator chosen and no `action` field: the struct is
                // the arguments of one action.
                // `single` keeps a field named `action` an ordinary argument.
                if !single
                    && (chose_discriminator || fields.iter().any(|f| f.name == discriminator.0))
                {
                    Shape::Struct(fields)
                } else {
                    Shape::Single {
                        fields,
                        braced: true,
                    }
                }
            }
            Fields::Unnamed(unnamed) => {
                errors.spanned(
                    unnamed,
                    "#[mcp_tool] needs named fields: a tuple struct has no argument names",
                );
                return None;
            }
            Fields::Unit if single || !chose_discriminator => Shape::Single {
                fields: Vec::new(),
                braced: false,
            },
            Fields::Unit => {
                errors.spanned(
                    &input.ident,
                    "#[mcp_tool] on a unit struct has no action field: leave out the \
                     discriminator for a tool without arguments",
                );
                return None;
            }
        },
        Data::Enum(data) => {
            if data.variants.is_empty() {
                errors.spanned(
                    &input.ident,
                    "#[mcp_tool] on an empty enum: a tool needs at least one action",
                );
                return None;
            }
            let variants = data
                .variants
                .iter()
                .map(|variant| {
                    let fields = match &variant.fields {
                        Fields::Named(named) => named.named.iter().collect(),
                        Fields::Unit => Vec::new(),
                        Fields::Unnamed(unnamed) => {
                            errors.spanned(
                                unnamed,
                                format!(
                                    "tuple variant `{}`: arguments are named JSON fields, \
                                     write `{} {{ name: Type }}`",
                                    variant.ident, variant.ident
                                ),
                            );
                            Vec::new()
                        }
                    };
                    let variant_serde = parse_serde(&variant.attrs, Level::Variant, errors);
                    let rule = variant_serde.rename_all.or(serde.rename_all_fields);
                    let mut built = self::variant(variant, variant_serde, serde.rename_all, errors);
                    built.fields = self::fields(fields.into_iter(), rule, "a field", errors);
                    built.braced = matches!(variant.fields, Fields::Named(_));
                    built
                })
                .collect();
            Shape::Enum(variants)
        }
    };
    Some(Tool {
        ident: input.ident.clone(),
        doc: doc_string(&input.attrs),
        options,
        discriminator,
        shape,
        checked: Checked::default(),
        display: Display::default(),
    })
}

/// Builds the model of an `#[mcp_actions]` enum.
pub fn actions(input: &DeriveInput, options: ToolOptions, errors: &Errors) -> Option<Actions> {
    reject_generics(input, "#[mcp_actions]", errors);
    reject_annotate(&input.attrs, "the enum itself", errors);
    let serde = parse_serde(&input.attrs, Level::ActionsContainer, errors);
    let data = match &input.data {
        Data::Enum(data) => data,
        Data::Struct(data) => {
            errors.spanned(
                data.struct_token,
                "#[mcp_actions] goes on an enum of unit variants, one per action",
            );
            return None;
        }
        Data::Union(data) => {
            errors.spanned(
                data.union_token,
                "#[mcp_actions] goes on an enum of unit variants, one per action",
            );
            return None;
        }
    };
    if data.variants.is_empty() {
        errors.spanned(
            &input.ident,
            "#[mcp_actions] on an empty enum: there must be at least one action",
        );
        return None;
    }
    let variants = data
        .variants
        .iter()
        .map(|variant| {
            if !matches!(variant.fields, Fields::Unit) {
                errors.spanned(
                    &variant.fields,
                    format!(
                        "`{}` has fields: the variants of an #[mcp_actions] enum are unit \
                         variants; arguments are fields of the tool struct",
                        variant.ident
                    ),
                );
            }
            let variant_serde = parse_serde(&variant.attrs, Level::Variant, errors);
            self::variant(variant, variant_serde, serde.rename_all, errors)
        })
        .collect();
    Some(Actions {
        ident: input.ident.clone(),
        doc: doc_string(&input.attrs),
        options,
        variants,
        derives_clone: derives(&input.attrs, "Clone"),
        derives_copy: derives(&input.attrs, "Copy"),
        derives_deserialize: derives(&input.attrs, "Deserialize"),
    })
}

fn variant(
    variant: &syn::Variant,
    serde: Serde,
    rule: Option<RenameRule>,
    errors: &Errors,
) -> Variant {
    let ident = variant.ident.unraw();
    let (name, name_span) = match serde.rename {
        Some(rename) => rename,
        None => {
            let name = ident.to_string();
            let renamed = rule.map_or_else(|| name.clone(), |rule| rule.apply_to_variant(&name));
            (renamed, ident.span())
        }
    };
    Variant {
        ident: variant.ident.clone(),
        name,
        name_span,
        doc: doc_string(&variant.attrs),
        annotate: {
            reject_cfg(&variant.attrs, "an action", errors);
            parse_annotate(&variant.attrs, errors)
        },
        fields: Vec::new(),
        braced: false,
    }
}

fn fields<'a>(
    fields: impl Iterator<Item = &'a syn::Field>,
    rule: Option<RenameRule>,
    place: &str,
    errors: &Errors,
) -> Vec<Field> {
    fields
        .filter_map(|field| {
            reject_annotate(&field.attrs, place, errors);
            reject_cfg(&field.attrs, "a field", errors);
            let ident = field.ident.clone()?;
            let serde = parse_serde(&field.attrs, Level::Field, errors);
            let unraw = ident.unraw();
            let (name, name_span) = match serde.rename {
                Some(rename) => rename,
                None => {
                    let name = unraw.to_string();
                    let renamed =
                        rule.map_or_else(|| name.clone(), |rule| rule.apply_to_field(&name));
                    (renamed, unraw.span())
                }
            };
            if let Some((_, default)) = &field.default {
                errors.spanned(default, "default field values are not supported here");
            }
            Some(Field {
                ident,
                name,
                name_span,
                ty: field.ty.clone(),
                doc: doc_string(&field.attrs),
                default: serde.default,
                skip: serde.skip,
            })
        })
        .collect()
}
