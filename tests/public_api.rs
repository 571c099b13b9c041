//! The public API of `annot`, pinned in `tests/public-api.txt`, so that every
//! change to it shows in review.
//!
//! `cargo public-api` needs a nightly rustdoc; this reads the source instead.
//! From the facade's root it follows `pub mod`, `pub use` (into
//! `annot-runtime`, `annot-model` and `annot-macros`, globs included) and
//! lists every public item reachable: its path and kind, a function's
//! signature, a struct's public fields, an enum's variants, a trait's
//! items, the public methods and constants of the inherent impls of a type,
//! the traits it implements and derives. `#[doc(hidden)]` items and modules
//! are left out (`annot::__private` is the macro's, not a user's), and items
//! under `#[cfg(...)]` are marked with it. An item reachable by several
//! paths is described at the shortest; the others say what they re-export.
//! `annot-runtime`'s API is the same items under `annot_runtime::` (the
//! facade re-exports all of it).
//!
//! Run with `UPDATE_PUBLIC_API=1` to rewrite the file after a change that is
//! meant; the test fails on any item that appears or disappears.

mod source_support;

use std::collections::{BTreeMap, BTreeSet};

use source_support::{
    Crate, attributes, cfgs, defined_name, is_hidden, read_crate, resolve, tokens, workspace,
};
use syn::{ImplItem, Item, TraitItem, Visibility};

/// Where an item is defined: crate, module, name.
type Definition = (String, String, String);

struct Api {
    crates: BTreeMap<String, Crate>,
    /// Every public path, with what it leads to and the `cfg`s on the way.
    paths: BTreeMap<String, (Definition, Vec<String>)>,
    /// Public modules, with their `cfg`s.
    modules: BTreeMap<String, Vec<String>>,
    /// The modules listed so far, with the path they were listed under.
    listed: BTreeSet<(String, String, String)>,
}

impl Api {
    fn read() -> Api {
        let base = workspace();
        let mut crates = BTreeMap::new();
        for (name, root) in [
            ("annot", "src/lib.rs"),
            ("annot_runtime", "annot-runtime/src/lib.rs"),
            ("annot_model", "annot-model/src/lib.rs"),
            ("annot_macros", "annot-macros/src/lib.rs"),
        ] {
            crates.insert(name.to_owned(), read_crate(name, &base, root));
        }
        let mut api = Api {
            crates,
            paths: BTreeMap::new(),
            modules: BTreeMap::new(),
            listed: BTreeSet::new(),
        };
        api.module("annot", "", "annot", &[]);
        api
    }

    /// Lists the public names of `module` of `krate` under `prefix`.
    fn module(&mut self, krate: &str, module: &str, prefix: &str, cfg: &[String]) {
        let key = (krate.to_owned(), module.to_owned(), prefix.to_owned());
        if !self.listed.insert(key) {
            return;
        }
        self.modules
            .entry(prefix.to_owned())
            .or_insert_with(|| cfg.to_vec());
        let here = &self.crates[krate].modules[module];
        let mut names = Vec::new();
        for item in &here.items {
            if is_public(item)
                && !is_hidden(attributes(item))
                && let Some(name) = defined_name(item)
            {
                names.push((name, cfgs(attributes(item))));
            }
        }
        let children: Vec<(String, String, Vec<String>)> = here
            .children
            .iter()
            .map(|child| {
                let path = source_support::join(module, child);
                (child.clone(), path, Vec::new())
            })
            .filter(|(_, path, _)| {
                let child = &self.crates[krate].modules[path];
                child.public && !child.hidden
            })
            .collect();
        let uses: Vec<_> = here
            .uses
            .iter()
            .filter(|binding| binding.public && !binding.hidden)
            .cloned()
            .collect();
        for (name, item_cfg) in names {
            let mut all = cfg.to_vec();
            all.extend(item_cfg);
            let definition = (krate.to_owned(), module.to_owned(), name.clone());
            self.paths
                .insert(format!("{prefix}::{name}"), (definition, all));
        }
        for (name, path, _) in children {
            let mut all = cfg.to_vec();
            all.extend(self.crates[krate].modules[&path].cfg.iter().cloned());
            self.module(krate, &path, &format!("{prefix}::{name}"), &dedup(all));
        }
        for binding in uses {
            let mut all = cfg.to_vec();
            all.extend(binding.cfg.iter().cloned());
            let Some((target_crate, target, item)) = self.resolve(krate, module, &binding.path)
            else {
                self.paths.insert(
                    format!("{prefix}::{}", binding.name),
                    (
                        ("extern".into(), binding.path.join("::"), String::new()),
                        all,
                    ),
                );
                continue;
            };
            match (binding.name.as_str(), item) {
                ("*", _) => self.module(&target_crate, &target, prefix, &all),
                (name, None) => {
                    self.module(&target_crate, &target, &format!("{prefix}::{name}"), &all)
                }
                (name, Some(item)) => {
                    let definition = (target_crate, target, item);
                    self.paths
                        .insert(format!("{prefix}::{name}"), (definition, all));
                }
            }
        }
    }

    /// Resolves a `use` path of `module`, across the workspace's crates.
    fn resolve(
        &self,
        krate: &str,
        module: &str,
        path: &[String],
    ) -> Option<(String, String, Option<String>)> {
        if let Some(other) = self.crates.get(&path[0])
            && other.name != krate
        {
            let mut inner = vec!["crate".to_owned()];
            inner.extend_from_slice(&path[1..]);
            let (module, item) = resolve(other, "", &inner)?;
            return Some((other.name.clone(), module, item));
        }
        let (module, item) = resolve(&self.crates[krate], module, path)?;
        Some((krate.to_owned(), module, item))
    }

    /// The listing, one line per entry, sorted.
    fn lines(&self) -> Vec<String> {
        let mut canonical: BTreeMap<&Definition, &str> = BTreeMap::new();
        for (path, (definition, _)) in &self.paths {
            let shorter = |other: &str| (path.len(), path.as_str()) < (other.len(), other);
            if canonical.get(definition).is_none_or(|other| shorter(other)) {
                canonical.insert(definition, path);
            }
        }
        let mut lines = BTreeSet::new();
        for (path, cfg) in &self.modules {
            lines.insert(format!("{path}: mod{}", marks(cfg)));
        }
        for (path, (definition, cfg)) in &self.paths {
            if definition.0 == "extern" {
                lines.insert(format!("{path}: pub use {}{}", definition.1, marks(cfg)));
            } else if canonical[definition] != path {
                lines.insert(format!("{path}: = {}{}", canonical[definition], marks(cfg)));
            } else {
                for line in self.describe(path, definition) {
                    lines.insert(format!("{line}{}", marks(cfg)));
                }
            }
        }
        lines.into_iter().collect()
    }

    /// The lines of one item, at `path`.
    fn describe(&self, path: &str, (krate, module, name): &Definition) -> Vec<String> {
        let items = &self.crates[krate].modules[module].items;
        let item = items
            .iter()
            .find(|item| defined_name(item).as_deref() == Some(name.as_str()) && is_public(item))
            .expect("a public item");
        let mut lines = Vec::new();
        let derives = derives(attributes(item));
        match item {
            Item::Fn(function) if is_proc_macro(&function.attrs) => {
                lines.push(format!("{path}: proc-macro attribute"));
            }
            Item::Fn(function) => lines.push(format!("{path}: {}", tokens(&function.sig))),
            Item::Const(constant) => lines.push(format!("{path}: const {}", tokens(&constant.ty))),
            Item::Static(item) => lines.push(format!("{path}: static {}", tokens(&item.ty))),
            Item::Type(alias) => lines.push(format!("{path}: type = {}", tokens(&alias.ty))),
            Item::Macro(_) => lines.push(format!("{path}: macro")),
            Item::Struct(item) => {
                lines.push(format!("{path}: struct{}{derives}", tokens(&item.generics)));
                let mut hidden_fields = false;
                for (index, field) in item.fields.iter().enumerate() {
                    if matches!(field.vis, Visibility::Public(_)) && !is_hidden(&field.attrs) {
                        let name = field
                            .ident
                            .as_ref()
                            .map_or(index.to_string(), ToString::to_string);
                        lines.push(format!("{path}.{name}: {}", tokens(&field.ty)));
                    } else {
                        hidden_fields = true;
                    }
                }
                if hidden_fields {
                    lines.push(format!("{path}: (private fields)"));
                }
            }
            Item::Enum(item) => {
                let exhaustive = if has(&item.attrs, "non_exhaustive") {
                    " #[non_exhaustive]"
                } else {
                    ""
                };
                lines.push(format!(
                    "{path}: enum{}{derives}{exhaustive}",
                    tokens(&item.generics)
                ));
                for variant in &item.variants {
                    if !is_hidden(&variant.attrs) {
                        let fields = fields(&variant.fields);
                        lines.push(format!("{path}::{}{fields}", variant.ident));
                    }
                }
            }
            Item::Trait(item) => {
                let supertraits = if item.supertraits.is_empty() {
                    String::new()
                } else {
                    format!(": {}", tokens(&item.supertraits))
                };
                lines.push(format!(
                    "{path}: trait{}{supertraits}",
                    tokens(&item.generics)
                ));
                for member in &item.items {
                    lines.extend(trait_item(path, member));
                }
            }
            _ => lines.push(format!("{path}: {}", tokens(item))),
        }
        lines.extend(self.impls(path, krate, module, name));
        lines
    }

    /// The public inherent methods and constants of a type, and the traits
    /// it implements, from every impl in its crate whose type resolves to it.
    fn impls(&self, path: &str, krate: &str, module: &str, name: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let source = &self.crates[krate];
        for (at, here) in &source.modules {
            for item in &here.items {
                let Item::Impl(block) = item else { continue };
                let syn::Type::Path(self_type) = &*block.self_ty else {
                    continue;
                };
                let segments: Vec<String> = self_type
                    .path
                    .segments
                    .iter()
                    .map(|segment| segment.ident.to_string())
                    .collect();
                let found = resolve(source, at, &segments);
                if found != Some((module.to_owned(), Some(name.to_owned()))) {
                    continue;
                }
                let marks = marks(&cfgs(&block.attrs));
                if let Some((trait_path, _)) = &block.trait_ {
                    lines.push(format!("{path}: impl {}{marks}", tokens(trait_path)));
                    continue;
                }
                for member in &block.items {
                    let line = match member {
                        ImplItem::Fn(function)
                            if matches!(function.vis, Visibility::Public(_))
                                && !is_hidden(&function.attrs) =>
                        {
                            format!("{path}::{}: {}", function.sig.ident, tokens(&function.sig))
                        }
                        ImplItem::Const(constant)
                            if matches!(constant.vis, Visibility::Public(_))
                                && !is_hidden(&constant.attrs) =>
                        {
                            format!("{path}::{}: const {}", constant.ident, tokens(&constant.ty))
                        }
                        _ => continue,
                    };
                    lines.push(format!("{line}{marks}"));
                }
            }
        }
        lines
    }
}

fn trait_item(path: &str, member: &TraitItem) -> Option<String> {
    let (attrs, line) = match member {
        TraitItem::Fn(function) => {
            let provided = if function.default.is_some() {
                " (provided)"
            } else {
                ""
            };
            (
                &function.attrs,
                format!(
                    "{path}::{}: {}{provided}",
                    function.sig.ident,
                    tokens(&function.sig)
                ),
            )
        }
        TraitItem::Const(constant) => {
            let provided = if constant.default.is_some() {
                " (provided)"
            } else {
                ""
            };
            (
                &constant.attrs,
                format!(
                    "{path}::{}: const {}{provided}",
                    constant.ident,
                    tokens(&constant.ty)
                ),
            )
        }
        TraitItem::Type(alias) => (&alias.attrs, format!("{path}::{}: type", alias.ident)),
        _ => return None,
    };
    (!is_hidden(attrs)).then_some(line)
}

/// A variant's fields as written, their attributes left out.
fn fields(fields: &syn::Fields) -> String {
    let types = fields.iter().map(|field| match &field.ident {
        Some(name) => format!("{name}: {}", tokens(&field.ty)),
        None => tokens(&field.ty),
    });
    let types: Vec<String> = types.collect();
    match fields {
        syn::Fields::Named(_) => format!(" {{ {} }}", types.join(", ")),
        syn::Fields::Unnamed(_) => format!("({})", types.join(", ")),
        syn::Fields::Unit => String::new(),
    }
}

fn is_public(item: &Item) -> bool {
    let vis = match item {
        Item::Const(item) => &item.vis,
        Item::Enum(item) => &item.vis,
        Item::Fn(item) => &item.vis,
        Item::Static(item) => &item.vis,
        Item::Struct(item) => &item.vis,
        Item::Trait(item) => &item.vis,
        Item::Type(item) => &item.vis,
        Item::Union(item) => &item.vis,
        Item::Macro(item) => return has(&item.attrs, "macro_export"),
        _ => return false,
    };
    matches!(vis, Visibility::Public(_))
}

fn has(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs
        .iter()
        .any(|attribute| attribute.path().is_ident(name))
}

fn is_proc_macro(attrs: &[syn::Attribute]) -> bool {
    has(attrs, "proc_macro_attribute")
}

fn derives(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|attribute| attribute.path().is_ident("derive"))
        .map(|attribute| format!(" #[{}]", tokens(&attribute.meta)))
        .collect()
}

fn marks(cfg: &[String]) -> String {
    dedup(cfg.to_vec())
        .iter()
        .map(|cfg| format!(" #[{cfg}]"))
        .collect()
}

fn dedup(mut cfg: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    cfg.retain(|cfg| seen.insert(cfg.clone()));
    cfg
}

#[test]
fn the_public_api_is_the_recorded_one() {
    let listed = Api::read().lines().join("\n") + "\n";
    let file = workspace().join("tests/public-api.txt");
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        std::fs::write(&file, &listed).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&file).unwrap_or_default();
    let recorded: BTreeSet<&str> = recorded.lines().collect();
    let now: BTreeSet<&str> = listed.lines().collect();
    let appeared: Vec<&str> = now.difference(&recorded).copied().collect();
    let disappeared: Vec<&str> = recorded.difference(&now).copied().collect();
    assert!(
        appeared.is_empty() && disappeared.is_empty(),
        "the public API changed (rerun with UPDATE_PUBLIC_API=1 if that is meant, \
         and review tests/public-api.txt)\nappeared:\n  {}\ndisappeared:\n  {}",
        appeared.join("\n  "),
        disappeared.join("\n  ")
    );
}

/// Codegen plumbing is not public: nothing under `annot::rules` or anywhere
/// else is one of the tables and helpers the macro's code calls, and the
/// hidden modules are not reachable.
#[test]
fn codegen_plumbing_is_not_public() {
    let api = Api::read();
    for path in api.paths.keys().chain(api.modules.keys()) {
        let last = path.rsplit("::").next().unwrap_or_default();
        assert!(
            !path.contains("::__private") && !path.starts_with("annot::private"),
            "{path} is reachable"
        );
        assert!(
            ![
                "RuleTable",
                "ActionRow",
                "HintMasks",
                "Outcome",
                "PatternSet",
                "Tri",
                "Resolver",
                "Matches",
                "AlignedBytes",
                "SplitArguments",
                "table_within",
            ]
            .contains(&last),
            "{path} is codegen plumbing"
        );
    }
}
