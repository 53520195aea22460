//! The layers are crates of the workspace, so a wrong-way import does not
//! compile; this test keeps the crates' dependencies one way (the domain and
//! the framework know neither each other nor the provider) and finds import
//! circles between sibling modules in every crate (issue 33).
//!
//! Every `use` tree and every `crate::`/`super::`/`self::` path outside
//! comments and literals counts, test modules included; a path to an item a
//! module re-exports (`pub use`) counts as a path to where the item lives.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A module path below the crate root (`["no_proxy", "merge"]`).
type ModPath = Vec<String>;

/// The workspace's crates: package name and source root.
const CRATES: &[(&str, &str)] = &[
    ("clusterproxy-cancel", "crates/cancel/src"),
    ("clusterproxy-domain", "crates/domain/src"),
    ("clusterproxy-framework", "crates/framework/src"),
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
];

/// Import circles that are known and scheduled to go, as `crate: parent: a -> b -> a`;
/// the test fails once one is no longer found, so that it is removed here too.
const PENDING: &[&str] = &[];

/// One source file, read.
struct Source {
    /// The paths the file names: (absolute path, line), each resolved from
    /// the module it is written in.
    refs: Vec<(ModPath, usize)>,
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
/// `dialect.rs` / `render.rs` circle of issue 33), through a re-export and a
/// nested `use` tree too, and not one a comment or a string names.
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
    assert!(Crate::read(src).circles_under(&[]).is_empty());
}

impl Crate {
    /// Reads every `.rs` file under `root` except the binary's `main.rs`.
    fn read(root: &Path) -> Self {
        let mut files = Vec::new();
        collect(root, &mut files);
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
                for (target, _) in &source.refs {
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

/// Every `.rs` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
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

/// A token of Rust source: an identifier or keyword, `::`, or one other character.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

/// The tokens of `text`, without comments, string, byte and char literals
/// (their contents never name a module).
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                match (at(i), at(i + 1)) {
                    ('/', '*') => (depth, i) = (depth + 1, i + 2),
                    ('*', '/') => (depth, i) = (depth - 1, i + 2),
                    ('\0', _) => break,
                    (ch, _) => {
                        line += usize::from(ch == '\n');
                        i += 1;
                    }
                }
                if depth == 0 {
                    break;
                }
            }
        } else if let Some((raw, hashes, body)) = string_opening(&chars, i) {
            i = body;
            loop {
                match at(i) {
                    '\0' => break,
                    '\\' if !raw => {
                        line += usize::from(at(i + 1) == '\n');
                        i += 2;
                    }
                    '"' if (1..=hashes).all(|k| at(i + k) == '#') => {
                        i += 1 + hashes;
                        break;
                    }
                    ch => {
                        line += usize::from(ch == '\n');
                        i += 1;
                    }
                }
            }
        } else if c == '\'' {
            // A char literal (`'x'`, `'\n'`, `'\u{1f}'`), else a lifetime.
            if at(i + 1) == '\\' {
                i += 3;
                while at(i) != '\'' && at(i) != '\0' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                line,
            });
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// Where a string literal (plain, byte or raw: `r#"..."#`) opens at
/// `chars[i]`: whether it is raw, its `#` count and where its text starts;
/// `None` for anything else (an identifier such as `r` or `b` included).
fn string_opening(chars: &[char], i: usize) -> Option<(bool, usize, usize)> {
    let prefix = chars[i..]
        .iter()
        .take_while(|c| matches!(c, 'b' | 'r'))
        .count()
        .min(2);
    let hashes = chars[i + prefix..]
        .iter()
        .take_while(|&&c| c == '#')
        .count();
    let quote = chars.get(i + prefix + hashes) == Some(&'"');
    let raw = chars[i..i + prefix].contains(&'r');
    (quote && (raw || hashes == 0)).then_some((raw, hashes, i + prefix + hashes + 1))
}

impl Source {
    /// Reads the paths `text` names, written in the module `module` (and the
    /// inline modules in it); `known` are the crate's file modules.
    fn parse(module: &[String], text: &str, known: &BTreeSet<ModPath>) -> Self {
        let tokens = tokens(text);
        let mut source = Source {
            refs: Vec::new(),
            reexports: BTreeMap::new(),
        };
        // The inline modules open at each point, with the brace depth inside them.
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0;
        let mut i = 0;
        while i < tokens.len() {
            let here: ModPath = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(name, _)| name.clone()))
                .collect();
            let text = tokens[i].text.as_str();
            match text {
                "{" => depth += 1,
                "}" => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth -= 1;
                }
                "mod" if tokens.get(i + 2).is_some_and(|t| t.text == "{") => {
                    inline.push((tokens[i + 1].text.clone(), depth + 1));
                    depth += 1;
                    i += 3;
                    continue;
                }
                "use" => {
                    let public =
                        i > 0 && (tokens[i - 1].text == "pub" || tokens[i - 1].text == ")");
                    let line = tokens[i].line;
                    let mut end = i + 1;
                    while end < tokens.len() && tokens[end].text != ";" {
                        end += 1;
                    }
                    let mut leaves = Vec::new();
                    use_tree(&tokens[i + 1..end], &[], &mut leaves);
                    for (written, alias) in leaves {
                        let Some(target) = absolute(&here, &written, known) else {
                            continue;
                        };
                        if public && inline.is_empty() {
                            if let Some(alias) = alias {
                                source.reexports.insert(alias, target.clone());
                            }
                        }
                        source.refs.push((target, line));
                    }
                    i = end + 1;
                    continue;
                }
                "crate" | "super" | "self" if tokens.get(i + 1).is_some_and(|t| t.text == "::") => {
                    let line = tokens[i].line;
                    let mut written = vec![text.to_owned()];
                    let mut j = i + 1;
                    while tokens.get(j).is_some_and(|t| t.text == "::")
                        && tokens.get(j + 1).is_some_and(|t| is_ident(&t.text))
                    {
                        written.push(tokens[j + 1].text.clone());
                        j += 2;
                    }
                    if let Some(target) = absolute(&here, &written, known) {
                        source.refs.push((target, line));
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        source
    }
}

/// True for an identifier or keyword token.
fn is_ident(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The leaves of a `use` tree: each full path as written, with the name it
/// binds (`None` for a glob).
fn use_tree(tokens: &[Token], prefix: &[String], leaves: &mut Vec<(Vec<String>, Option<String>)>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].text.as_str() {
            "::" => i += 1,
            "{" => {
                // Split the group at its top-level commas.
                let mut depth = 0;
                let mut start = i + 1;
                for j in i + 1..tokens.len() {
                    match tokens[j].text.as_str() {
                        "{" => depth += 1,
                        "}" if depth == 0 => {
                            use_tree(&tokens[start..j], &path, leaves);
                            return;
                        }
                        "}" => depth -= 1,
                        "," if depth == 0 => {
                            use_tree(&tokens[start..j], &path, leaves);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            "*" => {
                leaves.push((path, None));
                return;
            }
            "as" => {
                let alias = tokens.get(i + 1).map(|t| t.text.clone());
                leaves.push((path, alias));
                return;
            }
            name if is_ident(name) => {
                path.push(name.to_owned());
                i += 1;
            }
            _ => i += 1,
        }
    }
    if path.len() > prefix.len() {
        // `use a::{self}` binds `a`.
        if path.last().is_some_and(|p| p == "self") {
            path.pop();
        }
        let alias = path.last().cloned();
        leaves.push((path, alias));
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
