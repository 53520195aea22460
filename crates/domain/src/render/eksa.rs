//! EKS Anywhere: the `proxyConfiguration` of the `Cluster` spec
//! (`anywhere.eks.amazonaws.com/v1alpha1`; aws/eks-anywhere
//! pkg/api/v1alpha1/cluster_types.go, `ProxyConfiguration{httpProxy,
//! httpsProxy, noProxy []string}`), its rules and the list EKS Anywhere
//! renders onto the nodes.
//!
//! Rules, from pkg/api/v1alpha1/cluster.go (`validateProxyConfig`,
//! `validateProxyData`): both `httpProxy` and `httpsProxy` are required, each
//! `host:port` or an `http…` URL with a port from 1 to 65535 (older releases
//! wanted an IP host; current ones resolve the name on the admin machine).
//! EKS Anywhere then writes, on every OS (kubeadm `proxy` fields on
//! Bottlerocket, a containerd/kubelet drop-in on Ubuntu and RHEL, etcdadm's
//! `proxy`), the list pod CIDRs, service CIDRs, `noProxy`, `localhost`,
//! `127.0.0.1`, `.svc`, control-plane endpoint host, without de-duplication
//! (pkg/clusterapi/proxy.go, `noProxyList`).

use serde::Serialize;
use serde_json::json;

use super::{
    yaml, Cluster, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets,
};
use crate::no_proxy::typed::networks;
use crate::proxy_url::ProxyUrl;
use crate::{Finding, InputField};

/// What EKS Anywhere adds after the user's `noProxy` (`NoProxyDefaults`).
pub const DEFAULTS: [&str; 3] = ["localhost", "127.0.0.1", ".svc"];

/// EKS Anywhere: no options. The nodes' list takes the cluster's
/// `pod_cidrs` (`clusterNetwork.pods.cidrBlocks`), `service_cidrs`
/// (`clusterNetwork.services.cidrBlocks`) and the host of
/// `control_plane_endpoint` (`controlPlaneConfiguration.endpoint.host`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Eksa;

/// What EKS Anywhere is given, and what it writes onto the nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EksaConfig {
    /// The `proxyConfiguration` object (see [`proxy_configuration`]).
    pub proxy_configuration: ProxyConfiguration,
    /// The Cluster spec fragment (see [`cluster_spec`]).
    pub cluster_spec: String,
    /// The list EKS Anywhere writes onto the nodes (see [`node_no_proxy`]).
    pub node_no_proxy: Vec<String>,
}

impl Renderer for Eksa {
    type Output = EksaConfig;

    const MODULE: &'static str = "eksa";

    fn sample() -> Self {
        Eksa
    }

    /// Checks EKS Anywhere's rules, then renders the spec and the nodes' list.
    fn render(&self, input: Input) -> Rendering<EksaConfig> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let findings = validate(settings);
        if !findings.is_empty() {
            return Err(findings);
        }
        Ok(Rendered::new(EksaConfig {
            proxy_configuration: proxy_configuration(settings, secrets),
            cluster_spec: cluster_spec(settings, secrets),
            node_no_proxy: node_no_proxy(settings, cluster),
        }))
    }

    /// The cluster config `eksctl anywhere` reads, with the fragment as its
    /// spec; EKS Anywhere takes the CA elsewhere.
    fn held(&self, output: &EksaConfig) -> Held {
        let cluster = json!({
            "apiVersion": "anywhere.eks.amazonaws.com/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "eksa"},
            "spec": {"proxyConfiguration": output.proxy_configuration},
        });
        Held::Files(vec![HeldFile::new(
            "cluster.yaml",
            "capi",
            yaml::to_string(&cluster),
            false,
        )])
    }
}

/// Checks EKS Anywhere's rules: both proxies present, and no trusted CA
/// (`ProxyConfiguration` has no field for one).
fn validate(settings: &ProxySettings) -> Vec<Finding> {
    let mut findings = Vec::new();
    if settings.trusted_ca.is_some() {
        findings.push(Finding::error(
            InputField::TrustedCa,
            "EKS Anywhere has no place for a proxy CA",
            "EKS Anywhere's proxyConfiguration has only httpProxy, httpsProxy and noProxy; trust the proxy's CA in the node image (or the OS configuration of the provider) and leave `trusted_ca` unset here.",
        ));
    }
    for (input, field, url, key) in [
        (
            InputField::HttpProxy,
            "http_proxy",
            &settings.http_proxy,
            "httpProxy",
        ),
        (
            InputField::HttpsProxy,
            "https_proxy",
            &settings.https_proxy,
            "httpsProxy",
        ),
    ] {
        if url.is_none() {
            findings.push(Finding::error(
                input,
                "EKS Anywhere needs both proxies",
                format!("EKS Anywhere rejects a proxyConfiguration without {key}; set `{field}`."),
            ));
        }
    }
    findings
}

/// The `proxyConfiguration` object of the Cluster spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProxyConfiguration {
    /// `httpProxy`.
    pub http_proxy: Option<String>,
    /// `httpsProxy`.
    pub https_proxy: Option<String>,
    /// `noProxy`: the merged list.
    pub no_proxy: Vec<String>,
}

/// The `proxyConfiguration` object (`httpProxy`, `httpsProxy`, `noProxy`).
pub fn proxy_configuration(settings: &ProxySettings, secrets: Secrets) -> ProxyConfiguration {
    let url = |u: &Option<ProxyUrl>| u.as_ref().map(|u| ProxySettings::url(u, secrets));
    ProxyConfiguration {
        http_proxy: url(&settings.http_proxy),
        https_proxy: url(&settings.https_proxy),
        no_proxy: settings.no_proxy.clone(),
    }
}

/// The Cluster spec fragment: `spec:` with `proxyConfiguration:`, to merge
/// into the cluster config `eksctl anywhere create cluster -f` reads.
pub fn cluster_spec(settings: &ProxySettings, secrets: Secrets) -> String {
    yaml::to_string(
        &json!({"spec": {"proxyConfiguration": proxy_configuration(settings, secrets)}}),
    )
}

/// The list EKS Anywhere writes onto the nodes: pod CIDRs, service CIDRs,
/// the configured entries, [`DEFAULTS`] and the endpoint host, in that
/// order and with duplicates, as EKS Anywhere does; each CIDR block and
/// the host in canonical form (invalid values, which the inputs' checks
/// reject before any rendering, are left out).
pub fn node_no_proxy(settings: &ProxySettings, cluster: &Cluster) -> Vec<String> {
    let mut out: Vec<String> = networks(&cluster.pod_cidrs)
        .chain(networks(&cluster.service_cidrs))
        .map(|net| net.to_string())
        .chain(settings.no_proxy.iter().cloned())
        .collect();
    out.extend(DEFAULTS.map(str::to_owned));
    out.extend(cluster.control_plane().map(|e| e.host.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};
    use serde_json::Value;

    #[test]
    fn renders_proxy_configuration() {
        let s = settings();
        let text = cluster_spec(&s, Secrets::Redact);
        golden("eksa/cluster-spec.yaml", &text);
        let parsed: Value = serde_yaml_ng::from_str(&text).unwrap();
        let proxy = &parsed["spec"]["proxyConfiguration"];
        assert_eq!(
            proxy["httpsProxy"],
            "http://svc-proxy:***@proxy.corp.example:3129"
        );
        assert_eq!(proxy["noProxy"], json!(s.no_proxy));
        assert!(cluster_spec(&s, Secrets::Include).contains("p%2540ss"));
        assert!(validate(&s).is_empty());
        let cluster = Cluster {
            pod_cidrs: vec!["192.168.0.0/16".into()],
            service_cidrs: vec!["10.96.0.0/12".into()],
            control_plane_endpoint: Some("https://10.20.30.40:6443".into()),
            ..Cluster::default()
        };
        let list = Eksa
            .render(Input {
                settings: &s,
                cluster: &cluster,
                secrets: Secrets::Include,
            })
            .unwrap()
            .output
            .node_no_proxy;
        assert_eq!(list[0], "192.168.0.0/16");
        assert_eq!(list.last().unwrap(), "10.20.30.40");
        assert_eq!(list.iter().filter(|e| *e == "localhost").count(), 2);
    }

    #[test]
    fn both_proxies_are_required_and_no_ca() {
        let mut s = settings();
        s.http_proxy = None;
        s.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let errors = Eksa
            .render(Input {
                settings: &s,
                cluster: &Cluster::default(),
                secrets: Secrets::Redact,
            })
            .unwrap_err();
        let located: Vec<_> = errors.into_iter().map(|f| f.location).collect();
        assert_eq!(
            located,
            [
                Some(InputField::TrustedCa.into()),
                Some(InputField::HttpProxy.into())
            ]
        );
    }
}
