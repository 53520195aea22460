//! The compatibility guide (`docs/guides/compatibility.md`) against the
//! provider: its tables are written from the registry (every resource,
//! data source, list resource, ephemeral resource, action and function the
//! provider registers) and from `clusterproxy::provider::compatibility` (the
//! first Terraform, OpenTofu and Pulumi release of each capability, with its
//! source), `UPDATE_DOCS=1` rewrites them; every registered part has a row;
//! the E2E tests a row names exist and run where it says; and every version
//! claim of the docs ("Terraform >= 1.11", "OpenTofu 1.7 or later") is one of
//! the table's minimums for that tool.

use std::path::Path;

use clusterproxy::framework::provider::Provider as _;
use clusterproxy::provider::compatibility::{Capability, Support, Tool, Version};
use clusterproxy::provider::ClusterProxy;

use crate::docs::splice;
use crate::links::markdown_below;

/// The guide, relative to the repository's root.
const GUIDE: &str = "docs/guides/compatibility.md";

/// The Terraform versions the E2E tests run (`tests/e2e/terraform.rs`),
/// newest first.
const TESTED: [Version; 3] = [(1, 15, 5), (1, 11, 4), (1, 0, 3)];

/// The newest release of each tool the table covers: a range ends there.
fn newest(tool: Tool) -> &'static str {
    match tool {
        Tool::Terraform => "1.16",
        Tool::OpenTofu => "1.12",
        Tool::Pulumi => "v3.136.0",
    }
}

/// The oldest release of each tool the table covers: a range starts there
/// at the earliest.
fn oldest(tool: Tool) -> Version {
    match tool {
        Tool::Terraform => (1, 0, 0),
        Tool::OpenTofu => (1, 7, 0),
        Tool::Pulumi => (0, 0, 0),
    }
}

/// A kind of thing the provider registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Resource,
    DataSource,
    ListResource,
    EphemeralResource,
    Action,
    Function,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Resource => "resource",
            Kind::DataSource => "data source",
            Kind::ListResource => "list resource",
            Kind::EphemeralResource => "ephemeral resource",
            Kind::Action => "action",
            Kind::Function => "function",
        }
    }

    /// The capability every one of this kind needs.
    fn needs(self) -> Capability {
        match self {
            Kind::Resource | Kind::DataSource => Capability::Protocol6,
            Kind::ListResource => Capability::ListResources,
            Kind::EphemeralResource => Capability::Ephemeral,
            Kind::Action => Capability::Actions,
            Kind::Function => Capability::Functions,
        }
    }
}

/// One registered part: its kind, name, and what of it needs a newer
/// capability than its kind (a write-only argument, import by identity).
struct Item {
    kind: Kind,
    name: String,
    extras: Vec<(String, Capability)>,
}

/// Every part the provider registers, in registry order.
fn items() -> Vec<Item> {
    let provider = ClusterProxy;
    let item = |kind, name: &str| Item {
        kind,
        name: name.to_owned(),
        extras: Vec::new(),
    };
    let mut items = Vec::new();
    for resource in provider.resources() {
        let mut extras: Vec<(String, Capability)> = resource
            .schema()
            .attributes
            .iter()
            .filter(|a| a.write_only)
            .map(|a| (format!("`{}`", a.name), Capability::WriteOnly))
            .collect();
        if resource.identity_schema().is_some() {
            extras.push(("`import { identity }`".to_owned(), Capability::Identity));
        }
        items.push(Item {
            extras,
            ..item(Kind::Resource, resource.type_name())
        });
    }
    items.extend(
        provider
            .data_sources()
            .iter()
            .map(|d| item(Kind::DataSource, d.type_name())),
    );
    items.extend(
        provider
            .list_resources()
            .iter()
            .map(|l| item(Kind::ListResource, l.type_name())),
    );
    items.extend(
        provider
            .ephemeral_resources()
            .iter()
            .map(|e| item(Kind::EphemeralResource, e.type_name())),
    );
    items.extend(
        provider
            .actions()
            .iter()
            .map(|a| item(Kind::Action, a.type_name())),
    );
    items.extend(
        provider
            .functions()
            .iter()
            .map(|f| item(Kind::Function, f.name())),
    );
    items
}

/// How an E2E test picks its Terraform versions.
#[derive(Debug, Clone, Copy)]
enum Runs {
    /// `for_each_terraform`: every version.
    Every,
    /// `for_each_terraform_with(Capability::..)`: those with the capability.
    With(Capability),
    /// `examples::every_example_is_applied`: every version, each example
    /// on those that have what it uses.
    Examples,
}

impl Runs {
    /// The call in the test's body that says so.
    fn call(self) -> String {
        match self {
            Runs::Every | Runs::Examples => "for_each_terraform(".to_owned(),
            Runs::With(capability) => format!("for_each_terraform_with(Capability::{capability:?}"),
        }
    }

    /// The versions of [`TESTED`] it runs on.
    fn versions(self) -> Vec<Version> {
        TESTED
            .into_iter()
            .filter(|v| match self {
                Runs::Every | Runs::Examples => true,
                Runs::With(capability) => *v >= capability.terraform_version(),
            })
            .collect()
    }
}

/// The E2E test (`module::function`) that drives every part of `kind`
/// through real Terraform, and how it picks its versions.
fn kind_test(kind: Kind) -> (&'static str, Runs) {
    match kind {
        Kind::Resource => ("profile::profile_example_cycle_and_import", Runs::Every),
        // Every data-source and function example, on each version that has
        // what it uses.
        Kind::DataSource | Kind::Function => ("examples::every_example_is_applied", Runs::Examples),
        Kind::ListResource => (
            "fleet::a_fleet_folder_is_listed_one_profile_per_cluster",
            Runs::With(Capability::ListResources),
        ),
        Kind::EphemeralResource => (
            "proxy_check::right_password_lets_the_plan_through",
            Runs::With(Capability::Ephemeral),
        ),
        Kind::Action => (
            "proxy_check::the_action_refuses_what_the_ephemeral_resource_refuses",
            Runs::With(Capability::Actions),
        ),
    }
}

/// The E2E test of a part's newer capability.
fn extra_test(capability: Capability) -> (&'static str, Runs) {
    match capability {
        Capability::WriteOnly => (
            "profile::profile_password_wo_reaches_only_the_write_only_sink",
            Runs::With(Capability::WriteOnly),
        ),
        Capability::Identity => (
            "identity::import_by_identity_plans_and_applies_as_the_import_by_id",
            Runs::With(Capability::Identity),
        ),
        other => panic!("name the E2E test of {other:?} in tests/suite/compatibility.rs"),
    }
}

/// The test that checks every older version refuses a newer feature
/// clearly.
const REFUSALS: (&str, Runs) = ("harness::newer_features_are_refused_clearly", Runs::Every);

fn version_string((major, minor, patch): Version) -> String {
    format!("{major}.{minor}.{patch}")
}

/// `major.minor` of a version.
fn short((major, minor, _): Version) -> String {
    format!("{major}.{minor}")
}

/// A capability's cell in the capabilities table: the first release and
/// its source.
fn capability_cell(support: Support) -> String {
    match support {
        Support::Since {
            product,
            version,
            source,
        } => format!("{product} >= {} ({source})", version_string(version)),
        Support::Missing { source } => format!("no ({source})"),
        Support::NotApplicable { source } => format!("n/a ({source})"),
    }
}

/// Where `capability` works on `tool`, as a range of the covered releases.
fn range(tool: Tool, capability: Capability) -> String {
    match capability.support(tool) {
        Support::Since {
            product, version, ..
        } if tool == Tool::Pulumi => format!("{product} >= {}", version_string(version)),
        Support::Since { version, .. } if short(version) == newest(tool) => newest(tool).to_owned(),
        Support::Since { version, .. } => {
            format!("{} to {}", short(version.max(oldest(tool))), newest(tool))
        }
        Support::Missing { .. } | Support::NotApplicable { .. } => "no".to_owned(),
    }
}

/// The cell of `item` for `tool`: where its kind works, then each newer
/// capability it has.
fn item_cell(item: &Item, tool: Tool) -> String {
    let mut cell = range(tool, item.kind.needs());
    for (what, capability) in &item.extras {
        cell += &format!("; {what}: {}", range(tool, *capability));
    }
    cell
}

/// The folder of the example of `item` ([`Runs::Examples`]).
fn example_dir(item: &Item) -> String {
    let kind = match item.kind {
        Kind::Function => "functions",
        _ => "data-sources",
    };
    format!("examples/{kind}/{}", item.name)
}

/// `(test, runs)` of `item` as the table names it.
fn tested_cell((test, runs): (&str, Runs), item: &Item) -> String {
    let versions: Vec<String> = runs.versions().into_iter().map(version_string).collect();
    match runs {
        Runs::Examples => format!(
            "`{test}` on each of {} that has what `{}/` uses",
            versions.join(", "),
            example_dir(item)
        ),
        Runs::Every | Runs::With(_) => format!("`{test}` on {}", versions.join(", ")),
    }
}

/// A markdown table row.
fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// The capabilities table: each capability's first release in each tool,
/// with its source.
fn capabilities_table() -> String {
    let mut table =
        String::from("| capability | Terraform | OpenTofu | Pulumi |\n|---|---|---|---|\n");
    for capability in Capability::ALL {
        let mut cells = vec![capability.name().to_owned()];
        cells.extend(Tool::ALL.map(|tool| capability_cell(capability.support(tool))));
        table += &row(&cells);
    }
    table
}

/// The parts table: every registered part against every tool, and the E2E
/// tests that drive it here.
fn parts_table() -> String {
    let mut table = String::from(
        "| kind | name | Terraform | OpenTofu | Pulumi | tested here (E2E, real Terraform) |\n|---|---|---|---|---|---|\n",
    );
    for item in items() {
        let mut tests = vec![tested_cell(kind_test(item.kind), &item)];
        tests.extend(
            item.extras
                .iter()
                .map(|(_, capability)| tested_cell(extra_test(*capability), &item)),
        );
        if item.kind.needs() != Capability::Protocol6 {
            let without: Vec<String> = TESTED
                .into_iter()
                .filter(|v| *v < item.kind.needs().terraform_version())
                .map(version_string)
                .collect();
            tests.push(format!(
                "`{}`: refused on {}",
                REFUSALS.0,
                without.join(", ")
            ));
        }
        let mut cells = vec![item.kind.name().to_owned(), format!("`{}`", item.name)];
        cells.extend(Tool::ALL.map(|tool| item_cell(&item, tool)));
        cells.push(tests.join("; "));
        table += &row(&cells);
    }
    table
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The generated sections of the guide; `UPDATE_DOCS=1` rewrites them.
#[test]
fn the_guide_is_written_from_the_registry_and_the_table() {
    let path = root().join(GUIDE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("read {GUIDE}: {err}"));
    let generated = splice(
        &text,
        &[
            ("capabilities", capabilities_table()),
            ("parts", parts_table()),
        ],
    );
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    } else {
        assert!(
            generated == text,
            "{GUIDE} out of date; run `make generate`"
        );
    }
}

/// Every part the provider registers has its row in the committed guide.
#[test]
fn every_registered_part_has_a_row() {
    let text = std::fs::read_to_string(root().join(GUIDE))
        .unwrap_or_else(|err| panic!("read {GUIDE}: {err}"));
    let missing: Vec<String> = items()
        .iter()
        .map(|item| format!("| {} | `{}` |", item.kind.name(), item.name))
        .filter(|start| !text.lines().any(|line| line.starts_with(start.as_str())))
        .collect();
    assert!(
        missing.is_empty(),
        "{GUIDE} has no row for {missing:?}; run `make generate`"
    );
}

/// Every E2E test the table names exists in its module and picks its
/// versions as the table says.
#[test]
fn the_named_e2e_tests_run_where_the_table_says() {
    let mut named = vec![REFUSALS];
    let mut wrong = Vec::new();
    for item in items() {
        let test = kind_test(item.kind);
        if matches!(test.1, Runs::Examples) && !root().join(example_dir(&item)).is_dir() {
            wrong.push(format!("{}: no {}", item.name, example_dir(&item)));
        }
        named.push(test);
        named.extend(item.extras.iter().map(|(_, c)| extra_test(*c)));
    }
    for (test, runs) in named {
        let (module, function) = test.split_once("::").unwrap();
        let source = std::fs::read_to_string(root().join(format!("tests/e2e/{module}.rs")))
            .unwrap_or_default();
        let Some(start) = source.find(&format!("fn {function}()")) else {
            wrong.push(format!("{test}: no such test"));
            continue;
        };
        let body = &source[start..];
        let body = &body[..body.find("\n#[test]").unwrap_or(body.len())];
        let compact: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        if !compact.contains(&runs.call()) {
            wrong.push(format!("{test}: does not call {}", runs.call()));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The minimums of `product` (a tool's name, or a versioned component
/// such as `pulumi-terraform-bridge`) in the table.
fn minimums(product: &str) -> Vec<Version> {
    Capability::ALL
        .iter()
        .flat_map(|c| Tool::ALL.map(|tool| c.support(tool)))
        .filter_map(|support| match support {
            Support::Since {
                product: p,
                version,
                ..
            } if p == product => Some(version),
            _ => None,
        })
        .collect()
}

/// The products a version claim can name.
const PRODUCTS: [&str; 4] = ["Terraform", "OpenTofu", "Pulumi", "pulumi-terraform-bridge"];

/// The version claims of `line`: a product followed by `>= X.Y[.Z]`, or by
/// `X.Y[.Z] or later` (`or newer`, `and later`, `and newer`), as (product,
/// version given, its parts).
fn claims(line: &str) -> Vec<(&'static str, String, Vec<u32>)> {
    let mut found = Vec::new();
    for product in PRODUCTS {
        for (at, _) in line.match_indices(product) {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-') {
                continue;
            }
            let rest = &line[at + product.len()..];
            let (rest, explicit) = match rest.trim_start().strip_prefix(">=") {
                Some(after) => (after.trim_start(), true),
                None => (rest.strip_prefix(' ').unwrap_or(""), false),
            };
            let rest = rest.strip_prefix('v').unwrap_or(rest);
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let version = rest[..end].trim_end_matches('.');
            let parts: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
            if parts.len() < 2 || parts.len() != version.split('.').count() {
                continue;
            }
            let after = &rest[version.len()..];
            let later = ["or later", "or newer", "and later", "and newer"]
                .iter()
                .any(|word| after.trim_start().starts_with(word));
            if explicit || later {
                found.push((product, version.to_owned(), parts));
            }
        }
    }
    found
}

/// Whether the claimed `parts` (`1.11` or `1.11.0`) spell `version`.
fn spells(parts: &[u32], (major, minor, patch): Version) -> bool {
    parts == [major, minor] || parts == [major, minor, patch]
}

/// The files whose version claims are checked: docs/ (the guides, the
/// generated reference, the contributor guides), the README, the examples,
/// and the functions' descriptions.
fn claimed_files() -> Vec<String> {
    let mut files = markdown_below("docs");
    files.push("README.md".to_owned());
    fn walk(dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let relative = dir.join(entry.unwrap().file_name());
            if root().join(&relative).is_dir() {
                walk(&relative, found);
            } else if relative
                .extension()
                .is_some_and(|ext| ["tf", "hcl", "sh"].iter().any(|e| ext == *e))
            {
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    walk(Path::new("examples"), &mut files);
    for entry in std::fs::read_dir(root().join("src/provider/functions")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") {
            files.push(format!("src/provider/functions/{name}"));
        }
    }
    files.sort();
    files
}

/// The claims of `text` (of `file`) that are none of the table's minimums
/// for their product, as `file:line: claim`.
fn disagreements(file: &str, text: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for (product, version, parts) in claims(line) {
            let known = minimums(product);
            if !known.iter().any(|v| spells(&parts, *v)) {
                let known: Vec<String> = known.into_iter().map(version_string).collect();
                wrong.push(format!(
                    "{file}:{}: \"{product} >= {version}\" is none of the table's {product} minimums {known:?}",
                    number + 1
                ));
            }
        }
    }
    wrong
}

/// Every version claim of the docs names one of the table's minimums for
/// its tool: a page that says a feature needs "OpenTofu >= 1.9" names no
/// release that brought anything.
#[test]
fn every_version_claim_agrees_with_the_table() {
    let texts: Vec<(String, String)> = claimed_files()
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(root().join(&file)).unwrap();
            (file, text)
        })
        .collect();
    // The check reads the docs' claims: every product's among them.
    for product in ["Terraform", "OpenTofu", "Pulumi"] {
        assert!(
            texts.iter().any(|(_, text)| text
                .lines()
                .any(|l| claims(l).iter().any(|c| c.0 == product))),
            "no {product} claim read"
        );
    }
    let wrong: Vec<String> = texts
        .iter()
        .flat_map(|(file, text)| disagreements(file, text))
        .collect();
    assert!(
        wrong.is_empty(),
        "version claims that disagree with {GUIDE} (src/provider/compatibility.rs):\n{}",
        wrong.join("\n")
    );
}

/// The claim check itself: it reads each spelling of a claim, and fails
/// on a version that is no minimum.
#[test]
fn the_claim_check_reads_every_spelling_and_can_fail() {
    let line = "Needs Terraform >= 1.8 (OpenTofu >= 1.7), Terraform 1.14 or later, OpenTofu v1.11 and newer, Pulumi >= 3.147.0.";
    let found: Vec<(&str, String)> = claims(line).into_iter().map(|(p, v, _)| (p, v)).collect();
    assert_eq!(
        found,
        [
            ("Terraform", "1.8".to_owned()),
            ("Terraform", "1.14".to_owned()),
            ("OpenTofu", "1.7".to_owned()),
            ("OpenTofu", "1.11".to_owned()),
            ("Pulumi", "3.147.0".to_owned()),
        ]
    );
    assert!(disagreements("x.md", line).is_empty());
    // No claim: a range, a tested version, a word that holds the name.
    assert!(
        claims("Terraform 1.0 to 1.7, tested with Terraform 1.15.5; pulumi-terraform-bridge")
            .is_empty()
    );
    let wrong = disagreements("x.md", "a\nfunctions need OpenTofu >= 1.8\n");
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].starts_with("x.md:2: \"OpenTofu >= 1.8\""),
        "{wrong:?}"
    );
    assert_eq!(disagreements("x.md", "Terraform 1.9 and later").len(), 1);
}
