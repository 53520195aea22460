//! The generated tables of the README and of the platform guide
//! (`docs/guides/choosing-your-platform.md`), written from the registries:
//! the renderer data sources' [`Platform`] answers and the importers. Only
//! the docs test (`tests/suite/docs.rs`) uses them, so that the modules the
//! data sources import (`platform.rs`) need no registry.

use crate::domain::import::importers;
use crate::domain::prose;
use crate::framework::action::Action as _;
use crate::framework::data_source::DataSource as _;
use crate::framework::ephemeral_resource::EphemeralResource as _;
use crate::framework::provider::Provider;
use crate::framework::resource::Resource as _;
use crate::provider::data_sources::{self, renderers};
use crate::provider::platform::{Area, GuideRow};
use crate::provider::{actions, ephemeral_resources, resources};

/// A markdown table row.
fn row(cells: &[&str]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// The README's table of the resources, data sources, ephemeral resources
/// and functions of `provider`: the profile's row names the platforms of
/// the importers, each renderer's row is its [`Platform::summary`], in
/// registry order between `clusterproxy_no_proxy_report` and
/// `clusterproxy_artifact_settings`, then `clusterproxy_fleet`.
///
/// [`Platform::summary`]: crate::provider::platform::Platform::summary
pub fn readme_table(provider: &dyn Provider) -> String {
    let line = |kind: &str, name: &str, text: &str| row(&[kind, &format!("`{name}`"), text]);
    let mut table = String::from("| kind | name | what it does |\n|---|---|---|\n");
    table += &line(
        "resource",
        resources::profile::ProfileResource.type_name(),
        &profile_summary(),
    );
    table += &line(
        "list resource",
        resources::profile::ProfileResource.type_name(),
        "every cluster's profile in a directory of artifacts (a GitOps repository), for `terraform query -generate-config-out`: adopts a fleet in one command (Terraform >= 1.14; `docs/guides/fleet-adoption.md`)",
    );
    table += &line(
        "data source",
        data_sources::no_proxy::NoProxyDataSource.type_name(),
        "the merged NO_PROXY of a cluster, per-client renderings, a coverage check that fails the plan on a gap (`fail_on_gap`)",
    );
    table += &line(
        "data source",
        data_sources::no_proxy_report::NoProxyReportDataSource.type_name(),
        "the detail behind that list, for review: the gaps per client (`gaps_by_client`), every destination checked, entries left out as covered, what each client cannot express",
    );
    for platform in renderers() {
        table += &line("data source", platform.type_name(), platform.summary());
    }
    table += &line(
        "data source",
        data_sources::artifact_settings::ArtifactSettingsDataSource.type_name(),
        "the settings an artifact holds, for drift reports against a profile",
    );
    table += &line(
        "data source",
        data_sources::fleet::FleetDataSource.type_name(),
        "every cluster in a directory of artifacts, keyed by folder and name, with its profile's arguments, import ID, identity and fingerprint: `for_each` and `import { for_each }` adopt each new cluster as it comes, and a drift job sees a cluster move (Terraform >= 1.11, OpenTofu; `docs/guides/fleet-adoption.md`)",
    );
    table += &line(
        "ephemeral resource",
        ephemeral_resources::proxy_check::ProxyCheck.type_name(),
        "sends one request through the proxy with the given credentials from the machine that runs Terraform; fails the plan on a refused password, an unreachable proxy or a TLS failure: the gate before a password rotation (Terraform >= 1.10)",
    );
    table += &line(
        "action",
        actions::proxy_check::ProxyCheckAction.type_name(),
        "the same check at the moment Terraform invokes it: right before the node pool or control plane that rolls new credentials changes (`action_trigger`), or on demand (`terraform apply -invoke`); a refused password halts the apply there (Terraform >= 1.14)",
    );
    let functions: Vec<&str> = provider.functions().iter().map(|f| f.name()).collect();
    table += &line(
        "function",
        &functions.join("`, `"),
        "merge lists; would a client bypass the proxy for a URL; any renderer at plan time (Terraform >= 1.8); its redacted outputs without the password, for review",
    );
    table
}

/// What the profile resource does, naming the platform of every importer.
fn profile_summary() -> String {
    let platforms: Vec<&str> = importers().iter().map(|i| i.platform()).collect();
    format!(
        "proxy URLs, credentials, installation-wide NO_PROXY, trusted CA; plan-time normalised values, fingerprint, `revision` for `replace_triggered_by`; importable from {} artifacts, by ID or by identity (Terraform >= 1.12)",
        prose::list(&platforms, " and ")
    )
}

/// The platform guide's table of `area`.
pub fn area_table(area: Area) -> String {
    let mut table = row(&[
        area.subject(),
        "data source",
        "what it writes",
        "pitfalls it handles",
    ]);
    table.push_str("|---|---|---|---|\n");
    for platform in renderers().iter().filter(|p| p.area() == area) {
        let GuideRow {
            platform: subject,
            writes,
            pitfalls,
        } = platform.guide_row();
        let name = format!("`{}`", platform.type_name());
        table.push_str(&row(&[subject, &name, writes, pitfalls]));
    }
    table
}

/// The guide's "Supported versions" table: the renderers with a version
/// input first, in registry order, then the others.
pub fn versions_table() -> String {
    let mut table = row(&[
        "data source",
        "version input (default)",
        "consumer versions",
        "what differs between them",
    ]);
    table.push_str("|---|---|---|---|\n");
    let mut platforms = renderers().to_vec();
    platforms.sort_by_key(|p| p.versions().input.is_none());
    for platform in platforms {
        let versions = platform.versions();
        let input = versions.input.map_or_else(
            || "none".to_owned(),
            |input| {
                let schema = platform.schema();
                let default = schema
                    .attribute(input)
                    .and_then(|a| a.default.as_ref())
                    .and_then(|d| d.as_str())
                    .unwrap_or_else(|| panic!("{}.{input} has no default", platform.type_name()));
                format!("`{input}` (`{default}`)")
            },
        );
        let name = format!("`{}`", platform.type_name());
        table.push_str(&row(&[
            &name,
            &input,
            versions.consumers,
            versions.differences,
        ]));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A renderer with a `<consumer>_version` input names it as the input
    /// of its "Supported versions" row, which shows its default (a changed
    /// default reaches the table); the others show none.
    #[test]
    fn version_inputs_are_the_supported_versions_inputs() {
        for platform in renderers() {
            let schema = platform.schema();
            let inputs: Vec<&str> = schema
                .attributes
                .iter()
                .filter(|a| a.mode.is_configurable() && a.name.ends_with("_version"))
                .map(|a| a.name.as_str())
                .collect();
            let declared: Vec<&str> = platform.versions().input.into_iter().collect();
            assert_eq!(inputs, declared, "{}", platform.type_name());
        }
        // Every version input has the default the table shows.
        versions_table();
    }

    /// The profile's row names every importer's platform, so that a new
    /// importer reaches the README.
    #[test]
    fn the_profile_row_names_every_importer() {
        let profile = profile_summary();
        for importer in importers() {
            assert!(profile.contains(importer.platform()), "{profile}");
        }
        assert!(profile.contains("AKS, TKG"), "{profile}");
    }
}
