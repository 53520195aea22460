//! The platform descriptor: what the docs say about a renderer, answered by
//! its data source. `provider::docs` writes the README rows, the area tables
//! and the "Supported versions" table of the platform guide
//! (`docs/guides/choosing-your-platform.md`) from the answers.

use crate::framework::data_source::DataSource;

/// The provider's local name, the prefix of every type name: a platform's
/// name in the `render` function is its data source's type name without
/// `clusterproxy_`.
pub const NAME: &str = "clusterproxy";

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
    pub fn subject(self) -> &'static str {
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

/// A renderer data source as the docs present it; listed in `RENDERERS`
/// (`src/provider/data_sources/mod.rs`).
pub trait Platform: DataSource {
    /// The table of the platform guide it is listed in.
    fn area(&self) -> Area;

    /// Its row there.
    fn guide_row(&self) -> GuideRow;

    /// Its row in the guide's "Supported versions".
    fn versions(&self) -> Versions;

    /// What it does, in the README's table.
    fn summary(&self) -> &'static str;

    /// Its module, the name of the file that defines it: that of its
    /// domain renderer too.
    fn module(&self) -> &'static str {
        let path = std::any::type_name::<Self>();
        path.rsplit("::").nth(1).unwrap_or(path)
    }
}
