//! Merging sources into one list: parse and normalise every entry, drop
//! semantic duplicates (first occurrence wins), drop entries another entry
//! covers for every target client, optionally aggregate CIDR blocks, and
//! write the shared NO_PROXY list every target client reads correctly.

use std::collections::{BTreeSet, HashSet};
use std::net::IpAddr;

use ipnet::IpNet;

use super::dialect::Dialect;
use super::entry::{Entry, Host};
use super::render::java_cidr_patterns;
use crate::domain::Finding;

/// One input list, named by its field (the Terraform attribute).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Input field name, used in findings; empty for built-in defaults.
    pub field: String,
    /// Raw entries.
    pub entries: Vec<String>,
    /// Whether findings carry the element index (false for single-value fields).
    pub indexed: bool,
}

impl Source {
    /// A list field.
    pub fn list(field: &str, entries: Vec<String>) -> Self {
        Self {
            field: field.to_owned(),
            entries,
            indexed: true,
        }
    }

    /// A single-value field (absent when `None`).
    pub fn single(field: &str, entry: Option<String>) -> Self {
        Self {
            field: field.to_owned(),
            entries: entry.into_iter().collect(),
            indexed: false,
        }
    }
}

/// How to merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOptions {
    /// The clients that will read the result; subsumption is only done where
    /// it is safe for every one of them.
    pub targets: BTreeSet<Dialect>,
    /// Aggregate IP addresses and CIDR blocks into the fewest CIDR blocks
    /// (only when every target matches CIDR blocks).
    pub aggregate_cidrs: bool,
}

impl Default for MergeOptions {
    fn default() -> Self {
        Self {
            targets: Dialect::DEFAULT.into_iter().collect(),
            aggregate_cidrs: false,
        }
    }
}

/// An entry left out because another entry covers it for every target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subsumed {
    /// The entry left out (canonical).
    pub entry: String,
    /// The entry that covers it (canonical).
    pub covered_by: String,
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// Canonical entries, in source order.
    pub entries: Vec<Entry>,
    /// The shared NO_PROXY list: the canonical entries plus the extra forms
    /// some target clients need (`.x` beside `x` for Node, `[v6]` for Python and Node).
    pub list: Vec<String>,
    /// Entries left out as covered.
    pub subsumed: Vec<Subsumed>,
    /// Normalisations and remarks worth a warning.
    pub warnings: Vec<Finding>,
}

impl Merged {
    /// The shared list joined with commas (the value of NO_PROXY / no_proxy).
    pub fn no_proxy(&self) -> String {
        self.list.join(",")
    }
}

/// Normalises one entry to its canonical text; errors name the field and index.
pub fn normalize(field: &str, index: usize, raw: &str) -> Result<String, Finding> {
    Entry::parse(raw)
        .map(|parsed| parsed.entry.to_string())
        .map_err(|r| Finding::error(field, Some(index), r.summary, r.detail))
}

/// Where an entry of a merged list came from: the first input entry whose
/// canonical form is `entry`, as (field, index). `None` when no input spells
/// it that way (built-in defaults, aggregated blocks, extra client forms).
pub fn origin<'a>(sources: &'a [Source], entry: &str) -> Option<(&'a str, Option<usize>)> {
    sources
        .iter()
        .filter(|source| !source.field.is_empty())
        .find_map(|source| {
            source
                .entries
                .iter()
                .position(|raw| Entry::parse(raw).is_ok_and(|p| p.entry.to_string() == entry))
                .map(|index| (source.field.as_str(), source.indexed.then_some(index)))
        })
}

/// Merges `sources` in order. Returns every error when any entry is invalid.
pub fn merge(sources: &[Source], options: &MergeOptions) -> Result<Merged, Vec<Finding>> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = HashSet::new();
    let mut entries = Vec::new();
    for source in sources {
        for (index, raw) in source.entries.iter().enumerate() {
            let index = source.indexed.then_some(index);
            match Entry::parse(raw) {
                Ok(parsed) => {
                    for note in parsed.notes {
                        warnings.push(Finding::warning(
                            &source.field,
                            index,
                            "NO_PROXY entry rewritten",
                            note,
                        ));
                    }
                    if seen.insert(parsed.entry.clone()) {
                        entries.push(parsed.entry);
                    }
                }
                Err(r) => errors.push(Finding::error(&source.field, index, r.summary, r.detail)),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let star_understood = options.targets.iter().all(|d| d.understands_any());
    if let Some(star) = entries.iter().position(|e| e.host == Host::Any) {
        if star_understood {
            warnings.push(Finding::warning(
                "",
                None,
                "NO_PROXY contains `*`",
                "`*` sends every destination around the proxy; the other entries are left out because curl and Python only honour `*` as the whole value.",
            ));
            let subsumed = entries
                .iter()
                .filter(|e| e.host != Host::Any)
                .map(|e| Subsumed {
                    entry: e.to_string(),
                    covered_by: "*".to_owned(),
                })
                .collect();
            let any = vec![entries.swap_remove(star)];
            return Ok(Merged {
                list: shared_list(&any, &options.targets),
                entries: any,
                subsumed,
                warnings,
            });
        }
        warnings.push(Finding::warning(
            "",
            None,
            "NO_PROXY contains `*`",
            "wget and Ruby do not understand `*`, so the other entries are kept for them; curl and Python then ignore `*`, because they only honour it as the whole value.",
        ));
    }
    let (mut entries, subsumed) = drop_covered(entries, &options.targets);
    if options.aggregate_cidrs {
        let families: Vec<bool> = [false, true]
            .into_iter()
            .filter(|ipv6| options.targets.iter().all(|d| d.matches_cidr(*ipv6)))
            .collect();
        if families.is_empty() {
            warnings.push(Finding::warning(
                "aggregate_cidrs",
                None,
                "CIDR aggregation skipped",
                "Aggregating addresses into CIDR blocks is only safe when every client matches CIDR blocks (go for both families; curl, requests and ruby for IPv4); the other clients would lose the literal addresses.",
            ));
        }
        for ipv6 in families {
            entries = aggregate(entries, ipv6);
        }
    }
    Ok(Merged {
        list: shared_list(&entries, &options.targets),
        entries,
        subsumed,
        warnings,
    })
}

/// Lookup tables over the entries without a port restriction.
struct Covers<'a> {
    domains: HashSet<&'a str>,
    subdomains: HashSet<&'a str>,
    ips: HashSet<IpAddr>,
    cidrs: HashSet<IpNet>,
    prefixes_v4: BTreeSet<u8>,
    prefixes_v6: BTreeSet<u8>,
}

impl<'a> Covers<'a> {
    fn new(entries: &'a [Entry]) -> Self {
        let mut covers = Covers {
            domains: HashSet::new(),
            subdomains: HashSet::new(),
            ips: HashSet::new(),
            cidrs: HashSet::new(),
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
                    return Some(format!(".{name}"));
                }
                let mut rest = name.as_str();
                while let Some((_, parent)) = rest.split_once('.') {
                    if self.domains.contains(parent) {
                        return Some(parent.to_owned());
                    }
                    if self.subdomains.contains(parent) {
                        return Some(format!(".{parent}"));
                    }
                    rest = parent;
                }
                None
            }
            Host::Ip(ip) => {
                if entry.port.is_some() && self.ips.contains(ip) {
                    return Some(ip.to_string());
                }
                let all_match = targets.iter().all(|d| d.matches_cidr(ip.is_ipv6()));
                let max = if ip.is_ipv4() { 32 } else { 128 };
                all_match
                    .then(|| self.supernet(*ip, max))
                    .flatten()
                    .map(|n| n.to_string())
            }
            Host::Cidr(net) => {
                let cover = self.supernet(net.addr(), net.prefix_len())?;
                let java_safe = !targets.contains(&Dialect::Java)
                    || match (cover, net) {
                        (IpNet::V4(cover), IpNet::V4(net)) => {
                            java_cidr_patterns(&cover).is_some()
                                || java_cidr_patterns(net).is_none()
                        }
                        _ => true,
                    };
                java_safe.then(|| cover.to_string())
            }
            Host::Any => None,
        }
    }
}

/// Leaves out every entry another entry covers for all targets.
fn drop_covered(entries: Vec<Entry>, targets: &BTreeSet<Dialect>) -> (Vec<Entry>, Vec<Subsumed>) {
    let covers = Covers::new(&entries);
    let verdicts: Vec<Option<String>> = entries.iter().map(|e| covers.cover(e, targets)).collect();
    drop(covers);
    let mut kept = Vec::with_capacity(entries.len());
    let mut subsumed = Vec::new();
    for (entry, cover) in entries.into_iter().zip(verdicts) {
        match cover {
            Some(covered_by) => subsumed.push(Subsumed {
                entry: entry.to_string(),
                covered_by,
            }),
            None => kept.push(entry),
        }
    }
    (kept, subsumed)
}

/// Replaces the port-less addresses and blocks of one family by their
/// aggregation, placed where the first of them stood.
fn aggregate(entries: Vec<Entry>, ipv6: bool) -> Vec<Entry> {
    let is_net = |e: &Entry| {
        e.port.is_none() && matches!(e.host, Host::Ip(_) | Host::Cidr(_)) && e.is_ipv6() == ipv6
    };
    let Some(first) = entries.iter().position(is_net) else {
        return entries;
    };
    let nets: Vec<IpNet> = entries
        .iter()
        .filter(|e| is_net(e))
        .filter_map(|e| match &e.host {
            Host::Ip(ip) => Some(IpNet::from(*ip)),
            Host::Cidr(net) => Some(*net),
            _ => None,
        })
        .collect();
    let aggregated = IpNet::aggregate(&nets).into_iter().map(|net| Entry {
        host: if net.prefix_len() == net.max_prefix_len() {
            Host::Ip(net.addr())
        } else {
            Host::Cidr(net)
        },
        port: None,
    });
    let mut out: Vec<Entry> = entries[..first].to_vec();
    out.extend(aggregated);
    out.extend(entries[first..].iter().filter(|e| !is_net(e)).cloned());
    out
}

/// The shared list: canonical forms plus the forms some targets need (no
/// `.localhost`: names below localhost are loopback by definition, RFC 6761).
fn shared_list(entries: &[Entry], targets: &BTreeSet<Dialect>) -> Vec<String> {
    let node = targets.iter().any(|d| d.needs_dot_form());
    let bracketed_v6 = targets.iter().any(|d| d.needs_bracketed_ipv6());
    let mut out = Vec::with_capacity(entries.len());
    let mut emitted: HashSet<String> = HashSet::new();
    let mut push = |text: String| {
        if emitted.insert(text.clone()) {
            out.push(text);
        }
    };
    for entry in entries {
        push(entry.to_string());
        match (&entry.host, entry.port) {
            (
                Host::Domain {
                    name,
                    subdomains_only: false,
                },
                port,
            ) if node && name != "localhost" => push(match port {
                Some(port) => format!(".{name}:{port}"),
                None => format!(".{name}"),
            }),
            (Host::Ip(IpAddr::V6(ip)), None) if bracketed_v6 => push(format!("[{ip}]")),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(field: &str, raw: &[&str]) -> Source {
        Source::list(field, raw.iter().map(|s| (*s).to_owned()).collect())
    }

    fn targets(names: &[Dialect]) -> MergeOptions {
        MergeOptions {
            targets: names.iter().copied().collect(),
            aggregate_cidrs: false,
        }
    }

    #[test]
    fn origin_names_the_first_input_spelling_an_entry() {
        let sources = [
            Source {
                field: String::new(),
                entries: vec!["localhost".to_owned()],
                indexed: true,
            },
            source("installation", &["Registry.Corp.Example.", "10.0.0.0/8"]),
            source("extra", &["localhost", "registry.corp.example"]),
        ];
        assert_eq!(
            origin(&sources, "registry.corp.example"),
            Some(("installation", Some(0)))
        );
        assert_eq!(origin(&sources, "localhost"), Some(("extra", Some(0))));
        assert_eq!(
            origin(&sources, "10.0.0.0/8"),
            Some(("installation", Some(1)))
        );
        assert_eq!(origin(&sources, "10.0.0.0/7"), None);
    }

    #[test]
    fn dedupes_semantically_in_source_order() {
        let merged = merge(
            &[
                source(
                    "installation",
                    &[" Registry.Corp.Example. ", "10.0.0.1/32", "[FD00::1]"],
                ),
                source(
                    "extra",
                    &[
                        "registry.corp.example",
                        "10.0.0.1",
                        "fd00:0::1",
                        "b.example",
                    ],
                ),
            ],
            &targets(&[Dialect::Go]),
        )
        .unwrap();
        assert_eq!(
            merged.list,
            ["registry.corp.example", "10.0.0.1", "fd00::1", "b.example"]
        );
    }

    #[test]
    fn subsumes_only_where_every_target_agrees() {
        let sources = [source(
            "installation",
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
        let go = merge(&sources, &targets(&[Dialect::Go, Dialect::Curl])).unwrap();
        assert_eq!(go.list, ["corp.example", "10.0.0.0/8", ".svc"]);
        assert_eq!(go.subsumed.len(), 5);
        let python = merge(&sources, &targets(&[Dialect::Go, Dialect::Python])).unwrap();
        assert_eq!(
            python.list,
            ["corp.example", "10.0.0.0/8", "10.1.2.3", ".svc"]
        );
        let node = merge(&sources, &targets(&[Dialect::Node])).unwrap();
        assert_eq!(
            node.list,
            [
                "corp.example",
                ".corp.example",
                "10.0.0.0/8",
                "10.1.2.3",
                ".svc"
            ]
        );
    }

    #[test]
    fn java_keeps_blocks_it_can_render_inside_ones_it_cannot() {
        let sources = [source(
            "installation",
            &[
                "10.0.0.0/7",
                "10.96.0.0/12",
                "172.16.0.0/12",
                "172.16.1.0/24",
            ],
        )];
        let java = merge(&sources, &targets(&[Dialect::Java])).unwrap();
        assert_eq!(java.list, ["10.0.0.0/7", "172.16.0.0/12"]);
        let odd = [source("installation", &["10.0.0.0/30", "10.0.0.0/31"])];
        let java = merge(&odd, &targets(&[Dialect::Java])).unwrap();
        assert_eq!(java.list, ["10.0.0.0/30"]);
    }

    #[test]
    fn star_wins_alone_where_every_target_understands_it() {
        let sources = [source("extra", &["a.example", "*"])];
        let merged = merge(
            &sources,
            &targets(&[Dialect::Go, Dialect::Curl, Dialect::Python]),
        )
        .unwrap();
        assert_eq!(merged.list, ["*"]);
        assert_eq!(merged.warnings.len(), 1);
        let merged = merge(&sources, &MergeOptions::default()).unwrap();
        assert_eq!(merged.list, ["a.example", ".a.example", "*"]);
        assert!(merged.warnings[0].detail.contains("wget and Ruby"));
    }

    #[test]
    fn aggregates_only_families_every_target_matches() {
        let sources = [source(
            "installation",
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
        let mut options = targets(&[Dialect::Go]);
        options.aggregate_cidrs = true;
        let merged = merge(&sources, &options).unwrap();
        assert_eq!(
            merged.list,
            [
                "a.example",
                "10.0.0.0/24",
                "10.0.1.0",
                "fd00::/64",
                "10.0.1.1:80"
            ]
        );
        options.targets.insert(Dialect::Curl);
        let merged = merge(&sources, &options).unwrap();
        assert_eq!(
            merged.list,
            [
                "a.example",
                "10.0.0.0/24",
                "10.0.1.0",
                "fd00::/65",
                "fd00::8000:0:0:0/65",
                "10.0.1.1:80"
            ]
        );
        options.targets.insert(Dialect::Python);
        let merged = merge(&sources, &options).unwrap();
        assert_eq!(merged.list.len(), 7);
        assert_eq!(merged.warnings[0].field, "aggregate_cidrs");
    }

    #[test]
    fn ipv6_gets_the_bracketed_form_python_and_node_need() {
        let merged = merge(
            &[source("extra", &["fd00::1"])],
            &targets(&[Dialect::Go, Dialect::Python]),
        )
        .unwrap();
        assert_eq!(merged.list, ["fd00::1", "[fd00::1]"]);
    }

    #[test]
    fn errors_name_field_and_index_and_single_fields_have_none() {
        let errors = merge(
            &[
                source(
                    "installation",
                    &["ok.example", "", "https://x.example", "10.0.0.1/8"],
                ),
                Source::single("apiserver_host", Some("bad host".to_owned())),
            ],
            &MergeOptions::default(),
        )
        .unwrap_err();
        let located: Vec<_> = errors.iter().map(|f| (f.field.as_str(), f.index)).collect();
        assert_eq!(
            located,
            [
                ("installation", Some(1)),
                ("installation", Some(2)),
                ("installation", Some(3)),
                ("apiserver_host", None)
            ]
        );
    }

    #[test]
    fn merge_is_idempotent() {
        let once = merge(
            &[source(
                "x",
                &["B.example", "a.b.example", "fd00::/8", "*.c.example"],
            )],
            &MergeOptions::default(),
        )
        .unwrap();
        let twice = merge(
            &[Source::list("x", once.list.clone())],
            &MergeOptions::default(),
        )
        .unwrap();
        assert_eq!(once.list, twice.list);
    }
}
