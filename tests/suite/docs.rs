//! The committed docs/ must equal what the generator renders from the
//! schemas and examples. `UPDATE_DOCS=1 cargo test --test suite docs::` rewrites them.

use std::path::Path;

use clusterproxy::framework::docs::{generate, DocsConfig, Page};
use clusterproxy::provider::attributes::RendererInputs;
use clusterproxy::provider::docs::{area_table, readme_table, versions_table};
use clusterproxy::provider::platform::Area;
use clusterproxy::provider::{ClusterProxy, NAME};

/// The quick start, relative to examples/: README's first HCL block and
/// docs/index.md's "Example Usage", applied by the E2E test
/// `provider::quick_start_example`.
const QUICK_START: &str = "provider/quick-start.tf";

/// The docs pages the generator renders from the schemas and examples.
fn pages() -> Vec<Page> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = DocsConfig {
        provider_name: NAME.to_owned(),
        index_body: "The clusterproxy provider merges NO_PROXY lists and renders HTTP(S) proxy settings for Kubernetes clusters behind a corporate proxy. Every result is computed locally, deterministically and at plan time.".to_owned(),
        index_example: QUICK_START.into(),
        index_sections: "## Logging\n\nWith `TF_LOG_PROVIDER_CLUSTERPROXY` (or `TF_LOG_PROVIDER`, or `TF_LOG`) set to `debug` or `trace`, the provider logs one line when a call arrives and one when it is served: the RPC, a request id, the resource, data source or function, and the duration. No configured value is logged, nor anything derived from one (a size or a length); the HTTP/2, gRPC and TLS libraries it uses log at warning and above only.\n\n## Compatibility\n\nWhich Terraform, OpenTofu and Pulumi releases run each resource, data source, list resource, ephemeral resource, action and function: [Compatibility](guides/compatibility.md).".to_owned(),
        examples_dir: root.join("examples"),
    };
    generate(&ClusterProxy, &config).expect("every example exists")
}

#[test]
fn committed_docs_match_the_generator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = pages();
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for page in &pages {
        let path = root.join("docs").join(&page.path);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &page.content).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(page.content.as_str()) {
            stale.push(page.path.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "docs out of date: {stale:?}; run `make generate`"
    );
}

/// Whether `description` offers the Secret-reference alternative to the
/// credentials it holds: a sentence that mentions a Secret and names (in
/// backticks) one of `inputs`, the input that renders a reference instead;
/// or it says that its consumer takes no Secret reference, or that it holds
/// no credential.
fn offers_secret_reference(description: &str, inputs: &[&str]) -> bool {
    description.contains("no Secret reference")
        || description.contains("holds no credential")
        || description.split(". ").any(|sentence| {
            sentence.contains("Secret")
                && inputs
                    .iter()
                    .any(|input| sentence.contains(&format!("`{input}`")))
        })
}

/// Of a data source's configurable `names`, those that can name a Secret
/// reference: not the proxy settings every renderer takes
/// ([`RendererInputs`]: `username`, `password`, `profile`...), which a
/// description may mention beside the word "Secret" without offering one.
fn reference_inputs<'a>(names: &[&'a str]) -> Vec<&'a str> {
    use clusterproxy::framework::model::Model as _;
    let settings: Vec<String> = RendererInputs::attributes()
        .into_iter()
        .map(|a| a.name)
        .collect();
    names
        .iter()
        .copied()
        .filter(|name| !settings.iter().any(|s| s == name))
        .collect()
}

/// Where a consumer can take a Secret reference, users should render one
/// instead of the credentials: every credential-bearing (sensitive,
/// computed) output of every data source names the Secret-reference alternative in its description,
/// or documents that its consumer takes none, or that it holds none.
#[test]
fn credential_bearing_outputs_name_the_secret_reference_alternative() {
    use clusterproxy::framework::provider::Provider as _;
    let mut missing = Vec::new();
    for data_source in ClusterProxy.data_sources() {
        let schema = data_source.schema();
        let configurable: Vec<&str> = schema
            .attributes
            .iter()
            .filter(|a| a.mode.is_configurable())
            .map(|a| a.name.as_str())
            .collect();
        let inputs = reference_inputs(&configurable);
        for attribute in &schema.attributes {
            let credential_bearing = attribute.sensitive && !attribute.mode.is_configurable();
            if credential_bearing && !offers_secret_reference(&attribute.description, &inputs) {
                missing.push(format!("{}.{}", data_source.type_name(), attribute.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these outputs hold credentials without naming the Secret-reference alternative (or saying the consumer takes none): {missing:?}"
    );
}

/// The check itself: a description that only says it holds the credentials
/// fails, one that names a Secret-reference input, or says the consumer
/// takes none, passes.
#[test]
fn secret_reference_check_can_fail() {
    let inputs = ["credentials_secret", "username"];
    assert!(!offers_secret_reference(
        "The env. Holds the credentials.",
        &inputs
    ));
    assert!(!offers_secret_reference(
        "Holds the credentials; `username` is percent-encoded. A Secret is rendered elsewhere.",
        &inputs
    ));
    assert!(!offers_secret_reference(
        "With `other_input`, read from a Secret.",
        &inputs
    ));
    // The proxy settings are no Secret reference, even beside the word.
    assert!(!offers_secret_reference(
        "Holds the credentials: `username` is read from a Secret.",
        &reference_inputs(&["credentials_secret", "username"])
    ));
    assert!(offers_secret_reference(
        "Holds the credentials unless `credentials_secret` is set: read from that Secret.",
        &inputs
    ));
    assert!(offers_secret_reference(
        "Holds the credentials: the chart takes no Secret reference.",
        &inputs
    ));
}

/// The sections of `text` between `<!-- BEGIN generated: NAME -->` and
/// `<!-- END generated: NAME -->` replaced by `sections` (name, content).
pub(crate) fn splice(text: &str, sections: &[(&str, String)]) -> String {
    let mut out = text.to_owned();
    for (name, content) in sections {
        let begin = format!("<!-- BEGIN generated: {name} -->\n\n");
        let end = format!("\n<!-- END generated: {name} -->");
        let start = out.find(&begin).unwrap_or_else(|| panic!("no {begin:?}")) + begin.len();
        let stop = start
            + out[start..]
                .find(&end)
                .unwrap_or_else(|| panic!("no {end:?}"));
        out.replace_range(start..stop, content);
    }
    out
}

/// The README's table and the platform guide's area and "Supported
/// versions" tables are written from the registry of renderers
/// (`provider::platform`); `UPDATE_DOCS=1` rewrites them.
#[test]
fn platform_tables_match_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut guide_sections: Vec<(&str, String)> = Area::ALL
        .iter()
        .map(|area| (area.name(), area_table(*area)))
        .collect();
    guide_sections.push(("supported-versions", versions_table()));
    let files = [
        (
            "README.md",
            vec![("components", readme_table(&ClusterProxy))],
        ),
        ("docs/guides/choosing-your-platform.md", guide_sections),
    ];
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for (file, sections) in files {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let generated = splice(&text, &sections);
        if update {
            std::fs::write(&path, &generated).unwrap();
        } else if generated != text {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "tables out of date in {stale:?}; run `make generate`"
    );
}

/// Every example directory works when copied on its own: one of its
/// Terraform files declares the provider in `required_providers` (provider
/// functions and a copied directory need it).
#[test]
fn every_example_directory_declares_the_provider() {
    fn walk(dir: &Path, missing: &mut Vec<String>) {
        let mut declared = None;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, missing);
            } else if path.extension().is_some_and(|e| e == "tf") {
                let text = std::fs::read_to_string(&path).unwrap();
                let here = text.contains("required_providers")
                    && text
                        .contains("source = \"registry.terraform.io/clusterproxy/clusterproxy\"");
                declared = Some(declared.unwrap_or(false) || here);
            }
        }
        if declared == Some(false) {
            missing.push(dir.display().to_string());
        }
    }
    let mut missing = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        &mut missing,
    );
    assert!(
        missing.is_empty(),
        "without required_providers: {missing:#?}"
    );
}

/// The most lines README.md may have: a front page a user reads through;
/// the details of a feature go to its guide.
const README_MAX_LINES: usize = 300;

/// The line by which README.md's quick start has ended: on the first screen.
const QUICK_START_BY_LINE: usize = 40;

/// The most lines the quick start's HCL may take.
const QUICK_START_MAX_LINES: usize = 15;

/// What keeps `readme` from being the front page: more than
/// [`README_MAX_LINES`] lines, or a first HCL block that does not end by
/// line [`QUICK_START_BY_LINE`], takes more than [`QUICK_START_MAX_LINES`]
/// lines or is not `quick_start` word for word.
fn front_page_faults(readme: &str, quick_start: &str) -> Vec<String> {
    let mut faults = Vec::new();
    let lines = readme.lines().count();
    if lines > README_MAX_LINES {
        faults.push(format!(
            "README.md has {lines} lines, at most {README_MAX_LINES}: move the details to the guide they belong to"
        ));
    }
    let Some(start) = readme.find("```hcl\n").map(|at| at + "```hcl\n".len()) else {
        faults.push("README.md has no HCL quick start (a ```hcl block)".to_owned());
        return faults;
    };
    let body = readme[start..]
        .split_once("```")
        .map_or(&readme[start..], |(body, _)| body);
    let ends_at = readme[..start].lines().count() + body.lines().count() + 1;
    if ends_at > QUICK_START_BY_LINE {
        faults.push(format!(
            "README.md's quick start ends on line {ends_at}, after line {QUICK_START_BY_LINE}"
        ));
    }
    if body.lines().count() > QUICK_START_MAX_LINES {
        faults.push(format!(
            "README.md's quick start has {} lines, at most {QUICK_START_MAX_LINES}",
            body.lines().count()
        ));
    }
    if body != quick_start {
        faults.push(format!(
            "README.md's quick start is not examples/{QUICK_START} word for word"
        ));
    }
    faults
}

/// README.md is the product's front page: at most [`README_MAX_LINES`]
/// lines, and a quick start on its first screen that is the example the E2E
/// tests apply ([`QUICK_START`]); docs/index.md shows the same example
/// before its Logging section.
#[test]
fn readme_is_the_front_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
    let quick_start = read(&format!("examples/{QUICK_START}"));
    let faults = front_page_faults(&read("README.md"), &quick_start);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    let index = read("docs/index.md");
    let example = index
        .find(&format!("## Example Usage\n\n```terraform\n{quick_start}"))
        .expect("docs/index.md shows the quick start as its Example Usage");
    assert!(
        index
            .find("## Logging")
            .is_some_and(|logging| example < logging),
        "docs/index.md's Example Usage comes before Logging"
    );
}

/// The front-page check itself: a long README, a late, long or different
/// quick start each fail it.
#[test]
fn front_page_check_can_fail() {
    let quick_start = "resource \"a\" \"b\" {}\n";
    let page = |before: usize, hcl: &str, after: usize| {
        format!(
            "# title\n{}```hcl\n{hcl}```\n{}",
            "text\n".repeat(before),
            "text\n".repeat(after)
        )
    };
    assert!(front_page_faults(&page(3, quick_start, 200), quick_start).is_empty());
    let long_hcl = quick_start.repeat(QUICK_START_MAX_LINES + 1);
    for (readme, fault) in [
        (page(3, quick_start, README_MAX_LINES), "lines, at most"),
        (page(QUICK_START_BY_LINE, quick_start, 0), "ends on line"),
        (page(3, &long_hcl, 0), "quick start has"),
        (page(3, "output \"x\" {}\n", 0), "word for word"),
        ("# title\n".to_owned(), "no HCL quick start"),
    ] {
        let faults = front_page_faults(&readme, quick_start);
        assert!(
            faults.iter().any(|f| f.contains(fault)),
            "{fault:?} not in {faults:?}"
        );
    }
}
