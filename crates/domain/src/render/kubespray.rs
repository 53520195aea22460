//! kubespray `group_vars`: `http_proxy`, `https_proxy`,
//! `additional_no_proxy` and `https_proxy_cert_file`, and a model of the
//! `no_proxy` kubespray generates, per kubespray minor release.
//!
//! From kubernetes-sigs/kubespray (tags v2.29.0 9991412, v2.30.0 f4ccdb5,
//! v2.31.0 1c9add4): when `http_proxy` or `https_proxy` is set and
//! `no_proxy` is not, kubespray builds `no_proxy` from the load balancer,
//! every host's `main_access_ip` (its `access_ip`, else `ip`), name and
//! `<name>.<dns_domain>`, `additional_no_proxy`, then `127.0.0.1`,
//! `localhost`, `kube_service_subnets`, `kube_pods_subnets`, `svc` and
//! `svc.<dns_domain>`. Up to 2.30 (`roles/network_facts/tasks/no_proxy.yml`)
//! a Jinja template writes, with `loadbalancer_apiserver` defined,
//! `apiserver_loadbalancer_domain_name` and the address, then per host its
//! address, name and `<name>.<dns_domain>`. 2.31
//! (`roles/network_facts/tasks/main.yaml`) builds a list instead: the name
//! (`localhost` without a load balancer), the address, all host addresses,
//! all names, all `<name>.<dns_domain>`, the `additional_no_proxy` items and
//! the tail, then `select | flatten | unique | join(',')`, so a repeated
//! entry is kept first where it first occurs. Until 2.29
//! `apiserver_loadbalancer_domain_name` defaults to
//! `lb-apiserver.kubernetes.local`; from 2.30
//! (`roles/kubespray_defaults/defaults/main/main.yml`) to `localhost`
//! without a load balancer and to `loadbalancer_apiserver.address` with one.
//! `https_proxy_cert_file` (same file, 2.28 to 2.31) becomes
//! `SSL_CERT_FILE` in `proxy_env`, the environment of kubespray's own
//! downloads, replacing the default trust store there. A `no_proxy` set by
//! the user replaces the generated list, which is how clusters end up
//! without their nodes in it; so this renderer writes `additional_no_proxy`
//! and leaves `no_proxy` to kubespray. 2.30 writes its generated list to
//! the nodes garbled: rendering for it warns (see [`GARBLED_NO_PROXY`]).

use crate::redact::quoted;
use crate::redact::redact_userinfo;
use crate::warning::Warning;
use serde_json::{json, Value};

use super::trust::OsFamily;
use super::{
    minor_version, yaml, Cluster, Held, Input, ProxySettings, Rendered, Renderer, Rendering,
    Secrets,
};
use crate::no_proxy::typed::{networks, parse_host};
use crate::{Finding, InputField};

/// The option `kubespray_version`: the kubespray release of the inventory.
pub const KUBESPRAY_VERSION: InputField = InputField::Option("kubespray_version");

/// The option `inventory_hosts`: the inventory hosts and their addresses.
pub const INVENTORY_HOSTS: InputField = InputField::Option("inventory_hosts");

/// The option `loadbalancer_apiserver_address`: the address of the inventory's `loadbalancer_apiserver`.
pub const LOADBALANCER_APISERVER_ADDRESS: InputField =
    InputField::Option("loadbalancer_apiserver_address");

/// The option `apiserver_loadbalancer_domain_name`: the load balancer's domain name.
pub const APISERVER_LOADBALANCER_DOMAIN_NAME: InputField =
    InputField::Option("apiserver_loadbalancer_domain_name");

/// kubespray's default `kube_service_addresses`.
pub const DEFAULT_SERVICE_ADDRESSES: &str = "10.233.0.0/18";

/// kubespray's default `kube_pods_subnet`.
pub const DEFAULT_PODS_SUBNET: &str = "10.233.64.0/18";

/// `apiserver_loadbalancer_domain_name` by default until 2.29.
pub const LEGACY_LOADBALANCER_NAME: &str = "lb-apiserver.kubernetes.local";

/// The first 2.x minor whose load balancer name defaults to its address.
pub const ADDRESS_AS_NAME_SINCE: u32 = 30;

/// The summary of an inventory host whose address is not an IP address,
/// the one inventory finding the host grammar of the names does not cover.
pub const HOST_ADDRESS_NOT_IP: &str = "Inventory host address is not an IP address";

/// The first 2.x minor that builds `no_proxy` as a de-duplicated list.
pub const LIST_SINCE: u32 = 31;

/// The 2.x minor whose generated `no_proxy` reaches the nodes garbled.
pub const GARBLED_NO_PROXY_IN: u32 = 30;

/// Summary of the warning for [`GARBLED_NO_PROXY_IN`]; with its attribute,
/// the code that acknowledges it.
pub const GARBLED_NO_PROXY: &str = "kubespray 2.30 writes a garbled NO_PROXY to the nodes";

/// kubespray: the release, and what its `no_proxy` generation reads from the
/// inventory besides the cluster (`dns_domain` is the cluster's
/// `cluster_domain`, `kube_service_addresses` and `kube_pods_subnet` the
/// first of its `service_cidrs` and `pod_cidrs`, else kubespray's defaults).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kubespray {
    /// The kubespray release (`2.31`, `v2.30.1`); an error on
    /// `kubespray_version` unless 2.x.
    pub version: String,
    /// Hosts of `k8s_cluster`, `etcd` and `calico_rr`: inventory name and
    /// `access_ip` (or `ip`), in inventory order.
    pub hosts: Vec<(String, String)>,
    /// `loadbalancer_apiserver.address` and `apiserver_loadbalancer_domain_name`
    /// (`None`: the release's default), when `loadbalancer_apiserver` is
    /// defined.
    pub loadbalancer: Option<(String, Option<String>)>,
    /// The OS family whose trust store `https_proxy_cert_file` names.
    pub os_family: OsFamily,
}

/// What kubespray is given, and the `no_proxy` it generates from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubesprayVars {
    /// The `group_vars` document (see [`group_vars`]).
    pub group_vars: String,
    /// The `no_proxy` kubespray generates (see [`generated_no_proxy`]).
    pub effective_no_proxy: String,
}

/// The inventory as kubespray's `no_proxy` generation reads it, checked:
/// canonical host names and load balancer name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inventory {
    /// The 2.x minor release.
    pub minor: u32,
    /// (name, address) per host, each name once, first occurrence kept.
    pub hosts: Vec<(String, String)>,
    /// (name, address) of the load balancer, the name defaulted per release.
    pub loadbalancer: Option<(String, String)>,
}

impl Renderer for Kubespray {
    type Output = KubesprayVars;

    const MODULE: &'static str = "kubespray";

    const OPTIONS: &'static [InputField] = &[
        KUBESPRAY_VERSION,
        INVENTORY_HOSTS,
        LOADBALANCER_APISERVER_ADDRESS,
        APISERVER_LOADBALANCER_DOMAIN_NAME,
    ];

    fn sample() -> Self {
        Kubespray {
            version: "2.31".to_owned(),
            hosts: vec![("node-1".to_owned(), "10.0.0.11".to_owned())],
            loadbalancer: None,
            os_family: crate::render::trust::OsFamily::Debian,
        }
    }

    /// Checks the inventory, then renders.
    fn render(&self, input: Input) -> Rendering<KubesprayVars> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let inventory = self.checked()?;
        let warnings = garbled_no_proxy(inventory.minor).into_iter().collect();
        Rendered::checked(
            KubesprayVars {
                group_vars: group_vars(settings, self.os_family, secrets),
                effective_no_proxy: generated_no_proxy(
                    &inventory,
                    cluster,
                    &settings.no_proxy_value(),
                ),
            },
            warnings,
        )
    }

    /// Ansible group variables.
    fn held(&self, _: &KubesprayVars) -> Held {
        Held::NoArtifact("Kubespray group variables: no import kind reads Ansible inventories")
    }
}

/// The warning for 2.30, on `kubespray_version`. kubespray v2.30.0
/// (f4ccdb5, `roles/network_facts/tasks/no_proxy.yml` line 35, from commit
/// 6b5cc5b) sets `no_proxy: "{{ hostvars.localhost.no_proxy_prepare |
/// select }}"`, where `no_proxy_prepare` is the comma-joined string of the
/// same file: `select` iterates its characters, Ansible unrolls the
/// generator into a list, so `no_proxy` becomes a list of single
/// characters (ansible-core 2.17, which the release's `ansible==10.7.0`
/// pins, renders it so), and the containerd, CRI-O, Docker and kubelet
/// drop-ins (`http-proxy.conf.j2`: `"NO_PROXY={{ no_proxy }}"`) get its
/// Python form, `NO_PROXY=['1', '0', '.', ...]`, which matches no host.
/// 2.29 has no `select`; 2.31 (commit 03d17fe, kubespray#12981) joins a
/// list. The task runs only when `no_proxy` is not set.
fn garbled_no_proxy(minor: u32) -> Option<Finding> {
    (minor == GARBLED_NO_PROXY_IN).then(|| {
        Finding::warning(
            Warning::KubesprayGarbledNoProxy,
            KUBESPRAY_VERSION,
            GARBLED_NO_PROXY,
            "kubespray 2.30 sets `no_proxy` to `no_proxy_prepare | select` (roles/network_facts/tasks/no_proxy.yml), a list of single characters, so the containerd, CRI-O, Docker and kubelet drop-ins get `NO_PROXY=['1', '0', '.', ...]`, which matches no host, and cluster traffic goes to the proxy. Upgrade to kubespray 2.31 (fixed by kubernetes-sigs/kubespray#12981), or add `no_proxy` to the group_vars with the value of `effective_no_proxy`: kubespray then skips that task and writes it as given (a `no_proxy` you set replaces the generated list, so keep it in step with the inventory).",
        )
    })
}

impl Kubespray {
    /// The inventory by kubespray's rules for what lands in `no_proxy`:
    /// host and load balancer names are host names (written canonical, so
    /// nothing but a host name reaches `no_proxy`), each host's `access_ip`
    /// (or `ip`) and `loadbalancer_apiserver.address` IP addresses (kubespray
    /// uses them as such and writes them into `no_proxy` as written). Every
    /// error, on `kubespray_version`, `inventory_hosts` (naming the host),
    /// `loadbalancer_apiserver_address` or
    /// `apiserver_loadbalancer_domain_name`.
    pub fn checked(&self) -> Result<Inventory, Vec<Finding>> {
        let mut findings = Vec::new();
        let minor = minor(&self.version).map_err(|f| findings.push(f)).ok();
        let host = |field, text: &str, findings: &mut Vec<Finding>| {
            parse_host(text)
                .map(|host| host.to_string())
                .map_err(|r| {
                    findings.push(Finding::error(
                        field,
                        r.summary,
                        format!("{} kubespray writes it into `no_proxy`.", r.detail),
                    ));
                })
                .ok()
        };
        let is_ip = |text: &str| text.parse::<std::net::IpAddr>().is_ok();
        let mut hosts: Vec<(String, String)> = Vec::new();
        for (name, address) in &self.hosts {
            if !is_ip(address) {
                findings.push(Finding::error(
                    INVENTORY_HOSTS,
                    HOST_ADDRESS_NOT_IP,
                    format!("Host {name} has address {:?}; kubespray takes each host's `access_ip` (or `ip`) as an IP address and writes it into `no_proxy`.", redact_userinfo(address), name = quoted(name)),
                ));
            }
            if let Some(name) = host(INVENTORY_HOSTS, name, &mut findings) {
                if hosts.iter().all(|(seen, _)| *seen != name) {
                    hosts.push((name, address.clone()));
                }
            }
        }
        let mut loadbalancer = None;
        if let Some((address, name)) = &self.loadbalancer {
            if !is_ip(address) {
                findings.push(Finding::error(
                    LOADBALANCER_APISERVER_ADDRESS,
                    "Load balancer address is not an IP address",
                    format!("{:?} is not an IP address; `loadbalancer_apiserver.address` is one, and its name goes to `apiserver_loadbalancer_domain_name`.", redact_userinfo(address)),
                ));
            }
            let name = match (name, minor) {
                (Some(name), _) => host(APISERVER_LOADBALANCER_DOMAIN_NAME, name, &mut findings),
                (None, Some(minor)) => Some(default_loadbalancer_name(minor, address).to_owned()),
                (None, None) => None,
            };
            loadbalancer = name.map(|name| (name, address.clone()));
        }
        match minor {
            Some(minor) if findings.is_empty() => Ok(Inventory {
                minor,
                hosts,
                loadbalancer,
            }),
            _ => Err(findings),
        }
    }
}

/// The kubespray release as a 2.x minor, from `2.31` or `v2.30.1`; an error
/// on [`KUBESPRAY_VERSION`] otherwise.
pub fn minor(version: &str) -> Result<u32, Finding> {
    minor_version(version, "2").ok_or_else(|| {
        Finding::error(
            KUBESPRAY_VERSION,
            "Invalid kubespray version",
            format!(
                "{:?} is not a kubespray 2.x release such as \"2.31\" or \"v2.30.1\".",
                redact_userinfo(version)
            ),
        )
    })
}

/// `apiserver_loadbalancer_domain_name` by default in 2.`minor` for a load
/// balancer at `address`.
pub fn default_loadbalancer_name(minor: u32, address: &str) -> &str {
    if minor >= ADDRESS_AS_NAME_SINCE {
        address
    } else {
        LEGACY_LOADBALANCER_NAME
    }
}

/// The `no_proxy` kubespray generates with `additional_no_proxy` set to
/// `additional` (the comma-joined merged list).
pub fn generated_no_proxy(inventory: &Inventory, cluster: &Cluster, additional: &str) -> String {
    let domain = cluster.domain().unwrap_or_default();
    let first = |cidrs: &[String], default: &str| {
        networks(cidrs)
            .next()
            .map_or_else(|| default.to_owned(), |net| net.to_string())
    };
    let tail = [
        "127.0.0.1".to_owned(),
        "localhost".to_owned(),
        first(&cluster.service_cidrs, DEFAULT_SERVICE_ADDRESSES),
        first(&cluster.pod_cidrs, DEFAULT_PODS_SUBNET),
        "svc".to_owned(),
        format!("svc.{domain}"),
    ];
    let hosts = &inventory.hosts;
    let qualified = |name: &String| format!("{name}.{domain}");
    let mut parts: Vec<String> = Vec::new();
    if inventory.minor >= LIST_SINCE {
        // `apiserver_loadbalancer_domain_name | d('')` is `localhost` without
        // a load balancer; `select` drops the empty address.
        match &inventory.loadbalancer {
            Some((name, address)) => parts.extend([name.clone(), address.clone()]),
            None => parts.push("localhost".to_owned()),
        }
        parts.extend(hosts.iter().map(|(_, ip)| ip.clone()));
        parts.extend(hosts.iter().map(|(name, _)| name.clone()));
        parts.extend(hosts.iter().map(|(name, _)| qualified(name)));
        parts.extend(additional.split(',').map(str::to_owned));
        parts.extend(tail);
        let mut seen = std::collections::HashSet::new();
        parts.retain(|part| seen.insert(part.clone()));
    } else {
        if let Some((name, address)) = &inventory.loadbalancer {
            parts.extend([name.clone(), address.clone()]);
        }
        for (name, ip) in hosts {
            parts.extend([ip.clone(), name.clone(), qualified(name)]);
        }
        if !additional.is_empty() {
            parts.push(additional.to_owned());
        }
        parts.extend(tail);
    }
    parts.join(",")
}

/// The `group_vars` document (`group_vars/all/proxy.yml`); with a trusted
/// CA, `https_proxy_cert_file` names the trust store of `os` that the CA
/// is added to.
pub fn group_vars(settings: &ProxySettings, os: OsFamily, secrets: Secrets) -> String {
    let mut document = json!({"additional_no_proxy": settings.no_proxy_value()});
    if let Some(url) = &settings.http_proxy {
        document["http_proxy"] = Value::String(ProxySettings::url(url, secrets));
    }
    if let Some(url) = &settings.https_proxy {
        document["https_proxy"] = Value::String(ProxySettings::url(url, secrets));
    }
    if settings.trusted_ca.is_some() {
        document["https_proxy_cert_file"] = Value::String(os.system_bundle().to_owned());
    }
    yaml::to_string(&document)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::cloud_init::tests::with_ca;
    use crate::render::openshift::tests::fixed_ca;
    use crate::render::tests::{golden, settings};

    fn inventory(version: &str, name: Option<&str>) -> Kubespray {
        Kubespray {
            version: version.into(),
            hosts: vec![
                ("cp1".into(), "10.0.0.10".into()),
                ("node1".into(), "10.0.0.11".into()),
                ("cp1".into(), "10.0.0.10".into()),
            ],
            loadbalancer: Some(("10.0.0.5".into(), name.map(str::to_owned))),
            os_family: OsFamily::Debian,
        }
    }

    fn cluster() -> Cluster {
        Cluster {
            cluster_domain: Some("cluster.local".into()),
            ..Cluster::default()
        }
    }

    fn generated(inventory: &Kubespray, additional: &str) -> String {
        generated_no_proxy(&inventory.checked().unwrap(), &cluster(), additional)
    }

    const ADDITIONAL: &str = "registry.corp.example,.corp.example,localhost,10.0.0.11";

    /// Up to 2.30 the model follows the template: load balancer, each host
    /// once (as `unique` does), the additional list as given, the fixed
    /// tail; the load balancer is named `lb-apiserver.kubernetes.local`
    /// until 2.29 and by its address from 2.30.
    #[test]
    fn generated_no_proxy_template_releases() {
        assert_eq!(
            generated(&inventory("2.29", None), ADDITIONAL),
            "lb-apiserver.kubernetes.local,10.0.0.5,10.0.0.10,cp1,cp1.cluster.local,10.0.0.11,node1,node1.cluster.local,registry.corp.example,.corp.example,localhost,10.0.0.11,127.0.0.1,localhost,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
        assert_eq!(
            generated(&inventory("v2.30.0", None), ""),
            "10.0.0.5,10.0.0.5,10.0.0.10,cp1,cp1.cluster.local,10.0.0.11,node1,node1.cluster.local,127.0.0.1,localhost,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
        let bare = Kubespray {
            hosts: Vec::new(),
            loadbalancer: None,
            ..inventory("2.30", None)
        };
        assert_eq!(
            generated(&bare, ""),
            "127.0.0.1,localhost,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
    }

    /// 2.31 groups addresses, names and qualified names, splits the
    /// additional list and keeps each entry once, where it first occurs;
    /// without a load balancer its name is `localhost`.
    #[test]
    fn generated_no_proxy_list_release() {
        assert_eq!(
            generated(&inventory("2.31", None), ADDITIONAL),
            "10.0.0.5,10.0.0.10,10.0.0.11,cp1,node1,cp1.cluster.local,node1.cluster.local,registry.corp.example,.corp.example,localhost,127.0.0.1,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
        assert!(generated(&inventory("2.31", Some("lb.corp.example")), "")
            .starts_with("lb.corp.example,10.0.0.5,10.0.0.10,"));
        let bare = Kubespray {
            hosts: Vec::new(),
            loadbalancer: None,
            ..inventory("2.31", None)
        };
        assert_eq!(
            generated(&bare, ""),
            "localhost,,127.0.0.1,10.233.0.0/18,10.233.64.0/18,svc,svc.cluster.local"
        );
    }

    #[test]
    fn inventory_rules() {
        let mut bad = inventory("2.31", Some("lb.corp"));
        bad.hosts.push(("n1".into(), "n1.corp".into()));
        bad.loadbalancer = Some(("lb.corp".into(), None));
        let findings = bad.checked().unwrap_err();
        let located: Vec<_> = findings.iter().map(|f| f.location).collect();
        assert_eq!(
            located,
            [
                Some(INVENTORY_HOSTS.into()),
                Some(LOADBALANCER_APISERVER_ADDRESS.into())
            ]
        );
        assert!(findings[0].detail.contains("\"n1\""));
        let v6 = Kubespray {
            loadbalancer: Some(("fd00::1".into(), None)),
            ..inventory("2.31", None)
        };
        assert!(v6.checked().is_ok());
    }

    /// Hostile names never reach `no_proxy`: a newline or a Jinja lookup in
    /// the load balancer name and a blank is an error on its attribute; a
    /// zero-width character, which IDNA mapping drops, leaves the name
    /// canonical, as does any other spelling of it.
    #[test]
    fn hostile_names() {
        for name in [
            "lb\n.corp",
            "{{ lookup(\"pipe\",\"id\") }}",
            " ",
            "lb.corp,evil",
        ] {
            let findings = inventory("2.31", Some(name)).checked().unwrap_err();
            assert_eq!(
                findings.iter().map(|f| f.location).collect::<Vec<_>>(),
                [Some(APISERVER_LOADBALANCER_DOMAIN_NAME.into())],
                "{name:?}"
            );
        }
        for name in ["node\n1", "{{ lookup(\"pipe\",\"id\") }}", "a,b"] {
            let hosts = vec![(name.to_owned(), "10.0.0.1".to_owned())];
            let findings = Kubespray {
                hosts,
                ..inventory("2.31", None)
            }
            .checked()
            .unwrap_err();
            assert_eq!(
                findings.iter().map(|f| f.location).collect::<Vec<_>>(),
                [Some(INVENTORY_HOSTS.into())],
                "{name:?}"
            );
        }
        let spelled = Kubespray {
            hosts: vec![("No\u{200b}de1".into(), "10.0.0.1".into())],
            ..inventory("2.31", Some("LB.Corp.Example"))
        };
        let checked = spelled.checked().unwrap();
        assert_eq!(checked.hosts, [("node1".to_owned(), "10.0.0.1".to_owned())]);
        assert_eq!(checked.loadbalancer.unwrap().0, "lb.corp.example");
    }

    /// kubespray 2.30 writes `no_proxy` as a list of single characters
    /// into the node drop-ins: rendering for it warns on
    /// `kubespray_version` with what to set; other releases do not.
    #[test]
    fn release_2_30_garbles_its_generated_no_proxy() {
        let s = settings();
        let cluster = cluster();
        let input = Input {
            settings: &s,
            cluster: &cluster,
            secrets: Secrets::Redact,
        };
        for version in ["2.30", "v2.30.0", "2.29", "2.31"] {
            let warnings = inventory(version, None).render(input).unwrap().warnings;
            if minor(version).unwrap() != GARBLED_NO_PROXY_IN {
                assert!(warnings.is_empty(), "{version}: {warnings:?}");
                continue;
            }
            assert_eq!(warnings.len(), 1, "{version}");
            let warning = &warnings[0];
            assert!(!warning.is_error());
            assert_eq!(warning.location, Some(KUBESPRAY_VERSION.into()));
            assert_eq!(warning.summary, GARBLED_NO_PROXY);
            for needle in [
                "no_proxy_prepare | select",
                "2.31",
                "`no_proxy`",
                "effective_no_proxy",
            ] {
                assert!(
                    warning.detail.contains(needle),
                    "{needle}: {}",
                    warning.detail
                );
            }
        }
    }

    #[test]
    fn versions() {
        assert_eq!(minor("2.31").unwrap(), 31);
        assert_eq!(minor("v2.30.1").unwrap(), 30);
        for bad in ["1.31", "2", "2.x", "2.31.", "v2.+3", ""] {
            assert_eq!(
                minor(bad).unwrap_err().location,
                Some(KUBESPRAY_VERSION.into()),
                "{bad}"
            );
        }
    }

    /// Parsed back by a YAML reader, the variables are exactly the settings,
    /// and with a CA `https_proxy_cert_file` names the OS trust store.
    #[test]
    fn group_vars_parse_back() {
        let s = settings();
        let parsed: Value =
            serde_yaml_ng::from_str(&group_vars(&s, OsFamily::Debian, Secrets::Include)).unwrap();
        assert_eq!(parsed["additional_no_proxy"], s.no_proxy_value().as_str());
        assert_eq!(
            parsed["http_proxy"],
            ProxySettings::url(s.http_proxy.as_ref().unwrap(), Secrets::Include).as_str()
        );
        assert_eq!(parsed.as_object().unwrap().len(), 3);
        assert!(!group_vars(&s, OsFamily::Debian, Secrets::Redact).contains("p%2540ss"));
        let parsed: Value =
            serde_yaml_ng::from_str(&group_vars(&with_ca(), OsFamily::Rhel, Secrets::Include))
                .unwrap();
        assert_eq!(
            parsed["https_proxy_cert_file"],
            "/etc/pki/tls/certs/ca-bundle.crt"
        );
    }

    /// The `group_vars` file, and the modelled `no_proxy` per release that
    /// generates it differently.
    #[test]
    fn golden_files() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        golden(
            "kubespray/proxy.yml",
            &group_vars(&s, OsFamily::Debian, Secrets::Include),
        );
        let additional = settings().no_proxy_value();
        for version in ["2.29", "2.30", "2.31"] {
            golden(
                &format!("kubespray/no_proxy-{version}.txt"),
                &generated(&inventory(version, None), &additional),
            );
        }
    }
}
