//! The public API of `annot`, pinned in `tests/public-api.txt`, so that every
//! change to it shows in review.
//!
//! `cargo public-api` needs a nightly rustdoc; this reads the source instead.
//! From the facade's root it follows `pub mod`, `pub use` (into
//! `annot-runtime`, `annot-model` and `annot-macros`, globs included) and
//! lists every public item reachable: its path and kind, a function's
//! signature, a struct's public fields, an enum's variants, a trait's
//! items, the public methods and constants of the inherent impls of a type,
//! the traits it implements and derives. Items under `#[cfg(...)]` are
//! marked with it.
//!
//! `#[doc(hidden)]` items, and everything reached through a hidden module,
//! are listed too, marked `#[doc(hidden)]`: they are not a user's API but
//! the contract between the code `#[mcp_tool]` generates and the runtime
//! (`annot::__private`, with the `Generated` table each tool's hidden
//! `AnnotatedTool::GENERATED` holds), which the facade's exact pins let
//! change with any release, and whose every change shows in review like the
//! public API's. An item reachable by several paths is described at the
//! shortest public one (else the shortest); the others say what they
//! re-export.
//! `annot-runtime`'s API is the same items under `annot_runtime::` (the
//! facade re-exports all of it).
//!
//! Run with `UPDATE_PUBLIC_API=1` to rewrite the file after a change that is
//! meant; the test fails on any item that appears or disappears.

use crate::source_support;
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
            // A `#[macro_export]` macro is at the crate's root, below.
            if is_public(item)
                && !matches!(item, Item::Macro(_))
                && let Some(name) = defined_name(item)
            {
                names.push((name, marks_of(attributes(item))));
            }
        }
        if module.is_empty() {
            names.extend(self.exported_macros(krate));
        }
        let children: Vec<(String, String, Vec<String>)> = here
            .children
            .iter()
            .map(|child| {
                let path = source_support::join(module, child);
                (child.clone(), path, Vec::new())
            })
            .filter(|(_, path, _)| self.crates[krate].modules[path].public)
            .collect();
        let uses: Vec<_> = here
            .uses
            .iter()
            .filter(|binding| binding.public)
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
            let child = &self.crates[krate].modules[&path];
            if child.hidden {
                all.push(HIDDEN.to_owned());
            }
            all.extend(child.cfg.iter().cloned());
            self.module(krate, &path, &format!("{prefix}::{name}"), &dedup(all));
        }
        for binding in uses {
            let mut all = cfg.to_vec();
            if binding.hidden {
                all.push(HIDDEN.to_owned());
            }
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

    /// The `#[macro_export]` macros of `krate`, wherever they are written,
    /// with their marks; a macro defined under several `cfg`s (one for
    /// each side of a feature) without them.
    fn exported_macros(&self, krate: &str) -> Vec<(String, Vec<String>)> {
        let mut found: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for module in self.crates[krate].modules.values() {
            for item in &module.items {
                if let Item::Macro(_) = item
                    && is_public(item)
                    && let Some(name) = defined_name(item)
                {
                    found
                        .entry(name)
                        .or_default()
                        .push(marks_of(attributes(item)));
                }
            }
        }
        found
            .into_iter()
            .map(|(name, mut marks)| {
                let mut first = marks.swap_remove(0);
                if !marks.is_empty() {
                    first.retain(|mark| !mark.starts_with("cfg("));
                }
                (name, first)
            })
            .collect()
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
            if let Some((module, item)) = resolve(other, "", &inner) {
                return Some((other.name.clone(), module, item));
            }
            // A name its root re-exports from a third crate.
            let [_, name] = path else { return None };
            let binding = other.modules[""]
                .uses
                .iter()
                .find(|binding| &binding.name == name)?;
            return self.resolve(&other.name, "", &binding.path);
        }
        let (module, item) = resolve(&self.crates[krate], module, path)?;
        Some((krate.to_owned(), module, item))
    }

    /// The listing, one line per entry, sorted.
    fn lines(&self) -> Vec<String> {
        // The shortest public path, else the shortest hidden one.
        let mut canonical: BTreeMap<&Definition, &str> = BTreeMap::new();
        let rank = |path: &'_ str| {
            let hidden = self.paths[path].1.iter().any(|mark| mark == HIDDEN);
            (hidden, path.len())
        };
        for (path, (definition, _)) in &self.paths {
            let better = |other: &str| (rank(path), path.as_str()) < (rank(other), other);
            if canonical.get(definition).is_none_or(|other| better(other)) {
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
                let hidden = cfg.iter().any(|mark| mark == HIDDEN);
                for line in self.describe(path, definition, hidden) {
                    lines.insert(format!("{line}{}", marks(cfg)));
                }
            }
        }
        lines.into_iter().collect()
    }

    /// The lines of one item, at `path`; its hidden members marked, unless
    /// the item is `hidden` as a whole (its every line is marked then).
    fn describe(
        &self,
        path: &str,
        (krate, module, name): &Definition,
        hidden: bool,
    ) -> Vec<String> {
        let mark = |attrs: &[syn::Attribute]| {
            if !hidden && is_hidden(attrs) {
                format!(" #[{HIDDEN}]")
            } else {
                String::new()
            }
        };
        let named =
            |item: &&Item| defined_name(item).as_deref() == Some(name.as_str()) && is_public(item);
        let items = &self.crates[krate].modules[module].items;
        // A `#[macro_export]` macro is at the crate's root wherever it is
        // written.
        let exported = || {
            let modules = self.crates[krate].modules.values();
            modules
                .flat_map(|module| &module.items)
                .find(|item| matches!(item, Item::Macro(_)) && named(item))
        };
        let item = items
            .iter()
            .find(named)
            .or_else(|| module.is_empty().then(exported).flatten())
            .unwrap_or_else(|| panic!("{path}: no public item {name} in {krate}::{module}"));
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
                let mut private_fields = false;
                for (index, field) in item.fields.iter().enumerate() {
                    if matches!(field.vis, Visibility::Public(_)) {
                        let name = field
                            .ident
                            .as_ref()
                            .map_or(index.to_string(), ToString::to_string);
                        let mark = mark(&field.attrs);
                        lines.push(format!("{path}.{name}: {}{mark}", tokens(&field.ty)));
                    } else {
                        private_fields = true;
                    }
                }
                if private_fields {
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
                    let fields = fields(&variant.fields);
                    let mark = mark(&variant.attrs);
                    lines.push(format!("{path}::{}{fields}{mark}", variant.ident));
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
                    lines.extend(trait_item(path, member, &mark));
                }
            }
            _ => lines.push(format!("{path}: {}", tokens(item))),
        }
        lines.extend(self.impls(path, krate, module, name, &mark));
        lines
    }

    /// The public inherent methods and constants of a type, and the traits
    /// it implements, from every impl in its crate whose type resolves to it.
    fn impls(
        &self,
        path: &str,
        krate: &str,
        module: &str,
        name: &str,
        mark: &dyn Fn(&[syn::Attribute]) -> String,
    ) -> Vec<String> {
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
                        ImplItem::Fn(function) if matches!(function.vis, Visibility::Public(_)) => {
                            format!(
                                "{path}::{}: {}{}",
                                function.sig.ident,
                                tokens(&function.sig),
                                mark(&function.attrs)
                            )
                        }
                        ImplItem::Const(constant)
                            if matches!(constant.vis, Visibility::Public(_)) =>
                        {
                            format!(
                                "{path}::{}: const {}{}",
                                constant.ident,
                                tokens(&constant.ty),
                                mark(&constant.attrs)
                            )
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

fn trait_item(
    path: &str,
    member: &TraitItem,
    mark: &dyn Fn(&[syn::Attribute]) -> String,
) -> Option<String> {
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
    Some(format!("{line}{}", mark(attrs)))
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

/// The mark of what is hidden from the documentation.
const HIDDEN: &str = "doc(hidden)";

/// The marks an item's own attributes give it: hidden, and its `cfg`s.
fn marks_of(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut marks = Vec::new();
    if is_hidden(attrs) {
        marks.push(HIDDEN.to_owned());
    }
    marks.extend(cfgs(attrs));
    marks
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
/// hidden modules are reachable only as hidden.
#[test]
fn codegen_plumbing_is_not_public() {
    let api = Api::read();
    let marked = api
        .paths
        .iter()
        .map(|(path, (_, marks))| (path, marks))
        .chain(&api.modules);
    let mut hidden = 0;
    for (path, marks) in marked {
        if marks.iter().any(|mark| mark == HIDDEN) {
            hidden += 1;
            continue;
        }
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
                "Generated",
                "table_within",
            ]
            .contains(&last),
            "{path} is codegen plumbing"
        );
    }
    // The hidden contract is read, not skipped.
    assert!(
        api.paths
            .keys()
            .any(|path| path == "annot::__private::Generated"),
        "the contract of the generated code is not listed ({hidden} hidden paths)"
    );
}

/// Every crate of the workspace that depends on another one (the facade,
/// which re-exports `annot-runtime` and `annot-macros`; the runtime, which
/// re-exports `annot-model`; the macro, whose code calls the runtime's
/// hidden contract) takes it at exactly the workspace's version: the
/// hidden contract listed above may change with any release, so a crate
/// built against one version must never meet another. Each dependency goes
/// through `[workspace.dependencies]`, which pins `=<version>`.
#[test]
fn workspace_crates_pin_each_other_exactly() {
    let root = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let version = root
        .lines()
        .skip_while(|line| *line != "[workspace.package]")
        .find_map(|line| line.strip_prefix("version = "))
        .expect("the workspace's version")
        .trim_matches('"');
    let members = root
        .lines()
        .find_map(|line| line.strip_prefix("members = ["))
        .expect("the workspace lists its members on one line");
    let members: Vec<&str> = members
        .trim_end_matches(']')
        .split(',')
        .map(|member| member.trim().trim_matches('"'))
        .collect();
    let declared: Vec<&str> = root
        .lines()
        .skip_while(|line| *line != "[workspace.dependencies]")
        .take_while(|line| !line.starts_with("[package]"))
        .filter(|line| {
            members
                .iter()
                .any(|member| line.starts_with(&format!("{member} ")))
        })
        .collect();
    for line in &declared {
        assert!(
            line.contains(&format!("version = \"={version}\"")),
            "not pinned at ={version}: {line}"
        );
    }
    // Every manifest names the workspace's crates through those pins only.
    let mut facade = Vec::new();
    let manifests = std::iter::once("Cargo.toml".to_owned())
        .chain(members.iter().map(|member| format!("{member}/Cargo.toml")));
    for manifest in manifests {
        let text = std::fs::read_to_string(workspace().join(&manifest)).unwrap();
        let mut section = String::new();
        for line in text.lines() {
            if line.starts_with('[') {
                section = line.to_owned();
                continue;
            }
            if section == "[workspace.dependencies]" || !section.contains("dependencies") {
                continue;
            }
            let Some(name) = members.iter().find(|member| {
                line.starts_with(&format!("{member} ")) || line.starts_with(&format!("{member}."))
            }) else {
                continue;
            };
            assert!(
                line.contains("workspace = true")
                    && declared
                        .iter()
                        .any(|pin| pin.starts_with(&format!("{name} "))),
                "{manifest} {section} takes {name} other than through the workspace's pin: {line}"
            );
            if manifest == "Cargo.toml" && section == "[dependencies]" {
                facade.push(*name);
            }
        }
    }
    facade.sort();
    assert_eq!(
        facade,
        ["annot-macros", "annot-runtime"],
        "the facade's crates"
    );
}
