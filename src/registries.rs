//! Every extension is on its registry's line: a file that implements a
//! renderer, an importer, a renderer data source or a client is listed in
//! its registry. The build refuses most omissions as dead code, but not a
//! domain renderer (its module is public, for the provider), and dead code
//! does not say which line to add; `cargo test --lib` does, since these are
//! unit tests of this crate, which sees every layer's sources. Every data
//! source is named by the naming rule.

use std::fs;
use std::path::Path;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The workspace's root directory.
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One extension point: the files of `dir` that implement `trait_name`
/// must be on a line of the plain list `registry` (a `static`) in
/// `registry_file`, written as `line` shows for a module and a type.
struct Registry {
    dir: &'static str,
    trait_name: &'static str,
    registry_file: &'static str,
    registry: &'static str,
    line: fn(&str, &str) -> Vec<String>,
    shown: fn(&str, &str) -> String,
}

/// The tokens of a plain list's line `&<module>::<Type>,`.
fn reference(module: &str, ty: &str) -> Vec<String> {
    ["&", module, "::", ty].map(str::to_owned).to_vec()
}

const REGISTRIES: &[Registry] = &[
    Registry {
        dir: "crates/domain/src/render",
        trait_name: "Renderer",
        registry_file: "crates/domain/src/render/mod.rs",
        registry: "RENDERERS",
        line: |module, ty| {
            vec![
                "listed".to_owned(),
                "::".to_owned(),
                "<".to_owned(),
                module.to_owned(),
                "::".to_owned(),
                ty.to_owned(),
                ">".to_owned(),
            ]
        },
        shown: |module, ty| format!("listed::<{module}::{ty}>(),"),
    },
    Registry {
        dir: "crates/domain/src/import",
        trait_name: "Importer",
        registry_file: "crates/domain/src/import/registry.rs",
        registry: "IMPORTERS",
        line: reference,
        shown: |module, ty| format!("&{module}::{ty},"),
    },
    Registry {
        dir: "src/provider/data_sources",
        trait_name: "Platform",
        registry_file: "src/provider/data_sources/mod.rs",
        registry: "RENDERERS",
        line: reference,
        shown: |module, ty| format!("&{module}::{ty},"),
    },
    Registry {
        dir: "crates/domain/src/no_proxy/dialect",
        trait_name: "Client",
        registry_file: "crates/domain/src/no_proxy/dialect/mod.rs",
        registry: "CLIENTS",
        line: reference,
        shown: |module, ty| format!("&{module}::{ty},"),
    },
];

/// The types `file` implements `trait_name` for, outside test modules,
/// each with the string literal its `type_name` returns, if it has one.
fn implementors(file: &Path, trait_name: &str) -> Vec<(String, Option<String>)> {
    struct Impls<'a> {
        trait_name: &'a str,
        found: Vec<(String, Option<String>)>,
    }
    impl<'ast> Visit<'ast> for Impls<'_> {
        fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
            let implements = item.trait_.as_ref().is_some_and(|(_, path, _)| {
                path.segments
                    .last()
                    .is_some_and(|s| s.ident == self.trait_name)
            });
            let (true, syn::Type::Path(ty)) = (implements, &*item.self_ty) else {
                return;
            };
            let type_name = item.items.iter().find_map(|member| match member {
                syn::ImplItem::Fn(f) if f.sig.ident == "type_name" => match f.block.stmts.last() {
                    Some(syn::Stmt::Expr(
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }),
                        None,
                    )) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            });
            if let Some(last) = ty.path.segments.last() {
                self.found.push((last.ident.to_string(), type_name));
            }
        }
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if item.ident != "tests" {
                syn::visit::visit_item_mod(self, item);
            }
        }
    }
    let text = fs::read_to_string(file).unwrap();
    let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut impls = Impls {
        trait_name,
        found: Vec::new(),
    };
    impls.visit_file(&syntax);
    impls.found
}

/// `tokens` flattened into `out` (`::` and `=>` as one token each).
fn flatten(tokens: TokenStream, out: &mut Vec<String>) {
    for tree in tokens {
        match tree {
            TokenTree::Group(group) => flatten(group.stream(), out),
            TokenTree::Punct(p) => {
                let joined = out.last().is_some_and(|last| last.len() == 1)
                    && matches!(
                        (out.last().map(String::as_str), p.as_char()),
                        (Some(":"), ':') | (Some("="), '>')
                    );
                if joined {
                    out.last_mut().unwrap().push(p.as_char());
                } else {
                    out.push(p.as_char().to_string());
                }
            }
            other => out.push(other.to_string()),
        }
    }
}

/// The tokens of `file`, flattened (`::` and `=>` as one token each).
fn file_tokens(file: &Path) -> Vec<String> {
    let mut tokens = Vec::new();
    flatten(
        fs::read_to_string(file).unwrap().parse().unwrap(),
        &mut tokens,
    );
    tokens
}

/// The files of each registry's directory (not its subdirectories) that
/// implement its trait for a type no registry line names, each with the
/// line to add.
fn missing_lines(root: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    for registry in REGISTRIES {
        let tokens = file_tokens(&root.join(registry.registry_file));
        let mut files: Vec<_> = fs::read_dir(root.join(registry.dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        let mod_file = format!("{}/mod.rs", registry.dir);
        let declared = file_tokens(&root.join(&mod_file));
        for file in files {
            let module = file.file_stem().unwrap().to_string_lossy().into_owned();
            let item = ["mod", &module, ";"].map(str::to_owned);
            let declare = if declared.windows(3).any(|w| w == item) {
                String::new()
            } else {
                format!("declare `mod {module};` in {mod_file} and ")
            };
            for (ty, _) in implementors(&file, registry.trait_name) {
                let line = (registry.line)(&module, &ty);
                if !tokens.windows(line.len()).any(|w| w == line.as_slice()) {
                    missing.push(format!(
                        "{}/{module}.rs implements {} for {ty}: {declare}add its line `{}` to `{}` in {}",
                        registry.dir,
                        registry.trait_name,
                        (registry.shown)(&module, &ty),
                        registry.registry,
                        registry.registry_file
                    ));
                }
            }
        }
    }
    missing
}

/// Every renderer, importer, renderer data source and client is on its
/// registry's line.
#[test]
fn every_extension_is_on_its_registry_line() {
    let missing = missing_lines(workspace_root());
    assert!(
        missing.is_empty(),
        "extensions left out of their registry:\n{}",
        missing.join("\n")
    );
}

/// The check finds a renderer, an importer, a data source and a client
/// left out of a copy of the registries, and nothing more.
#[test]
fn the_check_catches_a_missing_registry_line() {
    let copy = tempfile::tempdir().unwrap();
    for registry in REGISTRIES {
        let from = workspace_root().join(registry.dir);
        let to = copy.path().join(registry.dir);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(&from).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    assert_eq!(missing_lines(copy.path()), Vec::<String>::new());
    let new_extensions = [
        (
            "crates/domain/src/render/docker.rs",
            "impl Renderer for Docker {}",
        ),
        (
            "crates/domain/src/import/nomad.rs",
            "impl Importer for Docker {}",
        ),
        (
            "src/provider/data_sources/docker.rs",
            "impl Platform for Docker {}",
        ),
        (
            "crates/domain/src/no_proxy/dialect/dotnet.rs",
            "impl Client for DotNet {}",
        ),
    ];
    for (file, text) in new_extensions {
        fs::write(
            copy.path().join(file),
            format!("pub struct Docker;\n{text}\n"),
        )
        .unwrap();
    }
    assert_eq!(
        missing_lines(copy.path()),
        [
            "crates/domain/src/render/docker.rs implements Renderer for Docker: declare `mod docker;` in crates/domain/src/render/mod.rs and add its line `listed::<docker::Docker>(),` to `RENDERERS` in crates/domain/src/render/mod.rs",
            "crates/domain/src/import/nomad.rs implements Importer for Docker: declare `mod nomad;` in crates/domain/src/import/mod.rs and add its line `&nomad::Docker,` to `IMPORTERS` in crates/domain/src/import/registry.rs",
            "src/provider/data_sources/docker.rs implements Platform for Docker: declare `mod docker;` in src/provider/data_sources/mod.rs and add its line `&docker::Docker,` to `RENDERERS` in src/provider/data_sources/mod.rs",
            "crates/domain/src/no_proxy/dialect/dotnet.rs implements Client for DotNet: declare `mod dotnet;` in crates/domain/src/no_proxy/dialect/mod.rs and add its line `&dotnet::DotNet,` to `CLIENTS` in crates/domain/src/no_proxy/dialect/mod.rs",
        ]
    );
}

/// What the lists of renderers and importers lack under `root`: each
/// domain renderer's data source on the same line of the provider's list
/// (with an attribute for each of its options), the files of a renderer
/// (its example with its `versions.tf`, its golden directory, its generated
/// page) and an importer's fixture directory, each named with what to do.
fn gaps(root: &Path) -> Vec<String> {
    use crate::domain::import::importers;
    use crate::domain::render::RENDERERS;
    use crate::domain::InputField;
    use crate::provider::{renderers, NAME};

    let mut gaps = Vec::new();
    let sources = renderers();
    for (line, listed) in RENDERERS.iter().enumerate() {
        let module = listed.module();
        let Some(source) = sources.get(line).filter(|s| s.module() == module) else {
            gaps.push(format!(
                "crates/domain/src/render/{module}.rs is line {} of `RENDERERS` in crates/domain/src/render/mod.rs: \
                 the same line of `RENDERERS` in src/provider/data_sources/mod.rs must be its data source, \
                 `&{module}::<Name>DataSource,` (src/provider/data_sources/{module}.rs)",
                line + 1
            ));
            continue;
        };
        let name = source.type_name();
        let schema = source.schema();
        for option in listed.options() {
            match option {
                InputField::Option(attribute) if schema.attribute(attribute).is_some() => {}
                _ => gaps.push(format!(
                    "{name} has no attribute for the option {option:?} of crates/domain/src/render/{module}.rs"
                )),
            }
        }
        let short = name.strip_prefix(&format!("{NAME}_")).unwrap_or(name);
        let files = [
            (
                format!("examples/data-sources/{name}/data-source.tf"),
                "create it",
            ),
            (
                format!("examples/data-sources/{name}/versions.tf"),
                "create it (the E2E harness copies it with the example)",
            ),
            (
                format!("docs/data-sources/{short}.md"),
                "run `make generate`",
            ),
        ];
        for (file, what) in files {
            if !root.join(&file).is_file() {
                gaps.push(format!("{file} is missing: {what}"));
            }
        }
        let golden = format!("tests/golden/{module}");
        if !fs::read_dir(root.join(&golden)).is_ok_and(|mut d| d.next().is_some()) {
            gaps.push(format!(
                "{golden}/ is missing: give crates/domain/src/render/{module}.rs a test that renders \
                 `tests::settings()` through `tests::golden`, then run `make generate`"
            ));
        }
    }
    for extra in sources.iter().skip(RENDERERS.len()) {
        gaps.push(format!(
            "src/provider/data_sources/{}.rs is listed with no domain renderer on its line",
            extra.module()
        ));
    }
    for importer in importers() {
        let dir = format!("tests/fixtures/import/{}", importer.kind());
        if !fs::read_dir(root.join(&dir)).is_ok_and(|mut d| d.next().is_some()) {
            gaps.push(format!(
                "{dir}/ is missing: add a real artifact of the kind, with its provenance"
            ));
        }
    }
    gaps
}

/// Every listed renderer has its data source on its line and its files,
/// every importer its fixtures.
#[test]
fn every_listed_extension_has_its_data_source_and_files() {
    let gaps = gaps(workspace_root());
    assert!(gaps.is_empty(), "{}", gaps.join("\n"));
}

/// Under a root without the files, the check names each one.
#[test]
fn the_check_names_the_files_to_create() {
    let empty = tempfile::tempdir().unwrap();
    let gaps = gaps(empty.path());
    for want in [
        "examples/data-sources/clusterproxy_talos/data-source.tf is missing: create it",
        "examples/data-sources/clusterproxy_talos/versions.tf is missing: create it (the E2E harness copies it with the example)",
        "docs/data-sources/talos.md is missing: run `make generate`",
        "tests/golden/talos/ is missing: give crates/domain/src/render/talos.rs a test that renders `tests::settings()` through `tests::golden`, then run `make generate`",
        "tests/fixtures/import/docker/ is missing: add a real artifact of the kind, with its provenance",
    ] {
        assert!(gaps.iter().any(|g| g == want), "{want} not in {gaps:#?}");
    }
}

/// `clusterproxy_tkg_config` -> `TkgConfigDataSource` (CONTRIBUTING.md, Code).
fn data_source_struct(type_name: &str) -> String {
    let bare = type_name.strip_prefix("clusterproxy_").unwrap_or(type_name);
    let camel: String = bare
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect();
    camel + "DataSource"
}

/// Every data source's struct is named by the rule, its Terraform type
/// name in UpperCamelCase followed by `DataSource` (a brand keeps its own
/// capitals: `OpenShiftProxyDataSource`), so that it never meets the
/// domain's renderer of the same platform.
#[test]
fn every_data_source_is_named_by_its_type_name() {
    assert_eq!(
        data_source_struct("clusterproxy_tkg_config"),
        "TkgConfigDataSource"
    );
    let dir = workspace_root().join("src/provider/data_sources");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in files {
        for (ty, type_name) in implementors(&file, "DataSource") {
            let type_name = type_name.expect("type_name returns a string literal");
            seen += 1;
            let expected = data_source_struct(&type_name);
            if !ty.eq_ignore_ascii_case(&expected) {
                wrong.push(format!(
                    "{}: `{ty}` ({type_name}) should be `{expected}`",
                    file.strip_prefix(workspace_root()).unwrap().display()
                ));
            }
        }
    }
    assert!(seen > 0, "no data source found in {}", dir.display());
    assert!(
        wrong.is_empty(),
        "data sources named against the rule:\n{}",
        wrong.join("\n")
    );
}
