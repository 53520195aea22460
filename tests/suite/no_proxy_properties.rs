//! Property tests of the NO_PROXY merge: idempotent, in the canonical order
//! (tests/suite/no_proxy_order.rs checks it ignores input order), and it
//! never takes coverage away from any client in the target set.

use std::collections::BTreeSet;

use clusterproxy::domain::no_proxy::{
    merge, render, Destination, Dialect, Entries, Entry, MergeOptions, Source,
};
use clusterproxy::domain::InputField;
use proptest::prelude::*;

const ENTRIES: &[&str] = &[
    "example.com",
    ".example.com",
    "*.example.com",
    "a.example.com",
    "b.a.example.com",
    "example.com:8080",
    "a.example.com:443",
    "Example.COM.",
    ".svc",
    "cluster.local",
    "svc.cluster.local",
    "localhost",
    "10.0.0.0/8",
    "10.96.0.0/12",
    "10.96.0.0/16",
    "10.1.2.3",
    "10.1.2.3/32",
    "10.1.2.3:8080",
    "10.1.2.0/31",
    "192.168.0.0/16",
    "fd00::/8",
    "fd00::/16",
    "fd00::1",
    "[fd00::1]:8080",
    "*",
    // Spellings the clients read differently, one per class: case, trailing dots,
    // IDN in both spellings, IPv4-mapped and -compatible IPv6, ports,
    // blanks, `.` and `*.` forms.
    "EXAMPLE.com",
    "cluster.local.",
    ".Cluster.Local.",
    "LOCALHOST",
    "bücher.example",
    "xn--bcher-kva.example",
    ".bücher.example",
    "::ffff:10.1.2.3",
    "::ffff:10.0.0.0/104",
    "::10.1.2.3",
    "example.com:443",
    "example.com:80",
    " example.com ",
    "\t.svc",
];

const URLS: &[&str] = &[
    "http://example.com/",
    "http://a.example.com:8080/",
    "https://b.a.example.com/",
    "https://badexample.com/",
    "https://kubernetes.default.svc/",
    "https://kubernetes.default.svc.cluster.local/",
    "http://localhost/",
    "http://10.1.2.3/",
    "http://10.1.2.3:8080/",
    "http://10.1.2.1/",
    "https://10.96.0.1/",
    "http://10.97.0.1/",
    "http://192.168.1.1/",
    "http://[fd00::1]/",
    "http://[fd00::1]:8080/",
    "http://[fd00::2]/",
    "http://LOCALHOST/",
    "http://localhost./",
    "https://kubernetes.default.svc.cluster.local./",
    "https://KUBERNETES.default.svc/",
    "http://EXAMPLE.com/",
    "http://example.com./",
    "http://bücher.example/",
    "http://a.xn--bcher-kva.example/",
    "http://[::ffff:10.1.2.3]/",
    "http://[::10.1.2.3]/",
    "https://example.com:443/",
    "http://example.com:80/",
    "http://[FD00::1]/",
    "http://[fd00:0::1]:8080/",
];

fn entries() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(ENTRIES.to_vec()).prop_map(str::to_owned),
        0..12,
    )
}

fn options() -> impl Strategy<Value = MergeOptions> {
    (
        prop::sample::subsequence(Dialect::all().collect::<Vec<_>>(), 1..=Dialect::all().len()),
        any::<bool>(),
    )
        .prop_map(|(targets, aggregate)| MergeOptions {
            targets: targets.into_iter().collect::<BTreeSet<_>>(),
            aggregate_cidrs: aggregate,
        })
}

/// The setting a client reads for a list of canonical entries.
fn setting(dialect: Dialect, entries: &Entries, shared: &str) -> String {
    if !dialect.client().traits().reads_no_proxy {
        render(dialect, entries).value
    } else {
        shared.to_owned()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn merge_is_idempotent(raw in entries(), options in options()) {
        let once = merge(&[Source::list(InputField::Extra, raw)], &options).unwrap();
        let twice = merge(&[Source::list(InputField::Extra, once.list.clone())], &options).unwrap();
        prop_assert_eq!(&once.list, &twice.list);
    }

    #[test]
    fn entries_come_in_the_canonical_order(raw in entries(), options in options()) {
        let merged = merge(&[Source::list(InputField::Extra, raw.clone())], &options).unwrap();
        prop_assert!(
            merged.entries.windows(2).all(|w| w[0] < w[1]),
            "{:?} -> {:?}", raw, merged.list
        );
    }

    #[test]
    fn merge_never_drops_coverage(raw in entries(), options in options()) {
        let parsed: Entries = raw.iter().map(|r| Entry::parse(r).unwrap().entry).collect();
        let naive = parsed.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
        let merged = merge(&[Source::list(InputField::Extra, raw.clone())], &options).unwrap();
        for dialect in &options.targets {
            let before = setting(*dialect, &parsed, &naive);
            let after = setting(*dialect, &merged.entries, &merged.no_proxy());
            for url in URLS {
                let destination = Destination::parse(url).unwrap();
                if dialect.bypasses(&before, &destination) {
                    prop_assert!(
                        dialect.bypasses(&after, &destination),
                        "{} loses {} : {:?} -> {:?}", dialect, url, before, after
                    );
                }
            }
        }
    }
}
