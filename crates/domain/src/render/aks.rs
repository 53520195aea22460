//! AKS `httpProxyConfig`: the JSON `az aks create --http-proxy-config` reads
//! (the same object as the ARM property), AKS's rules, and the entries AKS
//! adds itself, so that what AKS and azurerm read back equals what was sent.
//!
//! # The round trip (why `noProxy` carries AKS's own entries)
//!
//! - AKS (`Microsoft.ContainerService/managedClusters`, `ManagedClusterHTTPProxyConfig`;
//!   Azure/azure-rest-api-specs at 06da0e39 and 05c1891c): the stable API versions
//!   (2025-10-01, and 2026-01-01, the newest) define `httpProxy`, `httpsProxy`, `noProxy`,
//!   `trustedCa` and `enabled`, which is what [`Aks`] writes (`enabled` left to its
//!   default, true). Only the preview versions (2026-01-02-preview) add
//!   `effectiveNoProxy`, read-only, "a superset of noProxy and values injected by AKS";
//!   a client of a stable version never sees it, so [`effective`] models it for review.
//!   The injected values are the node subnet (or managed VNet) CIDRs, the pod and
//!   service CIDRs, 168.63.129.16, 169.254.169.254, the apiserver FQDN
//!   (Azure/AKS#3207; an AKS engineer in kubernetes-sigs/cluster-api-provider-azure#1947),
//!   `konnectivity`, `localhost` and `127.0.0.1` (hashicorp/terraform-provider-azurerm
//!   PR 14177). Clusters have also been seen returning the same superset in
//!   `noProxy` itself (an `az aks show` capture in VijayRod/demo
//!   container-storage/logs/http-proxy-squid_aks.md), which is the drift of
//!   azurerm issue 24188.
//! - azurerm (hashicorp/terraform-provider-azurerm at 69697b7f, 2026-08-21, API
//!   2025-10-01, `internal/services/containers/kubernetes_cluster_resource.go`):
//!   `http_proxy_config.no_proxy` is a `TypeSet` of strings;
//!   `expandKubernetesClusterHttpProxyConfig` sends the set as `noProxy` and
//!   `flattenKubernetesClusterHttpProxyConfig` copies the returned `noProxy`
//!   verbatim, stripping nothing (the filter of AKS defaults in PR 14177 was
//!   removed before merge, commit 5771f7cf). Its own acceptance tests
//!   (`kubernetes_cluster_network_resource_test.go`) expect a non-empty plan
//!   after apply, or `ignore_changes = [http_proxy_config.0.no_proxy]`.
//!
//! So a `noProxy` that already holds every entry AKS injects, spelled as AKS
//! spells it, comes back as the same set whichever way AKS answers, and the
//! second plan is empty: that is the list the [`Aks`] renderer writes.

use crate::redact::quoted;
use ipnet::IpNet;
use serde_json::{json, Value};

use super::{Held, HeldFile, Input, Rendered, Renderer, Rendering};
use crate::no_proxy::{normalize, Cluster};
use crate::proxy_url::ProxyScheme;
use crate::{Finding, InputField, Location};

/// At most this many certificates in `trustedCa`.
pub const MAX_TRUSTED_CA_CERTIFICATES: usize = 20;
/// Largest CA certificate content (the PEM bundle) AKS accepts for a new cluster: 35 KB.
pub const MAX_TRUSTED_CA_BYTES: usize = 35 * 1024;

/// AKS: no options. AKS adds the cluster's node, pod and service CIDRs and
/// `apiserver_host` (the cluster's FQDN, unknown until AKS creates it) to
/// the effective NO_PROXY list itself, spelled as AKS reports them
/// (`effectiveNoProxy`, in the preview API versions).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Aks;

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpProxyConfig {
    /// `httpProxy` (no credentials: AKS does not support proxy authentication).
    pub http_proxy: Option<String>,
    /// `httpsProxy`.
    pub https_proxy: Option<String>,
    /// `noProxy`: the merged list, then every entry AKS injects that it lacks
    /// (see [`effective`]): the fixed point of the AKS and azurerm round trip.
    pub no_proxy: Vec<String>,
    /// `trustedCa`: base64 of the PEM bundle.
    pub trusted_ca: Option<String>,
}

impl Renderer for Aks {
    type Output = HttpProxyConfig;

    const MODULE: &'static str = "aks";

    fn sample() -> Self {
        Aks
    }

    /// Applies AKS's rules; every violation is a finding on its attribute.
    /// `cluster` gives the entries AKS injects, which the rendered `noProxy`
    /// includes. AKS takes no credentials, so `secrets` changes nothing.
    fn render(&self, input: Input) -> Rendering<HttpProxyConfig> {
        let Input {
            settings, cluster, ..
        } = input;
        let mut findings = Vec::new();
        for (field, url) in [
            (InputField::HttpProxy, &settings.http_proxy),
            (InputField::HttpsProxy, &settings.https_proxy),
        ] {
            let Some(url) = url else { continue };
            if url.credentials().is_some() {
                findings.push(Finding::error(
                    InputField::Username,
                    "AKS does not support proxy credentials",
                    "AKS's httpProxyConfig has no user or password; remove `username` and `password` (or use a profile without them).",
                ));
            }
            if field == InputField::HttpProxy && url.scheme() != ProxyScheme::Http {
                findings.push(Finding::error(
                    field,
                    "AKS needs an http:// httpProxy",
                    "AKS requires the scheme of httpProxy to be http.",
                ));
            }
        }
        findings.dedup();
        for (index, entry) in settings.no_proxy.iter().enumerate() {
            if let Some(why) = aks_entry_problem(entry) {
                findings.push(Finding::error(
                    Location::element(InputField::Merged, index),
                    "NO_PROXY entry AKS rejects",
                    format!(
                        "Entry {entry} of the merged list: {why}",
                        entry = quoted(entry)
                    ),
                ));
            }
        }
        if let Some(ca) = &settings.trusted_ca {
            let certificates = ca.certificates();
            if certificates.len() > MAX_TRUSTED_CA_CERTIFICATES {
                findings.push(Finding::error(
                    InputField::TrustedCa,
                    "Too many CA certificates for AKS",
                    format!("AKS accepts at most {MAX_TRUSTED_CA_CERTIFICATES} certificates; the bundle has {}.", certificates.len()),
                ));
            }
            let size = ca.to_pem().len();
            if size > MAX_TRUSTED_CA_BYTES {
                findings.push(Finding::error(
                    InputField::TrustedCa,
                    "CA bundle too large for AKS",
                    format!("AKS accepts at most 35 KB ({MAX_TRUSTED_CA_BYTES} bytes) of CA certificate content; the bundle is {size} bytes as PEM."),
                ));
            }
            if let Some(cert) = certificates.iter().find(|c| !c.has_san) {
                findings.push(Finding::error(
                    InputField::TrustedCa,
                    "CA certificate without subjectAltName",
                    format!(
                        "AKS accepts only certificates with a subjectAltName; {:?} has none.",
                        cert.subject
                    ),
                ));
            }
        }
        if !findings.is_empty() {
            return Err(findings);
        }
        Ok(Rendered::new(HttpProxyConfig {
            http_proxy: settings.http_proxy.as_ref().map(|u| u.to_plain_string()),
            https_proxy: settings.https_proxy.as_ref().map(|u| u.to_plain_string()),
            no_proxy: effective(&settings.no_proxy, cluster),
            trusted_ca: settings.trusted_ca.as_ref().map(|ca| ca.to_base64_pem()),
        }))
    }

    /// The `--http-proxy-config` file, CA included.
    fn held(&self, output: &HttpProxyConfig) -> Held {
        Held::Files(vec![HeldFile::new(
            "http-proxy-config.json",
            "aks",
            output.to_json_file(),
            true,
        )])
    }
}

impl HttpProxyConfig {
    /// The object (camelCase keys, absent fields left out): the file for
    /// `az aks create --http-proxy-config` and the ARM `httpProxyConfig` property.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        if let Some(v) = &self.http_proxy {
            object.insert("httpProxy".into(), json!(v));
        }
        if let Some(v) = &self.https_proxy {
            object.insert("httpsProxy".into(), json!(v));
        }
        object.insert("noProxy".into(), json!(self.no_proxy));
        if let Some(v) = &self.trusted_ca {
            object.insert("trustedCa".into(), json!(v));
        }
        Value::Object(object)
    }

    /// The JSON file text, pretty-printed with a final newline.
    pub fn to_json_file(&self) -> String {
        serde_json::to_string_pretty(&self.to_json()).unwrap_or_default() + "\n"
    }
}

/// Why AKS would reject a NO_PROXY entry, if it would.
fn aks_entry_problem(entry: &str) -> Option<String> {
    if entry == "*" {
        return Some("AKS does not support `*`.".to_owned());
    }
    if entry.starts_with("*.") {
        return Some("AKS does not support `*.` wildcards; write `.domain`.".to_owned());
    }
    if entry.parse::<IpNet>().is_ok() || entry.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let host = entry.strip_prefix('.').unwrap_or(entry);
    let host = host
        .strip_prefix('[')
        .map_or(host, |h| h.split(']').next().unwrap_or(h));
    let host = match host.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !h.contains(':') => h,
        _ => host,
    };
    if host.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let rfc1123 = host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    });
    (!rfc1123).then(|| "AKS accepts only RFC 1123 host names (letters, digits and `-`).".to_owned())
}

/// The entries AKS adds itself to the effective list: node, pod and service
/// CIDRs, the Azure platform addresses, the apiserver FQDN, the in-cluster
/// `konnectivity` service name and loopback, in the canonical spelling of the
/// NO_PROXY engine (host names in lower case, as AKS reports them).
pub fn injected(cluster: &Cluster) -> Vec<String> {
    let mut out: Vec<String> = cluster
        .node_cidrs
        .iter()
        .chain(&cluster.pod_cidrs)
        .chain(&cluster.service_cidrs)
        .cloned()
        .collect();
    out.extend(["168.63.129.16", "169.254.169.254"].map(str::to_owned));
    out.extend(cluster.apiserver_host.clone());
    out.extend(["konnectivity", "localhost", "127.0.0.1"].map(str::to_owned));
    let mut canonical: Vec<String> = Vec::with_capacity(out.len());
    for entry in out {
        let entry = normalize(None, &entry).unwrap_or(entry);
        if !canonical.contains(&entry) {
            canonical.push(entry);
        }
    }
    canonical
}

/// `list` followed by the injected entries it lacks: what AKS reports as
/// `effectiveNoProxy` for a `noProxy` of `list` (and, on clusters that write
/// their entries back, as `noProxy`). Idempotent: the effective list of an
/// effective list is itself, which makes it the value that survives the round trip.
pub fn effective(list: &[String], cluster: &Cluster) -> Vec<String> {
    let mut out = list.to_vec();
    for entry in injected(cluster) {
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::{merge, MergeOptions};
    use crate::render::tests::{golden, settings};
    use crate::render::{ProxySettings, Secrets};
    use crate::trusted_ca::{tests::bundle, TrustedCa};
    use proptest::prelude::*;

    fn no_credentials() -> ProxySettings {
        let mut s = settings();
        s.http_proxy = s.http_proxy.map(|u| u.with_credentials(None));
        s.https_proxy = s.https_proxy.map(|u| u.with_credentials(None));
        s
    }

    /// azurerm's plan for `http_proxy_config.no_proxy` after a refresh: a
    /// `TypeSet` of strings compared element by element (exact strings), the
    /// state holding the `noProxy` AKS returned, copied verbatim by
    /// `flattenKubernetesClusterHttpProxyConfig`. Returns (to add, to remove).
    fn azurerm_no_proxy_plan(
        config: &[String],
        read_back: &[String],
    ) -> (Vec<String>, Vec<String>) {
        let add = config
            .iter()
            .filter(|e| !read_back.contains(e))
            .cloned()
            .collect();
        let remove = read_back
            .iter()
            .filter(|e| !config.contains(e))
            .cloned()
            .collect();
        (add, remove)
    }

    /// The two ways AKS has answered a PUT of `noProxy`: as sent, or with its
    /// injected entries written into it (azurerm issue 24188).
    fn aks_answers(sent: &[String], real: &Cluster) -> [(&'static str, Vec<String>); 2] {
        [
            ("noProxy as sent", sent.to_vec()),
            ("noProxy with AKS's entries", effective(sent, real)),
        ]
    }

    fn render(
        settings: &ProxySettings,
        cluster: &Cluster,
    ) -> Result<HttpProxyConfig, Vec<Finding>> {
        Aks.render(Input {
            settings,
            cluster,
            secrets: Secrets::Include,
        })
        .map(|r| r.output)
    }

    fn merged(cluster: &Cluster) -> Vec<String> {
        merge(&cluster.sources().unwrap(), &MergeOptions::default())
            .unwrap()
            .list
    }

    fn rendered(cluster: &Cluster) -> HttpProxyConfig {
        let mut s = no_credentials();
        s.no_proxy = merged(cluster);
        render(&s, cluster).unwrap()
    }

    fn typical() -> Cluster {
        Cluster {
            installation: vec!["registry.corp.example".into(), ".corp.example".into()],
            node_cidrs: vec!["10.224.0.0/16".into()],
            pod_cidrs: vec!["192.168.0.0/16".into()],
            service_cidrs: vec!["10.96.0.0/12".into()],
            apiserver_host: Some("prod-abc123.hcp.westeurope.azmk8s.io".into()),
            cluster_domain: Some("cluster.local".into()),
            cloud: crate::no_proxy::Cloud::from_name("azure"),
            ..Cluster::default()
        }
    }

    #[test]
    fn renders_the_file_az_reads() {
        let config = render(&no_credentials(), &Cluster::default()).unwrap();
        let text = config.to_json_file();
        golden("aks/http-proxy-config.json", &text);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["httpProxy"], "http://proxy.corp.example:3128");
        assert_eq!(parsed["noProxy"][1], "10.96.0.0/12");
        assert!(parsed.get("trustedCa").is_none());
    }

    /// The second plan is empty for the rendered value, whichever way AKS
    /// answers; the merged list alone (what was rendered before) drifts. The
    /// golden file records every step of the model for review.
    #[test]
    fn round_trip_plans_empty() {
        let mut wide = typical();
        wide.installation.insert(0, "10.0.0.0/8".into());
        let mut new_cluster = typical();
        new_cluster.apiserver_host = None;
        let scenarios = [
            (
                "typical cluster, apiserver_host known",
                typical(),
                typical(),
                false,
            ),
            (
                "installation 10.0.0.0/8 covers the node and service CIDRs",
                wide.clone(),
                wide,
                false,
            ),
            (
                "new cluster: FQDN not known yet",
                new_cluster,
                typical(),
                false,
            ),
            (
                "the merged list alone (rendered before)",
                typical(),
                typical(),
                true,
            ),
        ];
        let mut report = String::new();
        for (name, configured, real, merged_only) in scenarios {
            let config = rendered(&configured);
            let sent = if merged_only {
                merged(&configured)
            } else {
                config.no_proxy.clone()
            };
            report += &format!(
                "## {name}\nsent noProxy: {}\nAKS effectiveNoProxy: {}\n",
                sent.join(","),
                effective(&sent, &real).join(",")
            );
            for (answer, read_back) in aks_answers(&sent, &real) {
                let (add, remove) = azurerm_no_proxy_plan(&sent, &read_back);
                report += &format!(
                    "azurerm second plan ({answer}): add [{}], remove [{}]\n",
                    add.join(","),
                    remove.join(",")
                );
                // Only AKS writing its entries back can drift, and only when the
                // sent list lacks one of them.
                let drifts = answer != "noProxy as sent"
                    && (merged_only || configured.apiserver_host.is_none());
                assert_eq!(
                    add.is_empty() && remove.is_empty(),
                    !drifts,
                    "{name} / {answer}: add {add:?}, remove {remove:?}"
                );
            }
            report.push('\n');
        }
        golden("aks/round-trip.txt", &report);
    }

    #[test]
    fn injected_entries_are_canonical_and_once() {
        let cluster = Cluster {
            node_cidrs: vec!["10.224.0.0/16".into()],
            pod_cidrs: vec!["10.224.0.0/16".into()],
            service_cidrs: vec![],
            apiserver_host: Some("Prod-ABC.hcp.westeurope.azmk8s.io".into()),
            ..Cluster::default()
        };
        let list = injected(&cluster);
        assert_eq!(
            list,
            [
                "10.224.0.0/16",
                "168.63.129.16",
                "169.254.169.254",
                "prod-abc.hcp.westeurope.azmk8s.io",
                "konnectivity",
                "localhost",
                "127.0.0.1"
            ]
        );
        let config = rendered(&typical());
        golden(
            "aks/effective-no-proxy.txt",
            &(config.no_proxy.join("\n") + "\n"),
        );
        assert_eq!(effective(&config.no_proxy, &typical()), config.no_proxy);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any installation list and cluster facts: the rendered list is its
        /// own effective list and plans empty after either AKS answer.
        #[test]
        fn rendered_list_is_a_fixed_point(
            installation in proptest::sample::subsequence(vec![
                "10.0.0.0/8", "registry.corp.example", ".corp.example", "localhost",
                "konnectivity", "192.168.0.0/16", "168.63.129.16", "prod.hcp.westeurope.azmk8s.io",
            ], 0..8),
            node in proptest::sample::subsequence(vec!["10.224.0.0/16", "10.240.0.0/12"], 0..2),
            pod in proptest::sample::subsequence(vec!["192.168.0.0/16", "10.244.0.0/16"], 0..2),
            service in proptest::sample::subsequence(vec!["10.96.0.0/12", "10.0.0.0/16"], 0..2),
            fqdn in proptest::option::of(Just("prod.hcp.westeurope.azmk8s.io")),
            cloud in proptest::option::of(Just("azure")),
        ) {
            let strings = |v: Vec<&str>| v.into_iter().map(str::to_owned).collect::<Vec<_>>();
            let cluster = Cluster {
                installation: strings(installation),
                node_cidrs: strings(node),
                pod_cidrs: strings(pod),
                service_cidrs: strings(service),
                apiserver_host: fqdn.map(str::to_owned),
                cloud: cloud.and_then(crate::no_proxy::Cloud::from_name),
                ..Cluster::default()
            };
            let config = rendered(&cluster);
            for (_, read_back) in aks_answers(&config.no_proxy, &cluster) {
                prop_assert_eq!(azurerm_no_proxy_plan(&config.no_proxy, &read_back), (vec![], vec![]));
            }
            for entry in merged(&cluster) {
                prop_assert!(config.no_proxy.contains(&entry), "{} dropped", entry);
            }
        }
    }

    /// A self-signed certificate of about 3 KB (many SANs), so that fewer
    /// than 20 of them exceed AKS's 35 KB.
    fn large_certificate() -> String {
        let names: Vec<String> = (0..48)
            .map(|i| format!("node-{i:02}.a-rather-long-subdomain-name.proxy-ca.corp.example"))
            .collect();
        let params = rcgen::CertificateParams::new(names).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        params.self_signed(&key).unwrap().pem()
    }

    #[test]
    fn enforces_aks_rules() {
        let none = Cluster::default();
        let errors = render(&settings(), &none).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].location, Some(InputField::Username.into()));
        let mut s = no_credentials();
        s.no_proxy.push("bad_host.example".into());
        s.no_proxy.push("*".into());
        s.no_proxy.push("*.corp.example".into());
        s.trusted_ca = Some(TrustedCa::parse(&bundle(false)).unwrap());
        let errors = render(&s, &none).unwrap_err();
        let located: Vec<_> = errors.iter().map(|f| f.location).collect();
        assert_eq!(
            located,
            [
                Some(Location::element(InputField::Merged, 7)),
                Some(Location::element(InputField::Merged, 8)),
                Some(Location::element(InputField::Merged, 9)),
                Some(InputField::TrustedCa.into())
            ]
        );
        s.no_proxy.truncate(7);
        let mut https = s.clone();
        https.http_proxy = Some(
            crate::proxy_url::ProxyUrl::parse(
                InputField::HttpProxy,
                "https://proxy.corp.example:3128",
            )
            .unwrap(),
        );
        https.trusted_ca = None;
        let errors = render(&https, &none).unwrap_err();
        assert_eq!(
            (errors[0].location, errors[0].summary.as_str()),
            (
                Some(InputField::HttpProxy.into()),
                "AKS needs an http:// httpProxy"
            )
        );
        let one = bundle(true);
        s.trusted_ca = Some(TrustedCa::parse(&one).unwrap());
        let config = render(&s, &none).unwrap();
        assert!(config.trusted_ca.is_some());
        let big = large_certificate();
        let limit = |count: usize| {
            let mut s = s.clone();
            let pem: String = (0..count).map(|_| large_certificate()).collect();
            s.trusted_ca = Some(TrustedCa::parse(&pem).unwrap());
            render(&s, &none)
                .err()
                .unwrap_or_default()
                .into_iter()
                .map(|f| f.summary)
                .collect::<Vec<_>>()
        };
        let fits = MAX_TRUSTED_CA_BYTES / big.len();
        assert!(
            fits < MAX_TRUSTED_CA_CERTIFICATES,
            "test certificates too small"
        );
        assert!(limit(fits).is_empty());
        assert_eq!(limit(fits + 1), ["CA bundle too large for AKS"]);
        assert_eq!(
            limit(MAX_TRUSTED_CA_CERTIFICATES + 1),
            [
                "Too many CA certificates for AKS",
                "CA bundle too large for AKS"
            ]
        );
    }
}
