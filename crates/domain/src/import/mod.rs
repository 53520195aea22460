//! Importers: read the proxy settings an existing cluster already has from
//! its artifacts, and split its NO_PROXY into installation-wide entries and
//! cluster-specific ones (left out, each with the reason).
//!
//! # One shape
//! Every kind of artifact is an [`Importer`]: a unit struct whose `read`
//! turns the artifact's text into a [`Found`] (the proxies as written, the
//! raw NO_PROXY entries, the CA as PEM, and the cluster facts the artifact
//! names, each with its reason). `IMPORTERS` (`registry.rs`) lists them
//! once, one line each, and [`importers()`] hands them out; the kind
//! names of import IDs ([`id`]), of `clusterproxy_artifact_settings.kind`
//! (description and validator) and of the import docs come from it.
//! [`parse_with`] picks the importer by kind and hands its `Found` to the
//! classification (`classify.rs`), the same for every kind.
//!
//! This file only declares the modules, re-exports their public items and
//! holds the entry points; what the submodules share lives in leaf modules
//! (`found.rs`, `input.rs`, `imported.rs`, `registry.rs`), so no submodule
//! imports from this one, but for `fleet.rs`, the fleet scan behind the
//! `clusterproxy_profile` list resource: it imports each artifact it is
//! handed through [`parse_with`], as an import ID does. Files are read (and
//! directories walked) by the artifacts crate, never here.
//!
//! # Adding an importer
//! See `docs/dev/adding-an-importer.md`: its file and its fixtures by hand,
//! its `mod` line below and its line in `IMPORTERS` (`registry.rs`); its code
//! compiles as a doctest, and the tests ask for every other step.

// The importers, private (the registry is the only way to one), each a
// line of `IMPORTERS` in registry.rs too; then the modules they share.
mod aks;
mod bottlerocket;
mod capi;
mod caren;
mod docker;
mod giantswarm;
mod gke;
mod konvoy;
mod openshift;
mod rke2;
mod systemd;
mod tkg;
mod tkgs;

mod classify;
pub mod drift;
mod facts;
pub mod fleet;
mod found;
mod hint;
pub mod id;
mod imported;
mod input;
mod registry;
#[cfg(test)]
mod round_trip;
pub mod sniff;

pub use found::{Found, Importer, Recognised, Scanned};
pub use hint::Syntax;
pub use imported::{Dropped, Imported};
pub use input::{documents, error, split_list, text_at, MAX_INDENT, MAX_INPUT_BYTES, MAX_NESTING};
pub use registry::{described_kinds, importer, importers, kinds};

use crate::no_proxy::Cluster;
use crate::redact::quoted;
use crate::Finding;
use input::check_size;

/// Parses `text` as an artifact of `kind`, with no cluster facts beyond the
/// artifact's own.
pub fn parse(kind: &str, text: &str) -> Result<Imported, Vec<Finding>> {
    parse_with(kind, text, &Cluster::default())
}

/// Parses `text` as an artifact of `kind`; `facts` are the cluster inputs
/// the renderers get (pod/service/node CIDRs, cluster domain, apiserver,
/// control-plane endpoint, cloud). An artifact entry is left out only when
/// what the renderers add from these facts covers it for every client.
pub fn parse_with(kind: &str, text: &str, facts: &Cluster) -> Result<Imported, Vec<Finding>> {
    parse_in(kind, text, facts, &Syntax::Id)
}

/// [`parse_with`], its hints written in `syntax` (an import ID's, or a
/// fleet scan's `facts`).
pub fn parse_in(
    kind: &str,
    text: &str,
    facts: &Cluster,
    syntax: &Syntax,
) -> Result<Imported, Vec<Finding>> {
    check_size(text).map_err(|f| vec![f])?;
    let importer = importer(kind).ok_or_else(|| {
        vec![error(format!(
            "Unknown import kind {kind}; use one of {}.",
            kinds().join(", "),
            kind = quoted(kind)
        ))]
    })?;
    let found = importer.read(text).map_err(|f| vec![f])?;
    let mut facts = facts.clone();
    if facts.cloud.is_none() {
        facts.cloud = importer.cloud();
    }
    classify::classify(importer, found, facts, syntax)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::Cloud;

    #[test]
    fn an_unknown_kind_is_an_error() {
        let err = parse("bogus", "").unwrap_err();
        assert_eq!(
            err[0].detail,
            format!(
                "Unknown import kind \"bogus\"; use one of {}.",
                kinds().join(", ")
            )
        );
    }

    /// AKS runs on Azure: its import adds Azure's addresses unless the
    /// import ID names another cloud.
    #[test]
    fn the_importers_cloud_applies_unless_the_id_names_one() {
        let text = r#"{"httpProxyConfig": {"httpProxy": "http://p.example:3128", "noProxy": ["168.63.129.16"]}}"#;
        assert!(parse("aks", text).unwrap().no_proxy.is_empty());
        let aws = Cluster {
            cloud: Some(Cloud::Aws),
            ..Cluster::default()
        };
        assert_eq!(
            parse_with("aks", text, &aws).unwrap().no_proxy,
            ["168.63.129.16"]
        );
    }

    #[test]
    fn nesting_and_size_are_checked_before_parsing() {
        let deep = "{".repeat(100_000);
        let started = std::time::Instant::now();
        for &kind in kinds() {
            let err = parse(kind, &deep).unwrap_err();
            // Drop-ins and environment files are read line by line, never as YAML.
            let expected = match kind {
                "systemd" => "No `Environment=`",
                "rke2" => "not a `NAME=value` assignment",
                _ => "nests",
            };
            assert!(
                err[0].detail.contains(expected),
                "{kind}: {}",
                err[0].detail
            );
        }
        let indented = format!("a:\n{}b: 1\n", " ".repeat(MAX_INDENT + 1));
        assert!(parse("tkg", &indented).unwrap_err()[0]
            .detail
            .contains("indented"));
        let big = "#".repeat(MAX_INPUT_BYTES + 1);
        assert!(parse("systemd", &big).unwrap_err()[0]
            .detail
            .contains("4 MiB"));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
