//! The canonical order of merged NO_PROXY lists: the merged list, its
//! renderings, the subsumed entries and the coverage verdicts depend only on
//! the set of entries given, never on the order of any input list, on which
//! list holds an entry, on duplicates, or on an equivalent spelling (case,
//! trailing dot, `*.`, blanks, `/32`, brackets). A golden list pins the order
//! across releases.

use std::collections::BTreeSet;

use clusterproxy::domain::no_proxy::{
    gaps, merge, render, Cluster, Destination, Dialect, MergeOptions, Merged, Source,
};
use clusterproxy::domain::InputField;
use proptest::prelude::*;

/// Canonical entries of every kind, chosen so that some cover others.
const POOL: &[&str] = &[
    "example.com",
    ".example.com",
    "a.example.com",
    ".a.example.com",
    "b.a.example.com",
    "example.com:8080",
    ".example.com:8080",
    "a.example.com:443",
    "xn--bcher-kva.example",
    "svc",
    ".svc",
    "cluster.local",
    "svc.cluster.local",
    "localhost",
    "registry.corp.example",
    "10.0.0.0/8",
    "10.96.0.0/12",
    "10.96.0.0/16",
    "10.0.0.0/25",
    "10.0.0.128/25",
    "10.1.2.3",
    "10.1.2.3:8080",
    "10.1.2.0/31",
    "192.168.0.0/16",
    "169.254.169.254",
    "fd00::/8",
    "fd00::/16",
    "fd00::1",
    "[fd00::1]:8080",
    "fd00::/65",
    "fd00::8000:0:0:0/65",
    "::1",
    "*",
];

const URLS: &[&str] = &[
    "http://example.com/",
    "https://a.example.com:8080/",
    "https://b.a.example.com/",
    "https://kubernetes.default.svc/",
    "http://10.1.2.3:8080/",
    "https://10.96.0.1/",
    "http://[fd00::1]:8080/",
    "http://[fd00::2]/",
];

/// A small deterministic generator (SplitMix64) driving the rewrites.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// An equivalent spelling of the canonical entry `entry`.
fn respell(entry: &str, rng: &mut Rng) -> String {
    let mut text: String = entry
        .chars()
        .map(|c| {
            if rng.coin() {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect();
    let is_v6 = entry.contains("::");
    let has_port = !is_v6 && entry.contains(':') || entry.starts_with('[');
    let is_domain = entry.chars().any(|c| c.is_ascii_alphabetic()) && !is_v6;
    if is_domain && !has_port && entry != "*" {
        if rng.coin() {
            text.push('.');
        }
        if let Some(rest) = text.strip_prefix('.') {
            if rng.coin() {
                text = format!("*.{rest}");
            }
        }
    }
    if !is_domain && !has_port && entry != "*" && !entry.contains('/') && rng.coin() {
        text = if is_v6 {
            if rng.coin() {
                format!("[{text}]")
            } else {
                format!("{text}/128")
            }
        } else {
            format!("{text}/32")
        };
    }
    let pad = [" ", "\t", ""];
    format!("{}{text}{}", pad[rng.below(3)], pad[rng.below(3)])
}

/// Spreads `entries` over three lists in a random order, each respelled,
/// some of them twice.
fn arrange(entries: &[&str], seed: u64) -> [Vec<String>; 3] {
    let mut rng = Rng(seed);
    let mut items: Vec<String> = Vec::new();
    for entry in entries {
        items.push(respell(entry, &mut rng));
        if rng.below(4) == 0 {
            items.push(respell(entry, &mut rng));
        }
    }
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
    let mut lists: [Vec<String>; 3] = Default::default();
    for item in items {
        lists[rng.below(3)].push(item);
    }
    lists
}

fn sources(lists: [Vec<String>; 3]) -> Vec<Source<'static>> {
    let [a, b, c] = lists;
    vec![
        Source::list(InputField::Installation, a),
        Source::list(InputField::PodCidrs, b),
        Source::list(InputField::Extra, c),
    ]
}

/// Everything a merge shows the user, apart from findings (which name the
/// input elements and so follow where each entry was written).
fn visible(merged: &Merged, targets: &BTreeSet<Dialect>) -> Vec<String> {
    let mut out = merged.list.clone();
    out.extend(
        merged
            .subsumed
            .iter()
            .map(|s| format!("{} < {}", s.entry, s.covered_by)),
    );
    for dialect in targets {
        let rendering = render(*dialect, &merged.entries);
        out.push(rendering.value);
        out.extend(rendering.warnings.iter().map(|w| format!("{w:?}")));
    }
    let destinations: Vec<Destination> = URLS
        .iter()
        .map(|u| Destination::parse(u).unwrap())
        .collect();
    out.extend(
        gaps(merged, targets, &destinations)
            .iter()
            .map(|g| format!("{g:?}")),
    );
    out
}

fn options() -> impl Strategy<Value = MergeOptions> {
    (
        prop::sample::subsequence(Dialect::all().collect::<Vec<_>>(), 1..=8),
        any::<bool>(),
    )
        .prop_map(|(targets, aggregate)| MergeOptions {
            targets: targets.into_iter().collect::<BTreeSet<_>>(),
            aggregate_cidrs: aggregate,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Any two arrangements of the same entries merge to the same bytes.
    #[test]
    fn merge_ignores_order_spelling_duplicates_and_lists(
        entries in prop::collection::vec(prop::sample::select(POOL.to_vec()), 0..16),
        first in any::<u64>(),
        second in any::<u64>(),
        options in options(),
    ) {
        let one = merge(&sources(arrange(&entries, first)), &options).unwrap();
        let other = merge(&sources(arrange(&entries, second)), &options).unwrap();
        prop_assert_eq!(visible(&one, &options.targets), visible(&other, &options.targets));
        prop_assert!(one.entries.windows(2).all(|w| w[0] < w[1]), "{:?}", one.list);
    }

    /// The same holds for a whole cluster, platform defaults included.
    #[test]
    fn cluster_merge_ignores_order_and_spelling(
        entries in prop::collection::vec(prop::sample::select(POOL.to_vec()), 0..16),
        first in any::<u64>(),
        second in any::<u64>(),
    ) {
        let cluster = |seed| {
            let [installation, pod, extra] = arrange(&entries, seed);
            let mut extra = extra;
            extra.extend(pod);
            Cluster {
                installation,
                extra,
                service_cidrs: vec!["10.96.0.0/12".to_owned()],
                cluster_domain: Some("cluster.local".to_owned()),
                ..Cluster::default()
            }
        };
        let options = MergeOptions::default();
        let one = merge(&cluster(first).sources().unwrap(), &options).unwrap();
        let other = merge(&cluster(second).sources().unwrap(), &options).unwrap();
        prop_assert_eq!(visible(&one, &options.targets), visible(&other, &options.targets));
    }
}

/// Pins the canonical order of a typical cluster's merged list: a change
/// here changes every rendered artifact (and rolls nodes), so it must be
/// deliberate.
#[test]
fn golden_cluster_list() {
    let cluster = Cluster {
        installation: vec![
            "registry.corp.example".to_owned(),
            ".corp.example".to_owned(),
            "10.20.0.0/16".to_owned(),
            "fd00:20::/48".to_owned(),
        ],
        pod_cidrs: vec!["192.168.0.0/16".to_owned()],
        service_cidrs: vec!["10.96.0.0/12".to_owned()],
        cluster_domain: Some("cluster.local".to_owned()),
        apiserver_host: Some("api.prod-1.corp.example".to_owned()),
        control_plane_endpoint: Some("https://10.0.0.10:6443".to_owned()),
        cloud: clusterproxy::domain::no_proxy::Cloud::from_name("aws"),
        extra: vec![
            "Internal.Example".to_owned(),
            "registry.corp.example:5000".to_owned(),
        ],
        ..Cluster::default()
    };
    let merged = merge(&cluster.sources().unwrap(), &MergeOptions::default()).unwrap();
    assert_eq!(
        merged.no_proxy(),
        "cluster.local,.cluster.local,.corp.example,internal.example,.internal.example,localhost,.svc,\
         10.0.0.10,10.20.0.0/16,10.96.0.0/12,10.96.0.1,127.0.0.1,169.254.169.254,192.168.0.0/16,\
         fd00:20::/48"
    );
}
