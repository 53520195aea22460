//! kubespray `group_vars`: `http_proxy`, `https_proxy` and
//! `additional_no_proxy`, and a model of the `no_proxy` kubespray generates.
//!
//! From kubernetes-sigs/kubespray `docs/proxy.md` and
//! `roles/kubespray-defaults/tasks/no_proxy.yml` (commit
//! 16af423880ebd88df73e987e24e69bd9f1ee0c8f): when `http_proxy` or
//! `https_proxy` is set and `no_proxy` is not, kubespray builds `no_proxy`
//! as, in order: with `loadbalancer_apiserver` defined,
//! `apiserver_loadbalancer_domain_name` and `loadbalancer_apiserver.address`;
//! for every host of `k8s_cluster`, `etcd` and `calico_rr` its `access_ip`
//! (else `ip`, else the fallback IP), its name and `<name>.<dns_domain>`;
//! then `additional_no_proxy`; then `127.0.0.1`, `localhost`,
//! `kube_service_addresses`, `kube_pods_subnet`, `svc` and
//! `svc.<dns_domain>`. A `no_proxy` set by the user replaces all of that,
//! which is how clusters end up without their nodes in it; so this renderer
//! writes `additional_no_proxy` and leaves `no_proxy` to kubespray.

use serde_json::{json, Value};

use super::{yaml, Cluster, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};
use crate::domain::no_proxy::typed::networks;
use crate::domain::{Field, Finding};

/// kubespray's default `kube_service_addresses`.
pub const DEFAULT_SERVICE_ADDRESSES: &str = "10.233.0.0/18";

/// kubespray's default `kube_pods_subnet`.
pub const DEFAULT_PODS_SUBNET: &str = "10.233.64.0/18";

/// kubespray: what its `no_proxy` generation reads from the inventory
/// besides the cluster (`dns_domain` is the cluster's `cluster_domain`,
/// `kube_service_addresses` and `kube_pods_subnet` the first of its
/// `service_cidrs` and `pod_cidrs`, else kubespray's defaults).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kubespray {
    /// Hosts of `k8s_cluster`, `etcd` and `calico_rr`: inventory name and
    /// `access_ip` (or `ip`), in inventory order.
    pub hosts: Vec<(String, String)>,
    /// `apiserver_loadbalancer_domain_name` and `loadbalancer_apiserver.address`,
    /// when `loadbalancer_apiserver` is defined.
    pub loadbalancer: Option<(String, String)>,
}

/// What kubespray is given, and the `no_proxy` it generates from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubesprayVars {
    /// The `group_vars` document (see [`group_vars`]).
    pub group_vars: String,
    /// The `no_proxy` kubespray generates (see [`generated_no_proxy`]).
    pub effective_no_proxy: String,
}

impl Renderer for Kubespray {
    type Output = KubesprayVars;

    /// Checks the inventory, then renders.
    fn render(&self, input: Input) -> Rendering<KubesprayVars> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let findings = check_inventory(
            &self.hosts,
            self.loadbalancer
                .as_ref()
                .map(|(_, address)| address.as_str()),
        );
        if !findings.is_empty() {
            return Err(findings);
        }
        Ok(Rendered::new(KubesprayVars {
            group_vars: group_vars(settings, secrets),
            effective_no_proxy: generated_no_proxy(self, cluster, &settings.no_proxy_value()),
        }))
    }
}

/// kubespray's inventory rules for what lands in `no_proxy`: each host's
/// `access_ip` (or `ip`) and `loadbalancer_apiserver.address` are IP
/// addresses (kubespray uses them as such for etcd, kubelet and the
/// apiserver load balancer, and writes them into `no_proxy` as written).
/// Errors on `inventory_hosts` (naming the host) and
/// `loadbalancer_apiserver_address`.
pub fn check_inventory(hosts: &[(String, String)], loadbalancer: Option<&str>) -> Vec<Finding> {
    let is_ip = |text: &str| text.parse::<std::net::IpAddr>().is_ok();
    let mut findings: Vec<Finding> = hosts
        .iter()
        .filter(|(_, address)| !is_ip(address))
        .map(|(name, address)| {
            Finding::error(
                Field::InventoryHosts,
                "Inventory host address is not an IP address",
                format!("Host {name:?} has address {address:?}; kubespray takes each host's `access_ip` (or `ip`) as an IP address and writes it into `no_proxy`."),
            )
        })
        .collect();
    if let Some(address) = loadbalancer.filter(|a| !is_ip(a)) {
        findings.push(Finding::error(
            Field::LoadbalancerApiserverAddress,
            "Load balancer address is not an IP address",
            format!("{address:?} is not an IP address; `loadbalancer_apiserver.address` is one, and its name goes to `apiserver_loadbalancer_domain_name`."),
        ));
    }
    findings
}

/// The `no_proxy` kubespray generates with `additional_no_proxy` set to
/// `additional` (the comma-joined merged list).
pub fn generated_no_proxy(inventory: &Kubespray, cluster: &Cluster, additional: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some((name, address)) = &inventory.loadbalancer {
        parts.extend([name.clone(), address.clone()]);
    }
    let domain = cluster.domain().unwrap_or_default();
    let first = |cidrs: &[String], default: &str| {
        networks(cidrs)
            .next()
            .map_or_else(|| default.to_owned(), |net| net.to_string())
    };
    let mut seen = std::collections::BTreeSet::new();
    for (name, ip) in &inventory.hosts {
        if seen.insert(name) {
            parts.extend([ip.clone(), name.clone(), format!("{name}.{domain}")]);
        }
    }
    if !additional.is_empty() {
        parts.push(additional.to_owned());
    }
    parts.extend([
        "127.0.0.1".to_owned(),
        "localhost".to_owned(),
        first(&cluster.service_cidrs, DEFAULT_SERVICE_ADDRESSES),
        first(&cluster.pod_cidrs, DEFAULT_PODS_SUBNET),
        "svc".to_owned(),
        format!("svc.{domain}"),
    ]);
    parts.join(",")
}

/// The `group_vars` document (`group_vars/all/proxy.yml`).
pub fn group_vars(settings: &ProxySettings, secrets: Secrets) -> String {
    let mut document = json!({"additional_no_proxy": settings.no_proxy_value()});
    if let Some(url) = &settings.http_proxy {
        document["http_proxy"] = Value::String(ProxySettings::url(url, secrets));
    }
    if let Some(url) = &settings.https_proxy {
        document["https_proxy"] = Value::String(ProxySettings::url(url, secrets));
    }
    yaml::to_string(&document)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::render::tests::{golden, settings};

    fn inventory() -> Kubespray {
        Kubespray {
            hosts: vec![
                ("cp1".into(), "10.0.0.10".into()),
                ("node1".into(), "10.0.0.11".into()),
                ("cp1".into(), "10.0.0.10".into()),
            ],
            loadbalancer: Some(("lb-apiserver.kubernetes.local".into(), "10.0.0.5".into())),
        }
    }

    fn cluster() -> Cluster {
        Cluster {
            cluster_domain: Some("cluster.local".into()),
            ..Cluster::default()
        }
    }

    /// The model follows the template: load balancer, each host once (a
    /// host in several groups is listed once, as `unique` does), the
    /// additional list, the fixed tail.
    #[test]
    fn generated_no_proxy_follows_kubespray() {
        assert_eq!(
            generated_no_proxy(&inventory(), &cluster(), "registry.corp.example,.corp.example"),
            "lb-apiserver.kubernetes.local,10.0.0.5,10.0.0.10,cp1,cp1.cluster.local,10.0.0.11,node1,node1.cluster.local,registry.corp.example,.corp.example,127.0.0.1,localhost,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
        let bare = Kubespray::default();
        assert_eq!(
            generated_no_proxy(&bare, &cluster(), ""),
            "127.0.0.1,localhost,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
    }

    #[test]
    fn inventory_rules() {
        let hosts = [
            ("cp1".to_owned(), "10.0.0.1".to_owned()),
            ("n1".to_owned(), "n1.corp".to_owned()),
        ];
        let findings = check_inventory(&hosts, Some("lb.corp"));
        let located: Vec<_> = findings.iter().map(|f| f.location).collect();
        assert_eq!(
            located,
            [
                Some(Field::InventoryHosts.into()),
                Some(Field::LoadbalancerApiserverAddress.into())
            ]
        );
        assert!(findings[0].detail.contains("\"n1\""));
        assert!(check_inventory(&hosts[..1], Some("fd00::1")).is_empty());
    }

    /// Parsed back by a YAML reader, the variables are exactly the settings.
    #[test]
    fn group_vars_parse_back() {
        let s = settings();
        let parsed: Value = serde_yaml_ng::from_str(&group_vars(&s, Secrets::Include)).unwrap();
        assert_eq!(parsed["additional_no_proxy"], s.no_proxy_value().as_str());
        assert_eq!(
            parsed["http_proxy"],
            ProxySettings::url(s.http_proxy.as_ref().unwrap(), Secrets::Include).as_str()
        );
        assert_eq!(parsed.as_object().unwrap().len(), 3);
        assert!(!group_vars(&s, Secrets::Redact).contains("p%2540ss"));
    }

    #[test]
    fn golden_files() {
        golden(
            "kubespray/proxy.yml",
            &group_vars(&settings(), Secrets::Include),
        );
    }
}
