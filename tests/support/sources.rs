//! The workspace's Rust sources, for the tests that read them with syn.

use std::path::{Path, PathBuf};

/// The source roots of the workspace's crates: `crates/*/src` and `src`,
/// relative to the workspace root.
pub fn source_roots() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut roots: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    roots.sort();
    roots.push(root.join("src"));
    roots
}

/// The workspace root (the root crate's manifest directory).
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A path written in a macro's tokens, which syn leaves unparsed.
pub struct TokenPath {
    /// Its segments: `a::b::c` is `["a", "b", "c"]`.
    pub segments: Vec<String>,
    /// Whether `( ... )` follows it: a call.
    pub called: bool,
}

/// Every path in `tokens`, those in nested groups included, in order.
pub fn token_paths(tokens: proc_macro2::TokenStream) -> Vec<TokenPath> {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut paths = Vec::new();
    let mut segments = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Ident(ident) => {
                segments.push(ident.to_string());
                if let [TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(_), ..] =
                    &trees[i + 1..]
                {
                    if a.as_char() == ':' && b.as_char() == ':' {
                        i += 3;
                        continue;
                    }
                }
                let called = matches!(
                    trees.get(i + 1),
                    Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis
                );
                paths.push(TokenPath {
                    segments: std::mem::take(&mut segments),
                    called,
                });
            }
            TokenTree::Group(group) => paths.extend(token_paths(group.stream())),
            _ => {}
        }
        i += 1;
    }
    paths
}
