//! The platform descriptor: what the docs say about a renderer, answered by
//! its data source. The docs test writes the README rows, the area tables
//! and the "Supported versions" table of the platform guide
//! (`docs/guides/choosing-your-platform.md`) from the answers.

use crate::domain::render;
use crate::framework::data_source::DataSource;
use crate::provider::renderers;

/// The tables of the platform guide a renderer is listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// "Nodes: container runtime and kubelet".
    Nodes,
    /// "Managed and distribution-level settings".
    Distributions,
    /// "Pods and cluster add-ons".
    Pods,
}

impl Area {
    /// Every area, in the guide's order.
    pub const ALL: [Area; 3] = [Area::Nodes, Area::Distributions, Area::Pods];

    /// The name of its table between the guide's markers.
    pub fn name(self) -> &'static str {
        match self {
            Area::Nodes => "nodes",
            Area::Distributions => "distributions",
            Area::Pods => "pods",
        }
    }

    /// The header of the table's first column.
    fn subject(self) -> &'static str {
        match self {
            Area::Nodes | Area::Distributions => "platform",
            Area::Pods => "what",
        }
    }
}

/// A platform's row in its area's table.
#[derive(Debug, Clone, Copy)]
pub struct GuideRow {
    /// The platform (or, for pods and add-ons, what gets the proxy).
    pub platform: &'static str,
    /// What the renderer writes.
    pub writes: &'static str,
    /// The pitfalls it handles.
    pub pitfalls: &'static str,
}

/// A platform's row in "Supported versions".
#[derive(Debug, Clone, Copy)]
pub struct Versions {
    /// The input naming the consumer's release, when the format depends on
    /// it (its default is the schema's).
    pub input: Option<&'static str>,
    /// The consumer versions and what they were checked against.
    pub consumers: &'static str,
    /// What differs between them.
    pub differences: &'static str,
}

/// A renderer data source as the docs present it; registered in
/// `renderers!` (`src/provider/mod.rs`).
pub trait Platform: DataSource {
    /// Its domain renderer.
    fn renderer(&self) -> render::RendererId;

    /// The table of the platform guide it is listed in.
    fn area(&self) -> Area;

    /// Its row there.
    fn guide_row(&self) -> GuideRow;

    /// Its row in the guide's "Supported versions".
    fn versions(&self) -> Versions;

    /// What it does, in the README's table.
    fn summary(&self) -> &'static str;
}

/// A markdown table row.
fn row(cells: &[&str]) -> String {
    format!("| {} |\n", cells.join(" | "))
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
    for platform in renderers().into_iter().filter(|p| p.area() == area) {
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
    let mut platforms = renderers();
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

    /// Each renderer data source names a domain renderer of its own, and
    /// every domain renderer has one: the domain's tests that run over
    /// `render::RendererId::ALL` run over every platform.
    #[test]
    fn every_domain_renderer_has_one_data_source() {
        let mut named: Vec<render::RendererId> = renderers().iter().map(|p| p.renderer()).collect();
        for platform in render::RendererId::ALL {
            let count = named.iter().filter(|n| **n == platform).count();
            assert_eq!(count, 1, "{platform:?}");
        }
        named.retain(|n| !render::RendererId::ALL.contains(n));
        assert!(
            named.is_empty(),
            "not in render::RendererId::ALL: {named:?}"
        );
    }

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
}
