//! Subsumption and aggregation: leaving out the entries another entry covers
//! for every target client, and joining addresses and blocks into the fewest
//! CIDR blocks.

use std::collections::BTreeSet;
use std::net::IpAddr;

use ipnet::IpNet;
// The sets only hold the user's own configuration: HashDoS is no concern, and
// FxHash is several times faster than SipHash on short keys.
use rustc_hash::{FxHashMap, FxHashSet};

use super::{brackets_left_out, cancelled, Origin, Subsumed};
use crate::no_proxy::dialect::Dialect;
use crate::no_proxy::entry::{Entry, Host};
use crate::Finding;
use clusterproxy_cancel as cancel;

/// Lookup tables over the entries without a port restriction.
struct Covers<'a> {
    domains: FxHashSet<&'a str>,
    subdomains: FxHashSet<&'a str>,
    ips: FxHashSet<IpAddr>,
    cidrs: FxHashSet<IpNet>,
    prefixes_v4: BTreeSet<u8>,
    prefixes_v6: BTreeSet<u8>,
}

impl<'a> Covers<'a> {
    fn new(entries: &'a [Entry]) -> Self {
        let mut counts = [0usize; 4];
        for entry in entries.iter().filter(|e| e.port.is_none()) {
            match &entry.host {
                Host::Domain {
                    subdomains_only, ..
                } => counts[usize::from(*subdomains_only)] += 1,
                Host::Ip(_) => counts[2] += 1,
                Host::Cidr(_) => counts[3] += 1,
                Host::Any => {}
            }
        }
        let mut covers = Covers {
            domains: FxHashSet::with_capacity_and_hasher(counts[0], Default::default()),
            subdomains: FxHashSet::with_capacity_and_hasher(counts[1], Default::default()),
            ips: FxHashSet::with_capacity_and_hasher(counts[2], Default::default()),
            cidrs: FxHashSet::with_capacity_and_hasher(counts[3], Default::default()),
            prefixes_v4: BTreeSet::new(),
            prefixes_v6: BTreeSet::new(),
        };
        for entry in entries.iter().filter(|e| e.port.is_none()) {
            match &entry.host {
                Host::Domain {
                    name,
                    subdomains_only: false,
                } => {
                    covers.domains.insert(name);
                }
                Host::Domain {
                    name,
                    subdomains_only: true,
                } => {
                    covers.subdomains.insert(name);
                }
                Host::Ip(ip) => {
                    covers.ips.insert(*ip);
                }
                Host::Cidr(net) => {
                    covers.cidrs.insert(*net);
                    match net {
                        IpNet::V4(_) => covers.prefixes_v4.insert(net.prefix_len()),
                        IpNet::V6(_) => covers.prefixes_v6.insert(net.prefix_len()),
                    };
                }
                Host::Any => {}
            }
        }
        covers
    }

    /// The CIDR block in the tables that strictly contains `net` or `ip`, shortest prefix first.
    fn supernet(&self, addr: IpAddr, below: u8) -> Option<IpNet> {
        let prefixes = if addr.is_ipv4() {
            &self.prefixes_v4
        } else {
            &self.prefixes_v6
        };
        prefixes
            .iter()
            .take_while(|p| **p < below)
            .filter_map(|p| IpNet::new(addr, *p).ok().map(|n| n.trunc()))
            .find(|n| self.cidrs.contains(n))
    }

    /// The canonical text of an entry that covers `entry` for every target.
    fn cover(&self, entry: &Entry, targets: &BTreeSet<Dialect>) -> Option<String> {
        match &entry.host {
            Host::Domain {
                name,
                subdomains_only,
            } => {
                if (entry.port.is_some() || *subdomains_only)
                    && self.domains.contains(name.as_str())
                {
                    return Some(name.clone());
                }
                if entry.port.is_some()
                    && *subdomains_only
                    && self.subdomains.contains(name.as_str())
                {
                    return Some([".", name].concat());
                }
                let mut rest = name.as_str();
                while let Some((_, parent)) = rest.split_once('.') {
                    if self.domains.contains(parent) {
                        return Some(parent.to_owned());
                    }
                    if self.subdomains.contains(parent) {
                        return Some([".", parent].concat());
                    }
                    rest = parent;
                }
                None
            }
            Host::Ip(ip) => {
                // `[v6]:port` is covered by `v6` only where `[v6]` is listed too.
                let readable = ip.is_ipv4() || !brackets_left_out(targets);
                if entry.port.is_some() && self.ips.contains(ip) && readable {
                    return Some(ip.to_string());
                }
                let all_match = targets
                    .iter()
                    .all(|d| d.client().matches_cidr(ip.is_ipv6()));
                let max = if ip.is_ipv4() { 32 } else { 128 };
                all_match
                    .then(|| self.supernet(*ip, max))
                    .flatten()
                    .map(|n| n.to_string())
            }
            Host::Cidr(net) => {
                let cover = self.supernet(net.addr(), net.prefix_len())?;
                targets
                    .iter()
                    .all(|d| d.client().keeps_cover(&cover, net))
                    .then(|| cover.to_string())
            }
            Host::Any => None,
        }
    }
}

/// Leaves out every entry another entry covers for all targets.
#[allow(clippy::type_complexity)]
pub(super) fn drop_covered(
    entries: Vec<Entry>,
    origins: Vec<Option<Origin>>,
    targets: &BTreeSet<Dialect>,
) -> Result<(Vec<Entry>, Vec<Option<Origin>>, Vec<Subsumed>), Vec<Finding>> {
    let covers = Covers::new(&entries);
    let mut verdicts: Vec<Option<String>> = Vec::with_capacity(entries.len());
    for entry in &entries {
        if cancel::requested() {
            return Err(cancelled());
        }
        verdicts.push(covers.cover(entry, targets));
    }
    drop(covers);
    let mut kept = Vec::with_capacity(entries.len());
    let mut kept_origins = Vec::with_capacity(entries.len());
    let mut subsumed = Vec::new();
    for ((entry, origin), cover) in entries.into_iter().zip(origins).zip(verdicts) {
        match cover {
            Some(covered_by) => subsumed.push(Subsumed {
                entry: entry.to_string(),
                covered_by,
            }),
            None => {
                kept.push(entry);
                kept_origins.push(origin);
            }
        }
    }
    Ok((kept, kept_origins, subsumed))
}

/// Replaces the port-less addresses and blocks of one family by their
/// aggregation, in the canonical order; a block that was an input keeps its origin.
pub(super) fn aggregate(
    entries: Vec<Entry>,
    origins: Vec<Option<Origin>>,
    ipv6: bool,
) -> (Vec<Entry>, Vec<Option<Origin>>) {
    let net_of = |e: &Entry| match e.host {
        Host::Ip(ip) if e.port.is_none() && e.is_ipv6() == ipv6 => Some(IpNet::from(ip)),
        Host::Cidr(net) if e.is_ipv6() == ipv6 => Some(net),
        _ => None,
    };
    let mut inputs: FxHashMap<IpNet, Option<Origin>> =
        FxHashMap::with_capacity_and_hasher(entries.len(), Default::default());
    let mut out: Vec<(Entry, Option<Origin>)> = Vec::with_capacity(entries.len());
    for (entry, origin) in entries.into_iter().zip(origins) {
        match net_of(&entry) {
            Some(net) => {
                inputs.insert(net, origin);
            }
            None => out.push((entry, origin)),
        }
    }
    let nets: Vec<IpNet> = inputs.keys().copied().collect();
    out.extend(IpNet::aggregate(&nets).into_iter().map(|net| {
        let host = if net.prefix_len() == net.max_prefix_len() {
            Host::Ip(net.addr())
        } else {
            Host::Cidr(net)
        };
        (
            Entry { host, port: None },
            inputs.get(&net).copied().flatten(),
        )
    }));
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use crate::no_proxy::merge::tests::{source, targets};
    use crate::no_proxy::merge::{merge, Dialect, MergeOptions};
    use crate::InputField;

    #[test]
    fn subsumes_only_where_every_target_agrees() {
        let sources = [source(
            InputField::Installation,
            &[
                "corp.example",
                "a.corp.example",
                "x.corp.example:8443",
                "10.0.0.0/8",
                "10.1.2.3",
                "10.96.0.0/12",
                ".svc",
                "a.svc",
            ],
        )];
        let go = merge(&sources, &targets(&[Dialect::GO, Dialect::CURL])).unwrap();
        assert_eq!(go.list, ["corp.example", ".svc", "10.0.0.0/8"]);
        assert_eq!(go.subsumed.len(), 5);
        let python = merge(&sources, &targets(&[Dialect::GO, Dialect::PYTHON])).unwrap();
        assert_eq!(
            python.list,
            ["corp.example", ".svc", "10.0.0.0/8", "10.1.2.3"]
        );
        let node = merge(&sources, &targets(&[Dialect::NODE])).unwrap();
        assert_eq!(
            node.list,
            [
                "corp.example",
                ".corp.example",
                ".svc",
                "10.0.0.0/8",
                "10.1.2.3"
            ]
        );
    }

    #[test]
    fn java_keeps_blocks_it_can_render_inside_ones_it_cannot() {
        let sources = [source(
            InputField::Installation,
            &[
                "10.0.0.0/7",
                "10.96.0.0/12",
                "172.16.0.0/12",
                "172.16.1.0/24",
            ],
        )];
        let java = merge(&sources, &targets(&[Dialect::JAVA])).unwrap();
        assert_eq!(java.list, ["10.0.0.0/7", "172.16.0.0/12"]);
        let odd = [source(
            InputField::Installation,
            &["10.0.0.0/30", "10.0.0.0/31"],
        )];
        let java = merge(&odd, &targets(&[Dialect::JAVA])).unwrap();
        assert_eq!(java.list, ["10.0.0.0/30"]);
    }

    #[test]
    fn aggregates_only_families_every_target_matches() {
        let sources = [source(
            InputField::Installation,
            &[
                "a.example",
                "10.0.0.0/25",
                "fd00::/65",
                "10.0.0.128/25",
                "fd00::8000:0:0:0/65",
                "10.0.1.0",
                "10.0.1.1:80",
            ],
        )];
        let mut options = targets(&[Dialect::GO]);
        options.aggregate_cidrs = true;
        let merged = |options: &MergeOptions| merge(&sources, options).unwrap().list.join(",");
        let common = "a.example,10.0.0.0/24,10.0.1.0,10.0.1.1:80";
        assert_eq!(merged(&options), format!("{common},fd00::/64"));
        // curl never matches IPv6 blocks: the two /65 halves are not joined.
        options.targets.insert(Dialect::CURL);
        assert_eq!(
            merged(&options),
            format!("{common},fd00::/65,fd00::8000:0:0:0/65")
        );
        options.targets.insert(Dialect::PYTHON);
        let merged = merge(&sources, &options).unwrap();
        assert_eq!(merged.list.len(), 7);
        assert_eq!(
            merged.warnings[0].location,
            Some(InputField::AggregateCidrs.into())
        );
    }
}
