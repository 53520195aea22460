//! TKG: the cluster-config variables (`TKG_HTTP_PROXY`...), as a map and a
//! YAML file, the ClusterClass `proxy` and `trust` variables, TKG's
//! validation rules, and the entries TKG appends to TKG_NO_PROXY itself.
//!
//! Sources (vmware-tanzu/tanzu-framework at
//! 932fd7cf0aee269a73f446669815e17a53dd06ad): `get_no_proxy()` in
//! `providers/ytt/lib/helpers.star` appends to TKG_NO_PROXY the AWS_VPC_CIDR
//! or AZURE_VNET_CIDR and 169.254.0.0/16 (and 168.63.129.16 on Azure) by
//! PROVIDER_TYPE, then SERVICE_CIDR, CLUSTER_CIDR, `localhost`, `127.0.0.1`,
//! `::1` when TKG_IP_FAMILY has IPv6, `.svc` and `.svc.cluster.local`.
//! Only entries that TKG appends from variables rendered here, or always,
//! are left out of TKG_NO_PROXY: SERVICE_CIDR and CLUSTER_CIDR are emitted
//! with the proxy variables, the other variables are the user's, so their
//! entries stay in the list. `trust_variable()` follows
//! `providers/yttcc/lib/config_variable_association.star`: TKG_PROXY_CA_CERT
//! becomes `trust.additionalTrustedCAs` item `{name: proxy, data: <base64 PEM>}`.
//!
//! The ClusterClass `proxy` variable (`packages/tkg-clusterclass-<infra>/
//! bundle/config/upstream/base.yaml`, classes `tkg-<infra>-default-v1.0.0`)
//! has `httpProxy`, `httpsProxy` and `noProxy` in every class and release;
//! `systemWide` (boolean, default false) is in the vSphere class only, from
//! v0.28.1 (TKG 2.1.1; commit 4c778d06), and Cluster API rejects a field a
//! variable's schema lacks. So `systemWide` is written only when true, which
//! needs a vSphere class of TKG 2.1.1 or later; false is the class default,
//! which Cluster API's defaulting writes into a value without it (cluster-api
//! `internal/topology/variables/cluster_variable_defaulting.go`, `defaultValue`),
//! so a vSphere cluster given the earlier `systemWide: false` sees no change.

use crate::redact::quoted;
use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{yaml, Cluster, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering};
use crate::no_proxy::typed::networks;
use crate::no_proxy::{Destination, Dialect, Entry};
use crate::{Finding, InputField, Location};

/// The option `vsphere_server`: the vCenter server, which must bypass the proxy.
pub const VSPHERE_SERVER: InputField = InputField::Option("vsphere_server");

/// TKG's options besides the cluster: SERVICE_CIDR and CLUSTER_CIDR come
/// from the cluster's `service_cidrs` and `pod_cidrs`, emitted when set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tkg {
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
    /// The whole merged list, for the ClusterClass `proxy` variable.
    pub merged: Vec<String>,
    /// TKG_PROXY_CA_CERT, for the ClusterClass `trust` variable.
    ca_base64: Option<String>,
}

/// The entries TKG appends to TKG_NO_PROXY given the variables rendered here
/// (SERVICE_CIDR, CLUSTER_CIDR) and those it always appends.
pub fn appended(cluster: &Cluster) -> Vec<String> {
    let mut out: Vec<String> = networks(&cluster.service_cidrs)
        .chain(networks(&cluster.pod_cidrs))
        .map(|net| Entry::network(net).to_string())
        .collect();
    out.extend(["localhost", "127.0.0.1", ".svc", ".svc.cluster.local"].map(str::to_owned));
    out
}

impl Renderer for Tkg {
    type Output = TkgConfig;

    const MODULE: &'static str = "tkg";

    const OPTIONS: &'static [InputField] = &[VSPHERE_SERVER];

    fn sample() -> Self {
        Tkg {
            vsphere_server: None,
            system_wide: false,
        }
    }

    /// Applies TKG's rules and builds the variables.
    fn render(&self, input: Input) -> Rendering<TkgConfig> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let mut findings = Vec::new();
        let (Some(http), Some(https)) = (&settings.http_proxy, &settings.https_proxy) else {
            return Err(vec![Finding::error(
                InputField::HttpProxy,
                "TKG needs both proxies",
                "TKG_HTTP_PROXY and TKG_HTTPS_PROXY must both be set; set `http_proxy` (and `https_proxy` if it differs).",
            )]);
        };
        for (index, entry) in settings.no_proxy.iter().enumerate() {
            if entry.contains('*') {
                findings.push(Finding::error(
                    Location::element(InputField::Merged, index),
                    "TKG rejects `*` in TKG_NO_PROXY",
                    format!(
                        "Entry {entry} of the merged list contains `*`, which TKG refuses.",
                        entry = quoted(entry)
                    ),
                ));
            }
        }
        if let Some(server) = &self.vsphere_server {
            let destination = Destination::parse(server).map_err(|why| {
                vec![Finding::error(
                    VSPHERE_SERVER,
                    "Invalid vSphere server",
                    format!("{why}."),
                )]
            })?;
            if !Dialect::GO.bypasses(&settings.no_proxy_value(), &destination) {
                findings.push(Finding::error(
                    VSPHERE_SERVER,
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
        let ca_base64 = settings.trusted_ca.as_ref().map(|ca| ca.to_base64_pem());
        if let Some(ca) = &ca_base64 {
            variables.push(("TKG_PROXY_CA_CERT", json!(ca)));
        }
        variables.push(("TKG_NODE_SYSTEM_WIDE_PROXY", json!(self.system_wide)));
        for (name, cidrs) in [
            ("SERVICE_CIDR", &cluster.service_cidrs),
            ("CLUSTER_CIDR", &cluster.pod_cidrs),
        ] {
            let blocks: Vec<String> = networks(cidrs).map(|net| net.to_string()).collect();
            if !blocks.is_empty() {
                variables.push((name, json!(blocks.join(","))));
            }
        }
        Ok(Rendered::new(TkgConfig {
            variables,
            appended,
            no_proxy,
            merged: settings.no_proxy.clone(),
            ca_base64,
        }))
    }

    /// The cluster configuration file, and a ClusterClass `Cluster` whose
    /// topology holds the `proxy` variable (and `trust`, with a CA) and
    /// whose `clusterNetwork` holds the CIDRs rendered as SERVICE_CIDR and
    /// CLUSTER_CIDR.
    fn held(&self, output: &TkgConfig) -> Held {
        let mut variables =
            vec![json!({"name": "proxy", "value": output.cluster_class_variable()})];
        if let Some(trust) = output.trust_variable() {
            variables.push(json!({"name": "trust", "value": trust}));
        }
        let mut spec =
            json!({"topology": {"class": "tkg-vsphere-default-v1.0.0", "variables": variables}});
        for (variable, network) in [("SERVICE_CIDR", "services"), ("CLUSTER_CIDR", "pods")] {
            if let Some((_, Value::String(blocks))) =
                output.variables.iter().find(|(k, _)| *k == variable)
            {
                spec["clusterNetwork"][network]["cidrBlocks"] =
                    json!(blocks.split(',').collect::<Vec<_>>());
            }
        }
        let cluster = json!({
            "apiVersion": "cluster.x-k8s.io/v1beta1",
            "kind": "Cluster",
            "metadata": {"name": "tkg"},
            "spec": spec,
        });
        Held::Files(vec![
            HeldFile::new("cluster-config.yaml", "tkg", output.to_yaml(), true),
            HeldFile::new("cluster.yaml", "tkg", yaml::to_string(&cluster), true),
        ])
    }
}

impl TkgConfig {
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
        yaml::to_string(&serde_json::to_value(map).unwrap_or_default())
    }

    /// The ClusterClass `trust` variable value with the proxy CA
    /// (`additionalTrustedCAs`: `name` `proxy`, `data` the base64 PEM, which
    /// the class writes to `/etc/ssl/certs/tkg-custom-ca.pem`), when there is one.
    pub fn trust_variable(&self) -> Option<Value> {
        self.ca_base64
            .as_ref()
            .map(|data| json!({"additionalTrustedCAs": [{"name": "proxy", "data": data}]}))
    }

    /// The ClusterClass `proxy` variable value, with the whole merged list
    /// as `noProxy` (only the CLI's legacy path appends TKG's own entries),
    /// and `systemWide: true` when TKG_NODE_SYSTEM_WIDE_PROXY is (see the
    /// module comment: only vSphere classes have the field).
    pub fn cluster_class_variable(&self) -> Value {
        let get = |name: &str| {
            self.variables
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        };
        let mut variable = json!({
            "httpProxy": get("TKG_HTTP_PROXY"),
            "httpsProxy": get("TKG_HTTPS_PROXY"),
            "noProxy": self.merged,
        });
        if get("TKG_NODE_SYSTEM_WIDE_PROXY") == Some(json!(true)) {
            variable["systemWide"] = json!(true);
        }
        variable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};
    use crate::render::Secrets;

    fn cluster() -> Cluster {
        Cluster {
            service_cidrs: vec!["10.96.0.0/12".into()],
            pod_cidrs: vec!["192.168.0.0/16".into()],
            ..Cluster::default()
        }
    }

    /// TKG with a vSphere server, rendered for `cluster`.
    fn render(
        settings: &ProxySettings,
        cluster: &Cluster,
        secrets: Secrets,
    ) -> Result<TkgConfig, Vec<Finding>> {
        let tkg = Tkg {
            vsphere_server: Some("vcenter.corp.example".into()),
            ..Tkg::default()
        };
        tkg.render(Input {
            settings,
            cluster,
            secrets,
        })
        .map(|r| r.output)
    }

    fn with_vcenter() -> ProxySettings {
        let mut s = settings();
        s.no_proxy.push("vcenter.corp.example".into());
        s
    }

    #[test]
    fn leaves_out_what_tkg_appends_and_renders_yaml() {
        let config = render(&with_vcenter(), &cluster(), Secrets::Include).unwrap();
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
        assert!(!config.appended.contains(&".svc.cluster.local".to_owned()));
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

    /// TKG appends SERVICE_CIDR and CLUSTER_CIDR from its own variables: the
    /// CIDRs left out of TKG_NO_PROXY are the ones emitted here; nothing TKG
    /// appends only from variables not rendered here (VPC CIDRs, `::1`,
    /// cloud ranges) is left out.
    #[test]
    fn emits_the_cidrs_it_leaves_out_and_keeps_what_tkg_may_not_add() {
        let config = render(&with_vcenter(), &cluster(), Secrets::Redact).unwrap();
        let vars = config.string_variables();
        assert_eq!(vars["SERVICE_CIDR"], "10.96.0.0/12");
        assert_eq!(vars["CLUSTER_CIDR"], "192.168.0.0/16");
        let mut s = with_vcenter();
        s.no_proxy
            .extend(["::1", "169.254.0.0/16", "10.0.0.0/16"].map(str::to_owned));
        let config = render(&s, &Cluster::default(), Secrets::Redact).unwrap();
        let vars = config.string_variables();
        assert!(!vars.contains_key("SERVICE_CIDR") && !vars.contains_key("CLUSTER_CIDR"));
        for kept in [
            "10.96.0.0/12",
            "192.168.0.0/16",
            "::1",
            "169.254.0.0/16",
            "10.0.0.0/16",
        ] {
            assert!(config.no_proxy.contains(&kept.to_owned()), "{kept} lost");
        }
        // Every merged entry is either in TKG_NO_PROXY or re-added by TKG.
        let with_cidrs = render(&s, &cluster(), Secrets::Redact).unwrap();
        for entry in &s.no_proxy {
            assert!(
                with_cidrs.no_proxy.contains(entry) || appended(&cluster()).contains(entry),
                "{entry}"
            );
        }
        assert_eq!(with_cidrs.trust_variable(), None);
    }

    /// `systemWide` is written when set and left to the class default
    /// otherwise, so that the value fits every class without it (AWS, Azure,
    /// vSphere before TKG 2.1.1).
    #[test]
    fn system_wide_reaches_the_cluster_class_variable_only_when_set() {
        let plain = render(&with_vcenter(), &cluster(), Secrets::Redact).unwrap();
        assert_eq!(plain.cluster_class_variable().get("systemWide"), None);
        let tkg = Tkg {
            vsphere_server: Some("vcenter.corp.example".into()),
            system_wide: true,
        };
        let config = tkg
            .render(Input {
                settings: &with_vcenter(),
                cluster: &cluster(),
                secrets: Secrets::Include,
            })
            .unwrap()
            .output;
        let variable = config.cluster_class_variable();
        assert_eq!(variable["systemWide"], json!(true));
        assert_eq!(
            config.string_variables()["TKG_NODE_SYSTEM_WIDE_PROXY"],
            "true"
        );
        golden(
            "tkg/cluster-class-variable-system-wide.json",
            &(serde_json::to_string_pretty(&variable).unwrap() + "\n"),
        );
    }

    /// The `trust` variable as the golden file the schema test checks.
    #[test]
    fn trust_variable_golden() {
        let mut s = with_vcenter();
        s.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let config = render(&s, &cluster(), Secrets::Redact).unwrap();
        let trust = config.trust_variable().unwrap();
        golden(
            "tkg/cluster-class-trust-variable.json",
            &(serde_json::to_string_pretty(&trust).unwrap() + "\n"),
        );
    }

    #[test]
    fn trust_variable_carries_the_proxy_ca() {
        let mut s = with_vcenter();
        let pem = crate::trusted_ca::tests::bundle(true);
        s.trusted_ca = Some(crate::trusted_ca::TrustedCa::parse(&pem).unwrap());
        let config = render(&s, &cluster(), Secrets::Redact).unwrap();
        let trust = config.trust_variable().unwrap();
        let data = trust["additionalTrustedCAs"][0]["data"].as_str().unwrap();
        assert_eq!(trust["additionalTrustedCAs"][0]["name"], "proxy");
        assert_eq!(
            json!(data),
            config
                .variables
                .iter()
                .find(|(k, _)| *k == "TKG_PROXY_CA_CERT")
                .unwrap()
                .1
        );
        use base64::Engine as _;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap();
        assert_eq!(
            String::from_utf8(decoded).unwrap(),
            s.trusted_ca.unwrap().to_pem()
        );
    }

    #[test]
    fn enforces_tkg_rules() {
        let errors = render(&settings(), &cluster(), Secrets::Redact).unwrap_err();
        assert_eq!(errors[0].location, Some(VSPHERE_SERVER.into()));
        let mut s = with_vcenter();
        s.no_proxy.push("*".into());
        let errors = render(&s, &cluster(), Secrets::Redact).unwrap_err();
        assert_eq!(
            errors[0].location,
            Some(Location::element(InputField::Merged, 8))
        );
        s.http_proxy = None;
        assert_eq!(
            render(&s, &cluster(), Secrets::Redact).unwrap_err()[0].summary,
            "TKG needs both proxies"
        );
    }
}
