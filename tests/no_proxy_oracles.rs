//! Differential tests: for hand-picked and generated (setting, URL) pairs, our
//! model of each client (`Dialect::bypasses`) decides exactly as the real
//! client does (tests/oracle). Also checks that each client's rendering of a
//! merged list makes the real client bypass every destination the coverage
//! check says it bypasses.

mod oracle;

use clusterproxy::domain::no_proxy::{self, Cluster, Destination, Dialect, MergeOptions};
use oracle::{decide, Case};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

const HOSTS: &[&str] = &[
    "example.com",
    "a.example.com",
    "b.a.example.com",
    "badexample.com",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "cluster.local",
    "registry.corp.example",
    "localhost",
    "10.1.2.3",
    "10.96.0.1",
    "192.168.1.1",
    "127.0.0.1",
    "169.254.169.254",
    "[::1]",
    "[fd00::1]",
    "[fd00::abcd]",
    "[2001:db8::5]",
];

const ENTRIES: &[&str] = &[
    "example.com",
    ".example.com",
    "*.example.com",
    "a.example.com",
    "example.com:8080",
    "Example.COM.",
    ".svc",
    "svc",
    "cluster.local",
    ".cluster.local",
    "corp.example",
    "*",
    "localhost",
    "10.0.0.0/8",
    "10.96.0.0/12",
    "10.1.2.3",
    "10.1.2.3/32",
    "10.1.2.3:8080",
    "192.168.0.0/16",
    "169.254.169.254",
    "fd00::/8",
    "fd00::1",
    "[fd00::1]",
    "[fd00::1]:8080",
    "2001:db8::/32",
    "::1",
    " a.example.com ",
    "",
];

const JAVA_PATTERNS: &[&str] = &[
    "example.com",
    "*.example.com",
    "*example.com",
    "a.example.*",
    "10.*",
    "10.1.2.3",
    "192.168.*",
    "*.svc",
    "*.cluster.local",
    "[fd00::1]",
    "fd00::1",
    "*",
    "KUBERNETES.default.svc",
];

fn urls() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["http", "https"]),
        prop::sample::select(HOSTS.to_vec()),
        prop::sample::select(vec![None, Some(80u16), Some(443), Some(8080)]),
    )
        .prop_map(|(scheme, host, port)| match port {
            Some(port) => format!("{scheme}://{host}:{port}/"),
            None => format!("{scheme}://{host}/"),
        })
}

fn generated(dialect: Dialect, count: usize) -> Vec<Case> {
    let setting = if dialect == Dialect::Java {
        prop::collection::vec(prop::sample::select(JAVA_PATTERNS.to_vec()), 1..4)
            .prop_map(|p| p.join("|"))
            .boxed()
    } else {
        (
            prop::collection::vec(prop::sample::select(ENTRIES.to_vec()), 1..5),
            prop::bool::ANY,
        )
            .prop_map(|(e, spaced)| e.join(if spaced { ", " } else { "," }))
            .boxed()
    };
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    (0..count)
        .map(|_| {
            let (setting, url) = (setting.clone(), urls())
                .new_tree(&mut runner)
                .unwrap()
                .current();
            Case { setting, url }
        })
        .collect()
}

/// Facts from shared/reference/no-proxy-semantics.md, per client, plus the
/// generated pairs.
fn cases(dialect: Dialect) -> Vec<Case> {
    let facts: &[(&str, &str)] = match dialect {
        Dialect::Java => &[
            ("*.example.com", "http://a.example.com/"),
            ("example.com", "http://a.example.com/"),
            ("", "http://127.0.0.5/"),
            ("10.*", "http://10.1.2.3/"),
            ("[fd00::1]", "http://[fd00::1]/"),
        ],
        _ => &[
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
            (".svc", "https://kubernetes.default.svc.cluster.local/"),
            (
                "cluster.local",
                "https://kubernetes.default.svc.cluster.local/",
            ),
        ],
    };
    let mut cases: Vec<Case> = facts
        .iter()
        .map(|(s, u)| Case {
            setting: (*s).to_owned(),
            url: (*u).to_owned(),
        })
        .collect();
    cases.extend(generated(dialect, 300));
    cases
}

fn differences(dialect: Dialect, cases: &[Case], real: &[bool]) -> Vec<String> {
    cases
        .iter()
        .zip(real)
        .filter_map(|(case, real)| {
            let ours = dialect.bypasses(&case.setting, &Destination::parse(&case.url).unwrap());
            (ours != *real).then(|| {
                format!(
                    "{dialect}: setting {:?} url {} real={real} ours={ours}",
                    case.setting, case.url
                )
            })
        })
        .collect()
}

fn assert_model_matches(dialect: Dialect) {
    let cases = cases(dialect);
    let real = decide(dialect, &cases);
    let diffs = differences(dialect, &cases, &real);
    assert!(
        diffs.is_empty(),
        "{} of {} cases differ:\n{}",
        diffs.len(),
        cases.len(),
        diffs.join("\n")
    );
}

#[test]
fn go_model_matches_net_http() {
    assert_model_matches(Dialect::Go);
}

#[test]
fn curl_model_matches_curl() {
    assert_model_matches(Dialect::Curl);
}

#[test]
fn python_model_matches_urllib() {
    assert_model_matches(Dialect::Python);
}

#[test]
fn requests_model_matches_requests() {
    assert_model_matches(Dialect::Requests);
}

#[test]
fn ruby_model_matches_uri_find_proxy() {
    assert_model_matches(Dialect::Ruby);
}

#[test]
fn wget_model_matches_wget() {
    assert_model_matches(Dialect::Wget);
}

#[test]
fn java_model_matches_default_proxy_selector() {
    assert_model_matches(Dialect::Java);
}

#[test]
fn node_model_matches_proxy_from_env() {
    assert_model_matches(Dialect::Node);
}

/// For a dual-stack cluster merged for every client, each real client
/// bypasses exactly the checked destinations the coverage check says it does.
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
    let options = MergeOptions::default();
    let merged = no_proxy::merge(&cluster.sources().unwrap(), &options).unwrap();
    let destinations = cluster.default_destinations();
    let gaps = no_proxy::gaps(&merged, &options.targets, &destinations);
    for dialect in Dialect::ALL {
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
