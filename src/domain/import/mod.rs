//! Importers: read the proxy settings an existing cluster already has from
//! its artifacts, and split its NO_PROXY into installation-wide entries and
//! cluster-specific ones (left out, each with the reason).

pub mod aks;
pub mod capi;
pub mod giantswarm;
pub mod rke2;
pub mod systemd;
pub mod tkg;

use percent_encoding::percent_decode_str;

use super::no_proxy::normalize;
use super::proxy_url::ProxyUrl;
use super::Finding;

/// The kinds of artifact that can be imported.
pub const KINDS: [&str; 6] = ["aks", "tkg", "capi", "systemd", "giantswarm", "rke2"];

/// Proxy settings read from an artifact, before classification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Name of the cluster, if the artifact tells.
    pub cluster_name: Option<String>,
    /// HTTP proxy URL as written (credentials possibly inside).
    pub http_proxy: Option<String>,
    /// HTTPS proxy URL as written.
    pub https_proxy: Option<String>,
    /// Raw NO_PROXY entries.
    pub no_proxy: Vec<String>,
    /// Trusted CA (PEM).
    pub trusted_ca: Option<String>,
    /// Cluster-specific values the artifact names (CIDRs, apiserver host).
    pub cluster_entries: Vec<(String, &'static str)>,
}

/// An entry left out of the installation-wide list, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The normalised entry.
    pub entry: String,
    /// Why it is cluster-specific (or redundant).
    pub reason: String,
}

/// The settings of a profile, read from an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// Profile name: the cluster's name when the artifact has one, else the kind.
    pub name: String,
    /// HTTP proxy without credentials.
    pub http_proxy: Option<String>,
    /// HTTPS proxy without credentials.
    pub https_proxy: Option<String>,
    /// Proxy user name.
    pub username: Option<String>,
    /// Proxy password.
    pub password: Option<String>,
    /// Installation-wide entries, normalised, in order.
    pub no_proxy: Vec<String>,
    /// Entries left out.
    pub dropped: Vec<Dropped>,
    /// Trusted CA (PEM).
    pub trusted_ca: Option<String>,
}

impl Imported {
    /// A human summary of what was left out.
    pub fn note(&self) -> String {
        if self.dropped.is_empty() {
            return "Every NO_PROXY entry was kept as installation-wide.".to_owned();
        }
        let lines: Vec<String> = self
            .dropped
            .iter()
            .map(|d| format!("  - {}: {}", d.entry, d.reason))
            .collect();
        format!(
            "These NO_PROXY entries were left out of the profile because they are cluster-specific or redundant; the renderer data sources add them from the cluster inputs:\n{}",
            lines.join("\n")
        )
    }
}

/// Parses `text` as an artifact of `kind`.
pub fn parse(kind: &str, text: &str) -> Result<Imported, Vec<Finding>> {
    let found = match kind {
        "aks" => aks::read(text),
        "tkg" => tkg::read(text),
        "capi" => capi::read(text),
        "systemd" => systemd::read(text),
        "giantswarm" => giantswarm::read(text),
        "rke2" => rke2::read(text),
        other => Err(error(format!(
            "Unknown import kind {other:?}; use one of {}.",
            KINDS.join(", ")
        ))),
    }
    .map_err(|f| vec![f])?;
    classify(kind, found)
}

/// An import error.
pub(crate) fn error(detail: impl Into<String>) -> Finding {
    Finding::error("", None, "Cannot import proxy settings", detail)
}

/// Entries every cluster gets from the provider's own defaults.
const GENERIC: [(&str, &str); 16] = [
    ("localhost", "loopback, added for every cluster"),
    ("127.0.0.1", "loopback, added for every cluster"),
    ("::1", "loopback, added for IPv6 clusters"),
    (
        "svc",
        "in-cluster service names, added as `.svc` for every cluster",
    ),
    (".svc", "in-cluster service names, added for every cluster"),
    ("cluster.local", "the cluster domain (`cluster_domain`)"),
    (".cluster.local", "the cluster domain (`cluster_domain`)"),
    (
        ".svc.cluster.local",
        "covered by the cluster domain (`cluster_domain`)",
    ),
    (
        "svc.cluster.local",
        "covered by the cluster domain (`cluster_domain`)",
    ),
    (
        "local",
        "cluster-local names, covered by the cluster domain (`cluster_domain`)",
    ),
    (
        ".local",
        "cluster-local names, covered by the cluster domain (`cluster_domain`)",
    ),
    ("169.254.169.254", "cloud metadata endpoint (set `cloud`)"),
    (
        "168.63.129.16",
        "Azure platform address (set `cloud = \"azure\"`)",
    ),
    (
        "169.254.0.0/16",
        "link-local range TKG adds on AWS and Azure",
    ),
    (
        "metadata.google.internal",
        "cloud metadata endpoint (set `cloud = \"gcp\"`)",
    ),
    (
        "fd00:ec2::254",
        "cloud metadata endpoint (set `cloud = \"aws\"`)",
    ),
];

/// Splits credentials out of a proxy URL and normalises it.
fn split_url(field: &str, text: &str) -> Result<(String, Option<String>, Option<String>), Finding> {
    let text = text.trim();
    let (scheme, rest) = text.split_once("://").unwrap_or(("", text));
    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    let (userinfo, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (Some(userinfo), host),
        None => (None, authority),
    };
    let url = ProxyUrl::parse(field, &format!("{scheme}://{host}{tail}"))
        .map_err(|f| error(format!("{field}: {}", f.detail)))?;
    let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
    let (username, password) =
        match userinfo.map(|u| u.split_once(':').map_or((u, None), |(a, b)| (a, Some(b)))) {
            Some((user, password)) => (
                Some(decode(user)).filter(|u| !u.is_empty()),
                password.map(decode).filter(|p| !p.is_empty()),
            ),
            None => (None, None),
        };
    Ok((url.to_plain_string(), username, password))
}

/// Normalises and classifies the found settings.
fn classify(kind: &str, found: Found) -> Result<Imported, Vec<Finding>> {
    let mut findings = Vec::new();
    let mut parse = |field: &str, text: &Option<String>| match text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        None => None,
        Some(t) => split_url(field, t).map_err(|f| findings.push(f)).ok(),
    };
    let http = parse("http_proxy", &found.http_proxy);
    let https = parse("https_proxy", &found.https_proxy);
    if http.is_none() && https.is_none() && findings.is_empty() {
        findings.push(error(
            "The artifact sets no proxy (neither HTTP_PROXY nor HTTPS_PROXY).",
        ));
    }
    let credentials: Vec<(Option<String>, Option<String>)> = [&http, &https]
        .into_iter()
        .flatten()
        .map(|(_, u, p)| (u.clone(), p.clone()))
        .collect();
    if credentials.windows(2).any(|w| w[0] != w[1]) {
        findings.push(error("The HTTP and HTTPS proxies use different credentials; a profile has one user and password."));
    }
    let cluster: Vec<(String, &str)> = found
        .cluster_entries
        .iter()
        .filter_map(|(e, why)| normalize("", 0, e).ok().map(|n| (n, *why)))
        .collect();
    let mut no_proxy = Vec::new();
    let mut dropped = Vec::new();
    for (index, raw) in found.no_proxy.iter().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let entry = match normalize("no_proxy", index, raw) {
            Ok(entry) => entry,
            Err(f) => {
                findings.push(error(format!(
                    "NO_PROXY entry {index} ({raw:?}): {}",
                    f.detail
                )));
                continue;
            }
        };
        let reason =
            if no_proxy.contains(&entry) || dropped.iter().any(|d: &Dropped| d.entry == entry) {
                Some("duplicate".to_owned())
            } else if let Some((_, why)) = GENERIC.iter().find(|(e, _)| *e == entry) {
                Some((*why).to_owned())
            } else {
                cluster
                    .iter()
                    .find(|(e, _)| *e == entry)
                    .map(|(_, why)| (*why).to_owned())
            };
        match reason {
            Some(reason) => dropped.push(Dropped { entry, reason }),
            None => no_proxy.push(entry),
        }
    }
    if !findings.is_empty() {
        return Err(findings);
    }
    let (username, password) = credentials.into_iter().next().unwrap_or((None, None));
    let https_proxy = https.map(|(u, _, _)| u);
    Ok(Imported {
        name: found
            .cluster_name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| kind.to_owned()),
        http_proxy: http.map(|(u, _, _)| u),
        https_proxy,
        username,
        password,
        no_proxy,
        dropped,
        trusted_ca: found.trusted_ca.filter(|c| !c.trim().is_empty()),
    })
}

/// Splits a comma- (or space-) separated NO_PROXY value.
pub(crate) fn split_list(value: &str) -> Vec<String> {
    value
        .split([',', ' ', '\n', '\t'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Documents of a (multi-document) YAML or JSON text.
pub(crate) fn documents(text: &str) -> Result<Vec<serde_json::Value>, Finding> {
    use serde::Deserialize as _;
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|doc| {
            serde_json::Value::deserialize(doc)
                .map_err(|e| error(format!("Not valid YAML or JSON: {e}.")))
        })
        .filter(|doc| !matches!(doc, Ok(serde_json::Value::Null)))
        .collect()
}

/// A string at `path` inside `value`.
pub(crate) fn text_at<'a>(value: &'a serde_json::Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(serde_json::Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(no_proxy: &[&str]) -> Found {
        Found {
            http_proxy: Some("http://u%40corp:p%3Ass@Proxy.Corp.Example:3128/".into()),
            https_proxy: Some("http://u%40corp:p%3Ass@proxy.corp.example:3128".into()),
            no_proxy: no_proxy.iter().map(|s| (*s).to_owned()).collect(),
            cluster_entries: vec![("10.96.0.0/12".into(), "service CIDR of this cluster")],
            ..Found::default()
        }
    }

    #[test]
    fn splits_credentials_and_classifies_entries() {
        let imported = classify(
            "systemd",
            found(&[
                " Registry.Corp.Example ",
                "10.96.0.0/12",
                "localhost",
                ".svc",
                "registry.corp.example",
                "",
                "10.0.0.0/8",
            ]),
        )
        .unwrap();
        assert_eq!(
            imported.http_proxy.as_deref(),
            Some("http://proxy.corp.example:3128")
        );
        assert_eq!(imported.username.as_deref(), Some("u@corp"));
        assert_eq!(imported.password.as_deref(), Some("p:ss"));
        assert_eq!(imported.no_proxy, ["registry.corp.example", "10.0.0.0/8"]);
        let reasons: Vec<&str> = imported.dropped.iter().map(|d| d.reason.as_str()).collect();
        assert_eq!(reasons[0], "service CIDR of this cluster");
        assert_eq!(reasons[3], "duplicate");
        assert!(imported.note().contains("10.96.0.0/12: service CIDR"));
        assert_eq!(imported.name, "systemd");
    }

    #[test]
    fn ambiguous_or_empty_input_is_an_error() {
        let mut f = found(&[]);
        f.https_proxy = Some("http://other:x@proxy.corp.example:3128".into());
        assert!(classify("x", f).unwrap_err()[0]
            .detail
            .contains("different credentials"));
        assert!(classify("x", Found::default()).unwrap_err()[0]
            .detail
            .contains("sets no proxy"));
        let bad = classify("x", found(&["https://x.example"])).unwrap_err();
        assert!(bad[0].detail.contains("URL"), "{}", bad[0].detail);
        assert!(parse("bogus", "").unwrap_err()[0]
            .detail
            .contains("Unknown import kind"));
    }
}
