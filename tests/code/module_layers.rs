//! No import circle among the modules of a crate: the modules form layers,
//! each depending only on those below it.
//!
//! Module A depends on module B when A's own code names something B defines:
//! through a `use` declaration, or a path in its code that starts with
//! `crate::`, `super::`, `self::` or the name of a child module. Re-exports
//! are followed to the module that defines the item, and every module whose
//! re-export the path goes through is a dependency too: naming
//! `crate::private::with_inexact_integers`, defined in `private::decimal`
//! and re-exported by `private`, depends on both, since `private` must
//! exist and pass the name on. (Naming `crate::AnnotatedTool` depends on
//! `tool` and on the crate root, whose own code, if any, must then not
//! depend back.)
//! A `mod` declaration is not a dependency (a parent owns its children), nor
//! is a re-export (`pub use`, `pub(crate) use`), which only passes a name on,
//! nor a visibility (`pub(super)`).
//! Modules under `#[cfg(test)]` are left out: they test their parent.
//!
//! A failure names every circle found, as `a -> b -> a`, each step with the
//! item that makes it.

use crate::source_support;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use source_support::{Crate, read_crate, resolve_through, workspace};
use syn::visit::Visit;

/// For each module, the modules it depends on, each with one item that
/// makes the dependency (for the report).
type Graph = BTreeMap<String, BTreeMap<String, String>>;

fn dependencies(krate: &Crate) -> Graph {
    let mut graph = Graph::new();
    for (path, module) in &krate.modules {
        let edges = graph.entry(path.clone()).or_default();
        let mut add = |segments: &[String]| {
            let Some((target, item, through)) = resolve_through(krate, path, segments) else {
                return;
            };
            let why = item.unwrap_or_else(|| "*".to_owned());
            for module in through.into_iter().chain([target]) {
                if module != *path {
                    edges.entry(module).or_insert_with(|| why.clone());
                }
            }
        };
        for binding in module.uses.iter().filter(|binding| !binding.reexport) {
            add(&binding.path);
        }
        let mut paths = Paths {
            children: &module.children,
            found: Vec::new(),
        };
        for item in &module.items {
            if !matches!(item, syn::Item::Use(_)) {
                paths.visit_item(item);
            }
        }
        for segments in paths.found {
            add(&segments);
        }
    }
    graph
}

/// The paths in a module's code that lead into the crate.
struct Paths<'a> {
    children: &'a [String],
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths<'_> {
    /// `pub(super)` names who may see an item, not something it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path
            .segments
            .iter()
            .map(|segment| segment.ident.to_string())
            .collect();
        let first = segments.first().map(String::as_str).unwrap_or_default();
        let into_crate = matches!(first, "crate" | "super" | "self")
            || (segments.len() > 1 && self.children.iter().any(|child| child == first));
        if into_crate && path.leading_colon.is_none() {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }
}

/// Every circle of the graph, one per strongly connected component of more
/// than one module: the shortest way round from its first module, each step
/// as `module (item)`.
fn circles(graph: &Graph) -> Vec<String> {
    let mut reported = BTreeSet::new();
    let mut found = Vec::new();
    for start in graph.keys() {
        if reported.contains(start) {
            continue;
        }
        let Some(cycle) = shortest_cycle(graph, start) else {
            continue;
        };
        let component = component(graph, start);
        reported.extend(component.iter().cloned());
        let mut text = display(start);
        for step in cycle.windows(2) {
            let why = &graph[&step[0]][&step[1]];
            text.push_str(&format!(" -> {} ({why})", display(&step[1])));
        }
        found.push(format!(
            "{text}   [{} modules in this knot: {}]",
            component.len(),
            component
                .iter()
                .map(|m| display(m))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    found
}

fn display(module: &str) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.to_owned()
    }
}

/// The shortest path from `start` back to itself, both ends included.
fn shortest_cycle(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.to_owned()]);
    while let Some(at) = queue.pop_front() {
        for next in graph.get(&at).into_iter().flat_map(BTreeMap::keys) {
            if next == start {
                let mut path = vec![at.clone()];
                let mut back = at.clone();
                while back != start {
                    back = came_from[&back].clone();
                    path.push(back.clone());
                }
                path.reverse();
                path.push(start.to_owned());
                return Some(path);
            }
            if !came_from.contains_key(next) && next != start {
                came_from.insert(next.clone(), at.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

/// The modules on some circle through `start`: those it reaches that reach it.
fn component(graph: &Graph, start: &str) -> BTreeSet<String> {
    let reach = |from: &str, reverse: bool| {
        let mut seen = BTreeSet::from([from.to_owned()]);
        let mut queue = VecDeque::from([from.to_owned()]);
        while let Some(at) = queue.pop_front() {
            let next: Vec<String> = if reverse {
                graph
                    .iter()
                    .filter(|(_, edges)| edges.contains_key(&at))
                    .map(|(module, _)| module.clone())
                    .collect()
            } else {
                graph
                    .get(&at)
                    .into_iter()
                    .flat_map(BTreeMap::keys)
                    .cloned()
                    .collect()
            };
            for module in next {
                if seen.insert(module.clone()) {
                    queue.push_back(module);
                }
            }
        }
        seen
    };
    let forward = reach(start, false);
    let backward = reach(start, true);
    forward.intersection(&backward).cloned().collect()
}

fn assert_layered(krate: &Crate) {
    let circles = circles(&dependencies(krate));
    assert!(
        circles.is_empty(),
        "import circles among the modules of {}:\n{}",
        krate.name,
        circles.join("\n")
    );
}

/// The workspace's members as the root `Cargo.toml` lists them, each with its
/// crate roots: a library's `src/lib.rs`, a binary's `src/main.rs`. A crate
/// added to the workspace is checked without a line here.
fn workspace_crates() -> Vec<(String, String)> {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|line| line.strip_prefix("members = ["))
        .expect("the workspace lists its members on one line");
    let mut crates = vec![("annot".to_owned(), "src/lib.rs".to_owned())];
    for member in members.trim_end_matches(']').split(',') {
        let member = member.trim().trim_matches('"');
        for root in ["src/lib.rs", "src/main.rs"] {
            if workspace().join(member).join(root).exists() {
                crates.push((member.replace('-', "_"), format!("{member}/{root}")));
            }
        }
    }
    crates
}

#[test]
fn no_workspace_crate_has_an_import_circle() {
    let crates = workspace_crates();
    // The five crates of the workspace when this test was written, at least.
    for expected in [
        "annot_macros",
        "annot_model",
        "annot_rules",
        "annot_runtime",
        "annot_audit",
    ] {
        assert!(
            crates.iter().any(|(name, _)| name == expected),
            "{expected} is not read from the workspace's members"
        );
    }
    for (name, root) in &crates {
        assert_layered(&read_crate(name, &workspace(), root));
    }
}

/// The checker itself, on a crate written here: it passes the crate as
/// layered, then finds the circle of three modules that one more path in
/// code makes (through a `use`, a re-export and that path), and names it.
#[test]
fn a_circle_is_found_and_named() {
    let dir = std::env::temp_dir().join(format!("annot-module-layers-{}", std::process::id()));
    let write = |file: &str, text: &str| {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "src/lib.rs",
        "mod a; mod b; pub mod c; pub use c::Deep;\n#[cfg(test)] mod tests;",
    );
    write("src/a.rs", "use crate::b::Bee; pub struct Ay(Bee);");
    write("src/b.rs", "pub struct Bee(crate::Deep);");
    write("src/c/mod.rs", "mod inner; pub use inner::Deep;");
    write("src/c/inner.rs", "pub struct Deep;");
    write("src/tests.rs", "use super::*;");
    let krate = read_crate("demo", &dir, "src/lib.rs");
    let found = circles(&dependencies(&krate));
    // The re-exports lead to `c::inner` through `c` and the root, none of
    // which depends on anything.
    assert!(found.is_empty(), "{found:?}");
    write("src/c/inner.rs", "pub struct Deep(crate::a::Ay);");
    let krate = read_crate("demo", &dir, "src/lib.rs");
    let found = circles(&dependencies(&krate));
    assert_eq!(
        found,
        ["a -> b (Bee) -> c::inner (Deep) -> a (Ay)   [3 modules in this knot: a, b, c::inner]"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A circle through a re-export: `tool` names a function of `private` that
/// `private::decimal` defines, and `private`'s own code names `tool`'s
/// error. `private` and `tool` depend on each other although the function
/// is defined in neither; the circle is gone once `tool` no longer goes
/// through `private`.
#[test]
fn a_circle_through_a_reexport_is_found() {
    let dir = std::env::temp_dir().join(format!("annot-module-reexport-{}", std::process::id()));
    let write = |file: &str, text: &str| {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("src/lib.rs", "mod decimal; mod private; mod tool;");
    write("src/decimal.rs", "pub fn exact() {}");
    write(
        "src/private/mod.rs",
        "mod decimal; pub use decimal::exact;\n\
         use crate::tool::Error; pub fn object() -> Error { todo!() }",
    );
    write("src/private/decimal.rs", "pub fn exact() {}");
    write(
        "src/tool.rs",
        "pub struct Error; pub fn parse() { crate::private::exact() }",
    );
    let krate = read_crate("demo", &dir, "src/lib.rs");
    let found = circles(&dependencies(&krate));
    assert_eq!(
        found,
        ["private -> tool (Error) -> private (exact)   [2 modules in this knot: private, tool]"]
    );
    // The same through a glob re-export.
    write(
        "src/private/mod.rs",
        "mod decimal; pub use decimal::*;\n\
         use crate::tool::Error; pub fn object() -> Error { todo!() }",
    );
    let krate = read_crate("demo", &dir, "src/lib.rs");
    assert_eq!(circles(&dependencies(&krate)).len(), 1);
    // `tool` names the function where it is defined, below both.
    write(
        "src/tool.rs",
        "pub struct Error; pub fn parse() { crate::decimal::exact() }",
    );
    let krate = read_crate("demo", &dir, "src/lib.rs");
    let found = circles(&dependencies(&krate));
    assert!(found.is_empty(), "{found:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
