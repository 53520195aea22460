//! Import from a Konvoy (D2iQ) cluster configuration, `cluster.yaml`: the
//! `ClusterConfiguration` (`konvoy.mesosphere.io`) whose
//! `spec.kubernetes.networking` holds `httpProxy`, `httpsProxy` and
//! `noProxy`, a list (a comma-separated string in the first releases), and
//! the cluster's `podSubnet` and `serviceSubnet` (mesosphere/dcos-docs-site
//! `pages/ksphere/konvoy/latest/install/http-proxy/index.md` at
//! 0a31a757e23858eb0fce70856594f19c3e9455fe and at
//! c3bc1cecd306018e256c16f6edd01d72e7e7ed1b, the string form).

use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned, POD_CIDR, SERVICE_CIDR};
use super::input::{
    documents, error, first_shaped, optional_text, split_list, string_list, text_at,
};
use crate::Finding;

/// Where the proxy is, in findings.
const FIELD: &str = "spec.kubernetes.networking";

/// The Konvoy importer.
#[derive(Debug, Clone, Copy)]
pub struct Konvoy;

/// The `networking` object of a Konvoy `ClusterConfiguration` that sets a proxy.
fn networking_of(document: &Value) -> Option<&Value> {
    let konvoy =
        text_at(document, &["apiVersion"]).is_some_and(|v| v.starts_with("konvoy.mesosphere.io/"));
    let networking = document.pointer("/spec/kubernetes/networking")?;
    (konvoy
        && text_at(document, &["kind"]) == Some("ClusterConfiguration")
        && (networking.get("httpProxy").is_some() || networking.get("httpsProxy").is_some()))
    .then_some(networking)
}

impl Importer for Konvoy {
    fn kind(&self) -> &'static str {
        "konvoy"
    }

    fn platform(&self) -> &'static str {
        "Konvoy"
    }

    fn reads(&self) -> &'static str {
        "`cluster.yaml` `ClusterConfiguration`"
    }

    /// A Konvoy `ClusterConfiguration` with a proxy.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| networking_of(document).is_some())
    }

    /// Reads the proxy and the cluster's subnets.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let Some((document, networking)) = first_shaped(&documents, networking_of) else {
            return Err(error(
                "No Konvoy `ClusterConfiguration` with `spec.kubernetes.networking.httpProxy` or `httpsProxy` found.",
            ));
        };
        let no_proxy = match networking.get("noProxy") {
            Some(Value::String(list)) => split_list(list),
            _ => string_list(networking, "noProxy", FIELD)?,
        };
        let mut cluster_entries = Vec::new();
        for (key, why) in [("podSubnet", POD_CIDR), ("serviceSubnet", SERVICE_CIDR)] {
            if let Some(subnet) = optional_text(networking, key, FIELD)? {
                cluster_entries.push((subnet, why));
            }
        }
        Ok(Found {
            cluster_name: text_at(document, &["metadata", "name"]).map(str::to_owned),
            name_from: None,
            http_proxy: optional_text(networking, "httpProxy", FIELD)?,
            https_proxy: optional_text(networking, "httpsProxy", FIELD)?,
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

    const CLUSTER: &str = "kind: ClusterConfiguration\napiVersion: konvoy.mesosphere.io/v1beta1\nspec:\n  kubernetes:\n    networking:\n      podSubnet: 192.168.0.0/16\n      httpProxy: http://proxy.corp.example:3128\n      httpsProxy: http://proxy.corp.example:3129\n      noProxy: [localhost, .corp.example]\n";

    #[test]
    fn reads_both_list_forms() {
        let found = Konvoy.read(CLUSTER).unwrap();
        assert_eq!(found.no_proxy, ["localhost", ".corp.example"]);
        assert_eq!(
            found.cluster_entries,
            [("192.168.0.0/16".to_owned(), POD_CIDR)]
        );
        let string = CLUSTER.replace("[localhost, .corp.example]", "\"localhost,.corp.example\"");
        assert_eq!(
            Konvoy.read(&string).unwrap().no_proxy,
            ["localhost", ".corp.example"]
        );
    }

    /// A field of another type is refused, naming it; a kubeadm
    /// `ClusterConfiguration` is no Konvoy one.
    #[test]
    fn refuses_what_it_cannot_read() {
        let finding = Konvoy
            .read(&CLUSTER.replace("[localhost, .corp.example]", "{a: b}"))
            .unwrap_err();
        assert!(
            finding
                .detail
                .contains("spec.kubernetes.networking.noProxy"),
            "{}",
            finding.detail
        );
        let kubeadm = CLUSTER.replace("konvoy.mesosphere.io/v1beta1", "kubeadm.k8s.io/v1beta3");
        assert!(Konvoy.read(&kubeadm).is_err());
    }
}
