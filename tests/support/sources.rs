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
