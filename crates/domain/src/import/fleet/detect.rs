//! Telling an artifact's kind from its content and name, for the fleet
//! scan: every importer is asked ([`Importer::recognises`], each in its own
//! file beside the reading it recognises); a file none recognises is no
//! artifact. A recognised artifact is imported whether or not the import
//! then succeeds, so that one the import refuses is reported instead of
//! skipped.

use super::super::found::{Recognised, Scanned};
use super::super::input::documents;
use super::super::registry::importers;
#[cfg(doc)]
use super::super::Importer;

/// The kind of the artifact `name` (the file's name) holding `text`, or
/// `None` when it is no artifact of any kind: the first importer, in
/// registry order, that recognises one of its YAML or JSON documents, else
/// the first that recognises its lines.
pub fn kind_of(name: &str, text: &str) -> Option<&'static str> {
    let documents = documents(text).unwrap_or_default();
    let file = Scanned {
        name,
        text,
        documents: &documents,
    };
    let answers: Vec<(&'static str, Recognised)> = importers()
        .iter()
        .map(|importer| (importer.kind(), importer.recognises(&file)))
        .collect();
    [Recognised::Document, Recognised::Lines]
        .into_iter()
        .find_map(|wanted| answers.iter().find(|(_, how)| *how == wanted))
        .map(|(kind, _)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_told_from_its_content() {
        for (name, text, kind) in [
            ("http-proxy.conf", "[Service]\nEnvironment=\"HTTP_PROXY=http://p:1\"\n", Some("systemd")),
            ("unit", "[Service]\nEnvironment=https_proxy=http://p:1\n", Some("systemd")),
            ("rke2-server", "# c\nHTTP_PROXY=http://p:1\nNO_PROXY=a\n", Some("rke2")),
            ("k3s.service.env", "K3S_URL='x'\nCONTAINERD_HTTP_PROXY=\"http://p:1\"\n", Some("rke2")),
            ("cluster-config.yaml", "CLUSTER_NAME: a\nTKG_HTTP_PROXY: http://p:1\n", Some("tkg")),
            ("aks.json", r#"{"properties": {"httpProxyConfig": {"httpProxy": "http://p:1"}}}"#, Some("aks")),
            ("proxy.json", r#"{"httpProxy": "http://p:1", "noProxy": []}"#, Some("aks")),
            ("install-config.yaml", "baseDomain: x\nproxy:\n  httpProxy: http://p:1\n", Some("openshift")),
            ("proxy.yaml", "apiVersion: config.openshift.io/v1\nkind: Proxy\nspec: {}\n", Some("openshift")),
            ("values.yaml", "global:\n  connectivity:\n    proxy:\n      enabled: true\n", Some("giantswarm")),
            ("s.yaml", "kind: Secret\nmetadata:\n  name: gs-systemd-proxy\ndata: {}\n", Some("giantswarm")),
            ("kcp.yaml", "kind: KubeadmControlPlane\nspec:\n  kubeadmConfigSpec:\n    preKubeadmCommands: [\"export HTTP_PROXY=http://p:1\"]\n", Some("capi")),
            ("eksa.yaml", "apiVersion: anywhere.eks.amazonaws.com/v1alpha1\nkind: Cluster\nspec:\n  proxyConfiguration: {httpProxy: p:1}\n", Some("capi")),
            // Not artifacts.
            ("kcp.yaml", "kind: KubeadmControlPlane\nspec: {}\n", None),
            ("cluster.yaml", "kind: Cluster\nspec: {}\n", None),
            ("README.md", "# Clusters\nSee HTTP_PROXY=... below: proxy docs.\n", None),
            ("deploy.yaml", "kind: Deployment\nspec: {}\n", None),
            ("env", "PATH=/usr/bin\n", None),
            ("broken.yaml", "a: [\n", None),
        ] {
            assert_eq!(kind_of(name, text), kind, "{name}: {text}");
        }
    }
}
