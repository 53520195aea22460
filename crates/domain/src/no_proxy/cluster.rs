//! The NO_PROXY inputs of one cluster, in merge order, with the platform
//! defaults, and the destinations that must bypass the proxy by default.
//!
//! Merge order: installation-wide entries, pod CIDRs, service CIDRs, node
//! CIDRs, the cluster domain, the apiserver host, the apiserver IP, the
//! control-plane endpoint host, platform defaults (`localhost`, `127.0.0.1`,
//! `::1` for IPv6 clusters, `.svc`, the `kubernetes` Service ClusterIP of each
//! service CIDR), cloud metadata endpoints, then extra entries.

use std::fmt::Write as _;
use std::net::IpAddr;

use super::destination::{Destination, DestinationHost};
use super::merge::Source;
use super::typed::{self, networks, Endpoint};
use super::write::{write_ipv4, write_port};
use crate::{Finding, InputField};

/// A cloud whose metadata endpoints must bypass the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cloud {
    /// Amazon Web Services.
    Aws,
    /// Microsoft Azure.
    Azure,
    /// Google Cloud.
    Gcp,
    /// VMware vSphere (no metadata endpoint; the vCenter server is user input).
    Vsphere,
}

impl Cloud {
    /// Every cloud name accepted.
    pub const NAMES: [&'static str; 4] = ["aws", "azure", "gcp", "vsphere"];

    /// The cloud called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "aws" => Some(Cloud::Aws),
            "azure" => Some(Cloud::Azure),
            "gcp" => Some(Cloud::Gcp),
            "vsphere" => Some(Cloud::Vsphere),
            _ => None,
        }
    }

    /// Metadata endpoints (host part), IPv6 ones only for IPv6 clusters.
    pub fn metadata_hosts(self, ipv6: bool) -> Vec<&'static str> {
        match self {
            Cloud::Aws if ipv6 => vec!["169.254.169.254", "fd00:ec2::254"],
            Cloud::Aws => vec!["169.254.169.254"],
            Cloud::Azure => vec!["169.254.169.254", "168.63.129.16"],
            Cloud::Gcp => vec!["169.254.169.254", "metadata.google.internal"],
            Cloud::Vsphere => Vec::new(),
        }
    }
}

/// An entry every cluster's NO_PROXY gets (the one table of them).
struct PlatformDefault {
    entry: &'static str,
    /// Added only for IPv6 clusters.
    ipv6_only: bool,
    /// Why it is added, in words (import's reason for dropping it).
    why: &'static str,
}

/// The fixed platform defaults, in merge order.
const PLATFORM_DEFAULTS: [PlatformDefault; 4] = [
    PlatformDefault {
        entry: "localhost",
        ipv6_only: false,
        why: "loopback, added for every cluster",
    },
    PlatformDefault {
        entry: "127.0.0.1",
        ipv6_only: false,
        why: "loopback, added for every cluster",
    },
    PlatformDefault {
        entry: "::1",
        ipv6_only: true,
        why: "loopback, added for IPv6 clusters",
    },
    PlatformDefault {
        entry: ".svc",
        ipv6_only: false,
        why: "in-cluster service names, added for every cluster",
    },
];

/// Why the `kubernetes` Service ClusterIP of each service CIDR is added.
const SERVICE_IP_WHY: &str = "the `kubernetes` Service ClusterIP, added from `service_cidrs`";

/// Everything that shapes one cluster's NO_PROXY.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Installation-wide entries.
    pub installation: Vec<String>,
    /// Pod network CIDR blocks.
    pub pod_cidrs: Vec<String>,
    /// Service network CIDR blocks.
    pub service_cidrs: Vec<String>,
    /// Node or machine network CIDR blocks.
    pub node_cidrs: Vec<String>,
    /// Cluster DNS domain (e.g. `cluster.local`).
    pub cluster_domain: Option<String>,
    /// Apiserver host name or address.
    pub apiserver_host: Option<String>,
    /// Apiserver IP address.
    pub apiserver_ip: Option<String>,
    /// Control-plane endpoint: host, host:port or URL.
    pub control_plane_endpoint: Option<String>,
    /// Cloud, for its metadata endpoints.
    pub cloud: Option<Cloud>,
    /// Further entries, last.
    pub extra: Vec<String>,
}

impl Cluster {
    /// True when any cluster network or the apiserver IP is IPv6.
    pub fn is_ipv6(&self) -> bool {
        networks(&self.pod_cidrs)
            .chain(networks(&self.service_cidrs))
            .chain(networks(&self.node_cidrs))
            .any(|n| n.addr().is_ipv6())
            || self.apiserver_address().is_some_and(|ip| ip.is_ipv6())
    }

    /// The cluster domain, canonical (lowercase punycode, no trailing dot),
    /// if set and valid.
    pub fn domain(&self) -> Option<String> {
        typed::parse_domain(self.cluster_domain.as_deref()?).ok()
    }

    /// The apiserver host, canonical, if set and valid.
    pub fn apiserver(&self) -> Option<DestinationHost> {
        typed::parse_host(self.apiserver_host.as_deref()?).ok()
    }

    /// The apiserver IP address, if set and valid.
    pub fn apiserver_address(&self) -> Option<IpAddr> {
        typed::parse_ip(self.apiserver_ip.as_deref()?).ok()
    }

    /// The control-plane endpoint, canonical, if set and valid.
    pub fn control_plane(&self) -> Option<Endpoint> {
        self.control_plane_host().ok().flatten()
    }

    /// The control-plane endpoint, or an error on it.
    fn control_plane_host(&self) -> Result<Option<Endpoint>, Finding> {
        let Some(text) = self.control_plane_endpoint.as_deref() else {
            return Ok(None);
        };
        typed::parse_endpoint(text)
            .map(Some)
            .map_err(|r| Finding::error(InputField::ControlPlaneEndpoint, r.summary, r.detail))
    }

    /// The platform defaults of this cluster in merge order, each with why it
    /// is added (in words): the `PLATFORM_DEFAULTS` that apply, then the
    /// `kubernetes` Service ClusterIP of each service CIDR. Merge adds them;
    /// import drops them from artifacts for the same reasons.
    pub fn platform_defaults(&self) -> Vec<(String, &'static str)> {
        let ipv6 = self.is_ipv6();
        PLATFORM_DEFAULTS
            .iter()
            .filter(|d| !d.ipv6_only || ipv6)
            .map(|d| (d.entry.to_owned(), d.why))
            .chain(
                self.kubernetes_service_ips()
                    .into_iter()
                    .map(|ip| (ip.to_string(), SERVICE_IP_WHY)),
            )
            .collect()
    }

    /// The sources in merge order, platform defaults included.
    pub fn sources(&self) -> Result<Vec<Source<'_>>, Vec<Finding>> {
        let endpoint = self.control_plane_host().map_err(|f| vec![f])?;
        let ipv6 = self.is_ipv6();
        let defaults = self.platform_defaults().into_iter().map(|(entry, _)| entry);
        let metadata = self
            .cloud
            .map(|c| c.metadata_hosts(ipv6))
            .unwrap_or_default();
        Ok(vec![
            Source::list(InputField::Installation, &self.installation),
            Source::list(InputField::PodCidrs, &self.pod_cidrs),
            Source::list(InputField::ServiceCidrs, &self.service_cidrs),
            Source::list(InputField::NodeCidrs, &self.node_cidrs),
            Source::single(InputField::ClusterDomain, self.cluster_domain.as_deref()),
            Source::single(InputField::ApiserverHost, self.apiserver_host.as_deref()),
            Source::single(InputField::ApiserverIp, self.apiserver_ip.as_deref()),
            Source::single(
                InputField::ControlPlaneEndpoint,
                endpoint.map(|e| e.host.to_string()),
            ),
            Source::list(InputField::Defaults, defaults),
            Source::list(InputField::Cloud, metadata),
            Source::list(InputField::Extra, &self.extra),
        ])
    }

    /// The first address of each valid service CIDR: the `kubernetes` Service ClusterIP.
    pub fn kubernetes_service_ips(&self) -> Vec<IpAddr> {
        first_hosts(&self.service_cidrs)
    }

    /// Destinations that must never go through the proxy, derived from the inputs:
    /// the `kubernetes` Service by ClusterIP and by name, an address in every pod and
    /// node CIDR, the apiserver and control-plane endpoint, the cloud metadata endpoints.
    pub fn default_destinations(&self) -> Vec<Destination> {
        let mut urls: Vec<String> = Vec::new();
        // One way to write a host into a URL: IPv6 addresses in brackets.
        let url = |scheme: &str, host: DestinationHost, port: u16| {
            let mut url = String::with_capacity(64);
            url.push_str(scheme);
            url.push_str("://");
            // Writing into a String cannot fail.
            let _ = match host {
                DestinationHost::Ip(IpAddr::V6(ip)) => write!(url, "[{ip}]"),
                DestinationHost::Ip(IpAddr::V4(ip)) => write_ipv4(&mut url, ip),
                DestinationHost::Name(name) => url.write_str(&name),
            };
            let _ = write_port(&mut url, Some(port));
            url.push('/');
            url
        };
        for ip in self.kubernetes_service_ips() {
            urls.push(url("https", DestinationHost::Ip(ip), 443));
        }
        let domain = self.domain().unwrap_or_else(|| "cluster.local".to_owned());
        urls.push("https://kubernetes.default.svc:443/".to_owned());
        urls.push(format!("https://kubernetes.default.svc.{domain}:443/"));
        for ip in first_hosts(&self.pod_cidrs)
            .into_iter()
            .chain(first_hosts(&self.node_cidrs))
        {
            urls.push(url("http", DestinationHost::Ip(ip), 8080));
        }
        if let Some(host) = self.apiserver() {
            urls.push(url("https", host, 6443));
        }
        if let Some(ip) = self.apiserver_address() {
            urls.push(url("https", DestinationHost::Ip(ip), 6443));
        }
        if let Some(endpoint) = self.control_plane() {
            urls.push(url("https", endpoint.host, endpoint.port.unwrap_or(6443)));
        }
        for host in self
            .cloud
            .map(|c| c.metadata_hosts(self.is_ipv6()))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|host| typed::parse_host(host).ok())
        {
            urls.push(url("http", host, 80));
        }
        let mut out: Vec<Destination> = Vec::new();
        for url in urls {
            if let Ok(d) = Destination::parse(&url) {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    }
}

/// The first host address of each valid CIDR block in `cidrs`.
fn first_hosts(cidrs: &[String]) -> Vec<IpAddr> {
    networks(cidrs)
        .filter(|n| n.prefix_len() < n.max_prefix_len())
        .map(|n| match n.network() {
            IpAddr::V4(a) => IpAddr::V4((u32::from(a) + 1).into()),
            IpAddr::V6(a) => IpAddr::V6((u128::from(a) + 1).into()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(cluster: &Cluster) -> Vec<String> {
        cluster
            .default_destinations()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The default checks are made for the hosts as clients see them, not as
    /// spelled: an upper-case or trailing-dot spelling of the apiserver host
    /// or cluster domain checks the same destinations (a raw spelling made
    /// false gaps, and failed plans with `fail_on_gap`).
    #[test]
    fn default_checks_use_the_canonical_hosts() {
        let canonical = Cluster {
            cluster_domain: Some("cluster.local".into()),
            apiserver_host: Some("api.prod-1.corp.example".into()),
            control_plane_endpoint: Some("https://cp.corp.example:6443".into()),
            ..Cluster::default()
        };
        let respelled = Cluster {
            cluster_domain: Some(" Cluster.Local. ".into()),
            apiserver_host: Some("API.prod-1.corp.example.".into()),
            control_plane_endpoint: Some("https://CP.corp.example.:6443/".into()),
            ..Cluster::default()
        };
        assert_eq!(urls(&respelled), urls(&canonical));
        assert!(urls(&canonical).contains(&"https://api.prod-1.corp.example:6443/".to_owned()));
        let v6 = Cluster {
            apiserver_host: Some("FD00::1".into()),
            ..Cluster::default()
        };
        assert!(
            urls(&v6).contains(&"https://[fd00::1]:6443/".to_owned()),
            "{:?}",
            urls(&v6)
        );
    }
}
