//! Import from a ClusterClass `Cluster` of Nutanix's Cluster API Runtime
//! Extensions (CAREN, the ClusterClasses of NKP): the `proxy` object of
//! the `clusterConfig` variable, or the `proxy` variable of the first
//! releases, with `http`, `https` and a NO_PROXY list.
//!
//! Sources (nutanix-cloud-native/cluster-api-runtime-extensions-nutanix):
//! `api/v1alpha1/http_proxy.go` at 22a8cb2e3aac3027473f93a9d74eefebd825d9ed
//! (`HTTPProxy`: `http`, `https`, `additionalNo`) and
//! `api/v1alpha1/constants.go` (`ClusterConfigVariableName = "clusterConfig"`);
//! `docs/content/http-proxy.md` (the `proxy` variable with `http`, `https`
//! and `no`, the list as written). To `additionalNo` CAREN adds by itself
//! (`GenerateNoProxy`): `localhost`, `127.0.0.1`, the Cluster's pod and
//! service CIDRs, `kubernetes`, `kubernetes.default`, `.svc`,
//! `.svc.<serviceDomain>` and `.svc.<serviceDomain>.` (`cluster.local` by
//! default), and by the kind of `spec.infrastructureRef`: `169.254.169.254`
//! and `.elb.amazonaws.com` (AWSCluster, AWSManagedCluster),
//! `169.254.169.254` (AzureCluster, AzureManagedControlPlane),
//! `169.254.169.254`, `metadata` and `metadata.google.internal` (GCPCluster).

use serde_json::Value;

use super::capi::cluster_facts;
use super::found::{Found, Importer, Recognised, Scanned};
use super::input::{
    documents, error, first_shaped, optional_text, string_list, text_at, topology_variable,
};
use crate::Finding;

/// What CAREN always adds to `additionalNo`.
const ADDED: &str = "added by CAREN itself";

/// The CAREN importer.
#[derive(Debug, Clone, Copy)]
pub struct Caren;

/// The proxy object of a CAREN `Cluster` and where it is, in findings.
fn proxy_of(document: &Value) -> Option<(&Value, &'static str)> {
    let shape = |proxy: &Value| proxy.get("http").is_some() || proxy.get("https").is_some();
    if let Some(proxy) = topology_variable(document, "clusterConfig").and_then(|c| c.get("proxy")) {
        return Some((proxy, "spec.topology.variables[clusterConfig].value.proxy"));
    }
    topology_variable(document, "proxy")
        .filter(|proxy| shape(proxy))
        .map(|proxy| (proxy, "spec.topology.variables[proxy].value"))
}

impl Importer for Caren {
    fn kind(&self) -> &'static str {
        "caren"
    }

    fn platform(&self) -> &'static str {
        "Nutanix CAREN (NKP)"
    }

    fn reads(&self) -> &'static str {
        "ClusterClass `Cluster` with the `clusterConfig` or `proxy` variable"
    }

    /// A `Cluster` whose topology sets CAREN's proxy.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| proxy_of(document).is_some())
    }

    /// Reads the proxy, the list and the Cluster's networks.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let Some((cluster, (proxy, field))) = first_shaped(&documents, proxy_of) else {
            return Err(error(
                "No ClusterClass `Cluster` whose `clusterConfig` variable has a `proxy`, nor one with a `proxy` variable of `http` and `https`, found.",
            ));
        };
        if !proxy.is_object() {
            return Err(error(format!("`{field}` is not an object.")));
        }
        let mut cluster_entries = Vec::new();
        cluster_facts(cluster, &mut cluster_entries);
        let additional = proxy.get("additionalNo").is_some();
        let no_proxy = if additional {
            string_list(proxy, "additionalNo", field)?
        } else {
            string_list(proxy, "no", field)?
        };
        if additional {
            let domain = text_at(cluster, &["spec", "clusterNetwork", "serviceDomain"])
                .unwrap_or("cluster.local")
                .trim_start_matches('.');
            let mut added: Vec<String> = [
                "localhost",
                "127.0.0.1",
                "kubernetes",
                "kubernetes.default",
                ".svc",
            ]
            .map(str::to_owned)
            .to_vec();
            added.push(format!(".svc.{domain}"));
            let infrastructure = text_at(cluster, &["spec", "infrastructureRef", "kind"]);
            let by_cloud: &[&str] = match infrastructure {
                Some("AWSCluster" | "AWSManagedCluster") => {
                    &["169.254.169.254", ".elb.amazonaws.com"]
                }
                Some("AzureCluster" | "AzureManagedControlPlane") => &["169.254.169.254"],
                Some("GCPCluster") => &["169.254.169.254", "metadata", "metadata.google.internal"],
                _ => &[],
            };
            added.extend(by_cloud.iter().map(|e| (*e).to_owned()));
            cluster_entries.extend(added.into_iter().map(|entry| (entry, ADDED)));
        }
        Ok(Found {
            cluster_name: text_at(cluster, &["metadata", "name"]).map(str::to_owned),
            name_from: Some("the Cluster document".to_owned()),
            http_proxy: optional_text(proxy, "http", field)?,
            https_proxy: optional_text(proxy, "https", field)?,
            no_proxy,
            trusted_ca: None,
            cluster_entries,
            warnings: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLUSTER: &str = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: nkp-1\nspec:\n  clusterNetwork:\n    pods:\n      cidrBlocks: [192.168.0.0/16]\n  topology:\n    class: nutanix-quick-start\n    variables:\n    - name: clusterConfig\n      value:\n        proxy:\n          http: http://proxy.corp.example:3128\n          https: http://proxy.corp.example:3128\n          additionalNo: [.corp.example]\n";

    #[test]
    fn reads_both_shapes_and_what_caren_adds() {
        let found = Caren.read(CLUSTER).unwrap();
        assert_eq!(found.cluster_name.as_deref(), Some("nkp-1"));
        assert_eq!(found.no_proxy, [".corp.example"]);
        assert!(found
            .cluster_entries
            .contains(&(".svc.cluster.local".to_owned(), ADDED)));
        let early = "kind: Cluster\nspec:\n  topology:\n    variables:\n    - name: proxy\n      value: {http: 'http://p:1', https: 'http://p:1', no: [a.example]}\n";
        let found = Caren.read(early).unwrap();
        assert_eq!(found.no_proxy, ["a.example"]);
        assert!(found.cluster_entries.is_empty());
    }

    /// A field of another type is refused, naming it.
    #[test]
    fn refuses_what_it_cannot_read() {
        for (text, field) in [
            (
                CLUSTER.replace(
                    "additionalNo: [.corp.example]",
                    "additionalNo: .corp.example",
                ),
                "value.proxy.additionalNo",
            ),
            (
                CLUSTER
                    .replace("http: http", "http: [http")
                    .replace(":3128\n          https", ":3128]\n          https"),
                "value.proxy.http",
            ),
            (
                CLUSTER.replace("additionalNo: [.corp.example]", "additionalNo: [1]"),
                "value.proxy.additionalNo",
            ),
        ] {
            let finding = Caren.read(&text).unwrap_err();
            assert!(finding.detail.contains(field), "{}", finding.detail);
        }
        assert!(Caren.read("kind: Cluster\nspec: {}\n").is_err());
    }
}
