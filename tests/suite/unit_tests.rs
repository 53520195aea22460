//! `cargo test --lib` needs nothing but the Rust toolchain: no unit test of a
//! workspace crate runs an external program, so that a newcomer's first run
//! passes on a machine with only Rust. A test that needs a program (a shell,
//! systemd, a validator, a real client) lives in the oracles binary
//! (tests/oracles/), which finds the program through tests/support/tools.rs,
//! so that a missing one fails that test naming the tool and how to get it.
//!
//! The sources are read with syn: unit-test code is a `#[test]` function, or
//! any function in a `#[cfg(test)]` module or file; it runs a program when it
//! names `process::Command` (std's or tokio's, also through a `use`), or calls
//! by name a function (test code or not) that runs one, directly or through
//! further calls. Calls inside macro calls (`assert_eq!(run(..), ..)`) count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::sources::{rust_files, source_roots, token_paths, workspace_root};

#[test]
fn unit_tests_run_no_external_program() {
    let root = workspace_root();
    let files: Vec<(PathBuf, String)> = source_roots()
        .iter()
        .flat_map(|dir| rust_files(dir))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path.strip_prefix(root).unwrap().to_owned(), text)
        })
        .collect();
    assert!(files.len() > 50, "read {} files", files.len());
    let found = programs_in_unit_tests(&files);
    assert!(
        found.is_empty(),
        "unit tests run external programs, so `cargo test --lib` needs more than Rust; move each \
         of these tests to the oracles binary (tests/oracles/), finding its program through \
         tests/support/tools.rs:\n{}",
        found.join("\n")
    );
}

/// The check finds a program run by a test directly, through a `use`, and
/// through a helper called inside an assertion, in inline and out-of-line
/// test modules, and leaves programs run outside tests alone, and a call to
/// another module's function of a helper's name.
#[test]
fn the_check_catches_programs_in_unit_tests() {
    let files = [
        (
            "a/src/lib.rs",
            r#"
            mod helpers;
            pub fn spawn() { std::process::Command::new("x"); }
            #[cfg(not(test))]
            fn also_not_a_test() { let _ = std::process::Command::new("y"); }
            #[cfg(test)]
            mod tests;
            #[cfg(all(test, unix))]
            mod inline {
                use std::process::Command as Run;
                #[test]
                fn direct() { Run::new("sh").status().unwrap(); }
                fn pure() -> u8 { 1 }
                #[test]
                fn no_program() { assert_eq!(pure(), 1); }
            }
            #[test]
            fn through_the_library() { spawn(); }
            "#,
        ),
        (
            "a/src/helpers.rs",
            "pub fn deep() { crate::spawn() }\npub fn harmless() {}\n",
        ),
        (
            "a/src/tests.rs",
            "#[test]\nfn wrapped() { assert!(super::helpers::deep() == ()); }\n#[test]\nfn fine() { super::helpers::harmless() }\n#[test]\nfn other_deep() { other::deep() }\n",
        ),
    ]
    .map(|(path, text)| (PathBuf::from(path), text.to_owned()));
    assert_eq!(
        programs_in_unit_tests(&files),
        [
            "a/src/lib.rs: `direct` names process::Command",
            "a/src/lib.rs: `through_the_library` calls `spawn`, which runs a program",
            "a/src/tests.rs: `wrapped` calls `super::helpers::deep`, which runs a program",
        ]
    );
}

/// A function read from the sources.
struct Function {
    /// Its file, relative to the workspace root.
    file: PathBuf,
    /// The file's path components and the inline modules it is in.
    module: Vec<String>,
    name: String,
    /// Unit-test code: a `#[test]`, or in a `#[cfg(test)]` module or file.
    test: bool,
    /// Names `process::Command` itself.
    runs: bool,
    /// The paths of the functions it calls, as written.
    calls: BTreeSet<Vec<String>>,
}

impl Function {
    /// Whether the call `path`, written in `caller` whose file imports
    /// `imports`, may call this function: the same name, and written in the
    /// same file, imported by name, or qualified by modules this function
    /// is in (`trust::tests::run_isolated`).
    fn answers(&self, path: &[String], caller: &Function, imports: &BTreeSet<String>) -> bool {
        let Some((name, qualifier)) = path.split_last() else {
            return false;
        };
        if *name != self.name {
            return false;
        }
        let qualifier: Vec<&String> = qualifier
            .iter()
            .filter(|s| !["crate", "super", "self", "Self"].contains(&s.as_str()))
            .collect();
        if qualifier.is_empty() {
            caller.file == self.file || path.len() > 1 || imports.contains(name)
        } else {
            qualifier.iter().all(|s| self.module.contains(s))
        }
    }
}

/// One line per unit-test function of `files` (path relative to the
/// workspace root, text) that runs a program, naming its file.
fn programs_in_unit_tests(files: &[(PathBuf, String)]) -> Vec<String> {
    let parsed: Vec<(&Path, syn::File)> = files
        .iter()
        .map(|(path, text)| {
            let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.as_path(), file)
        })
        .collect();
    let test_modules: BTreeSet<PathBuf> = parsed
        .iter()
        .flat_map(|(path, file)| out_of_line_test_modules(path, file))
        .collect();
    let mut functions = Vec::new();
    let mut imports: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for (path, file) in &parsed {
        let in_test_module = test_modules.iter().any(|module| {
            *path == module.with_extension("rs").as_path() || path.starts_with(module)
        });
        let mut reader = Reader {
            file: path.to_path_buf(),
            module: path
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect(),
            aliases: BTreeSet::new(),
            imports: BTreeSet::new(),
            test_depth: usize::from(in_test_module),
            open: Vec::new(),
            functions: Vec::new(),
        };
        reader.visit_file(file);
        functions.extend(reader.functions);
        imports.insert(path.to_path_buf(), reader.imports);
    }
    // The functions that run a program, directly or through calls, by name.
    let mut running: BTreeMap<&str, Vec<&Function>> = BTreeMap::new();
    let runs_through = |caller: &Function, running: &BTreeMap<&str, Vec<&Function>>| {
        caller
            .calls
            .iter()
            .find(|call| {
                call.last()
                    .and_then(|name| running.get(name.as_str()))
                    .is_some_and(|callees| {
                        callees
                            .iter()
                            .any(|callee| callee.answers(call, caller, &imports[&caller.file]))
                    })
            })
            .cloned()
    };
    for function in functions.iter().filter(|f| f.runs) {
        running.entry(&function.name).or_default().push(function);
    }
    loop {
        let more: Vec<&Function> = functions
            .iter()
            .filter(|f| {
                !f.runs
                    && !running
                        .get(f.name.as_str())
                        .is_some_and(|r| r.iter().any(|g| std::ptr::eq(*g, *f)))
            })
            .filter(|f| runs_through(f, &running).is_some())
            .collect();
        if more.is_empty() {
            break;
        }
        for function in more {
            running.entry(&function.name).or_default().push(function);
        }
    }
    let mut found = BTreeMap::new();
    for function in functions.iter().filter(|f| f.test) {
        let how = if function.runs {
            "names process::Command".to_owned()
        } else if let Some(called) = runs_through(function, &running) {
            format!("calls `{}`, which runs a program", called.join("::"))
        } else {
            continue;
        };
        found.insert(
            (function.file.clone(), function.name.clone()),
            format!("{}: `{}` {how}", function.file.display(), function.name),
        );
    }
    found.into_values().collect()
}

/// The modules `file` declares out of line under `#[cfg(test)]` (`mod
/// tests;`), as paths without extension: `a/b/tests` stands for `a/b/tests.rs`
/// and everything under `a/b/tests/`.
fn out_of_line_test_modules(path: &Path, file: &syn::File) -> Vec<PathBuf> {
    let name = path.file_stem().unwrap().to_string_lossy();
    let dir = path.parent().unwrap();
    let dir = if ["lib", "main", "mod"].contains(&name.as_ref()) {
        dir.to_owned()
    } else {
        dir.join(name.as_ref())
    };
    let mut out = Vec::new();
    collect_test_modules(&file.items, &dir, false, &mut out);
    out
}

fn collect_test_modules(items: &[syn::Item], dir: &Path, test: bool, out: &mut Vec<PathBuf>) {
    for item in items {
        if let syn::Item::Mod(module) = item {
            let test = test || is_test(&module.attrs);
            let path = dir.join(module.ident.to_string());
            match &module.content {
                None if test => out.push(path),
                None => {}
                Some((_, items)) => collect_test_modules(items, &path, test, out),
            }
        }
    }
}

/// `#[test]` (any `…::test`), or a `#[cfg]` that holds only under test.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if path.is_ident("cfg") {
            let syn::Meta::List(list) = &attr.meta else {
                return false;
            };
            cfg_needs_test(list.tokens.clone())
        } else {
            path.segments.last().is_some_and(|s| s.ident == "test")
        }
    })
}

/// Whether a `cfg` predicate names `test` outside `not(…)` (`test`,
/// `all(test, unix)`).
fn cfg_needs_test(tokens: TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(ident) if ident == "test" => true,
        TokenTree::Group(group) => {
            let negated = matches!(i.checked_sub(1).map(|j| &trees[j]), Some(TokenTree::Ident(n)) if n == "not");
            !negated && cfg_needs_test(group.stream())
        }
        _ => false,
    })
}

/// Reads the functions of one file.
struct Reader {
    file: PathBuf,
    /// The file's path components and the inline modules being read.
    module: Vec<String>,
    /// The names the file's `use` items bind.
    imports: BTreeSet<String>,
    /// The names `process::Command` is imported under in this file.
    aliases: BTreeSet<String>,
    /// How many enclosing items are test code.
    test_depth: usize,
    /// The functions being read, innermost last.
    open: Vec<Function>,
    functions: Vec<Function>,
}

impl Reader {
    fn function(
        &mut self,
        name: &syn::Ident,
        attrs: &[syn::Attribute],
        visit: impl FnOnce(&mut Self),
    ) {
        let test = is_test(attrs);
        self.test_depth += usize::from(test);
        self.open.push(Function {
            file: self.file.clone(),
            module: self.module.clone(),
            name: name.to_string(),
            test: self.test_depth > 0,
            runs: false,
            calls: BTreeSet::new(),
        });
        visit(self);
        self.functions.extend(self.open.pop());
        self.test_depth -= usize::from(test);
    }

    /// Records what the current function names.
    fn note(&mut self, runs: bool, call: Option<Vec<String>>) {
        if let Some(function) = self.open.last_mut() {
            function.runs |= runs;
            function.calls.extend(call);
        }
    }

    /// Whether the path segments name `process::Command`.
    fn names_command(&self, segments: &[String]) -> bool {
        segments
            .windows(2)
            .any(|pair| pair[0] == "process" && pair[1] == "Command")
            || segments.first().is_some_and(|s| self.aliases.contains(s))
    }

    /// The imports of `process::Command` in a `use` tree below `prefix`.
    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        let in_process = prefix.last().is_some_and(|p| p == "process");
        match tree {
            syn::UseTree::Name(name) => {
                self.imports.insert(name.ident.to_string());
            }
            syn::UseTree::Rename(rename) => {
                self.imports.insert(rename.rename.to_string());
            }
            _ => {}
        }
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(&path.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(tree, prefix);
                }
            }
            syn::UseTree::Glob(_) if in_process => {
                self.aliases.insert("Command".to_owned());
            }
            syn::UseTree::Name(name) if in_process && name.ident == "Command" => {
                self.aliases.insert("Command".to_owned());
            }
            syn::UseTree::Rename(rename) if in_process && rename.ident == "Command" => {
                self.aliases.insert(rename.rename.to_string());
            }
            _ => {}
        }
    }

    /// Calls and paths in the tokens of a macro call, which syn leaves
    /// unparsed: `name(` is a call, `a::b::c` a path.
    fn tokens(&mut self, tokens: TokenStream) {
        for path in token_paths(tokens) {
            let runs = self.names_command(&path.segments);
            let call = path.called.then_some(path.segments);
            self.note(runs, call);
        }
    }
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let test = is_test(&item.attrs);
        self.test_depth += usize::from(test);
        self.module.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.module.pop();
        self.test_depth -= usize::from(test);
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.function(&item.sig.ident, &item.attrs, |reader| {
            visit::visit_item_fn(reader, item)
        });
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.function(&item.sig.ident, &item.attrs, |reader| {
            visit::visit_impl_item_fn(reader, item)
        });
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&item.tree, &mut Vec::new());
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let runs = self.names_command(&segments);
        self.note(runs, None);
        visit::visit_path(self, path);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(path) = &*call.func {
            let written = path.path.segments.iter().map(|s| s.ident.to_string());
            self.note(false, Some(written.collect()));
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }
}
