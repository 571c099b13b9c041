//! The `#[serde(...)]` attributes the macro honours, so that its parsing and
//! schema agree with what serde would do with the same declaration.
//!
//! Keys that only change serialization are accepted and ignored. Keys that
//! change deserialization in ways the generated schema could not follow
//! (`flatten`, `alias`, `untagged`, `with`, ...) are compile errors rather than
//! a silent disagreement between schema and parser.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, ExprPath, Ident, LitStr};

use crate::internals::attr::is_serde;
use crate::internals::case::{RENAME_RULES, RenameRule};
use crate::internals::ctxt::Errors;
use crate::internals::meta::{RawValue, str_value, take_value};
use crate::internals::suggest::did_you_mean;

/// Where a `#[serde]` attribute sits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The tool enum or struct.
    Container,
    /// A `#[mcp_actions]` enum.
    ActionsContainer,
    Variant,
    Field,
}

impl Level {
    fn supported(self) -> &'static [&'static str] {
        match self {
            Level::Container => &["rename_all", "rename_all_fields", "tag"],
            Level::ActionsContainer => &["rename_all"],
            Level::Variant => &["rename", "rename_all"],
            Level::Field => &["rename", "default", "skip", "skip_deserializing"],
        }
    }

    /// Keys with no effect on deserialization.
    fn ignored(self) -> &'static [&'static str] {
        match self {
            Level::Container | Level::ActionsContainer => {
                &["rename", "deny_unknown_fields", "crate", "expecting"]
            }
            Level::Variant => &["skip_serializing", "serialize_with"],
            Level::Field => &["skip_serializing", "skip_serializing_if", "serialize_with"],
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Level::Container | Level::ActionsContainer => "container",
            Level::Variant => "variant",
            Level::Field => "field",
        }
    }
}

/// How a field that is absent from the arguments is filled.
#[derive(Clone, Default)]
pub enum FieldDefault {
    /// It is required (unless its type is `Option`).
    #[default]
    None,
    /// `#[serde(default)]`: `Default::default()`.
    Default,
    /// `#[serde(default = "path")]`: a call to `path`.
    Path(ExprPath),
}

/// The serde attributes of one item, variant or field.
#[derive(Default)]
pub struct Serde {
    pub rename: Option<(String, Span)>,
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub tag: Option<LitStr>,
    pub default: FieldDefault,
    pub skip: bool,
}

/// Reads every `#[serde(...)]` in `attrs`.
pub fn parse_serde(attrs: &[Attribute], level: Level, errors: &Errors) -> Serde {
    let mut serde = Serde::default();
    for attr in attrs.iter().filter(|attr| is_serde(attr)) {
        let result = attr.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().cloned() else {
                let _ = take_value(&meta)?;
                errors.spanned(&meta.path, "expected a serde key");
                return Ok(());
            };
            parse_key(&meta, &key, level, &mut serde, errors)
        });
        errors.ok(result);
    }
    serde
}

fn parse_key(
    meta: &ParseNestedMeta,
    key: &Ident,
    level: Level,
    serde: &mut Serde,
    errors: &Errors,
) -> syn::Result<()> {
    let name = key.to_string();
    if level.ignored().contains(&name.as_str()) {
        take_value(meta)?;
        return Ok(());
    }
    if !level.supported().contains(&name.as_str()) {
        take_value(meta)?;
        let supported = level.supported().iter().chain(level.ignored());
        errors.spanned(
            key,
            format!(
                "`#[serde({name})]` is not supported on a {} by annot's macros: the input \
                 schema and the argument parser must agree, and they could not follow it{}",
                level.describe(),
                did_you_mean(&name, supported.copied()),
            ),
        );
        return Ok(());
    }
    match name.as_str() {
        "rename" => {
            if let Some(value) = deserialize_name(meta, key, errors)? {
                serde.rename = Some((value.value(), value.span()));
            }
        }
        "rename_all" | "rename_all_fields" => {
            if let Some(value) = deserialize_name(meta, key, errors)? {
                let rule = match RenameRule::from_name(&value.value()) {
                    Some(rule) => rule,
                    None => {
                        let names = RENAME_RULES.iter().map(|(name, _)| *name);
                        errors.spanned(
                            &value,
                            format!(
                                "unknown rename rule `{}`{}",
                                value.value(),
                                did_you_mean(&value.value(), names)
                            ),
                        );
                        return Ok(());
                    }
                };
                if name == "rename_all" {
                    serde.rename_all = Some(rule);
                } else {
                    serde.rename_all_fields = Some(rule);
                }
            }
        }
        "tag" => {
            if let Some(tag) = errors.ok(str_value(key, take_value(meta)?)) {
                serde.tag = Some(tag);
            }
        }
        "default" => match take_value(meta)? {
            RawValue::Flag => serde.default = FieldDefault::Default,
            raw => {
                if let Some(path) = errors.ok(str_value(key, raw))
                    && let Some(path) = errors.ok(path.parse::<ExprPath>())
                {
                    serde.default = FieldDefault::Path(path);
                }
            }
        },
        _ => {
            // skip, skip_deserializing
            take_value(meta)?;
            serde.skip = true;
        }
    }
    Ok(())
}

/// `key = "name"`, or the `deserialize` half of `key(serialize = "..", deserialize = "..")`.
fn deserialize_name(
    meta: &ParseNestedMeta,
    key: &Ident,
    errors: &Errors,
) -> syn::Result<Option<LitStr>> {
    if !meta.input.peek(syn::token::Paren) {
        return Ok(errors.ok(str_value(key, take_value(meta)?)));
    }
    let mut deserialize = None;
    meta.parse_nested_meta(|inner| {
        let value = take_value(&inner)?;
        if inner.path.is_ident("deserialize") {
            deserialize = errors.ok(str_value(inner.path.get_ident().unwrap_or(key), value));
        } else if !inner.path.is_ident("serialize") {
            errors.spanned(&inner.path, "expected `serialize` or `deserialize`");
        }
        Ok(())
    })?;
    Ok(deserialize)
}
