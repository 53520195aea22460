//! TKG: the cluster-config variables (`TKG_HTTP_PROXY`...), as a map and a
//! YAML file, the ClusterClass `proxy` variable, TKG's validation rules, and
//! the entries TKG appends to TKG_NO_PROXY itself.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{ProxySettings, Secrets};
use crate::domain::no_proxy::{Cloud, Destination, Dialect};
use crate::domain::Finding;

/// What TKG knows about the cluster (it appends entries from these).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TkgCluster {
    /// SERVICE_CIDR.
    pub service_cidrs: Vec<String>,
    /// CLUSTER_CIDR (pods).
    pub pod_cidrs: Vec<String>,
    /// The AWS VPC or Azure VNet CIDR blocks.
    pub network_cidrs: Vec<String>,
    /// The infrastructure.
    pub cloud: Option<Cloud>,
    /// Whether the cluster is IPv6.
    pub ipv6: bool,
    /// VSPHERE_SERVER, which must bypass the proxy.
    pub vsphere_server: Option<String>,
    /// TKG_NODE_SYSTEM_WIDE_PROXY.
    pub system_wide: bool,
}

/// The rendered TKG configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TkgConfig {
    /// The variables, in a fixed order.
    pub variables: Vec<(&'static str, Value)>,
    /// Entries of the merged list TKG appends itself, left out of TKG_NO_PROXY.
    pub appended: Vec<String>,
    /// TKG_NO_PROXY as a list.
    pub no_proxy: Vec<String>,
    /// The whole merged list, for the ClusterClass `proxy` variable: the
    /// class template only de-duplicates and sorts it, appending nothing.
    pub merged: Vec<String>,
}

/// The entries TKG appends to TKG_NO_PROXY.
pub fn appended(cluster: &TkgCluster) -> Vec<String> {
    let mut out = Vec::new();
    match cluster.cloud {
        Some(Cloud::Aws) => {
            out.extend(cluster.network_cidrs.iter().cloned());
            out.push("169.254.0.0/16".to_owned());
        }
        Some(Cloud::Azure) => {
            out.extend(cluster.network_cidrs.iter().cloned());
            out.push("169.254.0.0/16".to_owned());
            out.push("168.63.129.16".to_owned());
        }
        _ => {}
    }
    out.extend(cluster.service_cidrs.iter().cloned());
    out.extend(cluster.pod_cidrs.iter().cloned());
    out.extend(["localhost", "127.0.0.1"].map(str::to_owned));
    if cluster.ipv6 {
        out.push("::1".to_owned());
    }
    out.extend([".svc", ".svc.cluster.local"].map(str::to_owned));
    out
}

impl TkgConfig {
    /// Applies TKG's rules and builds the variables.
    pub fn new(
        settings: &ProxySettings,
        cluster: &TkgCluster,
        secrets: Secrets,
    ) -> Result<Self, Vec<Finding>> {
        let mut findings = Vec::new();
        let (Some(http), Some(https)) = (&settings.http_proxy, &settings.https_proxy) else {
            return Err(vec![Finding::error(
                "http_proxy",
                None,
                "TKG needs both proxies",
                "TKG_HTTP_PROXY and TKG_HTTPS_PROXY must both be set; set `http_proxy` (and `https_proxy` if it differs).",
            )]);
        };
        for (index, entry) in settings.no_proxy.iter().enumerate() {
            if entry.contains('*') {
                findings.push(Finding::error(
                    "no_proxy",
                    Some(index),
                    "TKG rejects `*` in TKG_NO_PROXY",
                    format!("Entry {entry:?} of the merged list contains `*`, which TKG refuses."),
                ));
            }
        }
        if let Some(server) = &cluster.vsphere_server {
            let destination = Destination::parse(server).map_err(|why| {
                vec![Finding::error(
                    "vsphere_server",
                    None,
                    "Invalid vSphere server",
                    format!("{why}."),
                )]
            })?;
            if !Dialect::Go.bypasses(&settings.no_proxy_value(), &destination) {
                findings.push(Finding::error(
                    "vsphere_server",
                    None,
                    "vSphere server would go through the proxy",
                    format!("TKG requires VSPHERE_SERVER ({}) to be in TKG_NO_PROXY; add it to `extra` or `installation`.", destination.bare_host()),
                ));
            }
        }
        if !findings.is_empty() {
            return Err(findings);
        }
        let appended_by_tkg = appended(cluster);
        let (appended, no_proxy): (Vec<String>, Vec<String>) = settings
            .no_proxy
            .iter()
            .cloned()
            .partition(|e| appended_by_tkg.contains(e));
        let mut variables: Vec<(&'static str, Value)> = vec![
            ("TKG_HTTP_PROXY_ENABLED", json!(true)),
            ("TKG_HTTP_PROXY", json!(ProxySettings::url(http, secrets))),
            ("TKG_HTTPS_PROXY", json!(ProxySettings::url(https, secrets))),
            ("TKG_NO_PROXY", json!(no_proxy.join(","))),
        ];
        if let Some(ca) = &settings.trusted_ca {
            variables.push(("TKG_PROXY_CA_CERT", json!(ca.to_base64_pem())));
        }
        variables.push(("TKG_NODE_SYSTEM_WIDE_PROXY", json!(cluster.system_wide)));
        Ok(Self {
            variables,
            appended,
            no_proxy,
            merged: settings.no_proxy.clone(),
        })
    }

    /// The variables as strings (`"true"`/`"false"` for the flags).
    pub fn string_variables(&self) -> BTreeMap<String, String> {
        self.variables
            .iter()
            .map(|(k, v)| {
                (
                    (*k).to_owned(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                )
            })
            .collect()
    }

    /// The cluster configuration file fragment (YAML, keys sorted).
    pub fn to_yaml(&self) -> String {
        let map: BTreeMap<&str, &Value> = self.variables.iter().map(|(k, v)| (*k, v)).collect();
        serde_yaml_ng::to_string(&map).unwrap_or_default()
    }

    /// The ClusterClass `proxy` variable value, with the whole merged list
    /// as `noProxy` (only the CLI's legacy path appends TKG's own entries).
    pub fn cluster_class_variable(&self) -> Value {
        let get = |name: &str| {
            self.variables
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        };
        json!({
            "httpProxy": get("TKG_HTTP_PROXY"),
            "httpsProxy": get("TKG_HTTPS_PROXY"),
            "noProxy": self.merged,
            "systemWide": get("TKG_NODE_SYSTEM_WIDE_PROXY"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::render::tests::{golden, settings};

    fn cluster() -> TkgCluster {
        TkgCluster {
            service_cidrs: vec!["10.96.0.0/12".into()],
            pod_cidrs: vec!["192.168.0.0/16".into()],
            vsphere_server: Some("vcenter.corp.example".into()),
            ..TkgCluster::default()
        }
    }

    fn with_vcenter() -> ProxySettings {
        let mut s = settings();
        s.no_proxy.push("vcenter.corp.example".into());
        s
    }

    #[test]
    fn leaves_out_what_tkg_appends_and_renders_yaml() {
        let config = TkgConfig::new(&with_vcenter(), &cluster(), Secrets::Include).unwrap();
        assert_eq!(
            config.appended,
            [
                "10.96.0.0/12",
                "192.168.0.0/16",
                ".svc",
                "localhost",
                "127.0.0.1"
            ]
        );
        assert_eq!(
            config.no_proxy,
            [
                "registry.corp.example",
                "cluster.local",
                "vcenter.corp.example"
            ]
        );
        let yaml = config.to_yaml();
        golden("tkg/cluster-config.yaml", &yaml);
        let parsed: BTreeMap<String, Value> = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(parsed["TKG_HTTP_PROXY_ENABLED"], json!(true));
        assert_eq!(
            parsed["TKG_NO_PROXY"],
            json!("registry.corp.example,cluster.local,vcenter.corp.example")
        );
        assert_eq!(
            parsed["TKG_HTTP_PROXY"],
            json!(settings().http_proxy.unwrap().to_secret_string())
        );
        let variable = config.cluster_class_variable();
        golden(
            "tkg/cluster-class-variable.json",
            &(serde_json::to_string_pretty(&variable).unwrap() + "\n"),
        );
        assert_eq!(variable["noProxy"], json!(with_vcenter().no_proxy));
        assert_eq!(
            config.string_variables()["TKG_NODE_SYSTEM_WIDE_PROXY"],
            "false"
        );
    }

    #[test]
    fn enforces_tkg_rules() {
        let errors = TkgConfig::new(&settings(), &cluster(), Secrets::Redact).unwrap_err();
        assert_eq!(errors[0].field, "vsphere_server");
        let mut s = with_vcenter();
        s.no_proxy.push("*".into());
        let errors = TkgConfig::new(&s, &cluster(), Secrets::Redact).unwrap_err();
        assert_eq!(
            (errors[0].field.as_str(), errors[0].index),
            ("no_proxy", Some(8))
        );
        s.http_proxy = None;
        assert_eq!(
            TkgConfig::new(&s, &cluster(), Secrets::Redact).unwrap_err()[0].summary,
            "TKG needs both proxies"
        );
    }
}
