//! The layers are crates of the workspace, so a wrong-way import does not
//! compile; this test keeps the crates' dependencies one way (the domain and
//! the framework know neither each other nor the provider) and finds import
//! circles between sibling modules in every crate (a circle makes two
//! files one unit: neither can be read, tested or moved alone).
//!
//! The sources are read with syn (Rust's grammar, so the layout does not
//! matter): every `use` tree and every `crate::`/`super::`/`self::` path
//! counts, in macro calls too, test modules included; a path to an item a
//! module re-exports (`pub use`) counts as a path to where the item lives.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use syn::visit::{self, Visit};

use crate::sources::{rust_files, token_paths};

/// A module path below the crate root (`["no_proxy", "merge"]`).
type ModPath = Vec<String>;

/// The workspace's crates: package name and source root.
const CRATES: &[(&str, &str)] = &[
    ("clusterproxy-cancel", "crates/cancel/src"),
    ("clusterproxy-domain", "crates/domain/src"),
    ("clusterproxy-framework", "crates/framework/src"),
    ("clusterproxy-artifacts", "crates/artifacts/src"),
    ("terraform-provider-clusterproxy", "src"),
];

/// The crates each crate may not depend on, in any kind of dependency.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "clusterproxy-cancel",
        &[
            "clusterproxy-domain",
            "clusterproxy-framework",
            "terraform-provider-clusterproxy",
        ],
    ),
    (
        "clusterproxy-domain",
        &["clusterproxy-framework", "terraform-provider-clusterproxy"],
    ),
    (
        "clusterproxy-framework",
        &["clusterproxy-domain", "terraform-provider-clusterproxy"],
    ),
    // The I/O layer beside the framework: it reads the files the domain
    // classifies, and knows nothing of the plugin protocol.
    (
        "clusterproxy-artifacts",
        &["clusterproxy-framework", "terraform-provider-clusterproxy"],
    ),
];

/// What the domain's production code may not name: it is handed names and
/// bytes, and never reads a file, a directory, the environment or a process.
const DOMAIN_IO: &[&[&str]] = &[
    &["std", "fs"],
    &["std", "os"],
    &["std", "io"],
    &["std", "env"],
    &["std", "process"],
    &["std", "path"],
    &["libc"],
];

/// The domain is pure: no file, directory or system call in its production
/// code (test code, `#[cfg(test)]` or `test-support`, may read fixtures),
/// and no `libc` among its dependencies.
#[test]
fn the_domain_does_no_io() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/domain");
    let found = io_paths(&root.join("src"));
    assert!(
        found.is_empty(),
        "the domain's production code does I/O (move it to crates/artifacts, which hands the domain names and bytes):\n{}",
        found.join("\n")
    );
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let dependencies = manifest
        .split("\n[")
        .find(|table| table.starts_with("dependencies]"))
        .unwrap_or_default();
    assert!(
        !dependencies.lines().any(|l| l.starts_with("libc")),
        "crates/domain/Cargo.toml depends on libc"
    );
}

/// The check finds I/O in production code, in `use` trees and paths and
/// macro calls alike, and passes over test code.
#[test]
fn the_io_check_catches_io() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| fs::write(src.join(rel), text).unwrap();
    write(
        "lib.rs",
        "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nfn t() { std::fs::read(\"x\"); }\n",
    );
    write("a.rs", "use std::{fs, io::Read as _};\n");
    write(
        "b.rs",
        "pub fn f() { let _ = format!(\"{}\", libc::O_NONBLOCK); }\n#[cfg(any(test, feature = \"test-support\"))]\npub fn g() { std::env::var(\"X\"); }\n",
    );
    write("tests.rs", "use std::fs;\n");
    let found = io_paths(src);
    assert_eq!(
        found,
        [
            "a.rs: std::fs",
            "a.rs: std::io::Read",
            "b.rs: libc::O_NONBLOCK"
        ],
        "{found:?}"
    );
}

/// The paths of [`DOMAIN_IO`] that the production modules of the crate
/// rooted at `src/lib.rs` name, as `file: path`.
fn io_paths(src: &Path) -> Vec<String> {
    struct Io {
        file: String,
        found: Vec<String>,
        /// The `use` path above the tree being read.
        prefix: Vec<String>,
    }
    impl Io {
        fn check(&mut self, written: &[String]) {
            if DOMAIN_IO.iter().any(|io| {
                written.starts_with(&io.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            }) {
                self.found
                    .push(format!("{}: {}", self.file, written.join("::")));
            }
        }
    }
    /// Test-only code: `#[cfg(test)]`, `#[cfg(any(test, ...))]`.
    fn test_only(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|a| {
            a.path().is_ident("cfg")
                && token_paths(
                    a.meta
                        .require_list()
                        .map(|l| l.tokens.clone())
                        .unwrap_or_default(),
                )
                .iter()
                .any(|p| p.segments == ["test"])
        })
    }
    impl<'ast> Visit<'ast> for Io {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let attrs = match item {
                syn::Item::Fn(i) => &i.attrs,
                syn::Item::Mod(i) => &i.attrs,
                syn::Item::Use(i) => &i.attrs,
                syn::Item::Impl(i) => &i.attrs,
                syn::Item::Struct(i) => &i.attrs,
                syn::Item::Const(i) => &i.attrs,
                syn::Item::Static(i) => &i.attrs,
                syn::Item::Macro(i) => &i.attrs,
                _ => return visit::visit_item(self, item),
            };
            if !test_only(attrs) {
                visit::visit_item(self, item);
            }
        }
        fn visit_use_path(&mut self, path: &'ast syn::UsePath) {
            self.prefix.push(path.ident.to_string());
            visit::visit_use_path(self, path);
            self.prefix.pop();
        }
        fn visit_use_name(&mut self, name: &'ast syn::UseName) {
            let path = [self.prefix.clone(), vec![name.ident.to_string()]].concat();
            self.check(&path);
        }
        fn visit_use_rename(&mut self, rename: &'ast syn::UseRename) {
            let path = [self.prefix.clone(), vec![rename.ident.to_string()]].concat();
            self.check(&path);
        }
        fn visit_use_glob(&mut self, _: &'ast syn::UseGlob) {
            let path = self.prefix.clone();
            self.check(&path);
        }
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let written: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.check(&written);
            visit::visit_path(self, path);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            for path in token_paths(mac.tokens.clone()) {
                self.check(&path.segments);
            }
            visit::visit_macro(self, mac);
        }
    }
    /// The child modules `file` declares outside test code.
    fn production_children(syntax: &syn::File) -> Vec<String> {
        syntax
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Mod(m) if m.content.is_none() && !test_only(&m.attrs) => {
                    Some(m.ident.to_string())
                }
                _ => None,
            })
            .collect()
    }
    let mut found = Vec::new();
    let mut queue = vec![src.join("lib.rs")];
    while let Some(file) = queue.pop() {
        let text = fs::read_to_string(&file).unwrap();
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let dir = children_dir(&file);
        for name in production_children(&syntax) {
            queue.extend(
                [
                    dir.join(format!("{name}.rs")),
                    dir.join(&name).join("mod.rs"),
                ]
                .into_iter()
                .filter(|f| f.exists()),
            );
        }
        let mut io = Io {
            file: file.strip_prefix(src).unwrap().display().to_string(),
            found: Vec::new(),
            prefix: Vec::new(),
        };
        io.visit_file(&syntax);
        found.extend(io.found);
    }
    found.sort();
    found
}

/// Import circles that are known and scheduled to go, as `crate: parent: a -> b -> a`;
/// the test fails once one is no longer found, so that it is removed here too.
const PENDING: &[&str] = &[];

/// One source file, read.
struct Source {
    /// The paths the file names, each resolved from the module it is
    /// written in.
    refs: Vec<ModPath>,
    /// The names the file's own module re-exports, with their paths.
    reexports: BTreeMap<String, ModPath>,
}

/// The crate read from `root` (a `src/` directory): module path to source.
struct Crate {
    sources: BTreeMap<ModPath, Source>,
}

#[test]
fn crates_depend_one_way_only() {
    let output = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let listed: BTreeSet<&str> = CRATES.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, listed, "the workspace's crates and CRATES differ");
    let mut violations = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap();
        let Some((_, forbidden)) = FORBIDDEN.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        for dependency in package["dependencies"].as_array().unwrap() {
            let target = dependency["name"].as_str().unwrap();
            if forbidden.contains(&target) {
                violations.push(format!("{name} depends on {target}"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "wrong-way dependencies: {violations:?}"
    );
}

#[test]
fn no_crate_imports_in_a_circle() {
    let mut circles = Vec::new();
    for (name, root) in CRATES {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
        let krate = Crate::read(&root);
        circles.extend(
            krate
                .circles_under(&[])
                .into_iter()
                .map(|c| format!("{name}: {c}")),
        );
    }
    let unexpected: Vec<&String> = circles
        .iter()
        .filter(|c| !PENDING.contains(&c.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "import circles:\n{}",
        unexpected
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for pending in PENDING {
        assert!(
            circles.iter().any(|c| c == pending),
            "{pending} is gone: remove it from PENDING"
        );
    }
}

/// The check finds what it is for: a circle between two sibling files (the
/// shape of a `dialect.rs` / `render.rs` circle the engine once had), through a re-export and a
/// nested `use` tree too, whatever the layout, and inside a macro call; and
/// not one a comment or a string names.
#[test]
fn the_check_catches_circles() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |file: &str, text: &str| {
        let file = src.join(file);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    };
    write("lib.rs", "pub mod no_proxy;\npub mod other;\n");
    write("other.rs", "pub fn serve() {}\n");
    write(
        "no_proxy/mod.rs",
        "mod dialect;\nmod render;\npub use dialect::Dialect;\n",
    );
    write(
        "no_proxy/dialect.rs",
        "// use super::merge::x;\nuse super::render::java_expresses;\npub struct Dialect;\n",
    );
    write(
        "no_proxy/render.rs",
        "use crate::{no_proxy::Dialect, other::{serve}};\nconst S: &str = \"crate::other\";\n",
    );
    let circles = Crate::read(src).circles_under(&[]);
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(
        circles[0].contains("no_proxy: dialect -> render -> dialect"),
        "{circles:?}"
    );

    // Across the crate root: `other` and `no_proxy` name each other.
    write("no_proxy/dialect.rs", "pub struct Dialect;\n");
    write(
        "no_proxy/render.rs",
        "use super::Dialect;\nuse crate::other::serve;\n",
    );
    write(
        "other.rs",
        "pub fn serve() { let _ = crate::no_proxy::x; }\n",
    );
    let circles = Crate::read(src).circles_under(&[]);
    assert_eq!(circles, [": no_proxy -> other -> no_proxy"], "{circles:?}");

    // Without the back edges, it passes.
    write("no_proxy/render.rs", "use super::Dialect;\n");
    write("other.rs", "pub fn serve() {}\n");
    assert!(Crate::read(src).circles_under(&[]).is_empty());

    // The grammar, not the layout, decides: a `use` tree reformatted over
    // lines with a renamed leaf, and a path inside a macro call.
    write(
        "no_proxy/dialect.rs",
        "use super ::\n    render::{\n        self as r,\n    };\npub struct Dialect;\n",
    );
    let circles = Crate::read(src).circles_under(&[]);
    assert_eq!(
        circles,
        ["no_proxy: dialect -> render -> dialect"],
        "{circles:?}"
    );
    write("no_proxy/dialect.rs", "pub struct Dialect;\n");
    write(
        "other.rs",
        "pub fn serve() { println!(\"{}\", crate::no_proxy::NAME); }\n",
    );
    write(
        "no_proxy/render.rs",
        "pub fn f() { crate::other::serve() }\n",
    );
    let circles = Crate::read(src).circles_under(&[]);
    assert_eq!(circles, [": no_proxy -> other -> no_proxy"], "{circles:?}");
}

/// Every `.rs` file under a crate's `src/` is a module the crate declares
/// with a `mod` item: a file no module declares is never built, so none of
/// its tests runs and no lint sees it (an importer or a renderer whose
/// `mod` line was forgotten); a file declared inside a macro is built but
/// never formatted, as rustfmt follows only `mod` items. The message names
/// the line to add.
#[test]
fn every_source_file_is_a_module() {
    let mut orphans = Vec::new();
    for (_, root) in CRATES {
        orphans.extend(orphan_files(
            Path::new(env!("CARGO_MANIFEST_DIR")),
            Path::new(root),
        ));
    }
    assert!(
        orphans.is_empty(),
        "files no `mod` item declares:\n{}",
        orphans.join("\n")
    );
}

/// The check finds what it is for: a file nothing declares, a file under a
/// directory nothing declares, and a file a macro declares, but not a file
/// a `mod` item declares.
#[test]
fn the_check_catches_orphan_files() {
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| {
        let file = dir.path().join("src").join(file);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    };
    write("lib.rs", "pub mod import;\n#[cfg(test)]\nmod tests;\n");
    write("tests.rs", "");
    write(
        "import/mod.rs",
        "macro_rules! modules { ($($m:ident,)*) => { $(mod $m;)* }; }\n\
         modules!(docker,);\nmod aks;\nmod found;\n",
    );
    write("import/aks.rs", "pub struct Aks;\n");
    write("import/found.rs", "");
    write("import/found/deep.rs", "");
    write("import/docker.rs", "pub struct Docker;\n");
    write("stray/mod.rs", "mod inner;\n");
    write("stray/inner.rs", "");
    let orphans = orphan_files(dir.path(), Path::new("src"));
    assert_eq!(
        orphans,
        [
            "src/import/docker.rs: add `mod docker;` to src/import/mod.rs (an item, not in a macro: rustfmt follows only items)",
            "src/import/found/deep.rs: add `mod deep;` to src/import/found.rs (an item, not in a macro: rustfmt follows only items)",
            "src/stray/inner.rs: add `mod stray;` to src/lib.rs (an item, not in a macro: rustfmt follows only items)",
            "src/stray/mod.rs: add `mod stray;` to src/lib.rs (an item, not in a macro: rustfmt follows only items)",
        ],
        "{orphans:#?}"
    );
}

/// The files under `workspace`/`root` that no `mod` item of the crate
/// declares, each with the declaration to add to its parent.
fn orphan_files(workspace: &Path, root: &Path) -> Vec<String> {
    let files = rust_files(&workspace.join(root));
    let mut compiled: BTreeSet<PathBuf> = BTreeSet::new();
    let mut queue: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| workspace.join(root).join(f))
        .filter(|f| f.exists())
        .collect();
    while let Some(file) = queue.pop() {
        if !compiled.insert(file.clone()) {
            continue;
        }
        let dir = children_dir(&file);
        for name in declared_modules(&file) {
            for child in [
                dir.join(format!("{name}.rs")),
                dir.join(&name).join("mod.rs"),
            ] {
                if child.exists() {
                    queue.push(child);
                }
            }
        }
    }
    let relative = |f: &Path| f.strip_prefix(workspace).unwrap().display().to_string();
    files
        .iter()
        .filter(|f| !compiled.contains(*f))
        .map(|file| {
            // The first module on the way down that nothing declares.
            let mut module = file.clone();
            let mut parent = parent_file(&module);
            while let Some(p) = parent.as_ref().filter(|p| !compiled.contains(*p)) {
                module = p.clone();
                parent = parent_file(&module);
            }
            let name = module_name(&module);
            match parent {
                None => format!("{}: no parent module", relative(file)),
                Some(parent) => format!(
                    "{}: add `mod {name};` to {} (an item, not in a macro: rustfmt follows only items)",
                    relative(file),
                    relative(&parent)
                ),
            }
        })
        .collect()
}

/// The directory of a file's child modules: its own for `lib.rs`,
/// `main.rs` and `mod.rs`, else `a/` for `a.rs`.
fn children_dir(file: &Path) -> PathBuf {
    let stem = file.file_stem().unwrap();
    if ["lib", "main", "mod"].iter().any(|s| stem == *s) {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    }
}

/// The name of the module a file is: `a` for `a.rs` and `a/mod.rs`.
fn module_name(file: &Path) -> String {
    let path = if file.file_stem().unwrap() == "mod" {
        file.parent().unwrap()
    } else {
        file
    };
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// The file that would declare `file`'s module (`None` at a crate root):
/// `a.rs` or `a/mod.rs` for `a/b.rs`, `lib.rs` or `main.rs` at the top.
fn parent_file(file: &Path) -> Option<PathBuf> {
    let stem = file.file_stem().unwrap();
    if stem == "lib" || stem == "main" {
        return None;
    }
    let module_dir = if stem == "mod" {
        file.parent().unwrap()
    } else {
        file
    };
    let dir = module_dir.parent().unwrap();
    let candidates = [
        dir.join("mod.rs"),
        dir.with_extension("rs"),
        dir.join("lib.rs"),
        dir.join("main.rs"),
    ];
    let found = candidates.into_iter().find(|c| c.exists());
    found.or_else(|| Some(dir.join("mod.rs")))
}

/// The child modules a file declares with `mod <name>;` items (inline
/// `mod name { ... }` blocks hold no file).
fn declared_modules(file: &Path) -> BTreeSet<String> {
    struct Declared(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Declared {
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if item.content.is_none() {
                self.0.insert(item.ident.to_string());
            }
        }
    }
    let text = fs::read_to_string(file).unwrap_or_default();
    let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut declared = Declared(BTreeSet::new());
    declared.visit_file(&syntax);
    declared.0
}

impl Crate {
    /// Reads every `.rs` file under `root` except the binary's `main.rs`.
    fn read(root: &Path) -> Self {
        let files = rust_files(root);
        let modules: BTreeMap<ModPath, PathBuf> = files
            .into_iter()
            .filter(|f| f != &root.join("main.rs"))
            .map(|f| (module_of(root, &f), f))
            .collect();
        let known: BTreeSet<ModPath> = modules.keys().cloned().collect();
        let sources = modules
            .into_iter()
            .map(|(module, file)| {
                let text = fs::read_to_string(&file).unwrap();
                let source = Source::parse(&module, &text, &known);
                (module, source)
            })
            .collect();
        Self { sources }
    }

    /// The module (file) that holds what `target` names: the longest known
    /// module prefix, followed through that module's re-exports.
    fn resolve(&self, target: &[String]) -> ModPath {
        let mut target = target.to_vec();
        for _ in 0..8 {
            let module = (0..=target.len())
                .rev()
                .map(|n| target[..n].to_vec())
                .find(|m| self.sources.contains_key(m))
                .unwrap_or_default();
            let next = target
                .get(module.len())
                .and_then(|name| self.sources.get(&module)?.reexports.get(name));
            match next {
                Some(reexported) => {
                    let mut further = reexported.clone();
                    further.extend_from_slice(&target[module.len() + 1..]);
                    target = further;
                }
                None => return module,
            }
        }
        target
    }

    /// Every import circle among the sibling modules of each module under
    /// `top` (top included), as `parent: a -> b -> a`.
    fn circles_under(&self, top: &[String]) -> Vec<String> {
        let parents: BTreeSet<ModPath> = self
            .sources
            .keys()
            .filter(|m| m.starts_with(top) && m.len() > top.len())
            .map(|m| m[..m.len() - 1].to_vec())
            .collect();
        let mut circles = Vec::new();
        for parent in parents {
            let depth = parent.len();
            let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (module, source) in &self.sources {
                if module.len() <= depth || !module.starts_with(&parent) {
                    continue;
                }
                let from = &module[depth];
                for target in &source.refs {
                    let to = self.resolve(target);
                    if to.len() > depth && to.starts_with(&parent) && &to[depth] != from {
                        edges
                            .entry(from.clone())
                            .or_default()
                            .insert(to[depth].clone());
                    }
                }
            }
            for circle in find_circles(&edges) {
                circles.push(format!("{}: {}", parent.join("::"), circle.join(" -> ")));
            }
        }
        circles
    }
}

/// One path per circle of `edges` (each node's lowest entry first, so a
/// circle is reported once), closed by its first node.
fn find_circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn walk(
        edges: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        trail: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        let last = trail.last().unwrap().clone();
        for next in edges.get(&last).into_iter().flatten() {
            if next == start {
                let mut circle = trail.clone();
                circle.push(next.clone());
                found.push(circle);
            } else if next.as_str() > start && !trail.contains(next) {
                trail.push(next.clone());
                walk(edges, start, trail, found);
                trail.pop();
            }
        }
    }
    let mut found = Vec::new();
    for start in edges.keys() {
        walk(edges, start, &mut vec![start.clone()], &mut found);
    }
    found
}

/// The module a file is: `a/b.rs` and `a/b/mod.rs` are `a::b`; `lib.rs` is the root.
fn module_of(root: &Path, file: &Path) -> ModPath {
    let relative = file.strip_prefix(root).unwrap().with_extension("");
    let mut module: ModPath = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let root_file = module.len() == 1 && module[0] == "lib";
    if root_file || module.last().is_some_and(|m| m == "mod") {
        module.pop();
    }
    module
}

impl Source {
    /// Reads the paths `text` names, written in the module `module` (and the
    /// inline modules in it); `known` are the crate's file modules.
    fn parse(module: &[String], text: &str, known: &BTreeSet<ModPath>) -> Self {
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{module:?}: {e}"));
        let mut reader = Reader {
            here: module.to_vec(),
            depth: 0,
            known,
            source: Source {
                refs: Vec::new(),
                reexports: BTreeMap::new(),
            },
        };
        reader.visit_file(&file);
        reader.source
    }
}

/// Collects a file's paths, knowing the module each is written in.
struct Reader<'a> {
    /// The module being read: the file's, then its inline modules.
    here: ModPath,
    /// How many inline modules deep `here` is.
    depth: usize,
    known: &'a BTreeSet<ModPath>,
    source: Source,
}

impl Reader<'_> {
    /// Records the path `written` (a `use` leaf or a `crate::`/`super::`/
    /// `self::` path), binding `reexport` when the file's own module
    /// re-exports it under that name.
    fn record(&mut self, written: &[String], reexport: Option<&str>) {
        let Some(target) = absolute(&self.here, written, self.known) else {
            return;
        };
        if let Some(name) = reexport.filter(|_| self.depth == 0) {
            self.source
                .reexports
                .insert(name.to_owned(), target.clone());
        }
        self.source.refs.push(target);
    }

    /// Records the leaves of a `use` tree below `prefix`.
    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>, public: bool) {
        let name = match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(&path.tree, prefix, public);
                prefix.pop();
                return;
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(tree, prefix, public);
                }
                return;
            }
            syn::UseTree::Glob(_) => {
                let path = prefix.clone();
                return self.record(&path, None);
            }
            syn::UseTree::Name(name) => (&name.ident, None),
            syn::UseTree::Rename(rename) => (&rename.ident, Some(&rename.rename)),
        };
        let (ident, alias) = name;
        let mut path = prefix.clone();
        // `use a::{self}` binds `a`.
        if ident != "self" {
            path.push(ident.to_string());
        }
        let alias = alias
            .map(ToString::to_string)
            .or_else(|| path.last().cloned());
        self.record(&path, alias.as_deref().filter(|_| public));
    }

    /// Records the `crate::`/`super::`/`self::` paths in the tokens of a
    /// macro call or definition, which syn leaves unparsed.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        for path in token_paths(tokens) {
            let relative = ["crate", "super", "self"].contains(&path.segments[0].as_str());
            if relative && path.segments.len() > 1 {
                self.record(&path.segments, None);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_none() {
            return;
        }
        self.here.push(item.ident.to_string());
        self.depth += 1;
        visit::visit_item_mod(self, item);
        self.depth -= 1;
        self.here.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let public = !matches!(item.vis, syn::Visibility::Inherited);
        self.use_tree(&item.tree, &mut Vec::new(), public);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let written: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if written.len() > 1 && ["crate", "super", "self"].contains(&written[0].as_str()) {
            self.record(&written, None);
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }
}

/// The path `written` in module `here` names, from the crate root; `None`
/// for paths into other crates (`std::`, `ipnet::`) and paths that are no
/// module path.
fn absolute(here: &[String], written: &[String], known: &BTreeSet<ModPath>) -> Option<ModPath> {
    let mut at: ModPath = here.to_vec();
    let mut rest = written;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        // A path that starts at a child module of this one.
        Some(first) => {
            let mut child = here.to_vec();
            child.push(first.to_string());
            if !known.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    at.extend_from_slice(rest);
    Some(at)
}
