//! The importers' registry: one plain list, [`IMPORTERS`], one line per
//! importer; every kind name users see comes from here.

use std::sync::LazyLock;

use super::found::Importer;
use super::{
    aks, bottlerocket, capi, caren, docker, giantswarm, gke, konvoy, openshift, rke2, systemd, tkg,
    tkgs,
};

/// Every importer, one line each, in the order users see the kinds (an
/// importer's module is named like its kind). An importer left out is dead
/// code, and `cargo test --lib` names the line to add
/// (`registries::every_extension_is_on_its_registry_line`).
static IMPORTERS: &[&dyn Importer] = &[
    &aks::Aks,
    &tkg::Tkg,
    &capi::Capi,
    &systemd::Systemd,
    &giantswarm::GiantSwarm,
    &openshift::OpenShift,
    &rke2::Rke2,
    &caren::Caren,
    &tkgs::Tkgs,
    &konvoy::Konvoy,
    &gke::Gke,
    &docker::Docker,
    &bottlerocket::Bottlerocket,
];

static KINDS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| IMPORTERS.iter().map(|i| i.kind()).collect());

/// Every importer, in the order the kinds are listed to users.
pub fn importers() -> &'static [&'static dyn Importer] {
    IMPORTERS
}

/// The importer of `kind`.
pub fn importer(kind: &str) -> Option<&'static dyn Importer> {
    IMPORTERS.iter().copied().find(|i| i.kind() == kind)
}

/// The kind names, in [`importers()`] order.
pub fn kinds() -> &'static [&'static str] {
    &KINDS
}

/// Every kind with what it reads, as Markdown: "`aks` (...), ... or `rke2` (...)".
pub fn described_kinds() -> String {
    let described: Vec<String> = IMPORTERS
        .iter()
        .map(|i| format!("`{}` ({})", i.kind(), i.reads()))
        .collect();
    crate::prose::list(&described, " or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind names one importer, and the lists built from the registry
    /// name them all, in order.
    #[test]
    fn the_registry_names_each_kind_once() {
        let mut seen = Vec::new();
        for importer in importers() {
            let kind = importer.kind();
            assert!(!seen.contains(&kind), "{kind} twice");
            assert!(
                !kind.is_empty()
                    && kind
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                "{kind}: the import ID grammar takes lowercase letters and digits"
            );
            assert_eq!(super::importer(kind).map(|i| i.kind()), Some(kind));
            seen.push(kind);
        }
        assert_eq!(kinds(), seen);
        let described = described_kinds();
        let mut at = 0;
        for importer in importers() {
            let entry = format!("`{}` ({})", importer.kind(), importer.reads());
            let found = described[at..]
                .find(&entry)
                .unwrap_or_else(|| panic!("{entry} in {described}"));
            at += found + entry.len();
        }
        assert!(super::importer("bogus").is_none());
    }
}
