//! OpenShift: the `install-config.yaml` `proxy:` block, the cluster-wide
//! `config.openshift.io/v1` `Proxy` object, the `user-ca-bundle` ConfigMap
//! in `openshift-config`, OpenShift's validation rules, and a model of the
//! `status.noProxy` the cluster-network-operator computes.
//!
//! Rules, from openshift/installer `pkg/types/validation/installconfig.go`
//! (`validateProxy`, `validateURI`, `validateIPProxy`) and
//! openshift/cluster-network-operator `pkg/controller/proxyconfig/validation.go`
//! (commit 82ddeccdb617) with `pkg/util/validation/network.go`:
//! `httpProxy` must be `http://`, `httpsProxy` `http://` or `https://`; a proxy
//! given by IP must not lie in the cluster (pod) or service networks; every
//! `noProxy` element is a CIDR, an IP or a DNS-1123 subdomain (a leading `.`
//! allowed), without wildcards, spaces or ports, and `*` only as the whole list.
//! The operator's domain check accepts no bare IPv6 address, so one is
//! written as its `/128` block (the same set of destinations for every client).

use crate::redact::quoted;
use crate::redact::redact_userinfo;
use crate::warning::Warning;
use std::net::IpAddr;

use ipnet::IpNet;
use serde_json::{json, Value};

use super::{
    yaml, Cluster, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets,
};
use crate::no_proxy::typed::{networks, parse_host};
use crate::no_proxy::{Cloud, Destination};
use crate::proxy_url::{ProxyHost, ProxyUrl};
use crate::{Finding, InputField, Location};

/// The option `readiness_endpoints`: the URLs the operator probes through the proxy.
pub const READINESS_ENDPOINTS: InputField = InputField::Option("readiness_endpoints");

/// The option `aws_region`: the cluster's AWS region.
pub const AWS_REGION: InputField = InputField::Option("aws_region");

/// Name of the ConfigMap that carries the trusted CA: the installer's name
/// for the one it makes from `additionalTrustBundle` (pkg/asset/manifests/proxy.go).
pub const CA_CONFIG_MAP: &str = "user-ca-bundle";
/// Namespace of that ConfigMap.
pub const CA_NAMESPACE: &str = "openshift-config";
/// Key of the bundle in that ConfigMap.
pub const CA_KEY: &str = "ca-bundle.crt";

/// OpenShift's options besides the cluster, whose `node_cidrs`,
/// `pod_cidrs`, `service_cidrs` and `cloud` are the machine, cluster and
/// service networks and the platform the operator adds to `status.noProxy`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenShift {
    /// `readinessEndpoints` of the `Proxy`.
    pub readiness_endpoints: Vec<String>,
    /// The host of the internal API URL: `api-int.<cluster name>.<base domain>`.
    pub api_internal_host: Option<String>,
    /// The AWS region (only with `cloud = aws`).
    pub aws_region: Option<String>,
}

/// The validated settings, ready to render.
#[derive(Debug, Clone)]
pub struct OpenShiftProxy {
    http_proxy: Option<ProxyUrl>,
    https_proxy: Option<ProxyUrl>,
    no_proxy: Vec<String>,
    readiness_endpoints: Vec<String>,
    trusted_ca: Option<String>,
    secrets: Secrets,
    /// The `status.noProxy` the cluster-network-operator will compute: the
    /// set of its own entries and the `spec.noProxy` entries, sorted
    /// bytewise, duplicates and empty entries dropped
    /// (`MergeUserSystemNoProxy`, pkg/util/proxyconfig/no_proxy.go, commit
    /// bb6b493740e3; the installer computes the same set for the first
    /// status, openshift/installer pkg/asset/manifests/proxy.go
    /// `BuildNoProxySet`, `createNoProxy`). With `noProxy = "*"` the status
    /// is `*`. Not modelled: 168.63.129.16 on Azure clouds other than the
    /// public one, Azure Stack's ARM endpoint, OpenStack and PowerVC metadata.
    pub status_no_proxy: Vec<String>,
}

impl Renderer for OpenShift {
    type Output = OpenShiftProxy;

    const MODULE: &'static str = "openshift";

    const OPTIONS: &'static [InputField] = &[READINESS_ENDPOINTS, AWS_REGION];

    fn sample() -> Self {
        OpenShift {
            readiness_endpoints: Vec::new(),
            api_internal_host: None,
            aws_region: None,
        }
    }

    /// Applies OpenShift's rules; each violation is a finding on its input
    /// (`no_proxy[i]` for entries of the merged list,
    /// `readiness_endpoints[i]` for endpoints).
    fn render(&self, input: Input) -> Rendering<OpenShiftProxy> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let mut findings = Vec::new();
        for (field, url, schemes) in [
            (InputField::HttpProxy, &settings.http_proxy, &["http"][..]),
            (
                InputField::HttpsProxy,
                &settings.https_proxy,
                &["http", "https"][..],
            ),
        ] {
            let Some(url) = url else { continue };
            if !schemes.contains(&url.scheme().as_str()) {
                findings.push(Finding::error(
                    field,
                    "Proxy scheme OpenShift rejects",
                    format!(
                        "OpenShift accepts only {} for this proxy; it is {}://.",
                        schemes.join(" or "),
                        url.scheme().as_str()
                    ),
                ));
            }
            findings.extend(proxy_in_cluster(field, url, cluster));
        }
        if settings.http_proxy.is_none() && settings.https_proxy.is_none() {
            findings.push(Finding::error(
                InputField::HttpProxy,
                "No proxy",
                "OpenShift's proxy needs httpProxy or httpsProxy.",
            ));
        }
        let whole_wildcard = settings.no_proxy.iter().any(|e| e == "*");
        let mut no_proxy = Vec::with_capacity(settings.no_proxy.len());
        let mut warnings = Vec::new();
        for (index, entry) in settings.no_proxy.iter().enumerate() {
            if whole_wildcard {
                if entry != "*" {
                    continue;
                }
                no_proxy.push(entry.clone());
                continue;
            }
            if bracketed_form_of_listed_address(entry, &settings.no_proxy) {
                if warnings.is_empty() {
                    warnings.push(Finding::warning(
                        Warning::BracketedIpv6LeftOut,
                        InputField::Merged,
                        "Bracketed IPv6 forms left out",
                        "The merged list holds `[v6]` after each IPv6 address for python, node and undici, which match IPv6 addresses only in brackets; OpenShift rejects brackets in noProxy, so they are left out and those clients in the cluster proxy requests to IPv6 literals.",
                    ));
                }
                continue;
            }
            match entry_form(entry) {
                Ok(form) => no_proxy.push(form),
                Err(why) => findings.push(Finding::error(
                    Location::element(InputField::Merged, index),
                    "noProxy entry OpenShift rejects",
                    format!(
                        "Entry {entry} of the merged list: {why}",
                        entry = quoted(entry)
                    ),
                )),
            }
        }
        for (index, endpoint) in self.readiness_endpoints.iter().enumerate() {
            if let Some(why) = endpoint_problem(endpoint) {
                findings.push(Finding::error(
                    Location::element(READINESS_ENDPOINTS, index),
                    "Invalid readiness endpoint",
                    format!("{:?}: {why}", redact_userinfo(endpoint)),
                ));
            }
        }
        if self.aws_region.is_some() && cluster.cloud != Some(Cloud::Aws) {
            findings.push(Finding::error(
                AWS_REGION,
                "aws_region without cloud = \"aws\"",
                "The operator adds the region's node domain only on AWS; set `cloud = \"aws\"` or remove `aws_region`.",
            ));
        }
        if !findings.is_empty() {
            return Err(findings);
        }
        let status_no_proxy = if no_proxy.iter().any(|e| e == "*") {
            vec!["*".to_owned()]
        } else {
            let mut set: Vec<String> = operator_entries(self, cluster);
            set.extend(no_proxy.iter().cloned());
            set.retain(|e| !e.is_empty());
            set.sort();
            set.dedup();
            set
        };
        Ok(Rendered {
            output: OpenShiftProxy {
                http_proxy: settings.http_proxy.clone(),
                https_proxy: settings.https_proxy.clone(),
                no_proxy,
                readiness_endpoints: self.readiness_endpoints.clone(),
                trusted_ca: settings.trusted_ca.as_ref().map(|ca| ca.to_pem()),
                secrets,
                status_no_proxy,
            },
            warnings,
        })
    }

    /// `install-config.yaml` (CA included, as `additionalTrustBundle`) and
    /// the `Proxy` manifest with, given a CA, the ConfigMap it names.
    fn held(&self, output: &OpenShiftProxy) -> Held {
        let mut manifests = output.proxy_manifest();
        if let Some(ca) = output.ca_config_map() {
            manifests = format!("{manifests}---\n{ca}");
        }
        Held::Files(vec![
            HeldFile::new(
                "install-config.yaml",
                "openshift",
                output.install_config(),
                true,
            ),
            HeldFile::new("proxy.yaml", "openshift", manifests, true),
        ])
    }
}

impl OpenShiftProxy {
    /// The same settings with the proxy password replaced by `***` in the
    /// documents, without rendering (and holding the list) twice.
    pub fn redacted(self) -> Self {
        Self {
            secrets: Secrets::Redact,
            ..self
        }
    }

    /// `spec.noProxy` / `proxy.noProxy`: the entries joined with commas.
    pub fn no_proxy_value(&self) -> String {
        self.no_proxy.join(",")
    }

    fn proxy_fields(&self) -> serde_json::Map<String, Value> {
        let secrets = self.secrets;
        let mut fields = serde_json::Map::new();
        if let Some(url) = &self.http_proxy {
            fields.insert("httpProxy".into(), json!(ProxySettings::url(url, secrets)));
        }
        if let Some(url) = &self.https_proxy {
            fields.insert("httpsProxy".into(), json!(ProxySettings::url(url, secrets)));
        }
        fields.insert("noProxy".into(), json!(self.no_proxy_value()));
        fields
    }

    /// The `install-config.yaml` fragment: the `proxy:` block and, with a
    /// trusted CA, `additionalTrustBundle` (the installer's key for it).
    pub fn install_config(&self) -> String {
        let mut document = json!({ "proxy": Value::Object(self.proxy_fields()) });
        if let Some(pem) = &self.trusted_ca {
            document["additionalTrustBundle"] = json!(pem);
        }
        yaml::to_string(&document)
    }

    /// The `Proxy` named `cluster` (`config.openshift.io/v1`), with
    /// `readinessEndpoints` and, with a trusted CA, `trustedCA` naming
    /// [`CA_CONFIG_MAP`].
    pub fn proxy_manifest(&self) -> String {
        let mut spec = self.proxy_fields();
        if !self.readiness_endpoints.is_empty() {
            spec.insert("readinessEndpoints".into(), json!(self.readiness_endpoints));
        }
        if self.trusted_ca.is_some() {
            spec.insert("trustedCA".into(), json!({ "name": CA_CONFIG_MAP }));
        }
        yaml::to_string(&json!({
            "apiVersion": "config.openshift.io/v1",
            "kind": "Proxy",
            "metadata": {"name": "cluster"},
            "spec": Value::Object(spec),
        }))
    }

    /// The `user-ca-bundle` ConfigMap in `openshift-config` holding the
    /// bundle under `ca-bundle.crt`; `None` without a trusted CA.
    pub fn ca_config_map(&self) -> Option<String> {
        let pem = self.trusted_ca.as_ref()?;
        Some(yaml::to_string(&json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": CA_CONFIG_MAP, "namespace": CA_NAMESPACE},
            "data": {CA_KEY: pem},
        })))
    }
}

/// A lower bound of the length of [`OpenShiftProxy::no_proxy_value`] for
/// the merged list `no_proxy`, cheap to compute before rendering (so that
/// a result too large to return is refused before it is built): the
/// entries the rendering keeps (all but the `[v6]` forms) and their commas,
/// a bare IPv6 address (rewritten as its `/128` block) counted as no bytes;
/// `1` for a list holding `*`.
pub fn no_proxy_value_len_at_least(no_proxy: &[String]) -> usize {
    if no_proxy.iter().any(|e| e == "*") {
        return 1;
    }
    let kept = no_proxy.iter().filter(|e| !e.starts_with('['));
    let (count, bytes) = kept.fold((0usize, 0), |(count, bytes), e| {
        (count + 1, bytes + if e.contains(':') { 0 } else { e.len() })
    });
    bytes + count.saturating_sub(1)
}

/// What the operator adds on its own: loopback, `.svc`, `.cluster.local`,
/// the machine, service and cluster networks, the internal API host,
/// 169.254.169.254 on AWS, GCP and Azure, the node domain on AWS
/// (`.ec2.internal` in us-east-1, else `.<region>.compute.internal`) and the
/// metadata names on GCP.
pub fn operator_entries(openshift: &OpenShift, cluster: &Cluster) -> Vec<String> {
    let mut out: Vec<String> = ["127.0.0.1", "localhost", ".svc", ".cluster.local"]
        .map(str::to_owned)
        .to_vec();
    let blocks = |cidrs| networks(cidrs).map(|net| net.to_string());
    out.extend(blocks(&cluster.node_cidrs));
    out.extend(
        openshift
            .api_internal_host
            .as_deref()
            .and_then(|host| parse_host(host).ok())
            .map(|host| host.to_string()),
    );
    out.extend(blocks(&cluster.service_cidrs));
    if matches!(cluster.cloud, Some(Cloud::Aws | Cloud::Gcp | Cloud::Azure)) {
        out.push("169.254.169.254".to_owned());
    }
    match cluster.cloud {
        Some(Cloud::Aws) => {
            if let Some(region) = &openshift.aws_region {
                out.push(if region == "us-east-1" {
                    ".ec2.internal".to_owned()
                } else {
                    format!(".{region}.compute.internal")
                });
            }
        }
        Some(Cloud::Gcp) => out.extend(
            [
                "metadata",
                "metadata.google.internal",
                "metadata.google.internal.",
            ]
            .map(str::to_owned),
        ),
        _ => {}
    }
    out.extend(blocks(&cluster.pod_cidrs));
    out
}

/// The installer refuses a proxy given by an IP inside the cluster or
/// service networks.
fn proxy_in_cluster(field: InputField, url: &ProxyUrl, cluster: &Cluster) -> Vec<Finding> {
    let ip: IpAddr = match url.host() {
        ProxyHost::Ipv4(ip) => (*ip).into(),
        ProxyHost::Ipv6(ip) => (*ip).into(),
        ProxyHost::Name(_) => return Vec::new(),
    };
    [
        ("cluster (pod) networks", &cluster.pod_cidrs),
        ("service networks", &cluster.service_cidrs),
    ]
    .into_iter()
    .filter(|(_, nets)| networks(nets).any(|n| n.contains(&ip)))
    .map(|(what, _)| {
        Finding::error(
            field,
            "Proxy inside the cluster",
            format!(
                "The proxy address {ip} is part of the {what}; the OpenShift installer rejects it."
            ),
        )
    })
    .collect()
}

/// The form OpenShift accepts for a merged-list entry, or why it rejects it.
/// True for `[v6]` when `v6` is in `list` too: the form the merge adds for
/// the clients that match IPv6 addresses only in brackets.
fn bracketed_form_of_listed_address(entry: &str, list: &[String]) -> bool {
    entry
        .strip_prefix('[')
        .and_then(|e| e.strip_suffix(']'))
        .is_some_and(|inner| {
            inner.parse::<std::net::Ipv6Addr>().is_ok() && list.iter().any(|e| e == inner)
        })
}

fn entry_form(entry: &str) -> Result<String, String> {
    if entry.parse::<IpNet>().is_ok() {
        return Ok(entry.to_owned());
    }
    match entry.parse::<IpAddr>() {
        Ok(IpAddr::V6(ip)) => return Ok(format!("{ip}/128")),
        Ok(IpAddr::V4(_)) => return Ok(entry.to_owned()),
        Err(_) => {}
    }
    if entry.contains('*') {
        return Err("OpenShift accepts no wildcard characters; write `.domain`, or `*` alone to bypass the proxy for everything.".to_owned());
    }
    if entry.contains(':') || entry.starts_with('[') {
        return Err(
            "OpenShift accepts no ports in noProxy; list the host without `:port`.".to_owned(),
        );
    }
    let name = entry.strip_prefix('.').unwrap_or(entry);
    if is_dns1123_subdomain(name) {
        Ok(entry.to_owned())
    } else {
        Err("OpenShift accepts only IPs, CIDRs and DNS-1123 domain names (lowercase letters, digits, `-` and `.`, at most 253 characters).".to_owned())
    }
}

/// `IsDNS1123Subdomain` of k8s.io/apimachinery: at most 253 characters of
/// DNS-1123 labels joined by dots.
fn is_dns1123_subdomain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Why a readiness endpoint is not an absolute `http://` or `https://` URL
/// with a host (the operator probes each with an HTTP GET).
fn endpoint_problem(endpoint: &str) -> Option<&'static str> {
    let Some((scheme, rest)) = endpoint.split_once("://") else {
        return Some("a readiness endpoint must be an absolute http:// or https:// URL.");
    };
    if !matches!(scheme, "http" | "https") {
        return Some("a readiness endpoint must be an http:// or https:// URL.");
    }
    if endpoint
        .bytes()
        .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
    {
        return Some("a readiness endpoint must not contain spaces or control characters.");
    }
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || host.contains('@') {
        return Some("a readiness endpoint needs a host and no credentials.");
    }
    if Destination::parse(endpoint).is_err() {
        return Some(
            "a readiness endpoint needs a valid host and, if any, a port from 1 to 65535.",
        );
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};
    use crate::trusted_ca::TrustedCa;

    /// A fixed CA (tests/fixtures/import/aks/trusted-ca.pem), so golden
    /// files that hold the bundle stay byte-stable.
    pub(crate) fn fixed_ca() -> TrustedCa {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/import/aks/trusted-ca.pem"
        );
        TrustedCa::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn cluster() -> Cluster {
        Cluster {
            node_cidrs: vec!["10.0.0.0/16".into()],
            pod_cidrs: vec!["10.128.0.0/14".into()],
            service_cidrs: vec!["172.30.0.0/16".into()],
            cloud: Some(Cloud::Aws),
            ..Cluster::default()
        }
    }

    fn openshift(endpoints: &[String]) -> OpenShift {
        OpenShift {
            readiness_endpoints: endpoints.to_vec(),
            api_internal_host: Some("api-int.ocp.corp.example".into()),
            aws_region: Some("eu-west-1".into()),
        }
    }

    fn render(
        s: &ProxySettings,
        endpoints: &[String],
        cluster: &Cluster,
        secrets: Secrets,
    ) -> Result<OpenShiftProxy, Vec<Finding>> {
        openshift(endpoints)
            .render(Input {
                settings: s,
                cluster,
                secrets,
            })
            .map(|r| r.output)
    }

    #[test]
    fn renders_install_config_proxy_and_ca() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        let endpoints = vec!["https://quay.io/".to_owned()];
        let proxy = render(&s, &endpoints, &cluster(), Secrets::Redact).unwrap();
        let install = proxy.install_config();
        let manifest = proxy.proxy_manifest();
        let ca = proxy.ca_config_map().unwrap();
        golden("openshift/install-config.yaml", &install);
        golden("openshift/proxy.yaml", &manifest);
        let parsed: Value = serde_yaml_ng::from_str(&install).unwrap();
        assert_eq!(parsed["proxy"]["noProxy"], s.no_proxy_value());
        assert_eq!(
            parsed["additionalTrustBundle"],
            s.trusted_ca.as_ref().unwrap().to_pem()
        );
        let parsed: Value = serde_yaml_ng::from_str(&manifest).unwrap();
        assert_eq!(parsed["spec"]["trustedCA"]["name"], CA_CONFIG_MAP);
        assert_eq!(parsed["spec"]["readinessEndpoints"][0], "https://quay.io/");
        assert!(parsed["spec"]["httpProxy"]
            .as_str()
            .unwrap()
            .contains(":***@"));
        let secret: Value = serde_yaml_ng::from_str(
            &render(&s, &endpoints, &cluster(), Secrets::Include)
                .unwrap()
                .proxy_manifest(),
        )
        .unwrap();
        assert!(secret["spec"]["httpProxy"]
            .as_str()
            .unwrap()
            .contains("p%2540ss"));
        let parsed: Value = serde_yaml_ng::from_str(&ca).unwrap();
        assert_eq!(parsed["metadata"]["namespace"], CA_NAMESPACE);
        assert!(parsed["data"][CA_KEY]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----"));
    }

    #[test]
    fn status_model_is_the_sorted_set() {
        let mut s = settings();
        s.no_proxy.push("::1".into());
        s.no_proxy.push("10.0.0.0/16".into());
        let proxy = render(&s, &[], &cluster(), Secrets::Redact).unwrap();
        assert!(proxy.no_proxy_value().ends_with(",::1/128,10.0.0.0/16"));
        let status = proxy.status_no_proxy.clone();
        golden("openshift/status-no-proxy.txt", &(status.join("\n") + "\n"));
        let mut sorted = status.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(status, sorted);
        for expected in [
            ".eu-west-1.compute.internal",
            "169.254.169.254",
            "api-int.ocp.corp.example",
            "10.128.0.0/14",
            "172.30.0.0/16",
            "registry.corp.example",
        ] {
            assert!(status.contains(&expected.to_owned()), "{expected}");
        }
        let east = OpenShift {
            aws_region: Some("us-east-1".into()),
            ..openshift(&[])
        };
        assert!(east
            .render(Input {
                settings: &s,
                cluster: &cluster(),
                secrets: Secrets::Redact
            })
            .unwrap()
            .output
            .status_no_proxy
            .contains(&".ec2.internal".to_owned()));
        s.no_proxy.push("*".into());
        let all = render(&s, &[], &cluster(), Secrets::Redact).unwrap();
        assert_eq!(all.no_proxy_value(), "*");
        assert_eq!(all.status_no_proxy, ["*"]);
    }

    #[test]
    fn enforces_openshift_rules() {
        let mut s = settings();
        s.http_proxy = Some(
            ProxyUrl::parse(InputField::HttpProxy, "https://proxy.corp.example:3128").unwrap(),
        );
        s.https_proxy =
            Some(ProxyUrl::parse(InputField::HttpsProxy, "http://10.128.0.9:3128").unwrap());
        s.no_proxy.extend(
            ["*.corp.example", "registry.corp.example:5000", "bad_host"].map(str::to_owned),
        );
        let endpoints = [
            "ftp://x.example".to_owned(),
            "https://ok.example/".to_owned(),
        ];
        let mut c = cluster();
        c.cloud = None;
        let errors = render(&s, &endpoints, &c, Secrets::Redact).unwrap_err();
        let located: Vec<_> = errors
            .iter()
            .map(|f| (f.location, f.summary.as_str()))
            .collect();
        assert_eq!(
            located,
            [
                (
                    Some(InputField::HttpProxy.into()),
                    "Proxy scheme OpenShift rejects"
                ),
                (
                    Some(InputField::HttpsProxy.into()),
                    "Proxy inside the cluster"
                ),
                (
                    Some(Location::element(InputField::Merged, 7)),
                    "noProxy entry OpenShift rejects"
                ),
                (
                    Some(Location::element(InputField::Merged, 8)),
                    "noProxy entry OpenShift rejects"
                ),
                (
                    Some(Location::element(InputField::Merged, 9)),
                    "noProxy entry OpenShift rejects"
                ),
                (
                    Some(Location::element(READINESS_ENDPOINTS, 0)),
                    "Invalid readiness endpoint"
                ),
                (
                    Some(AWS_REGION.into()),
                    "aws_region without cloud = \"aws\""
                ),
            ]
        );
        assert!(endpoint_problem("quay.io").is_some());
        for bad in [
            "http://[::1]:99999/",
            "https://quay.io:0/",
            "https://qu ay.io/",
        ] {
            assert!(endpoint_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(endpoint_problem("http://[::1]:8080/healthz"), None);
    }

    /// The cheap bound is never above the value rendered, and is the
    /// value's length for a list of names.
    #[test]
    fn no_proxy_value_length_is_bounded_from_below() {
        let lists: [&[&str]; 4] = [
            &["registry.corp.example", "10.0.0.0/8", ".corp.example"],
            &["::1", "[::1]", "fd00:30::1", "[fd00:30::1]", "a.example"],
            &["a.example", "*"],
            &[],
        ];
        for list in lists {
            let mut s = settings();
            s.no_proxy = list.iter().map(|e| (*e).to_owned()).collect();
            let value = render(&s, &[], &cluster(), Secrets::Redact)
                .unwrap()
                .no_proxy_value();
            let least = no_proxy_value_len_at_least(&s.no_proxy);
            assert!(least <= value.len(), "{list:?}: {least} > {value}");
            if !list.iter().any(|e| e.contains(':') || *e == "*") {
                assert_eq!(least, value.len(), "{list:?}");
            }
        }
    }

    /// An IPv6 cluster with the default clients: the merged list holds
    /// `[v6]` after each IPv6 address; OpenShift rejects brackets, so they
    /// are left out with one warning instead of failing the rendering.
    #[test]
    fn bracketed_ipv6_forms_are_left_out_with_a_warning() {
        let mut s = settings();
        s.no_proxy = [
            "::1",
            "[::1]",
            "fd00:30::/112",
            "fd00:30::1",
            "[fd00:30::1]",
            "[fd00:31::1]",
        ]
        .map(str::to_owned)
        .to_vec();
        let cluster = Cluster {
            service_cidrs: vec!["fd00:30::/112".into()],
            ..Cluster::default()
        };
        let rendered = OpenShift::default()
            .render(Input {
                settings: &s,
                cluster: &cluster,
                secrets: Secrets::Redact,
            })
            .map_err(|f| f.clone());
        // `[fd00:31::1]` without its plain form is not the merge's added form.
        let errors = rendered.unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            errors[0].location,
            Some(Location::element(InputField::Merged, 5))
        );
        s.no_proxy.pop();
        let rendered = OpenShift::default()
            .render(Input {
                settings: &s,
                cluster: &cluster,
                secrets: Secrets::Redact,
            })
            .unwrap();
        assert_eq!(
            rendered.output.no_proxy_value(),
            "::1/128,fd00:30::/112,fd00:30::1/128"
        );
        assert_eq!(rendered.warnings.len(), 1, "{:?}", rendered.warnings);
        assert!(!rendered.warnings[0].is_error());
    }
}
