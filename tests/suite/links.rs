//! The docs point at what exists. Every relative link in README.md,
//! CONTRIBUTING.md and docs/ leads to a file (and its `#anchor` to a heading
//! or an `<a id>` of that file); every repository path the contributor docs
//! (README.md, CONTRIBUTING.md, docs/dev/) name in backticks exists; and
//! CONTRIBUTING.md's map names every crate, test binary, bench, fuzz target
//! and script, so that a new one is documented where contributors look.
//! Fenced code blocks are not read: they hold commands, not references.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files below `dir` (relative to the root), recursively.
pub(crate) fn markdown_below(dir: &str) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            return;
        };
        for entry in entries {
            let relative = dir.join(entry.unwrap().file_name());
            if root.join(&relative).is_dir() {
                walk(root, &relative, found);
            } else if relative.extension().is_some_and(|ext| ext == "md") {
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    let mut found = Vec::new();
    walk(&root(), Path::new(dir), &mut found);
    found.sort();
    found
}

/// The contributor docs: the files whose backticked paths name the
/// repository's own files.
fn contributor_docs() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned(), "CONTRIBUTING.md".to_owned()];
    docs.extend(markdown_below("docs/dev"));
    docs
}

/// Every doc whose links are checked: the contributor docs and docs/.
fn all_docs() -> Vec<String> {
    let mut docs = vec!["README.md".to_owned(), "CONTRIBUTING.md".to_owned()];
    docs.extend(markdown_below("docs"));
    docs
}

/// The text of `doc`; a doc this test checks must exist.
fn read(doc: &str) -> String {
    fs::read_to_string(root().join(doc)).unwrap_or_else(|err| panic!("read {doc}: {err}"))
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The targets of the inline links (`[text](target)`) of `text`.
fn link_targets(text: &str) -> Vec<&str> {
    prose(text)
        .flat_map(|line| line.split("](").skip(1))
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target))
        .map(|target| target.split_whitespace().next().unwrap_or_default())
        .collect()
}

/// The anchors of a Markdown file: its headings as GitHub spells their ids
/// (lower case, blanks as `-`, punctuation but `-` and `_` dropped, `-1`,
/// `-2`... after a repeated one) and its `<a id="...">` / `<a name="...">`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in prose(text) {
        if let Some(heading) = line.strip_prefix('#') {
            let slug: String = heading
                .trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect();
            let unique = (0..)
                .map(|n| match n {
                    0 => slug.clone(),
                    n => format!("{slug}-{n}"),
                })
                .find(|candidate| !found.contains(candidate))
                .unwrap();
            found.insert(unique);
        }
        for attribute in ["<a id=\"", "<a name=\""] {
            for rest in line.split(attribute).skip(1) {
                if let Some((id, _)) = rest.split_once('"') {
                    found.insert(id.to_owned());
                }
            }
        }
    }
    found
}

/// Every relative link of `doc` that leads nowhere: a missing file, or an
/// anchor the file lacks.
fn broken_links(doc: &str) -> Vec<String> {
    let text = read(doc);
    let dir = Path::new(doc).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for target in link_targets(&text) {
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
        let linked = if file.is_empty() {
            root().join(doc)
        } else {
            root().join(dir).join(file)
        };
        if !linked.exists() {
            broken.push(format!("{doc}: {target} (no file {})", linked.display()));
        } else if !anchor.is_empty()
            && linked.is_file()
            && !anchors(&fs::read_to_string(&linked).unwrap_or_default()).contains(anchor)
        {
            broken.push(format!("{doc}: {target} (no heading or id `{anchor}`)"));
        }
    }
    broken
}

/// The top-level names .gitignore lists (`/target`): made by builds and
/// tools, never in a fresh checkout, so a doc may name paths below them.
fn ignored_top_level() -> BTreeSet<String> {
    read(".gitignore")
        .lines()
        .filter_map(|line| line.strip_prefix('/'))
        .filter(|name| !name.contains('/'))
        .map(str::to_owned)
        .collect()
}

/// The repository paths `text` names in backticks outside code blocks: a
/// span without blanks or placeholders, holding a `/`, whose first
/// component is a checked-in top-level file or directory; a Rust item after
/// the path (`src/provider/mod.rs::readme_table`) is cut off.
fn named_paths(text: &str) -> Vec<String> {
    let ignored = ignored_top_level();
    let top_level =
        |name: &str| !name.is_empty() && !ignored.contains(name) && root().join(name).exists();
    prose(text)
        .flat_map(|line| line.split('`').skip(1).step_by(2))
        .filter(|span| span.contains('/') && !span.contains(|c: char| " <>*{}$|".contains(c)))
        .map(|span| span.split("::").next().unwrap_or(span))
        .filter(|path| top_level(path.split('/').next().unwrap_or_default()))
        .map(str::to_owned)
        .collect()
}

/// Every relative link in the docs reaches an existing file, and its anchor
/// a heading or id of that file.
#[test]
fn every_relative_link_resolves() {
    let broken: Vec<String> = all_docs()
        .iter()
        .flat_map(|doc| broken_links(doc))
        .collect();
    assert!(
        broken.is_empty(),
        "links that lead nowhere (fix the link, or the heading it names):\n{}",
        broken.join("\n")
    );
}

/// Every repository path the contributor docs name in backticks exists.
#[test]
fn every_path_the_contributor_docs_name_exists() {
    let missing: Vec<String> = contributor_docs()
        .iter()
        .flat_map(|doc| {
            named_paths(&read(doc))
                .into_iter()
                .filter(|path| !root().join(path).exists())
                .map(move |path| format!("{doc}: `{path}`"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "paths named in the docs that do not exist (a moved or renamed file: name its new path):\n{}",
        missing.join("\n")
    );
}

/// The names of the entries of `dir` (relative to the root) that `keep`
/// accepts, sorted.
fn entries(dir: &str, keep: impl Fn(&Path) -> bool) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root().join(dir))
        .unwrap_or_else(|err| panic!("read {dir}: {err}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| keep(path))
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// CONTRIBUTING.md names every crate, test binary (`--test name`), bench
/// (`--bench name`), fuzz target and script, so that a contributor finds
/// each in its map and the map cannot fall behind.
#[test]
fn contributing_maps_every_crate_test_binary_bench_fuzz_target_and_script() {
    let mut expected: Vec<String> = Vec::new();
    expected.extend(
        entries("crates", |p| p.is_dir())
            .iter()
            .map(|c| format!("`crates/{c}/`")),
    );
    expected.extend(
        entries("tests", |p| p.join("main.rs").is_file())
            .iter()
            .map(|t| format!("--test {t}")),
    );
    expected.extend(
        entries("benches", |p| p.extension().is_some_and(|e| e == "rs"))
            .iter()
            .filter_map(|b| b.strip_suffix(".rs").map(str::to_owned))
            .map(|b| format!("--bench {b}")),
    );
    expected.extend(
        entries("fuzz/fuzz_targets", |p| p.is_file())
            .iter()
            .map(|f| format!("`fuzz/fuzz_targets/{f}`")),
    );
    expected.extend(
        entries("scripts", |p| p.is_file())
            .iter()
            .map(|s| format!("`scripts/{s}`")),
    );
    let contributing = read("CONTRIBUTING.md");
    let unnamed: Vec<&String> = expected
        .iter()
        .filter(|name| !contributing.contains(name.as_str()))
        .collect();
    assert!(
        unnamed.is_empty(),
        "CONTRIBUTING.md does not name {unnamed:?}: add each to its map (what it holds, when to run it)"
    );
}

/// README.md links every user guide in docs/guides/, so that a new guide is
/// found from the front page.
#[test]
fn readme_links_every_user_guide() {
    let readme = read("README.md");
    let linked: BTreeSet<&str> = link_targets(&readme).into_iter().collect();
    let unlinked: Vec<String> = markdown_below("docs/guides")
        .into_iter()
        .filter(|guide| !linked.contains(guide.as_str()))
        .collect();
    assert!(
        unlinked.is_empty(),
        "README.md's \"Guides\" does not link {unlinked:?}: add a line for each"
    );
}
