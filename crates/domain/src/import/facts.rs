//! The cluster facts an import ID gives, as name and value in the order the
//! import ID lists its facts: one list for the ID's canonical text (and so
//! the identity of an imported profile) and for the import's notes.

use crate::no_proxy::{Cloud, Cluster};

/// The value of one cluster fact.
pub(crate) enum FactValue<'a> {
    /// A list of CIDR blocks.
    List(&'a [String]),
    /// One value.
    Single(&'a str),
}

/// The cluster facts `cluster` holds, in the order of the import ID's facts
/// (`https_through_proxy`, no cluster input, aside).
pub(crate) fn fact_values(cluster: &Cluster) -> Vec<(&'static str, FactValue<'_>)> {
    let mut out = Vec::new();
    for (name, list) in [
        ("pod_cidrs", &cluster.pod_cidrs),
        ("service_cidrs", &cluster.service_cidrs),
        ("node_cidrs", &cluster.node_cidrs),
    ] {
        if !list.is_empty() {
            out.push((name, FactValue::List(list)));
        }
    }
    for (name, value) in [
        ("cluster_domain", &cluster.cluster_domain),
        ("apiserver_host", &cluster.apiserver_host),
        ("apiserver_ip", &cluster.apiserver_ip),
        ("control_plane_endpoint", &cluster.control_plane_endpoint),
    ] {
        if let Some(value) = value {
            out.push((name, FactValue::Single(value)));
        }
    }
    if let Some(cloud) = cluster.cloud {
        let name = Cloud::NAMES
            .into_iter()
            .find(|n| Cloud::from_name(n) == Some(cloud))
            .unwrap_or_default();
        out.push(("cloud", FactValue::Single(name)));
    }
    out
}
