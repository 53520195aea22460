//! AKS `httpProxyConfig`: the JSON `az aks create --http-proxy-config` reads
//! (the same object as the ARM property), AKS's rules, and the entries AKS
//! adds itself, so the effective list is known before AKS reports it.

use ipnet::IpNet;
use serde_json::{json, Value};

use super::ProxySettings;
use crate::domain::proxy_url::ProxyScheme;
use crate::domain::Finding;

/// At most this many certificates in `trustedCa`.
pub const MAX_TRUSTED_CA_CERTIFICATES: usize = 20;
/// Largest CA certificate content (the PEM bundle) AKS accepts for a new cluster: 35 KB.
pub const MAX_TRUSTED_CA_BYTES: usize = 35 * 1024;

/// Cluster facts AKS adds to the effective NO_PROXY list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AksCluster {
    /// Node subnet CIDR blocks.
    pub node_cidrs: Vec<String>,
    /// Pod CIDR blocks.
    pub pod_cidrs: Vec<String>,
    /// Service CIDR blocks.
    pub service_cidrs: Vec<String>,
    /// The apiserver FQDN.
    pub apiserver_fqdn: Option<String>,
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpProxyConfig {
    /// `httpProxy` (no credentials: AKS does not support proxy authentication).
    pub http_proxy: Option<String>,
    /// `httpsProxy`.
    pub https_proxy: Option<String>,
    /// `noProxy`: the merged list.
    pub no_proxy: Vec<String>,
    /// `trustedCa`: base64 of the PEM bundle.
    pub trusted_ca: Option<String>,
}

impl HttpProxyConfig {
    /// Applies AKS's rules; every violation is a finding on its attribute.
    pub fn new(settings: &ProxySettings) -> Result<Self, Vec<Finding>> {
        let mut findings = Vec::new();
        for (field, url) in [
            ("http_proxy", &settings.http_proxy),
            ("https_proxy", &settings.https_proxy),
        ] {
            let Some(url) = url else { continue };
            if url.credentials().is_some() {
                findings.push(Finding::error(
                    "username",
                    None,
                    "AKS does not support proxy credentials",
                    "AKS's httpProxyConfig has no user or password; remove `username` and `password` (or use a profile without them).",
                ));
            }
            if field == "http_proxy" && url.scheme() != ProxyScheme::Http {
                findings.push(Finding::error(
                    field,
                    None,
                    "AKS needs an http:// httpProxy",
                    "AKS requires the scheme of httpProxy to be http.",
                ));
            }
        }
        findings.dedup();
        for (index, entry) in settings.no_proxy.iter().enumerate() {
            if let Some(why) = aks_entry_problem(entry) {
                findings.push(Finding::error(
                    "no_proxy",
                    Some(index),
                    "NO_PROXY entry AKS rejects",
                    format!("Entry {entry:?} of the merged list: {why}"),
                ));
            }
        }
        if let Some(ca) = &settings.trusted_ca {
            let certificates = ca.certificates();
            if certificates.len() > MAX_TRUSTED_CA_CERTIFICATES {
                findings.push(Finding::error(
                    "trusted_ca",
                    None,
                    "Too many CA certificates for AKS",
                    format!("AKS accepts at most {MAX_TRUSTED_CA_CERTIFICATES} certificates; the bundle has {}.", certificates.len()),
                ));
            }
            let size = ca.to_pem().len();
            if size > MAX_TRUSTED_CA_BYTES {
                findings.push(Finding::error(
                    "trusted_ca",
                    None,
                    "CA bundle too large for AKS",
                    format!("AKS accepts at most 35 KB ({MAX_TRUSTED_CA_BYTES} bytes) of CA certificate content; the bundle is {size} bytes as PEM."),
                ));
            }
            if let Some(cert) = certificates.iter().find(|c| !c.has_san) {
                findings.push(Finding::error(
                    "trusted_ca",
                    None,
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
        Ok(Self {
            http_proxy: settings.http_proxy.as_ref().map(|u| u.to_plain_string()),
            https_proxy: settings.https_proxy.as_ref().map(|u| u.to_plain_string()),
            no_proxy: settings.no_proxy.clone(),
            trusted_ca: settings.trusted_ca.as_ref().map(|ca| ca.to_base64_pem()),
        })
    }

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
/// `konnectivity` service name and loopback.
pub fn injected(cluster: &AksCluster) -> Vec<String> {
    let mut out: Vec<String> = cluster
        .node_cidrs
        .iter()
        .chain(&cluster.pod_cidrs)
        .chain(&cluster.service_cidrs)
        .cloned()
        .collect();
    out.extend(["168.63.129.16", "169.254.169.254"].map(str::to_owned));
    if let Some(fqdn) = &cluster.apiserver_fqdn {
        out.push(fqdn.clone());
    }
    out.extend(["konnectivity", "localhost", "127.0.0.1"].map(str::to_owned));
    out
}

/// The effective list AKS will report: the configured entries, then the
/// injected ones not already present.
pub fn effective(config: &HttpProxyConfig, cluster: &AksCluster) -> Vec<String> {
    let mut out = config.no_proxy.clone();
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
    use crate::domain::render::tests::{golden, settings};
    use crate::domain::trusted_ca::{tests::bundle, TrustedCa};

    fn no_credentials() -> ProxySettings {
        let mut s = settings();
        s.http_proxy = s.http_proxy.map(|u| u.with_credentials(None));
        s.https_proxy = s.https_proxy.map(|u| u.with_credentials(None));
        s
    }

    #[test]
    fn renders_the_file_az_reads() {
        let config = HttpProxyConfig::new(&no_credentials()).unwrap();
        let text = config.to_json_file();
        golden("aks/http-proxy-config.json", &text);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["httpProxy"], "http://proxy.corp.example:3128");
        assert_eq!(parsed["noProxy"][1], "10.96.0.0/12");
        assert!(parsed.get("trustedCa").is_none());
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
        let errors = HttpProxyConfig::new(&settings()).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "username");
        let mut s = no_credentials();
        s.no_proxy.push("bad_host.example".into());
        s.no_proxy.push("*".into());
        s.trusted_ca = Some(TrustedCa::parse("trusted_ca", &bundle(false)).unwrap());
        let errors = HttpProxyConfig::new(&s).unwrap_err();
        let located: Vec<_> = errors.iter().map(|f| (f.field.as_str(), f.index)).collect();
        assert_eq!(
            located,
            [
                ("no_proxy", Some(7)),
                ("no_proxy", Some(8)),
                ("trusted_ca", None)
            ]
        );
        s.no_proxy.truncate(7);
        let one = bundle(true);
        s.trusted_ca = Some(TrustedCa::parse("trusted_ca", &one).unwrap());
        let config = HttpProxyConfig::new(&s).unwrap();
        assert!(config.trusted_ca.is_some());
        let big = large_certificate();
        let limit = |count: usize| {
            let mut s = s.clone();
            let pem: String = (0..count).map(|_| large_certificate()).collect();
            s.trusted_ca = Some(TrustedCa::parse("trusted_ca", &pem).unwrap());
            HttpProxyConfig::new(&s)
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

    #[test]
    fn effective_list_adds_what_aks_injects_once() {
        let config = HttpProxyConfig::new(&no_credentials()).unwrap();
        let cluster = AksCluster {
            node_cidrs: vec!["10.224.0.0/16".into()],
            pod_cidrs: vec!["192.168.0.0/16".into()],
            service_cidrs: vec!["10.96.0.0/12".into()],
            apiserver_fqdn: Some("prod-abc.hcp.westeurope.azmk8s.io".into()),
        };
        let list = effective(&config, &cluster);
        golden("aks/effective-no-proxy.txt", &(list.join("\n") + "\n"));
        assert_eq!(list.iter().filter(|e| *e == "localhost").count(), 1);
        assert!(list.contains(&"prod-abc.hcp.westeurope.azmk8s.io".to_owned()));
        assert!(list.contains(&"168.63.129.16".to_owned()));
        assert!(list.contains(&"konnectivity".to_owned()));
        assert!(list.starts_with(&config.no_proxy));
    }
}
