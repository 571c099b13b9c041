//! The workspace's crates read as source: each crate's module tree (files
//! followed from `mod` declarations), each module's items and the names its
//! `use` declarations bind, and the resolution of a path to the module that
//! defines what it names. Shared by the tests that read the code's shape
//! (`module_layers.rs`, `public_api.rs`); they compile nothing.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Item, UseTree, Visibility};

/// One crate: its modules by path (`""` for the root, `"server::builder"`).
pub struct Crate {
    pub name: String,
    pub modules: BTreeMap<String, Module>,
}

/// One module, inline or in its own file.
pub struct Module {
    /// The file it is written in, relative to the workspace.
    pub file: String,
    /// Its items, nested modules excepted (they are modules of their own).
    pub items: Vec<Item>,
    /// Its child modules, by name.
    pub children: Vec<String>,
    /// Declared `pub` all the way from the crate root.
    pub public: bool,
    /// `#[doc(hidden)]` on its declaration or on one of its parents'.
    pub hidden: bool,
    /// The `#[cfg(...)]` conditions on its declaration and its parents'.
    pub cfg: Vec<String>,
    /// What its `use` declarations bind.
    pub uses: Vec<Binding>,
}

/// One name a `use` declaration binds: `use a::b::{C as D}` binds `D` to
/// `a::b::C`; a glob binds no name (`name` is `*`).
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub path: Vec<String>,
    /// A re-export (`pub use`, `pub(crate) use`...), not a dependency of
    /// the module itself.
    pub reexport: bool,
    /// The visibility as written, for the public API (`pub` only).
    pub public: bool,
    pub hidden: bool,
    pub cfg: Vec<String>,
}

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Reads the crate `name` whose root file is `root` (relative to `base`).
/// Modules under `#[cfg(test)]` are left out.
pub fn read_crate(name: &str, base: &Path, root: &str) -> Crate {
    let mut krate = Crate {
        name: name.to_owned(),
        modules: BTreeMap::new(),
    };
    let file = parse(&base.join(root));
    let dir = base
        .join(root)
        .parent()
        .expect("a file has a directory")
        .to_owned();
    add_module(
        &mut krate,
        base,
        "",
        root,
        dir,
        file.items,
        true,
        false,
        vec![],
    );
    krate
}

fn parse(path: &Path) -> syn::File {
    let text =
        fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[allow(clippy::too_many_arguments)]
fn add_module(
    krate: &mut Crate,
    base: &Path,
    path: &str,
    file: &str,
    dir: PathBuf,
    items: Vec<Item>,
    public: bool,
    hidden: bool,
    cfg: Vec<String>,
) {
    let mut own = Vec::new();
    let mut children = Vec::new();
    let mut uses = Vec::new();
    for item in items {
        match item {
            Item::Mod(module) => {
                if is_test(&module.attrs) {
                    continue;
                }
                let name = module.ident.to_string();
                let child_path = join(path, &name);
                let child_public = public && matches!(module.vis, Visibility::Public(_));
                let child_hidden = hidden || is_hidden(&module.attrs);
                let mut child_cfg = cfg.clone();
                child_cfg.extend(cfgs(&module.attrs));
                children.push(name.clone());
                let (child_file, child_dir, child_items) = match module.content {
                    Some((_, items)) => (file.to_owned(), dir.join(&name), items),
                    None => {
                        let flat = dir.join(format!("{name}.rs"));
                        let nested = dir.join(&name).join("mod.rs");
                        let found = if flat.exists() { flat } else { nested };
                        let relative = found
                            .strip_prefix(base)
                            .expect("inside the workspace")
                            .to_string_lossy()
                            .into_owned();
                        (relative, dir.join(&name), parse(&found).items)
                    }
                };
                add_module(
                    krate,
                    base,
                    &child_path,
                    &child_file,
                    child_dir,
                    child_items,
                    child_public,
                    child_hidden,
                    child_cfg,
                );
            }
            Item::Use(declaration) if is_test(&declaration.attrs) => {}
            Item::Use(declaration) => {
                let reexport = !matches!(declaration.vis, Visibility::Inherited);
                let public = matches!(declaration.vis, Visibility::Public(_));
                let mut bound = Vec::new();
                flatten(&declaration.tree, &mut Vec::new(), &mut bound);
                for (name, path) in bound {
                    uses.push(Binding {
                        name,
                        path,
                        reexport,
                        public,
                        hidden: is_hidden(&declaration.attrs),
                        cfg: cfgs(&declaration.attrs),
                    });
                }
                own.push(Item::Use(declaration));
            }
            other => {
                if !is_test(attributes(&other)) {
                    own.push(other);
                }
            }
        }
    }
    krate.modules.insert(
        path.to_owned(),
        Module {
            file: file.to_owned(),
            items: own,
            children,
            public,
            hidden,
            cfg,
            uses,
        },
    );
}

/// The names a use tree binds, with their full paths as written.
fn flatten(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let name = name.ident.to_string();
            if name == "self" {
                out.push((prefix.last().cloned().unwrap_or_default(), prefix.clone()));
            } else {
                let mut full = prefix.clone();
                full.push(name.clone());
                out.push((name, full));
            }
        }
        UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            let name = rename.ident.to_string();
            if name != "self" {
                full.push(name);
            }
            out.push((rename.rename.to_string(), full));
        }
        UseTree::Glob(_) => out.push(("*".to_owned(), prefix.clone())),
        UseTree::Group(group) => {
            for tree in &group.items {
                flatten(tree, prefix, out);
            }
        }
    }
}

pub fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}::{name}")
    }
}

pub fn parent(path: &str) -> String {
    path.rsplit_once("::")
        .map_or(String::new(), |(parent, _)| parent.to_owned())
}

/// The attributes of an item.
pub fn attributes(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(item) => &item.attrs,
        Item::Enum(item) => &item.attrs,
        Item::ExternCrate(item) => &item.attrs,
        Item::Fn(item) => &item.attrs,
        Item::ForeignMod(item) => &item.attrs,
        Item::Impl(item) => &item.attrs,
        Item::Macro(item) => &item.attrs,
        Item::Mod(item) => &item.attrs,
        Item::Static(item) => &item.attrs,
        Item::Struct(item) => &item.attrs,
        Item::Trait(item) => &item.attrs,
        Item::TraitAlias(item) => &item.attrs,
        Item::Type(item) => &item.attrs,
        Item::Union(item) => &item.attrs,
        Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module's namespace, if any.
pub fn defined_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(item) => &item.ident,
        Item::Enum(item) => &item.ident,
        Item::Fn(item) => &item.sig.ident,
        Item::Macro(item) => item.ident.as_ref()?,
        Item::Static(item) => &item.ident,
        Item::Struct(item) => &item.ident,
        Item::Trait(item) => &item.ident,
        Item::Type(item) => &item.ident,
        Item::Union(item) => &item.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

fn text(attribute: &Attribute) -> String {
    attribute
        .meta
        .to_token_stream()
        .to_string()
        .replace(' ', "")
}

/// Under `#[cfg(test)]`.
pub fn is_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attribute| text(attribute) == "cfg(test)")
}

/// `#[doc(hidden)]`.
pub fn is_hidden(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|attribute| text(attribute) == "doc(hidden)")
}

/// The `#[cfg(...)]` conditions, as written.
pub fn cfgs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .map(text)
        .filter(|text| text.starts_with("cfg("))
        .collect()
}

/// Where a path leads, read from `module`: the module defining what it names
/// (re-exports followed) and that item's name (`None` when the path names a
/// module itself or a glob). `None` when it leaves the crate (another crate,
/// `std`, a local name).
pub fn resolve(krate: &Crate, module: &str, path: &[String]) -> Option<(String, Option<String>)> {
    resolve_within(krate, module, path, 0, &mut Vec::new())
}

/// [`resolve`], and the modules whose re-exports (`pub use`, `pub(crate)
/// use`, globs included) the path went through on the way, other than
/// `module` itself: `crate::private::f`, with `f` defined in
/// `private::decimal` and re-exported by `private`, leads to
/// `private::decimal` through `private`.
pub fn resolve_through(
    krate: &Crate,
    module: &str,
    path: &[String],
) -> Option<(String, Option<String>, Vec<String>)> {
    let mut through = Vec::new();
    let (target, item) = resolve_within(krate, module, path, 0, &mut through)?;
    through.retain(|at| at != module);
    through.dedup();
    Some((target, item, through))
}

fn resolve_within(
    krate: &Crate,
    module: &str,
    path: &[String],
    depth: usize,
    through: &mut Vec<String>,
) -> Option<(String, Option<String>)> {
    if depth > 16 || path.is_empty() {
        return None;
    }
    let mut at = module.to_owned();
    let mut rest = path;
    match rest[0].as_str() {
        "crate" => {
            at = String::new();
            rest = &rest[1..];
        }
        "self" => rest = &rest[1..],
        "super" => {
            while rest.first().map(String::as_str) == Some("super") {
                at = parent(&at);
                rest = &rest[1..];
            }
        }
        first if first == krate.name => {
            at = String::new();
            rest = &rest[1..];
        }
        first => {
            let here = krate.modules.get(module)?;
            if !here.children.iter().any(|child| child == first)
                && defined(krate, module, first).is_none()
            {
                // A name a `use` of this module binds, else not the crate's.
                let binding = here.uses.iter().find(|binding| binding.name == first)?;
                let mut full = binding.path.clone();
                full.extend_from_slice(&rest[1..]);
                return resolve_within(krate, module, &full, depth + 1, through);
            }
        }
    }
    walk(krate, at, rest, depth, through)
}

/// Follows `rest` down from the module `at`.
fn walk(
    krate: &Crate,
    mut at: String,
    mut rest: &[String],
    depth: usize,
    through: &mut Vec<String>,
) -> Option<(String, Option<String>)> {
    loop {
        let Some(name) = rest.first() else {
            return Some((at, None));
        };
        let module = krate.modules.get(&at)?;
        if module.children.iter().any(|child| child == name) {
            at = join(&at, name);
            rest = &rest[1..];
            continue;
        }
        if let Some(found) = defined(krate, &at, name) {
            return Some((found, Some(name.clone())));
        }
        // A name bound by a `use` here, or one a glob here brings in.
        if let Some(binding) = module.uses.iter().find(|binding| &binding.name == name) {
            let mut full = binding.path.clone();
            full.extend_from_slice(&rest[1..]);
            if binding.reexport {
                through.push(at.clone());
            }
            return resolve_within(krate, &at, &full, depth + 1, through);
        }
        for glob in module.uses.iter().filter(|binding| binding.name == "*") {
            let mut full = glob.path.clone();
            full.extend_from_slice(rest);
            let mut inner = Vec::new();
            if let Some(found) = resolve_within(krate, &at, &full, depth + 1, &mut inner) {
                if glob.reexport {
                    through.push(at.clone());
                }
                through.extend(inner);
                return Some(found);
            }
        }
        return Some((at, Some(name.clone())));
    }
}

/// `module` itself when it defines an item named `name`.
fn defined(krate: &Crate, module: &str, name: &str) -> Option<String> {
    let items = &krate.modules.get(module)?.items;
    items
        .iter()
        .any(|item| defined_name(item).as_deref() == Some(name))
        .then(|| module.to_owned())
}

/// A syntax tree as compact text (`Option<&'static str>`): the token
/// stream's spacing removed where Rust's style has none.
pub fn tokens(node: &impl ToTokens) -> String {
    let mut text = node.to_token_stream().to_string();
    for (spaced, tight) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
        (" :", ":"),
        ("# ", "#"),
        ("? ", "?"),
        (" (", "("),
        ("' ", "'"),
        ("- >", "->"),
    ] {
        text = text.replace(spaced, tight);
    }
    text.replace(")->", ") ->").replace(">->", "> ->")
}
