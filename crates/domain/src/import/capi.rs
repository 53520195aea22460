//! Import from a Cluster API KubeadmControlPlane or KubeadmConfigTemplate
//! manifest: the proxy drop-in among its `files` (inline, base64 or not), else
//! the `export` lines of its `preKubeadmCommands`.

use base64::Engine as _;
use serde_json::Value;

use super::{
    documents, error, systemd, text_at, Found, Importer, CLUSTER_DOMAIN, CONTROL_PLANE, POD_CIDR,
    SERVICE_CIDR,
};
use crate::Finding;

/// The Cluster API importer, EKS Anywhere included.
#[derive(Debug, Clone, Copy)]
pub struct Capi;

impl Importer for Capi {
    fn kind(&self) -> &'static str {
        "capi"
    }

    fn reads(&self) -> &'static str {
        "KubeadmControlPlane / KubeadmConfigTemplate, with the Cluster when at hand, or an EKS Anywhere Cluster"
    }

    /// Reads the proxy settings of the first kubeadm config that has them. The
    /// cluster's networks come from a `Cluster` in the same manifest
    /// (`spec.clusterNetwork.pods.cidrBlocks`, `.services.cidrBlocks`,
    /// `.serviceDomain`, `spec.controlPlaneEndpoint`; cluster-api
    /// api/v1beta1/cluster_types.go, `ClusterNetwork`), which TKG, EKS Anywhere
    /// and Giant Swarm fill, else from the kubeadm `clusterConfiguration.networking`.
    /// The profile is named after the cluster.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let cluster = documents
            .iter()
            .find(|d| text_at(d, &["kind"]) == Some("Cluster"));
        for document in &documents {
            let spec = match text_at(document, &["kind"]) {
                Some("KubeadmControlPlane") => document.pointer("/spec/kubeadmConfigSpec"),
                Some("KubeadmConfigTemplate") => document.pointer("/spec/template/spec"),
                Some("KubeadmConfig") => document.get("spec"),
                _ => None,
            };
            let Some(spec) = spec else { continue };
            let mut found = match from_files(spec)? {
                Some(found) => found,
                None => match from_exports(spec)? {
                    Some(found) => found,
                    None => continue,
                },
            };
            found.cluster_name = cluster
                .and_then(|c| c.pointer("/metadata/name"))
                .or_else(|| document.pointer("/metadata/labels/cluster.x-k8s.io~1cluster-name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| {
                    text_at(document, &["metadata", "name"])
                        .map(|n| n.strip_suffix("-control-plane").unwrap_or(n).to_owned())
                });
            if let Some(cluster) = cluster {
                cluster_facts(cluster, &mut found.cluster_entries);
                eks_anywhere_facts(cluster, &documents, &mut found.cluster_entries);
            }
            kubeadm_facts(spec, &mut found.cluster_entries);
            return Ok(found);
        }
        if let Some(mut found) = cluster.and_then(eks_anywhere) {
            if let Some(cluster) = cluster {
                eks_anywhere_facts(cluster, &documents, &mut found.cluster_entries);
            }
            return Ok(found);
        }
        Err(error(
            "No KubeadmControlPlane, KubeadmConfigTemplate or KubeadmConfig with proxy settings, nor an EKS Anywhere Cluster with `proxyConfiguration`, found.",
        ))
    }
}

/// An EKS Anywhere `Cluster` (anywhere.eks.amazonaws.com): its
/// `spec.proxyConfiguration` (`httpProxy`, `httpsProxy`, `noProxy` list;
/// aws/eks-anywhere pkg/api/v1alpha1/cluster_types.go, `ProxyConfiguration`),
/// whose documented proxies have no scheme, and its networks and
/// `controlPlaneConfiguration.endpoint.host`.
fn eks_anywhere(cluster: &Value) -> Option<Found> {
    let proxy = cluster.pointer("/spec/proxyConfiguration")?;
    let mut found = Found {
        cluster_name: text_at(cluster, &["metadata", "name"]).map(str::to_owned),
        http_proxy: text_at(proxy, &["httpProxy"]).map(str::to_owned),
        https_proxy: text_at(proxy, &["httpsProxy"]).map(str::to_owned),
        no_proxy: proxy
            .get("noProxy")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        ..Found::default()
    };
    cluster_facts(cluster, &mut found.cluster_entries);
    Some(found)
}

/// Reason of the endpoint of an EKS Anywhere cluster's datacenter.
const DATACENTER_ENDPOINT: &str =
    "datacenter endpoint of this cluster, added to NO_PROXY by EKS Anywhere";

/// What EKS Anywhere adds to its clusters' NO_PROXY besides the networks:
/// the control-plane endpoint (`controlPlaneConfiguration.endpoint.host`)
/// and the endpoint of the datacenter config that `spec.datacenterRef`
/// names (aws/eks-anywhere pkg/api/v1alpha1: VSphereDatacenterConfig
/// `server`, NutanixDatacenterConfig `endpoint`, CloudStackDatacenterConfig
/// `availabilityZones[].managementApiEndpoint` as a URL, TinkerbellDatacenterConfig
/// `tinkerbellIP`; the providers' templates append them, e.g.
/// pkg/providers/cloudstack/template.go). Both are the cluster's own.
fn eks_anywhere_facts(cluster: &Value, documents: &[Value], out: &mut Vec<(String, &'static str)>) {
    if let Some(host) = cluster
        .pointer("/spec/controlPlaneConfiguration/endpoint/host")
        .and_then(Value::as_str)
    {
        out.push((host.to_owned(), CONTROL_PLANE));
    }
    let (Some(kind), Some(name)) = (
        text_at(cluster, &["spec", "datacenterRef", "kind"]),
        text_at(cluster, &["spec", "datacenterRef", "name"]),
    ) else {
        return;
    };
    let Some(spec) = documents
        .iter()
        .find(|d| {
            text_at(d, &["kind"]) == Some(kind) && text_at(d, &["metadata", "name"]) == Some(name)
        })
        .and_then(|d| d.get("spec"))
    else {
        return;
    };
    let mut endpoints: Vec<String> = ["server", "endpoint", "tinkerbellIP"]
        .iter()
        .filter_map(|key| text_at(spec, &[key]))
        .map(str::to_owned)
        .collect();
    let zones = spec.get("availabilityZones").and_then(Value::as_array);
    endpoints.extend(
        zones
            .into_iter()
            .flatten()
            .chain(std::iter::once(spec))
            .filter_map(|zone| text_at(zone, &["managementApiEndpoint"]))
            .filter_map(url_host)
            .map(str::to_owned),
    );
    out.extend(endpoints.into_iter().map(|e| (e, DATACENTER_ENDPOINT)));
}

/// The host of an absolute URL (`https://host:port/path`), without brackets.
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host.split(':').next()?,
    };
    (!host.is_empty()).then_some(host)
}

/// Facts of a CAPI `Cluster`.
fn cluster_facts(cluster: &Value, out: &mut Vec<(String, &'static str)>) {
    for (pointer, why) in [
        ("/spec/clusterNetwork/pods/cidrBlocks", POD_CIDR),
        ("/spec/clusterNetwork/services/cidrBlocks", SERVICE_CIDR),
    ] {
        for cidr in cluster
            .pointer(pointer)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            out.push((cidr.to_owned(), why));
        }
    }
    if let Some(domain) = cluster
        .pointer("/spec/clusterNetwork/serviceDomain")
        .and_then(Value::as_str)
    {
        out.push((domain.to_owned(), CLUSTER_DOMAIN));
    }
    if let Some(host) = cluster
        .pointer("/spec/controlPlaneEndpoint/host")
        .and_then(Value::as_str)
    {
        out.push((host.to_owned(), CONTROL_PLANE));
    }
}

/// Facts of a kubeadm `clusterConfiguration`.
fn kubeadm_facts(spec: &Value, out: &mut Vec<(String, &'static str)>) {
    for (pointer, why) in [
        ("/clusterConfiguration/networking/podSubnet", POD_CIDR),
        (
            "/clusterConfiguration/networking/serviceSubnet",
            SERVICE_CIDR,
        ),
        ("/clusterConfiguration/networking/dnsDomain", CLUSTER_DOMAIN),
        ("/clusterConfiguration/controlPlaneEndpoint", CONTROL_PLANE),
    ] {
        if let Some(value) = spec.pointer(pointer).and_then(Value::as_str) {
            for part in value.split(',') {
                let host = part
                    .rsplit_once(':')
                    .filter(|(h, p)| !h.contains(':') && p.bytes().all(|b| b.is_ascii_digit()))
                    .map_or(part, |(h, _)| h);
                out.push((host.trim().to_owned(), why));
            }
        }
    }
}

fn from_files(spec: &Value) -> Result<Option<Found>, Finding> {
    let files = spec
        .get("files")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for file in files {
        let path = text_at(file, &["path"]).unwrap_or_default();
        if !path.contains(".service.d/") {
            continue;
        }
        let Some(content) = text_at(file, &["content"]) else {
            continue;
        };
        let content = match text_at(file, &["encoding"]) {
            Some("base64") => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(content.split_whitespace().collect::<String>())
                    .map_err(|_| error(format!("The content of {path} is not base64.")))?;
                String::from_utf8(bytes)
                    .map_err(|_| error(format!("The content of {path} is not text.")))?
            }
            Some(other) if !other.is_empty() => {
                return Err(error(format!(
                    "The content of {path} uses encoding {other:?}; only base64 is read."
                )))
            }
            _ => content.to_owned(),
        };
        if content.to_ascii_lowercase().contains("_proxy=") {
            return systemd::Systemd.read(&content).map(Some);
        }
    }
    Ok(None)
}

fn from_exports(spec: &Value) -> Result<Option<Found>, Finding> {
    let commands = spec
        .get("preKubeadmCommands")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let pairs: Vec<(String, String)> = commands
        .iter()
        .filter_map(Value::as_str)
        .filter_map(|c| c.trim().strip_prefix("export "))
        .filter_map(|assignment| assignment.split_once('='))
        .map(|(name, value)| (name.trim().to_owned(), shell_unquote(value.trim())))
        .collect();
    if !pairs
        .iter()
        .any(|(n, _)| n.to_ascii_lowercase().ends_with("_proxy"))
    {
        return Ok(None);
    }
    systemd::from_variables(&pairs).map(Some)
}

/// The value of a shell word: single quotes (with `'\''`), double quotes or bare.
fn shell_unquote(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => out.extend(chars.by_ref().take_while(|c| *c != '\'')),
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => out.push(chars.next().unwrap_or('\\')),
                        c => out.push(c),
                    }
                }
            }
            '\\' => out.push(chars.next().unwrap_or('\\')),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_shell_words() {
        assert_eq!(shell_unquote(r"'a'\''b'"), "a'b");
        assert_eq!(shell_unquote(r#""a\"b""#), "a\"b");
        assert_eq!(shell_unquote("plain"), "plain");
    }

    /// The datacenter endpoint EKS Anywhere adds (vSphere `server`,
    /// CloudStack `managementApiEndpoint` URLs) and the control-plane
    /// endpoint are the cluster's own.
    #[test]
    fn eks_anywhere_endpoints_are_the_clusters_own() {
        let cluster = "apiVersion: anywhere.eks.amazonaws.com/v1alpha1\nkind: Cluster\nmetadata: {name: c}\nspec:\n  controlPlaneConfiguration: {endpoint: {host: 10.1.2.3}}\n  datacenterRef: {kind: DC, name: c}\n  proxyConfiguration: {httpProxy: 'http://p.example:3128', noProxy: [vc.example, 'cs.example', '10.1.2.3', keep.example]}\n";
        for dc in [
            "kind: DC\nmetadata: {name: c}\nspec: {server: vc.example}\n---\nkind: DC\nmetadata: {name: other}\nspec: {server: cs.example}",
            "kind: DC\nmetadata: {name: c}\nspec: {server: vc.example, availabilityZones: [{managementApiEndpoint: 'https://user@cs.example:8080/client/api'}]}",
        ] {
            let imported = crate::import::parse("capi", &format!("{cluster}---\n{dc}\n")).unwrap();
            let dropped: Vec<&str> = imported.dropped.iter().map(|d| d.entry.as_str()).collect();
            assert!(dropped.contains(&"vc.example") && dropped.contains(&"10.1.2.3"), "{dropped:?}");
            assert!(imported.no_proxy.contains(&"keep.example".to_owned()));
            assert_eq!(dc.contains("availabilityZones"), dropped.contains(&"cs.example"), "{dc}");
        }
        assert_eq!(url_host("https://[fd00::1]:8080/x"), Some("fd00::1"));
        assert_eq!(url_host("cs.example"), None);
    }
}
