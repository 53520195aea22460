//! Differential tests: for hand-picked, regression and generated (setting,
//! URL) pairs, our model of each client (`Dialect::decide`) decides exactly as
//! the real client does (tests/oracle). The generators reach every class a
//! cluster sends (case variants, trailing dots, IDN in both spellings,
//! IPv4-mapped and -compatible IPv6, ports written explicitly, blanks, odd
//! separators, `*` in odd places, `.` and `*.` entries) for every client.
//! Each run prints per client the seed, the number of cases and of
//! disagreements; disagreements fail the test and are appended to
//! tests/no_proxy_oracles.regressions, replayed by every later run.
//! `ORACLE_SEED` replays a seed, `ORACLE_CASES` sets the generated cases per
//! client (default 10,000). Also checks that each client's rendering of a
//! merged list makes the real client bypass every destination the coverage
//! check says it bypasses.

use crate::oracle;

use std::io::Write;
use std::path::PathBuf;

use clusterproxy::domain::no_proxy::dialect::Decision;
use clusterproxy::domain::no_proxy::{self, Cluster, Destination, Dialect, MergeOptions};
use oracle::{decide, Case};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Host names of entries and URLs: plain, nested, IDN in both spellings.
const NAMES: &[&str] = &[
    "example.com",
    "a.example.com",
    "b.a.example.com",
    "badexample.com",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "cluster.local",
    "svc",
    "localhost",
    "corp.example",
    "bücher.example",
    "a.bücher.example",
    "xn--bcher-kva.example",
    "a.xn--bcher-kva.example",
];

/// IP hosts of URLs (IPv6 in brackets), mapped and compatible forms included.
const URL_IPS: &[&str] = &[
    "10.1.2.3",
    "10.96.0.1",
    "127.0.0.1",
    "127.0.0.5",
    "192.168.1.1",
    "169.254.169.254",
    "[::1]",
    "[fd00::1]",
    "[FD00::1]",
    "[fd00:0::1]",
    "[fd00::abcd]",
    "[2001:db8::5]",
    "[::ffff:10.1.2.3]",
    "[::FFFF:10.96.0.1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:a01:203]",
    "[::10.1.2.3]",
    "[fe80::1%25eth0]",
    "[FE80::1%25eth0]",
];

/// IP and CIDR entries: IPv4, IPv6, mapped, compatible, zone-scoped.
const ENTRY_IPS: &[&str] = &[
    "10.1.2.3",
    "10.1.2.3/32",
    "10.0.0.0/8",
    "10.96.0.0/12",
    "192.168.0.0/16",
    "127.0.0.1",
    "169.254.169.254",
    "fd00::1",
    "[fd00::1]",
    "FD00::1",
    "fd00::/8",
    "2001:db8::/32",
    "::1",
    "::ffff:10.1.2.3",
    "::ffff:10.0.0.0/104",
    "::10.1.2.3",
    "fe80::1%eth0",
    "fe80::1%25eth0",
    "fe80::1",
];

/// Entries in odd shapes.
const ODD: &[&str] = &[
    "*",
    ".",
    "*.",
    "*example.com",
    "example.*",
    "*.*",
    "a.*.com",
    "",
    " ",
    "*,",
    ":8080",
];

/// A host name in a case variant, with or without a trailing dot.
fn spelled_name() -> impl Strategy<Value = String> {
    (
        prop::sample::select(NAMES.to_vec()),
        prop::sample::select(vec!["lower", "upper", "capital"]),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(name, case, dot)| {
            let mut name = match case {
                "upper" => name.to_uppercase(),
                "capital" => {
                    let mut chars = name.chars();
                    chars
                        .next()
                        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
                        .unwrap_or_default()
                }
                _ => name.to_owned(),
            };
            if dot {
                name.push('.');
            }
            name
        })
}

/// An optional `:port`, default ports included.
fn port() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", "", "", ":80", ":443", ":8080"]).prop_map(str::to_owned)
}

/// One NO_PROXY entry, with leading and trailing blanks at times.
fn entry() -> impl Strategy<Value = String> {
    let name = (
        prop::sample::select(vec!["", "", ".", "*."]),
        spelled_name(),
        port(),
    )
        .prop_map(|(prefix, name, port)| format!("{prefix}{name}{port}"));
    let ip = (prop::sample::select(ENTRY_IPS.to_vec()), port()).prop_map(|(ip, port)| {
        match (ip.contains(':') && !ip.starts_with('['), port.as_str()) {
            (_, "") => ip.to_owned(),
            (true, port) => format!("[{ip}]{port}"),
            (false, port) => format!("{ip}{port}"),
        }
    });
    let odd = prop::sample::select(ODD.to_vec()).prop_map(str::to_owned);
    let blank = || prop::sample::select(vec!["", "", "", "", " ", "\t", "  "]);
    (prop_oneof![5 => name, 3 => ip, 1 => odd], blank(), blank())
        .prop_map(|(entry, before, after)| format!("{before}{entry}{after}"))
}

/// A NO_PROXY value: entries joined by commas, blanks, tabs or `;`.
fn no_proxy_setting() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            entry(),
            prop::sample::select(vec![",", ",", ",", ",", ", ", " ", "\t", ";", ",,"]),
        ),
        1..5,
    )
    .prop_map(|parts| {
        let mut out = String::new();
        for (i, (entry, separator)) in parts.iter().enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            out.push_str(entry);
        }
        out
    })
}

/// A Java `http.nonProxyHosts` value: `|`-separated patterns with `*` at the
/// ends (or in odd places), names in case variants and IDN spellings.
fn java_setting() -> impl Strategy<Value = String> {
    let pattern = prop_oneof![
        4 => (prop::sample::select(vec!["", "", "*.", "*"]), spelled_name(), prop::sample::select(vec!["", "", "*"]))
            .prop_map(|(a, n, b)| format!("{a}{n}{b}")),
        2 => prop::sample::select(vec!["10.*", "10.1.2.3", "192.168.*", "127.*", "[fd00::1]", "fd00::1", "[::ffff:10.1.2.3]", "::ffff:10.1.2.3", "*", "a*b", "", " example.com"])
            .prop_map(str::to_owned),
    ];
    prop::collection::vec(pattern, 1..4).prop_map(|p| p.join("|"))
}

/// A URL: scheme, a host (name spelled any way, IPv4, IPv6 in any form), a port
/// (none, the scheme's default written out, the other default, or 8080).
fn url() -> impl Strategy<Value = String> {
    let host = prop_oneof![
        3 => spelled_name(),
        2 => prop::sample::select(URL_IPS.to_vec()).prop_map(str::to_owned),
    ];
    (
        prop::sample::select(vec!["http", "https"]),
        host,
        prop::sample::select(vec![None, None, Some(80u16), Some(443), Some(8080)]),
    )
        .prop_map(|(scheme, host, port)| match port {
            Some(port) => format!("{scheme}://{host}:{port}/"),
            None => format!("{scheme}://{host}/"),
        })
}

/// URLs per generated setting: Go and wget read their setting once per
/// process, so their drivers start one process per setting.
const URLS_PER_SETTING: usize = 25;

fn generated(dialect: Dialect, count: usize, seed: u64) -> Vec<Case> {
    let setting = if !dialect.client().traits().reads_no_proxy {
        java_setting().boxed()
    } else {
        no_proxy_setting().boxed()
    };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = dialect.position() as u8;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    let mut cases = Vec::with_capacity(count);
    while cases.len() < count {
        let setting = setting.new_tree(&mut runner).unwrap().current();
        for _ in 0..URLS_PER_SETTING.min(count - cases.len()) {
            cases.push(Case {
                setting: setting.clone(),
                url: url().new_tree(&mut runner).unwrap().current(),
            });
        }
    }
    cases
}

/// Facts from shared/reference/no-proxy-semantics.md, per client.
fn facts(dialect: Dialect) -> Vec<Case> {
    let facts: &[(&str, &str)] = if !dialect.client().traits().reads_no_proxy {
        &[
            ("*.example.com", "http://a.example.com/"),
            ("example.com", "http://a.example.com/"),
            ("", "http://127.0.0.5/"),
            ("10.*", "http://10.1.2.3/"),
            ("[fd00::1]", "http://[fd00::1]/"),
        ]
    } else {
        &[
            (".example.com", "http://a.example.com/"),
            (".example.com", "http://example.com/"),
            ("example.com", "http://a.example.com/"),
            ("example.com", "http://badexample.com/"),
            ("*.example.com", "http://a.example.com/"),
            ("10.0.0.0/8", "http://10.1.2.3/"),
            ("fd00::/8", "http://[fd00::1]/"),
            ("fd00::1", "http://[fd00::1]/"),
            ("[fd00::1]", "http://[fd00::1]/"),
            ("example.com:8080", "http://example.com:8080/"),
            ("example.com:8080", "http://example.com/"),
            ("a.example,*", "http://x.example.com/"),
            ("*", "http://x.example.com/"),
            ("*", "http://10.1.2.3/"),
            ("a.example, *", "http://[fd00::1]/"),
            (".svc", "https://kubernetes.default.svc.cluster.local/"),
            (
                "cluster.local",
                "https://kubernetes.default.svc.cluster.local/",
            ),
            // The classes of spellings clients read differently, one regression case each.
            ("", "http://LOCALHOST/"),
            ("", "http://localhost./"),
            ("xn--bcher-kva.example", "http://bücher.example/"),
            ("bücher.example", "http://xn--bcher-kva.example/"),
            ("bücher.example", "http://bücher.example/"),
            ("10.0.0.0/8", "http://[::ffff:10.0.0.1]/"),
            ("10.0.0.1", "http://[::ffff:10.0.0.1]/"),
            ("10.0.0.0/8", "http://[::10.0.0.1]/"),
            (
                "cluster.local",
                "https://kubernetes.default.svc.cluster.local./",
            ),
            ("example.com.", "http://example.com/"),
            ("example.com.", "http://example.com./"),
            (".", "http://example.com./"),
            ("a.example b.example", "http://b.example/"),
            ("a.example\tb.example", "http://b.example/"),
            ("a.example;b.example", "http://b.example/"),
            ("example.com:443", "https://example.com:443/"),
            ("fe80::1", "http://[fe80::1%25eth0]/"),
            ("fe80::1%eth0", "http://[fe80::1%25eth0]/"),
            ("fe80::1%25eth0", "http://[fe80::1%25eth0]/"),
        ]
    };
    // httpx reads entries as URL patterns: forms it reads its own way, asked
    // of every client that reads NO_PROXY.
    let patterns: &[(&str, &str)] = &[
        ("http://example.com", "http://example.com/"),
        ("http://example.com", "https://example.com/"),
        ("https://", "https://example.com/"),
        ("example.com:443", "http://example.com:443/"),
        ("example.com:443", "https://example.com/"),
        (":8080", "http://x.example:8080/"),
        ("[fd00::1]:80", "http://[fd00::1]/"),
        ("localhost", "http://a.localhost/"),
        ("xn--bcher-kva.example", "http://a.xn--bcher-kva.example/"),
        ("xn--bcher-kva.example", "http://a.bücher.example/"),
        ("example.com", "http://xn--bcher-kva.example.com/"),
    ];
    let extra = if dialect.client().traits().reads_no_proxy {
        patterns
    } else {
        &[]
    };
    facts
        .iter()
        .chain(extra)
        .map(|(s, u)| Case {
            setting: (*s).to_owned(),
            url: (*u).to_owned(),
        })
        .collect()
}

fn regressions_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/no_proxy_oracles.regressions")
}

/// Cases kept from earlier disagreements: JSON lines {client, no_proxy, url}.
fn regressions(dialect: Dialect) -> Vec<Case> {
    let text = std::fs::read_to_string(regressions_file()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("regression line is JSON"))
        .filter(|v| v["client"] == dialect.name())
        .map(|v| Case {
            setting: v["no_proxy"].as_str().unwrap().to_owned(),
            url: v["url"].as_str().unwrap().to_owned(),
        })
        .collect()
}

fn seed() -> u64 {
    std::env::var("ORACLE_SEED")
        .ok()
        .map(|s| s.parse().expect("ORACLE_SEED is a number"))
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
}

fn generated_count() -> usize {
    std::env::var("ORACLE_CASES")
        .ok()
        .map(|s| s.parse().expect("ORACLE_CASES is a number"))
        .unwrap_or(10_000)
}

/// Our model's decision: a URL our parser rejects counts as refused.
fn model(dialect: Dialect, case: &Case) -> Decision {
    match Destination::parse(&case.url) {
        Ok(destination) => dialect.decide(&case.setting, &destination),
        Err(_) => Decision::Refused,
    }
}

fn differences(dialect: Dialect, cases: &[Case], real: &[Decision]) -> Vec<(Case, String)> {
    cases
        .iter()
        .zip(real)
        .filter_map(|(case, real)| {
            let ours = model(dialect, case);
            (ours != *real).then(|| {
                (
                    case.clone(),
                    format!(
                        "{dialect}: setting {:?} url {} real={real:?} ours={ours:?}",
                        case.setting, case.url
                    ),
                )
            })
        })
        .collect()
}

/// Appends disagreements to the regressions file, once each.
fn keep(dialect: Dialect, diffs: &[(Case, String)]) {
    let known = regressions(dialect);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(regressions_file())
        .unwrap();
    for (case, _) in diffs {
        if !known.contains(case) {
            let line = serde_json::json!({"client": dialect.name(), "no_proxy": case.setting, "url": case.url});
            writeln!(file, "{line}").unwrap();
        }
    }
}

fn assert_model_matches(dialect: Dialect) {
    let seed = seed();
    let count = generated_count();
    let fixed: Vec<Case> = facts(dialect)
        .into_iter()
        .chain(regressions(dialect))
        .collect();
    let mut cases = fixed.clone();
    cases.extend(generated(dialect, count, seed));
    // A client that rejects a whole setting for one entry (httpx), which
    // most generated settings hold: as many cases again whose setting it can read.
    let readable = |c: &Case| {
        !c.setting
            .split(',')
            .any(|e| dialect.client().rejects_whole_setting(e))
    };
    let rejecting = !cases[fixed.len()..].iter().all(readable);
    let mut round = 1;
    while rejecting && cases.len() < fixed.len() + 2 * count {
        let more = generated(dialect, count, seed.wrapping_add(round));
        cases.extend(more.into_iter().filter(readable));
        round += 1;
    }
    cases.truncate(fixed.len() + if rejecting { 2 * count } else { count });
    let count = cases.len() - fixed.len();
    let started = std::time::Instant::now();
    let real = decide(dialect, &cases);
    let diffs = differences(dialect, &cases, &real);
    eprintln!(
        "oracle {dialect}: seed {seed}: {count} generated + {} fixed cases, {} disagreements, {:.1}s (real: {} direct, {} proxy, {} refused)",
        fixed.len(),
        diffs.len(),
        started.elapsed().as_secs_f64(),
        real.iter().filter(|d| **d == Decision::Direct).count(),
        real.iter().filter(|d| **d == Decision::Proxy).count(),
        real.iter().filter(|d| **d == Decision::Refused).count()
    );
    if !diffs.is_empty() {
        keep(dialect, &diffs);
    }
    assert!(
        diffs.is_empty(),
        "{} of {} cases differ (seed {seed}; kept in {}):\n{}",
        diffs.len(),
        cases.len(),
        regressions_file().display(),
        diffs
            .iter()
            .map(|d| d.1.as_str())
            .take(40)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// One test per client, from the list of tests/oracle (`clients!`), named
/// after the client: its model against the real client, or, for a client
/// whose driver is pending, an ignored test whose reason says why (the run
/// reports it as ignored).
macro_rules! model_tests {
    ($($name:ident => $kind:ident($($args:tt)*),)*) => {
        $(model_test!($name $kind($($args)*));)*
    };
}

/// The test of one client of [`model_tests`].
macro_rules! model_test {
    ($name:ident driver($($args:tt)*)) => {
        #[test]
        fn $name() {
            assert_model_matches(named(stringify!($name)));
        }
    };
    ($name:ident pending($reason:literal)) => {
        #[test]
        #[ignore = $reason]
        fn $name() {
            assert_model_matches(named(stringify!($name)));
        }
    };
}

/// Each client's model decides as the real client: `model_matches::go`, ...
mod model_matches {
    use super::{assert_model_matches, Dialect};

    /// The client a line of `clients!` names.
    fn named(name: &str) -> Dialect {
        Dialect::from_name(name).unwrap_or_else(|| {
            panic!("`clients!` in tests/oracle/mod.rs names `{name}`, which is no client")
        })
    }

    crate::oracle::clients!(model_tests);
}

/// Ruby's Net::HTTP decides as URI#find_proxy on every generated case, so it
/// needs no dialect of its own.
#[test]
fn ruby_net_http_decides_as_find_proxy() {
    let cases = generated(Dialect::RUBY, 2_000, seed());
    assert_eq!(
        oracle::ruby("net_http", &cases),
        oracle::ruby("find_proxy", &cases)
    );
}

/// The libcurl oracle decides as the curl binary does (one process per case,
/// so on the class table and a sample of generated cases).
#[test]
fn libcurl_decides_as_the_curl_binary() {
    let mut cases = class_cases(Dialect::CURL);
    cases.extend(generated(Dialect::CURL, 150, seed()));
    assert_eq!(
        oracle::python("curl-cli", &cases),
        oracle::python("curl", &cases)
    );
}

/// For a dual-stack cluster merged for every client, and for an IPv4 cluster
/// merged for the default clients and httpx (a dual-stack list is one httpx
/// rejects), each real client bypasses exactly the checked destinations the
/// coverage check says it does, for the default destinations and for odd
/// spellings of them.
#[test]
fn coverage_check_agrees_with_real_clients() {
    let cluster = Cluster {
        installation: vec![
            "registry.corp.example".into(),
            ".corp.example".into(),
            "10.20.0.0/16".into(),
        ],
        pod_cidrs: vec!["10.244.0.0/16".into(), "fd00:10:244::/56".into()],
        service_cidrs: vec!["10.96.0.0/12".into(), "fd00:10:96::/112".into()],
        cluster_domain: Some("cluster.local".into()),
        apiserver_host: Some("api.prod.corp.example".into()),
        cloud: Some(no_proxy::Cloud::Aws),
        ..Cluster::default()
    };
    coverage_agrees(&cluster, Dialect::all().collect());
    let ipv4 = Cluster {
        pod_cidrs: vec!["10.244.0.0/16".into()],
        service_cidrs: vec!["10.96.0.0/12".into()],
        ..cluster
    };
    let mut targets: std::collections::BTreeSet<Dialect> =
        Dialect::defaults().iter().copied().collect();
    targets.insert(Dialect::HTTPX);
    coverage_agrees(&ipv4, targets);
}

fn coverage_agrees(cluster: &Cluster, targets: std::collections::BTreeSet<Dialect>) {
    let options = MergeOptions {
        targets,
        ..MergeOptions::default()
    };
    let merged = no_proxy::merge(&cluster.sources().unwrap(), &options).unwrap();
    let mut destinations = cluster.default_destinations();
    // Spellings a cluster sends that clients read differently.
    for url in [
        "https://kubernetes.default.svc.cluster.local./",
        "https://KUBERNETES.default.svc/",
        "http://[::ffff:10.96.0.1]/",
        "http://LOCALHOST:8080/",
        "https://registry.corp.example.:443/",
    ] {
        destinations.push(Destination::parse(url).unwrap());
    }
    let gaps = no_proxy::gaps(&merged, &options.targets, &destinations);
    for dialect in oracle::checked().filter(|d| options.targets.contains(d)) {
        let setting = no_proxy::setting_for(dialect, &merged);
        let cases: Vec<Case> = destinations
            .iter()
            .map(|d| Case {
                setting: setting.clone(),
                url: d.to_string(),
            })
            .collect();
        let real = decide(dialect, &cases);
        for (destination, real) in destinations.iter().zip(real) {
            let real = real == Decision::Direct;
            let gap = gaps
                .iter()
                .any(|g| g.dialect == dialect && g.destination == destination.to_string());
            assert_eq!(
                real, !gap,
                "{dialect} {destination}: real client direct={real}, coverage check gap={gap}"
            );
        }
    }
}

/// httpx rejects the dual-stack shared list (its IPv6 CIDRs and bracketed
/// forms): the real client refuses every URL, the merge warns, and httpx's
/// own rendering is read by the real client, which bypasses what the model
/// says, the cluster's names and IPv4 services included.
#[test]
fn httpx_rendering_is_read_by_httpx() {
    let cluster = Cluster {
        installation: vec![".corp.example".into(), "fd00::1".into()],
        pod_cidrs: vec!["10.244.0.0/16".into(), "fd00:10:244::/56".into()],
        service_cidrs: vec!["10.96.0.0/12".into(), "fd00:10:96::/112".into()],
        cluster_domain: Some("cluster.local".into()),
        ..Cluster::default()
    };
    let options = MergeOptions {
        targets: Dialect::all().collect(),
        ..MergeOptions::default()
    };
    let merged = no_proxy::merge(&cluster.sources().unwrap(), &options).unwrap();
    assert!(merged
        .warnings
        .iter()
        .any(|w| w.summary == "httpx rejects this NO_PROXY value"));
    let mut destinations = cluster.default_destinations();
    for url in [
        "http://[fd00::1]/",
        "https://registry.corp.example/",
        "http://localhost/",
    ] {
        destinations.push(Destination::parse(url).unwrap());
    }
    let shared: Vec<Case> = destinations
        .iter()
        .map(|d| Case {
            setting: merged.no_proxy(),
            url: d.to_string(),
        })
        .collect();
    assert!(decide(Dialect::HTTPX, &shared)
        .iter()
        .all(|d| *d == Decision::Refused));
    let rendering = no_proxy::render(Dialect::HTTPX, &merged.entries);
    let cases: Vec<Case> = destinations
        .iter()
        .map(|d| Case {
            setting: rendering.value.clone(),
            url: d.to_string(),
        })
        .collect();
    let real = decide(Dialect::HTTPX, &cases);
    assert_eq!(differences(Dialect::HTTPX, &cases, &real), vec![]);
    for (case, real) in cases.iter().zip(&real) {
        let must = case.url.contains("cluster.local")
            || case.url.contains("corp.example")
            || case.url.contains("[fd00::1]")
            || case.url.contains("localhost");
        assert!(!must || *real == Decision::Direct, "{case:?} {real:?}");
        assert_ne!(*real, Decision::Refused, "{case:?}");
    }
}

/// The classes of the client table (docs/guides/no_proxy_clients.md): what is
/// tested, the NO_PROXY value, the `http.nonProxyHosts` value for Java, the URL.
const CLASSES: &[(&str, &str, &str, &str)] = &[
    (
        "`localhost` in capitals, nothing listed",
        "",
        "x.invalid",
        "http://LOCALHOST/",
    ),
    (
        "`localhost.` (trailing dot), nothing listed",
        "",
        "x.invalid",
        "http://localhost./",
    ),
    (
        "IPv4-mapped loopback, nothing listed",
        "",
        "x.invalid",
        "http://[::ffff:127.0.0.1]/",
    ),
    (
        "name with a trailing dot, its parent listed",
        "cluster.local",
        "*.cluster.local",
        "https://kubernetes.default.svc.cluster.local./",
    ),
    (
        "entry with a trailing dot, name without",
        "example.com.",
        "example.com.",
        "http://example.com/",
    ),
    (
        "entry and name with a trailing dot",
        "example.com.",
        "example.com.",
        "http://example.com./",
    ),
    (
        "`.` entry, name with a trailing dot",
        ".",
        "*.",
        "http://example.com./",
    ),
    (
        "empty element, name with a trailing dot",
        "a.example,,b.example",
        "a.example||b.example",
        "http://example.com./",
    ),
    (
        "entry in capitals",
        "EXAMPLE.com",
        "EXAMPLE.com",
        "http://example.com/",
    ),
    (
        "name in capitals",
        "example.com",
        "example.com",
        "http://EXAMPLE.COM/",
    ),
    (
        "punycode entry, Unicode name",
        "xn--bcher-kva.example",
        "xn--bcher-kva.example",
        "http://bücher.example/",
    ),
    (
        "Unicode entry, punycode name",
        "bücher.example",
        "bücher.example",
        "http://xn--bcher-kva.example/",
    ),
    (
        "Unicode entry, Unicode name",
        "bücher.example",
        "bücher.example",
        "http://bücher.example/",
    ),
    (
        "IPv4 CIDR, IPv4-mapped IPv6 address",
        "10.0.0.0/8",
        "10.*",
        "http://[::ffff:10.0.0.1]/",
    ),
    (
        "IPv4 address, IPv4-mapped IPv6 address",
        "10.0.0.1",
        "10.0.0.1",
        "http://[::ffff:10.0.0.1]/",
    ),
    (
        "IPv4-mapped entry, IPv4 address",
        "::ffff:10.0.0.1",
        "::ffff:10.0.0.1",
        "http://10.0.0.1/",
    ),
    (
        "IPv4 CIDR, IPv4-compatible IPv6 address",
        "10.0.0.0/8",
        "10.*",
        "http://[::10.0.0.1]/",
    ),
    (
        "IPv4 CIDR, IPv4 address",
        "10.0.0.0/8",
        "10.*",
        "http://10.1.2.3/",
    ),
    (
        "IPv6 address, bare",
        "fd00::1",
        "fd00::1",
        "http://[fd00::1]/",
    ),
    (
        "IPv6 address, bracketed",
        "[fd00::1]",
        "[fd00::1]",
        "http://[fd00::1]/",
    ),
    (
        "IPv6 address, other spelling of the URL's",
        "fd00::1",
        "fd00::1",
        "http://[fd00:0::1]/",
    ),
    ("IPv6 CIDR", "fd00::/8", "fd00::/8", "http://[fd00::1]/"),
    (
        "zone-scoped IPv6 URL, its address listed",
        "fe80::1",
        "[fe80::1]",
        "http://[fe80::1%25eth0]/",
    ),
    (
        "zone-scoped IPv6 URL, zone entry",
        "fe80::1%eth0",
        "[fe80::1%25eth0]",
        "http://[fe80::1%25eth0]/",
    ),
    (
        "`host:port`, default port implied",
        "example.com:443",
        "example.com:443",
        "https://example.com/",
    ),
    (
        "`host:port`, default port written",
        "example.com:443",
        "example.com:443",
        "https://example.com:443/",
    ),
    (
        "`host:port`, other port",
        "example.com:8080",
        "example.com:8080",
        "http://example.com/",
    ),
    (
        "leading and trailing blanks",
        " example.com ",
        " example.com ",
        "http://example.com/",
    ),
    (
        "space separator",
        "a.example example.com",
        "a.example example.com",
        "http://example.com/",
    ),
    (
        "tab separator",
        "a.example\texample.com",
        "a.example\texample.com",
        "http://example.com/",
    ),
    (
        "`;` separator",
        "a.example;example.com",
        "a.example;example.com",
        "http://example.com/",
    ),
    ("`*` as the whole value", "*", "*", "http://example.com/"),
    (
        "`*` as the whole value, IP address URL",
        "*",
        "*",
        "http://10.1.2.3/",
    ),
    (
        "`*` among other entries",
        "a.example,*",
        "a.example|*",
        "http://example.com/",
    ),
    (
        "`*.` entry, name with a trailing dot",
        "*.",
        "*.",
        "http://example.com./",
    ),
    (
        "`*example.com` (no dot after `*`)",
        "*example.com",
        "*example.com",
        "http://a.example.com/",
    ),
    (
        "`.example.com`, the domain itself",
        ".example.com",
        "*.example.com",
        "http://example.com/",
    ),
    (
        "`*.example.com`, a subdomain",
        "*.example.com",
        "*.example.com",
        "http://a.example.com/",
    ),
    (
        "`example.com`, a subdomain",
        "example.com",
        "example.com",
        "http://a.example.com/",
    ),
];

fn class_cases(dialect: Dialect) -> Vec<Case> {
    CLASSES
        .iter()
        .map(|(_, setting, java, url)| Case {
            setting: (if dialect.client().traits().reads_no_proxy {
                setting
            } else {
                java
            })
            .to_string(),
            url: (*url).to_owned(),
        })
        .collect()
}

/// Markdown code span for a table cell (tabs shown as `\t`, empty as `""`,
/// `|` escaped for the table).
fn code(text: &str) -> String {
    let text = text.replace('|', "\\|");
    let text = text.as_str();
    match text {
        "" => "`\"\"`".to_owned(),
        _ if text.starts_with(' ') || text.ends_with(' ') => {
            format!("`\"{}\"`", text.replace('\t', "\\t"))
        }
        _ => format!("`{}`", text.replace('\t', "\\t")),
    }
}

/// The guide page: every class against every client, from the models.
fn client_table() -> String {
    let mut out = String::from(
        "---\npage_title: \"NO_PROXY: how each client reads it\"\nsubcategory: \"\"\ndescription: |-\n  Every client the provider models, against every class of setting and destination that clients read differently.\n---\n\n# NO_PROXY: how each client reads it\n\n",
    );
    out.push_str("There is no NO_PROXY standard. This table shows what each modelled client does with a request for the URL when its setting is the NO_PROXY value (Java: the `http.nonProxyHosts` value) of the row: `direct`, `proxy`, or `refused` (the client rejects the URL). It is generated from the provider's client models (`tests/oracles/no_proxy_oracles.rs`, `client_table`), and `class_cases_match_real_clients` in the same file asks the real clients the same questions and fails on any difference; the same models are checked against the real clients on at least 10,000 generated cases per client on every test run.\n\n");
    out.push_str(&clients_paragraph());
    out.push_str(&pending_paragraph());
    out.push_str("| class | NO_PROXY | Java setting | URL |");
    for dialect in Dialect::all() {
        out.push_str(&format!(" {dialect} |"));
    }
    out.push_str("\n|---|---|---|---|");
    for _ in Dialect::all() {
        out.push_str("---|");
    }
    out.push('\n');
    let decisions: Vec<Vec<Decision>> = Dialect::all()
        .map(|d| class_cases(d).iter().map(|c| model(d, c)).collect())
        .collect();
    for (row, (class, setting, java, url)) in CLASSES.iter().enumerate() {
        out.push_str(&format!(
            "| {class} | {} | {} | `{url}` |",
            code(setting),
            code(java)
        ));
        for column in &decisions {
            let cell = match column[row] {
                Decision::Direct => "direct",
                Decision::Proxy => "proxy",
                Decision::Refused => "refused",
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out
}

/// The `Clients:` paragraph of the client guide, from the client registry.
fn clients_paragraph() -> String {
    format!(
        "Clients: {}. The default `clients` of the data source and functions is the first eight; name {} to include them. `refused` for `httpx` with a setting that fails every URL means httpx rejects the whole NO_PROXY value when the client is created.\n\n",
        Dialect::listing(Dialect::all(), ", ", |c| Some(c.traits().modelled)),
        Dialect::listing(Dialect::opt_in(), " or ", |_| None)
    )
}

/// The clients whose model is not yet checked against the real client
/// (their driver is pending in tests/oracle), with the reason; nothing when
/// every client has its driver.
fn pending_paragraph() -> String {
    let pending: Vec<String> = Dialect::all()
        .filter_map(|d| match oracle::oracle(d) {
            oracle::Oracle::Pending(reason) => Some(format!("`{d}` ({reason})")),
            oracle::Oracle::Driver(_) => None,
        })
        .collect();
    if pending.is_empty() {
        return String::new();
    }
    format!(
        "Not yet checked against the real client (its driver is pending): {}. The table shows what such a model answers.\n\n",
        pending.join(", ")
    )
}

/// Where README's generated list of the clients starts and ends.
const README_CLIENTS: (&str, &str) = (
    "<!-- BEGIN clients: generated from the client registry by `make generate` -->",
    "<!-- END clients -->",
);

/// README's list of the clients (inside a list item), from the client registry.
fn readme_clients() -> String {
    format!(
        "\n  Clients: {}. The default `clients` is the first eight, so adding a client never changes an existing merged list; {} are opt-in.\n  ",
        Dialect::listing(Dialect::all(), ", ", |c| Some(c.traits().modelled)),
        Dialect::listing(Dialect::opt_in(), " and ", |_| None)
    )
}

/// `path` holds `text`; `UPDATE_DOCS=1` writes it first.
fn assert_fresh(path: &std::path::Path, text: &str) {
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(path).unwrap_or_default(),
        text,
        "{} is out of date; run `make generate`",
        path.display()
    );
}

/// The client guide (docs/guides/no_proxy_clients.md) is what the models
/// answer, and README's list of the clients what the registry holds; no real
/// client is needed. `UPDATE_DOCS=1` rewrites both.
#[test]
fn client_table_is_generated() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    assert_fresh(
        &root.join("docs/guides/no_proxy_clients.md"),
        &client_table(),
    );
    let readme = root.join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let (begin, end) = README_CLIENTS;
    let (before, rest) = text
        .split_once(begin)
        .expect("README marks its list of clients");
    let (_, after) = rest
        .split_once(end)
        .expect("README ends its list of clients");
    assert_fresh(
        &readme,
        &format!("{before}{begin}{}{end}{after}", readme_clients()),
    );
}

/// Every cell of the client table is what the real client answers.
#[test]
fn class_cases_match_real_clients() {
    for dialect in oracle::checked() {
        let cases = class_cases(dialect);
        let real = decide(dialect, &cases);
        let diffs = differences(dialect, &cases, &real);
        assert!(
            diffs.is_empty(),
            "{}",
            diffs
                .iter()
                .map(|d| d.1.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
