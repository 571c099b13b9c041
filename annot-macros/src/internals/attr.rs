//! Parsing of the attributes the macros read: their own (`#[mcp_tool(...)]`,
//! `#[mcp_actions(...)]`, `#[annotate(...)]`), serde's, and doc comments.
//!
//! Every key is parsed with `parse_nested_meta`. A key's handler records its
//! problems in [`Errors`] and consumes the key's value, so one bad key never
//! hides the next. Rules on argument values (`when(...) => (...)`) and
//! authorization (`scopes`, `no_auth`) are parsed by `rules::from_attribute`.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Data, DeriveInput, Expr, Ident, Lit, LitStr};

use crate::internals::ctxt::Errors;
use crate::internals::hints::{HINTS, HintSet, hint_index, key_of_wire_name};
use crate::internals::meta::{bool_value, set_hint, str_value, take_value, type_value};
use crate::internals::result_claims::{Claimant, ResultClaims};
use crate::internals::suggest::did_you_mean;
use crate::rules::{AuthSpec, Rule, parse_auth, parse_rule};

/// The single identifier of a key, or an error naming the whole path.
fn key_ident(meta: &ParseNestedMeta, errors: &Errors) -> Option<Ident> {
    match meta.path.get_ident() {
        Some(ident) => Some(ident.clone()),
        None => {
            errors.spanned(&meta.path, "expected a key such as `read_only`, not a path");
            None
        }
    }
}

/// Stores a value once; a second one is a duplicate.
fn set_once<T>(slot: &mut Option<T>, value: T, key: &Ident, errors: &Errors) {
    if slot.is_some() {
        errors.spanned(key, format!("duplicate `{key}`"));
    } else {
        *slot = Some(value);
    }
}

fn unknown_key(key: &Ident, what: &str, valid: &[&str], errors: &Errors) {
    let name = key.to_string();
    let hint = match key_of_wire_name(&name) {
        Some(attribute) if valid.contains(&attribute) => format!("; did you mean `{attribute}`?"),
        _ => did_you_mean(&name, valid.iter().copied()),
    };
    let listed = valid
        .iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ");
    errors.spanned(
        key,
        format!("unknown {what} `{name}`{hint}\nexpected one of: {listed}"),
    );
}

fn hint_keys() -> impl Iterator<Item = &'static str> {
    HINTS.iter().map(|hint| hint.key)
}

/// The options of `#[mcp_tool(...)]` or `#[mcp_actions(...)]`.
#[derive(Default)]
pub struct ToolOptions {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub discriminator: Option<LitStr>,
    /// `single`: a struct is the arguments of one action even when a field is
    /// named like the discriminator (`action`); the key, for error spans.
    pub single: Option<Ident>,
    /// `schema = "portable" | "exact"`: the `inputSchema` shape (checked here).
    pub schema: Option<LitStr>,
    /// `display = "..."`: the call preview listed on the tool (see `check::display_templates`).
    pub display: Option<LitStr>,
    /// `results(sensitive, untrusted)`: what the results of every action
    /// claim under the trust-annotations extension (see `result_claims`).
    pub results: Option<ResultClaims>,
    /// `output = Type`: the type of the tool's structured results, whose
    /// JSON Schema is its `outputSchema`.
    pub output: Option<syn::Type>,
    pub krate: Option<syn::Path>,
    /// Hints that every action leaving them unset gets.
    pub defaults: HintSet,
    /// Rules on argument values of the whole tool: `when(...) => (...)`.
    pub rules: Vec<Rule>,
    /// Authorization of every action that declares none: `scopes = [...]`, `no_auth`.
    pub auth: Option<AuthSpec>,
}

impl ToolOptions {
    /// The `inputSchema` shape chosen with `schema = "..."`, portable unless said.
    pub fn schema_shape(&self) -> SchemaShape {
        self.schema
            .as_ref()
            .and_then(|name| SchemaShape::from_name(&name.value()))
            .unwrap_or_default()
    }
}

/// How a tool with several actions states its per-action fields in its
/// `inputSchema` (`#[mcp_tool(schema = "...")]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchemaShape {
    /// One flat object: every field of every action, typed and described,
    /// unknown fields refused; which action takes which field is in the
    /// discriminator's description. Accepts a superset of what the parser
    /// accepts (a field of another action, a missing per-action field).
    #[default]
    Portable,
    /// The flat object plus an `if`/`then`/`else` chain on the discriminator
    /// giving each action its `required` fields and closing it to its own
    /// fields: accepts exactly what the parser accepts.
    Exact,
}

impl SchemaShape {
    /// The shape named in `#[mcp_tool(schema = "...")]`.
    pub fn from_name(name: &str) -> Option<SchemaShape> {
        match name {
            "portable" => Some(SchemaShape::Portable),
            "exact" => Some(SchemaShape::Exact),
            _ => None,
        }
    }
}

/// Which attribute the options belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OptionsOf {
    Tool,
    Actions,
}

const TOOL_KEYS: [&str; 10] = [
    "name",
    "title",
    "description",
    "discriminator",
    "single",
    "schema",
    "display",
    "results",
    "output",
    "crate",
];
/// Keys of rules and authorization, in `#[mcp_tool(...)]` and `#[annotate(...)]`.
const RULE_KEYS: [&str; 3] = ["when", "scopes", "no_auth"];

/// Parses the arguments of `#[mcp_tool(...)]` or `#[mcp_actions(...)]`.
pub fn parse_options(args: TokenStream, of: OptionsOf, errors: &Errors) -> ToolOptions {
    let mut options = ToolOptions::default();
    let valid: Vec<&str> = match of {
        OptionsOf::Tool => TOOL_KEYS
            .iter()
            .copied()
            .chain(hint_keys())
            .chain(RULE_KEYS)
            .collect(),
        OptionsOf::Actions => ["crate"].into_iter().chain(hint_keys()).collect(),
    };
    let what = match of {
        OptionsOf::Tool => "#[mcp_tool] option",
        OptionsOf::Actions => "#[mcp_actions] option",
    };
    let parser = syn::meta::parser(|meta| {
        let key = key_ident(&meta, errors);
        let raw = take_value(&meta)?;
        let Some(key) = key else { return Ok(()) };
        let name = key.to_string();
        if let Some(index) = hint_index(&name) {
            set_hint(&mut options.defaults, index, &key, raw, errors);
        } else if name == "when" {
            // Also parsed on `#[mcp_actions]`, whose check says where rules go.
            options.rules.extend(parse_rule(&key, raw, &meta, errors));
        } else if name == "scopes" || name == "no_auth" {
            parse_auth(&key, raw, &mut options.auth, errors);
        } else if !valid.contains(&name.as_str()) {
            unknown_key(&key, what, &valid, errors);
        } else if name == "results" {
            if let Some(results) =
                crate::internals::result_claims::parse(&key, raw, Claimant::Tool, errors)
            {
                set_once(&mut options.results, results, &key, errors);
            }
        } else if name == "single" {
            if errors.ok(bool_value(&key, raw)) == Some(true) {
                set_once(&mut options.single, key.clone(), &key, errors);
            }
        } else if name == "output" {
            if let Some(ty) = errors.ok(type_value(&key, raw)) {
                set_once(&mut options.output, ty, &key, errors);
            }
        } else if name == "crate" {
            if let Some(path) = errors.ok(str_value(&key, raw))
                && let Some(parsed) = errors.ok(path.parse::<syn::Path>())
            {
                set_once(&mut options.krate, parsed, &key, errors);
            }
        } else if let Some(value) = errors.ok(str_value(&key, raw)) {
            let slot = match name.as_str() {
                "name" => &mut options.name,
                "title" => &mut options.title,
                "description" => &mut options.description,
                "display" => &mut options.display,
                "schema" => {
                    if SchemaShape::from_name(&value.value()).is_none() {
                        errors.push(syn::Error::new(
                            value.span(),
                            format!(
                                "unknown schema shape `{}`: expected \"portable\" (the default) \
                                 or \"exact\"",
                                value.value()
                            ),
                        ));
                    }
                    &mut options.schema
                }
                _ => &mut options.discriminator,
            };
            set_once(slot, value, &key, errors);
        }
        Ok(())
    });
    errors.ok(syn::parse::Parser::parse2(parser, args));
    options
}

/// What `#[annotate(...)]` says about one action.
#[derive(Clone, Default)]
pub struct Annotate {
    pub title: Option<LitStr>,
    /// `display = "..."`: this action's call preview.
    pub display: Option<LitStr>,
    /// `results(sensitive, untrusted)`: what this action's results claim
    /// under the trust-annotations extension (see `result_claims`).
    pub results: Option<ResultClaims>,
    pub hints: HintSet,
    /// Rules on this action's fields.
    pub rules: Vec<Rule>,
    /// This action's authorization.
    pub auth: Option<AuthSpec>,
}

const ANNOTATE_EXTRA_KEYS: [&str; 3] = ["title", "display", "results"];

pub fn is_annotate(attr: &Attribute) -> bool {
    attr.path().is_ident("annotate")
}

pub fn is_serde(attr: &Attribute) -> bool {
    attr.path().is_ident("serde")
}

/// Merges every `#[annotate(...)]` of one variant; `None` when there is none.
pub fn parse_annotate(attrs: &[Attribute], errors: &Errors) -> Option<Annotate> {
    let mut annotate: Option<Annotate> = None;
    let valid: Vec<&str> = hint_keys()
        .chain(ANNOTATE_EXTRA_KEYS)
        .chain(RULE_KEYS)
        .collect();
    for attr in attrs.iter().filter(|attr| is_annotate(attr)) {
        let current = annotate.get_or_insert_with(Annotate::default);
        if let syn::Meta::Path(_) = attr.meta {
            // `#[annotate]` alone: the action takes the defaults, explicitly.
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            let key = key_ident(&meta, errors);
            let raw = take_value(&meta)?;
            let Some(key) = key else { return Ok(()) };
            let name = key.to_string();
            if let Some(index) = hint_index(&name) {
                set_hint(&mut current.hints, index, &key, raw, errors);
            } else if name == "when" {
                current.rules.extend(parse_rule(&key, raw, &meta, errors));
            } else if name == "scopes" || name == "no_auth" {
                parse_auth(&key, raw, &mut current.auth, errors);
            } else if name == "title" {
                if let Some(title) = errors.ok(str_value(&key, raw)) {
                    set_once(&mut current.title, title, &key, errors);
                }
            } else if name == "display" {
                if let Some(display) = errors.ok(str_value(&key, raw)) {
                    set_once(&mut current.display, display, &key, errors);
                }
            } else if name == "results" {
                if let Some(results) =
                    crate::internals::result_claims::parse(&key, raw, Claimant::Action, errors)
                {
                    set_once(&mut current.results, results, &key, errors);
                }
            } else if TOOL_KEYS.contains(&name.as_str()) {
                errors.spanned(
                    &key,
                    format!("`{name}` is an option of #[mcp_tool(...)], not of #[annotate(...)]"),
                );
            } else {
                unknown_key(&key, "hint", &valid, errors);
            }
            Ok(())
        });
        errors.ok(result);
    }
    annotate
}

/// The doc comment, rustdoc-style: one leading space per line removed, trimmed.
pub fn doc_string(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        if let syn::Meta::NameValue(meta) = &attr.meta
            && let Expr::Lit(expr) = &meta.value
            && let Lit::Str(text) = &expr.lit
        {
            for line in text.value().split('\n') {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let doc = lines.join("\n").trim().to_owned();
    (!doc.is_empty()).then_some(doc)
}

/// Whether the item derives `Serialize` or `Deserialize`, in which case its
/// `#[serde]` attributes stay for serde's derive to read.
pub fn derives_serde(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("derive"))
        .any(|attr| {
            attr.to_token_stream()
                .into_iter()
                .any(|token| has_serde_derive(&token))
        })
}

fn has_serde_derive(token: &TokenTree) -> bool {
    match token {
        TokenTree::Ident(ident) => ident == "Serialize" || ident == "Deserialize",
        TokenTree::Group(group) => group
            .stream()
            .into_iter()
            .any(|token| has_serde_derive(&token)),
        _ => false,
    }
}

/// Whether `#[derive(...)]` among `attrs` names `trait_name`.
pub fn derives(attrs: &[Attribute], trait_name: &str) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("derive"))
        .any(|attr| {
            let mut found = false;
            let _ = attr.parse_nested_meta(|meta| {
                found |= meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|segment| segment.ident == trait_name);
                Ok(())
            });
            found
        })
}

/// Removes `#[annotate]` everywhere, and `#[serde]` too unless the item derives
/// serde's traits (an attribute macro, unlike a derive, registers no helper
/// attributes, so the compiler would reject them).
pub fn strip_helper_attributes(item: &mut DeriveInput) {
    let keep_serde = derives_serde(&item.attrs);
    let strip = |attrs: &mut Vec<syn::Attribute>| {
        attrs.retain(|attr| !is_annotate(attr) && (keep_serde || !is_serde(attr)));
    };
    strip(&mut item.attrs);
    match &mut item.data {
        Data::Enum(data) => {
            for variant in &mut data.variants {
                strip(&mut variant.attrs);
                for field in variant.fields.iter_mut() {
                    strip(&mut field.attrs);
                }
            }
        }
        Data::Struct(data) => {
            for field in data.fields.iter_mut() {
                strip(&mut field.attrs);
            }
        }
        Data::Union(data) => {
            for field in data.fields.named.iter_mut() {
                strip(&mut field.attrs);
            }
        }
    }
}
