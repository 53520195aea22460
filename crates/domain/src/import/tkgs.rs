//! Import from a vSphere with Tanzu `TanzuKubernetesCluster`
//! (`run.tanzu.vmware.com` v1alpha2 and v1alpha3): `spec.settings.network.proxy`
//! with `httpProxy`, `httpsProxy` and `noProxy` (a list), and the cluster's
//! networks from `spec.settings.network.pods.cidrBlocks`,
//! `.services.cidrBlocks` and `.serviceDomain` (VMware's TKGS v1alpha2 API
//! reference, "TKGS v1alpha2 API", `settings.network.proxy`). The CAs of
//! `spec.settings.network.trust.additionalTrustedCAs` are the cluster's
//! trusted CAs, none of them marked as the proxy's: none is imported.

use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned, CLUSTER_DOMAIN, POD_CIDR, SERVICE_CIDR};
use super::input::{
    documents, error, first_shaped, items, optional_text, string_list, strings, text_at,
};
use crate::Finding;

/// Where the proxy is, in findings.
const FIELD: &str = "spec.settings.network.proxy";

/// The vSphere with Tanzu importer.
#[derive(Debug, Clone, Copy)]
pub struct Tkgs;

/// The proxy object of a `TanzuKubernetesCluster`.
fn proxy_of(document: &Value) -> Option<&Value> {
    (text_at(document, &["kind"]) == Some("TanzuKubernetesCluster"))
        .then(|| document.pointer("/spec/settings/network/proxy"))
        .flatten()
}

impl Importer for Tkgs {
    fn kind(&self) -> &'static str {
        "tkgs"
    }

    fn platform(&self) -> &'static str {
        "vSphere with Tanzu (TKGS)"
    }

    fn reads(&self) -> &'static str {
        "`TanzuKubernetesCluster` with `spec.settings.network.proxy`"
    }

    /// A `TanzuKubernetesCluster` with a proxy.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| proxy_of(document).is_some())
    }

    /// Reads the proxy and the cluster's networks.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let Some((cluster, proxy)) = first_shaped(&documents, proxy_of) else {
            return Err(error(
                "No `TanzuKubernetesCluster` with `spec.settings.network.proxy` found.",
            ));
        };
        if !proxy.is_object() {
            return Err(error(format!("`{FIELD}` is not an object.")));
        }
        let network = cluster.pointer("/spec/settings/network");
        let mut cluster_entries = Vec::new();
        for (pointer, why) in [
            ("/pods/cidrBlocks", POD_CIDR),
            ("/services/cidrBlocks", SERVICE_CIDR),
        ] {
            for cidr in strings(network.and_then(|n| n.pointer(pointer))) {
                cluster_entries.push((cidr.to_owned(), why));
            }
        }
        if let Some(domain) = network.and_then(|n| text_at(n, &["serviceDomain"])) {
            cluster_entries.push((domain.to_owned(), CLUSTER_DOMAIN));
        }
        let mut warnings = Vec::new();
        if !items(network.and_then(|n| n.pointer("/trust/additionalTrustedCAs"))).is_empty() {
            warnings.push("`spec.settings.network.trust.additionalTrustedCAs` holds the cluster's trusted CAs, none marked as the proxy's: none was imported; set `trusted_ca` if the proxy needs one of them.".to_owned());
        }
        Ok(Found {
            cluster_name: text_at(cluster, &["metadata", "name"]).map(str::to_owned),
            name_from: Some("the TanzuKubernetesCluster document".to_owned()),
            http_proxy: optional_text(proxy, "httpProxy", FIELD)?,
            https_proxy: optional_text(proxy, "httpsProxy", FIELD)?,
            no_proxy: string_list(proxy, "noProxy", FIELD)?,
            trusted_ca: None,
            cluster_entries,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TKC: &str = "apiVersion: run.tanzu.vmware.com/v1alpha2\nkind: TanzuKubernetesCluster\nmetadata:\n  name: tkc-1\nspec:\n  settings:\n    network:\n      pods:\n        cidrBlocks: [192.168.0.0/16]\n      services:\n        cidrBlocks: [10.96.0.0/12]\n      serviceDomain: cluster.local\n      proxy:\n        httpProxy: http://proxy.corp.example:3128\n        httpsProxy: http://proxy.corp.example:3128\n        noProxy: [10.96.0.0/12, 192.168.0.0/16, .corp.example]\n";

    #[test]
    fn reads_the_proxy_and_the_networks() {
        let found = Tkgs.read(TKC).unwrap();
        assert_eq!(found.cluster_name.as_deref(), Some("tkc-1"));
        assert_eq!(found.no_proxy.len(), 3);
        assert!(found
            .cluster_entries
            .contains(&("10.96.0.0/12".to_owned(), SERVICE_CIDR)));
    }

    /// A field of another type is refused, naming it.
    #[test]
    fn refuses_what_it_cannot_read() {
        let text = TKC.replace(
            "noProxy: [10.96.0.0/12, 192.168.0.0/16, .corp.example]",
            "noProxy: 10.96.0.0/12",
        );
        let finding = Tkgs.read(&text).unwrap_err();
        assert!(
            finding
                .detail
                .contains("spec.settings.network.proxy.noProxy"),
            "{}",
            finding.detail
        );
        let finding = Tkgs
            .read(&TKC.replace(
                "httpProxy: http://proxy.corp.example:3128",
                "httpProxy: 3128",
            ))
            .unwrap_err();
        assert!(
            finding.detail.contains("proxy.httpProxy"),
            "{}",
            finding.detail
        );
        assert!(Tkgs
            .read("kind: TanzuKubernetesCluster\nspec: {}\n")
            .is_err());
    }
}
