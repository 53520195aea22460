//! Telling an artifact's kind from its content and name, for the fleet
//! scan; a file that is none of the kinds the importers read is no
//! artifact. Each test looks for the shape the importer of that kind reads
//! (the upstream sources are cited in the importers): it recognises the
//! artifact, whether or not its import then succeeds, so that an artifact
//! the import refuses is reported instead of skipped.

use serde_json::Value;

use super::super::input::{documents, text_at};

/// The kind of the artifact `name` (the file's name) holding `text`, or
/// `None` when it is no artifact of any kind.
pub fn kind_of(name: &str, text: &str) -> Option<&'static str> {
    // YAML or JSON first: a kubeadm config or a Secret may carry a whole
    // drop-in in a string.
    if let Some(kind) = documents(text)
        .ok()
        .and_then(|documents| documents.iter().find_map(kind_of_document))
    {
        return Some(kind);
    }
    if is_systemd(name, text) {
        return Some("systemd");
    }
    is_environment_file(text).then_some("rke2")
}

/// A systemd unit or drop-in (`systemd` importer): an `Environment=` or
/// `DefaultEnvironment=` line that sets a proxy variable, in a `.conf` or
/// `.service` file or under a `[Service]` or `[Manager]` section.
fn is_systemd(name: &str, text: &str) -> bool {
    let unit = name.ends_with(".conf")
        || name.ends_with(".service")
        || text
            .lines()
            .any(|l| matches!(l.trim(), "[Service]" | "[Manager]"));
    unit && text.lines().any(|line| {
        let line = line.trim();
        (line.starts_with("Environment=") || line.starts_with("DefaultEnvironment="))
            && sets_proxy(line)
    })
}

/// An environment file (`rke2` importer: `/etc/default/rke2-server`,
/// `k3s.service.env`): only `NAME=value` lines, comments and blank lines,
/// one of them a proxy variable (or its `CONTAINERD_` form).
fn is_environment_file(text: &str) -> bool {
    let mut proxy = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let Some((name, _)) = line.split_once('=') else {
            return false;
        };
        let name = name.trim().strip_prefix("export ").unwrap_or(name).trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return false;
        }
        let bare = name.strip_prefix("CONTAINERD_").unwrap_or(name);
        proxy |= ["http_proxy", "https_proxy"]
            .iter()
            .any(|wanted| bare.eq_ignore_ascii_case(wanted));
    }
    proxy
}

/// Whether `line` assigns HTTP_PROXY or HTTPS_PROXY (any case).
fn sets_proxy(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.contains("http_proxy=") || lower.contains("https_proxy=")
}

/// The kind of one YAML or JSON document of an artifact.
fn kind_of_document(document: &Value) -> Option<&'static str> {
    let kind = text_at(document, &["kind"]);
    let api = text_at(document, &["apiVersion"]).unwrap_or_default();
    // TKG cluster configuration: flat `TKG_*` variables.
    if [
        "TKG_HTTP_PROXY",
        "TKG_HTTPS_PROXY",
        "TKG_HTTP_PROXY_ENABLED",
    ]
    .iter()
    .any(|key| document.get(key).is_some())
    {
        return Some("tkg");
    }
    // AKS: `az aks show` output, its ARM `properties`, or the file
    // `az aks create --http-proxy-config` reads.
    if document.get("httpProxyConfig").is_some()
        || document.pointer("/properties/httpProxyConfig").is_some()
        || (kind.is_none() && document.get("httpProxy").is_some())
    {
        return Some("aks");
    }
    // OpenShift: the Proxy object, the install-config (alone or in the
    // cluster-config-v1 ConfigMap).
    if (kind == Some("Proxy") && api.starts_with("config.openshift.io/"))
        || document.pointer("/data/install-config").is_some()
        || document
            .get("proxy")
            .is_some_and(|p| p.get("httpProxy").is_some() || p.get("httpsProxy").is_some())
    {
        return Some("openshift");
    }
    // Giant Swarm: the cluster chart's values, bare or in the Secret or
    // ConfigMap Giant Swarm keeps them in, and the systemd-proxy Secret.
    if document.pointer("/global/connectivity/proxy").is_some()
        || document.pointer("/cluster/proxy").is_some()
    {
        return Some("giantswarm");
    }
    if matches!(kind, Some("Secret" | "ConfigMap")) {
        let name = text_at(document, &["metadata", "name"]).unwrap_or_default();
        if ["-systemd-proxy", "-cluster-values", "-userconfig"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
        {
            return Some("giantswarm");
        }
    }
    // Cluster API: a kubeadm config that mentions a proxy; EKS Anywhere: a
    // Cluster with `proxyConfiguration`.
    let kubeadm = matches!(
        kind,
        Some("KubeadmControlPlane" | "KubeadmConfigTemplate" | "KubeadmConfig")
    );
    if kubeadm && mentions_proxy(document) {
        return Some("capi");
    }
    if kind == Some("Cluster") && document.pointer("/spec/proxyConfiguration").is_some() {
        return Some("capi");
    }
    None
}

/// Whether a proxy variable appears anywhere in `value` (the drop-in among
/// a kubeadm config's `files`, base64 or not, or its `preKubeadmCommands`).
fn mentions_proxy(value: &Value) -> bool {
    use base64::Engine as _;
    match value {
        Value::String(s) => {
            let lower = s.to_ascii_lowercase();
            lower.contains("http_proxy")
                || lower.contains("https_proxy")
                || base64::engine::general_purpose::STANDARD
                    .decode(s.split_whitespace().collect::<String>())
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .is_some_and(|text| {
                        let lower = text.to_ascii_lowercase();
                        lower.contains("http_proxy") || lower.contains("https_proxy")
                    })
        }
        Value::Array(items) => items.iter().any(mentions_proxy),
        Value::Object(map) => map.values().any(mentions_proxy),
        _ => false,
    }
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

    #[test]
    fn every_detected_kind_is_registered() {
        for kind in [
            "systemd",
            "rke2",
            "tkg",
            "aks",
            "openshift",
            "giantswarm",
            "capi",
        ] {
            assert!(super::super::super::importer(kind).is_some(), "{kind}");
        }
        assert_eq!(
            super::super::super::kinds().len(),
            7,
            "a new importer needs its shape in `kind_of`"
        );
    }
}
