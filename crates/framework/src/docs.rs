//! Documentation generator: renders the tfplugindocs layout (docs/index.md,
//! docs/resources, docs/data-sources, docs/ephemeral-resources,
//! docs/list-resources, docs/actions, docs/functions) from the schemas and
//! the example files under examples/, so docs never drift from the code. A
//! resource with an identity schema gets an "Import by identity" section:
//! its `import-by-identity.tf` example and the identity attributes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::function::Function;
use super::identity::IdentitySchema;
use super::provider::Provider;
use super::schema::{Attribute, Mode, Schema};
use super::value::Type;

/// What the generator needs besides the provider itself.
#[derive(Debug, Clone)]
pub struct DocsConfig {
    /// Provider local name, e.g. `clusterproxy`.
    pub provider_name: String,
    /// Markdown body of docs/index.md above the example.
    pub index_body: String,
    /// The example docs/index.md shows as its "Example Usage", relative to
    /// `examples_dir` (tfplugindocs reads `provider/provider.tf`).
    pub index_example: PathBuf,
    /// Markdown sections of docs/index.md between the example and the
    /// schema (empty for none).
    pub index_sections: String,
    /// The examples/ directory.
    pub examples_dir: PathBuf,
}

/// One generated page: path relative to docs/ and its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Path relative to the docs/ directory.
    pub path: String,
    /// Markdown content.
    pub content: String,
}

/// Renders every documentation page. Fails when an example file is missing:
/// every resource, data source, ephemeral resource, list resource, action
/// and function must ship one.
pub fn generate(provider: &dyn Provider, config: &DocsConfig) -> Result<Vec<Page>, String> {
    let examples = &config.examples_dir;
    let name = &config.provider_name;
    let mut pages = Vec::new();

    let index_example = read_example(&examples.join(&config.index_example))?;
    let mut index = front_matter(&format!("{name} Provider"), &first_line(&config.index_body));
    writeln!(index, "# {name} Provider\n\n{}\n", config.index_body.trim()).unwrap();
    push_example(&mut index, &index_example);
    if !config.index_sections.trim().is_empty() {
        writeln!(index, "{}\n", config.index_sections.trim()).unwrap();
    }
    render_schema(&mut index, &provider.schema());
    pages.push(Page {
        path: "index.md".into(),
        content: index,
    });

    for resource in provider.resources() {
        let full = resource.type_name();
        let dir = examples.join("resources").join(full);
        let schema = resource.schema();
        let mut page = entity_header(full, "Resource", name, &schema);
        push_example(&mut page, &read_example(&dir.join("resource.tf"))?);
        render_schema(&mut page, &schema);
        let import = read_example(&dir.join("import.sh"))?;
        writeln!(
            page,
            "## Import\n\nImport is supported using the following syntax:\n\n```shell\n{}\n```",
            import.trim_end()
        )
        .unwrap();
        if let Some(identity) = resource.identity_schema() {
            let example = read_example(&dir.join("import-by-identity.tf"))?;
            render_identity(&mut page, &identity, &example);
        }
        pages.push(Page {
            path: format!("resources/{}.md", short_name(full, name)),
            content: page,
        });
    }

    for data_source in provider.data_sources() {
        let full = data_source.type_name();
        let dir = examples.join("data-sources").join(full);
        let schema = data_source.schema();
        let mut page = entity_header(full, "Data Source", name, &schema);
        push_example(&mut page, &read_example(&dir.join("data-source.tf"))?);
        render_schema(&mut page, &schema);
        pages.push(Page {
            path: format!("data-sources/{}.md", short_name(full, name)),
            content: page,
        });
    }

    for ephemeral in provider.ephemeral_resources() {
        let full = ephemeral.type_name();
        let dir = examples.join("ephemeral-resources").join(full);
        let schema = ephemeral.schema();
        let mut page = entity_header(full, "Ephemeral Resource", name, &schema);
        push_example(
            &mut page,
            &read_example(&dir.join("ephemeral-resource.tf"))?,
        );
        render_schema(&mut page, &schema);
        pages.push(Page {
            path: format!("ephemeral-resources/{}.md", short_name(full, name)),
            content: page,
        });
    }

    for list in provider.list_resources() {
        let full = list.type_name();
        let dir = examples.join("list-resources").join(full);
        let schema = list.schema();
        let mut page = entity_header(full, "List Resource", name, &schema);
        push_example(
            &mut page,
            &read_example(&dir.join("list-resource.tfquery.hcl"))?,
        );
        writeln!(
            page,
            "A `list` block goes in a `.tfquery.hcl` file and runs with `terraform query` (Terraform >= 1.14). Besides `provider`, it takes `include_resource` (whether each result holds the object, as `-generate-config-out` needs) and `limit` (at most this many results; 100 by default); the arguments below go in its `config` block.\n"
        )
        .unwrap();
        render_schema(&mut page, &schema);
        pages.push(Page {
            path: format!("list-resources/{}.md", short_name(full, name)),
            content: page,
        });
    }

    for action in provider.actions() {
        let full = action.type_name();
        let dir = examples.join("actions").join(full);
        let schema = action.schema();
        let mut page = entity_header(full, "Action", name, &schema);
        push_example(&mut page, &read_example(&dir.join("action.tf"))?);
        render_schema(&mut page, &schema);
        pages.push(Page {
            path: format!("actions/{}.md", short_name(full, name)),
            content: page,
        });
    }

    for function in provider.functions() {
        let example = read_example(
            &examples
                .join("functions")
                .join(function.name())
                .join("function.tf"),
        )?;
        pages.push(Page {
            path: format!("functions/{}.md", function.name()),
            content: render_function(function.as_ref(), name, &example),
        });
    }
    Ok(pages)
}

fn read_example(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("example {} is missing: {e}", path.display()))
}

fn short_name<'a>(full: &'a str, provider: &str) -> &'a str {
    full.strip_prefix(provider)
        .and_then(|rest| rest.strip_prefix('_'))
        .unwrap_or(full)
}

fn first_line(text: &str) -> String {
    text.trim().lines().next().unwrap_or_default().to_owned()
}

fn front_matter(title: &str, description: &str) -> String {
    let mut out = String::from("---\n");
    writeln!(
        out,
        "page_title: \"{title}\"\nsubcategory: \"\"\ndescription: |-"
    )
    .unwrap();
    for line in description.trim().lines() {
        writeln!(out, "  {line}").unwrap();
    }
    out.push_str("---\n\n");
    out
}

fn entity_header(full: &str, kind: &str, provider: &str, schema: &Schema) -> String {
    let mut page = front_matter(
        &format!("{full} {kind} - {provider}"),
        &first_line(&schema.description),
    );
    writeln!(page, "# {full} ({kind})\n\n{}\n", schema.description.trim()).unwrap();
    page
}

fn push_example(page: &mut String, example: &str) {
    writeln!(
        page,
        "## Example Usage\n\n```terraform\n{}\n```\n",
        example.trim_end()
    )
    .unwrap();
}

/// The tfplugindocs type label, e.g. `List of String`.
pub fn type_label(ty: &Type) -> String {
    match ty {
        Type::Bool => "Boolean".into(),
        Type::Number => "Number".into(),
        Type::String => "String".into(),
        Type::Dynamic => "Dynamic".into(),
        Type::Object(_) => "Object".into(),
        Type::Tuple(_) => "Tuple".into(),
        Type::List(inner) => format!("List of {}", type_label(inner)),
        Type::Set(inner) => format!("Set of {}", type_label(inner)),
        Type::Map(inner) => format!("Map of {}", type_label(inner)),
    }
}

fn object_fields(ty: &Type) -> Option<Vec<(String, Type)>> {
    match ty {
        Type::Object(fields) => Some(fields.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Type::List(inner) | Type::Set(inner) | Type::Map(inner) => object_fields(inner),
        _ => None,
    }
}

fn render_schema(page: &mut String, schema: &Schema) {
    page.push_str("## Schema\n\n");
    let groups = [
        ("Required", Mode::Required),
        ("Optional", Mode::Optional),
        ("Read-Only", Mode::Computed),
    ];
    let mut nested = Vec::new();
    for (title, mode) in groups {
        let members: Vec<&Attribute> = schema
            .attributes
            .iter()
            .filter(|a| match mode {
                Mode::Optional => matches!(a.mode, Mode::Optional | Mode::OptionalComputed),
                other => a.mode == other,
            })
            .collect();
        if members.is_empty() {
            continue;
        }
        writeln!(page, "### {title}\n").unwrap();
        for attribute in members {
            let mut flags = vec![type_label(&attribute.ty)];
            if attribute.sensitive {
                flags.push("Sensitive".into());
            }
            if attribute.write_only {
                flags.push("Write-only".into());
            }
            if attribute.deprecation.is_some() {
                flags.push("Deprecated".into());
            }
            let mut line = format!("- `{}` ({})", attribute.name, flags.join(", "));
            let description = attribute.description.trim();
            if !description.is_empty() {
                write!(line, " {description}").unwrap();
            }
            for validator in &attribute.validators {
                write!(line, " Must be {}.", validator.description()).unwrap();
            }
            for (label, names) in [
                ("Conflicts with", &attribute.conflicts_with),
                ("Requires", &attribute.requires),
            ] {
                if !names.is_empty() {
                    let others: Vec<String> = names.iter().map(|o| format!("`{o}`")).collect();
                    write!(line, " {label} {}.", others.join(", ")).unwrap();
                }
            }
            if let Some(message) = &attribute.deprecation {
                write!(line, " Deprecated: {message}").unwrap();
            }
            if let Some(fields) = object_fields(&attribute.ty) {
                write!(
                    line,
                    " (see [below for nested schema](#nestedatt--{}))",
                    attribute.name
                )
                .unwrap();
                nested.push((attribute.name.clone(), fields));
            }
            writeln!(page, "{line}").unwrap();
        }
        page.push('\n');
    }
    for (name, fields) in nested {
        writeln!(
            page,
            "<a id=\"nestedatt--{name}\"></a>\n### Nested Schema for `{name}`\n\nRead-Only:\n"
        )
        .unwrap();
        for (field, ty) in fields {
            writeln!(page, "- `{field}` ({})", type_label(&ty)).unwrap();
        }
        page.push('\n');
    }
}

/// The "Import by identity" section: the example and the identity schema,
/// required attributes first.
fn render_identity(page: &mut String, identity: &IdentitySchema, example: &str) {
    writeln!(
        page,
        "\n## Import by identity\n\nOn Terraform 1.12 and later an `import` block can name the object by its identity (version {}) instead of an import ID:\n\n```terraform\n{}\n```\n\n### Identity Schema\n",
        identity.version,
        example.trim_end()
    )
    .unwrap();
    for (title, required) in [("Required", true), ("Optional", false)] {
        let members: Vec<_> = identity
            .attributes
            .iter()
            .filter(|a| a.required_for_import == required)
            .collect();
        if members.is_empty() {
            continue;
        }
        writeln!(page, "#### {title}\n").unwrap();
        for attribute in members {
            writeln!(
                page,
                "- `{}` ({}) {}",
                attribute.name,
                type_label(&attribute.ty),
                attribute.description.trim()
            )
            .unwrap();
        }
        page.push('\n');
    }
    // The page ends with one newline.
    page.truncate(page.trim_end().len() + 1);
}

fn render_function(function: &dyn Function, provider: &str, example: &str) -> String {
    let signature = function.signature();
    let mut page = front_matter(
        &format!("{} function - {provider}", function.name()),
        signature.summary,
    );
    writeln!(
        page,
        "# function: {}\n\n{}\n",
        function.name(),
        signature.description.trim()
    )
    .unwrap();
    push_example(&mut page, example);
    let params: Vec<String> = signature
        .parameters
        .iter()
        .map(|p| format!("{} {}", p.name, type_label(&p.ty).to_lowercase()))
        .collect();
    writeln!(
        page,
        "## Signature\n\n```text\n{}({}) {}\n```\n\n## Arguments\n",
        function.name(),
        params.join(", "),
        type_label(&signature.returns).to_lowercase()
    )
    .unwrap();
    for (i, p) in signature.parameters.iter().enumerate() {
        let nullable = if p.allow_null { ", Nullable" } else { "" };
        writeln!(
            page,
            "{}. `{}` ({}{nullable}) {}",
            i + 1,
            p.name,
            type_label(&p.ty),
            p.description.trim()
        )
        .unwrap();
    }
    page.push('\n');
    page
}
