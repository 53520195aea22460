//! Tests of the classification: credentials, spelling and NO_PROXY entries.

use super::*;
use crate::import::Syntax;
use crate::no_proxy::Cloud;

fn importer(kind: &str) -> &'static dyn Importer {
    crate::import::importer(kind).unwrap()
}

fn found(no_proxy: &[&str]) -> Found {
    Found {
        http_proxy: Some("http://u%40corp:p%3Ass@Proxy.Corp.Example:3128/".into()),
        https_proxy: Some("http://u%40corp:p%3Ass@proxy.corp.example:3128".into()),
        no_proxy: no_proxy.iter().map(|s| (*s).to_owned()).collect(),
        cluster_entries: vec![("10.96.0.0/12".into(), SERVICE_CIDR)],
        ..Found::default()
    }
}

fn reasons(imported: &Imported) -> Vec<(&str, &str)> {
    imported
        .dropped
        .iter()
        .map(|d| (d.entry.as_str(), d.reason.as_str()))
        .collect()
}

#[test]
fn splits_credentials_and_classifies_entries() {
    let imported = classify(
        importer("systemd"),
        found(&[
            " Registry.Corp.Example ",
            "10.96.0.0/12",
            "localhost",
            ".svc",
            "registry.corp.example",
            "",
            "10.0.0.0/8",
        ]),
        Cluster::default(),
        &Syntax::Id,
    )
    .unwrap();
    assert_eq!(
        imported.http_proxy.as_deref(),
        Some("http://Proxy.Corp.Example:3128/")
    );
    assert_eq!(imported.username.as_deref(), Some("u@corp"));
    assert_eq!(imported.password.as_deref(), Some("p:ss"));
    assert_eq!(imported.no_proxy, ["registry.corp.example", "10.0.0.0/8"]);
    assert_eq!(
        reasons(&imported),
        [
            (
                "10.96.0.0/12",
                "added by the renderers from `service_cidrs`"
            ),
            ("localhost", "loopback, added for every cluster"),
            (".svc", "in-cluster service names, added for every cluster"),
            ("registry.corp.example", "duplicate"),
        ]
    );
    assert_eq!(imported.facts.service_cidrs, ["10.96.0.0/12"]);
    let note = imported.note();
    assert!(
        note.contains("Kept as installation-wide NO_PROXY (2): registry.corp.example, 10.0.0.0/8."),
        "{note}"
    );
    assert!(
        note.contains("  - 10.96.0.0/12: added by the renderers from `service_cidrs`"),
        "{note}"
    );
    assert!(
        note.contains("service_cidrs = [\"10.96.0.0/12\"]"),
        "{note}"
    );
    assert!(!note.contains("p:ss") && !note.contains("p%3Ass"), "{note}");
    assert_eq!(imported.name, "systemd");
}

/// `local` covers every `*.local` host, not only `cluster.local`: it is
/// kept. Entries the cluster domain does cover are left out.
#[test]
fn local_is_kept_and_only_covered_entries_are_dropped() {
    let imported = classify(
        importer("systemd"),
        found(&[
            "local",
            ".local",
            "svc.cluster.local",
            ".cluster.local",
            "svc",
            "169.254.169.254",
        ]),
        Cluster::default(),
        &Syntax::Id,
    )
    .unwrap();
    assert_eq!(
        imported.no_proxy,
        ["local", ".local", "svc", "169.254.169.254"]
    );
    assert_eq!(
        reasons(&imported),
        [
            ("svc.cluster.local", "covered for every client by `cluster.local` (the cluster domain (`cluster_domain`))"),
            (".cluster.local", "covered for every client by `cluster.local` (the cluster domain (`cluster_domain`))"),
        ]
    );
    let with_cloud = classify(
        importer("systemd"),
        found(&["169.254.169.254"]),
        Cluster {
            cloud: Some(Cloud::Aws),
            ..Cluster::default()
        },
        &Syntax::Id,
    )
    .unwrap();
    assert!(with_cloud.no_proxy.is_empty());
}

#[test]
fn facts_separate_cluster_entries() {
    let facts = Cluster {
        pod_cidrs: vec!["10.244.0.0/16".into()],
        apiserver_ip: Some("10.0.0.10".into()),
        cluster_domain: Some("k8s.corp".into()),
        ..Cluster::default()
    };
    let imported = classify(
        importer("systemd"),
        found(&[
            "10.244.0.0/16",
            "10.244.1.0/24",
            "10.0.0.10",
            "kubernetes.default.svc.k8s.corp",
            "cluster.local",
            "10.244.0.5",
        ]),
        facts,
        &Syntax::Id,
    )
    .unwrap();
    // 10.244.0.5 stays: not every client matches CIDR blocks.
    assert_eq!(imported.no_proxy, ["cluster.local", "10.244.0.5"]);
    assert_eq!(imported.dropped.len(), 4);
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    let unclassified = classify(
        importer("capi"),
        found(&["10.1.0.0/16"]),
        Cluster::default(),
        &Syntax::Id,
    );
    // The service CIDR is a fact here; without any network facts, CIDRs are flagged.
    assert!(unclassified.unwrap().warnings.is_empty());
    let mut bare = found(&["10.1.0.0/16"]);
    bare.cluster_entries.clear();
    let bare = classify(importer("capi"), bare, Cluster::default(), &Syntax::Id).unwrap();
    assert!(
        bare.warnings[0].contains("could not be classified"),
        "{:?}",
        bare.warnings
    );
}

#[test]
fn scheme_less_proxies_are_read_as_http_with_a_warning() {
    let mut f = found(&[]);
    f.http_proxy = Some("proxy.example:8888".into());
    f.https_proxy = Some("proxy.example:8888".into());
    let imported = classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap();
    assert_eq!(
        imported.http_proxy.as_deref(),
        Some("http://proxy.example:8888")
    );
    assert_eq!(imported.warnings.len(), 2);
    assert!(imported.warnings[0].contains("without a scheme"));
    assert!(imported
        .note()
        .contains("read as http://proxy.example:8888"));
}

/// The profile input leaves an HTTPS proxy equal to the HTTP proxy (as
/// normalised: here the HTTPS one has no scheme and another case) unset
/// and keeps a different one; the imported fields keep the artifact's.
#[test]
fn an_https_proxy_equal_to_the_http_proxy_is_left_unset_in_the_profile() {
    let mut f = found(&[]);
    f.https_proxy = Some("u%40corp:p%3Ass@PROXY.corp.example:3128".into());
    let imported = classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap();
    assert_eq!(
        imported.https_proxy.as_deref(),
        Some("http://PROXY.corp.example:3128")
    );
    let input = imported.input();
    assert_eq!(
        input.http_proxy.as_deref(),
        Some("http://Proxy.Corp.Example:3128/")
    );
    assert_eq!(input.https_proxy, None);
    assert_eq!(input.username.as_deref(), Some("u@corp"));
    let mut f = found(&[]);
    f.https_proxy = Some("http://u%40corp:p%3Ass@proxy.corp.example:3129".into());
    let imported = classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap();
    assert_eq!(
        imported.input().https_proxy.as_deref(),
        Some("http://proxy.corp.example:3129")
    );
}

/// The artifact's spelling is kept (a port-less URL stays port-less),
/// so that the configuration that writes what the artifact writes plans
/// no change; the HTTPS proxy is compared normalised.
#[test]
fn proxies_keep_the_artifacts_spelling() {
    let mut f = found(&[]);
    f.http_proxy = Some("http://u:p@Proxy.Example".into());
    f.https_proxy = Some("HTTP://u:p@proxy.example:80/".into());
    let imported = classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap();
    assert_eq!(imported.http_proxy.as_deref(), Some("http://Proxy.Example"));
    assert_eq!(
        imported.https_proxy.as_deref(),
        Some("HTTP://proxy.example:80/")
    );
    let input = imported.input();
    assert_eq!(input.http_proxy.as_deref(), Some("http://Proxy.Example"));
    assert_eq!(input.https_proxy, None);
}

/// Credentials the artifact's clients cannot read (a raw space; a `#`,
/// `/` or `?` that ends the host) are refused, not re-encoded into a
/// working password; the message quotes nothing of them.
#[test]
fn credentials_the_clients_cannot_read_are_refused() {
    for (text, expected) in [
        ("http://u:pa ss@proxy.example:3128", "space or control"),
        ("http://u:pa\tss@proxy.example:3128", "space or control"),
        (
            "http://u:pa#ss@proxy.example:3128",
            "unencoded `/`, `?` or `#`",
        ),
        (
            "http://u:pa/ss@proxy.example:3128",
            "unencoded `/`, `?` or `#`",
        ),
        ("u:pa?ss@proxy.example", "unencoded `/`, `?` or `#`"),
    ] {
        let finding = split_url(InputField::HttpProxy, "http_proxy", text).unwrap_err();
        assert!(finding.detail.contains(expected), "{text}: {finding:?}");
        assert!(
            !format!("{finding:?}").contains("ss"),
            "{text}: {finding:?}"
        );
    }
}

#[test]
fn invalid_percent_encoding_is_an_error() {
    let mut f = found(&[]);
    f.http_proxy = Some("http://u:%ff%fe@proxy.example:3128".into());
    f.https_proxy = None;
    let err = classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap_err();
    assert!(err[0].detail.contains("not UTF-8"), "{}", err[0].detail);
    assert!(!err[0].detail.contains('\u{fffd}'));
}

#[test]
fn http_only_artifacts_keep_their_meaning_or_say_so() {
    let mut f = found(&[]);
    f.https_proxy = None;
    let mut imported = classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap();
    assert!(imported.https_direct);
    assert_eq!(imported.https_proxy, None);
    let refused = imported
        .clone()
        .keep_meaning(false, "systemd", &Syntax::Id)
        .unwrap_err();
    assert!(
        refused.detail.contains("https_through_proxy=true"),
        "{}",
        refused.detail
    );
    imported.keep_meaning(true, "systemd", &Syntax::Id).unwrap();
    assert!(imported
        .note()
        .contains("HTTPS: the artifact sends it direct"));
}

#[test]
fn a_trusted_ca_that_is_no_certificate_names_its_field() {
    for (kind, field) in [("aks", "trustedCa"), ("tkg", "TKG_PROXY_CA_CERT")] {
        let mut f = found(&[]);
        f.trusted_ca = Some("not a certificate".into());
        let err = classify(importer(kind), f, Cluster::default(), &Syntax::Id).unwrap_err();
        assert!(
            err[0].detail.contains(&format!("`{field}`")),
            "{}",
            err[0].detail
        );
    }
}

#[test]
fn ambiguous_or_empty_input_is_an_error() {
    let mut f = found(&[]);
    f.https_proxy = Some("http://other:x@proxy.corp.example:3128".into());
    assert!(
        classify(importer("systemd"), f, Cluster::default(), &Syntax::Id).unwrap_err()[0]
            .detail
            .contains("different credentials")
    );
    assert!(classify(
        importer("systemd"),
        Found::default(),
        Cluster::default(),
        &Syntax::Id
    )
    .unwrap_err()[0]
        .detail
        .contains("sets no proxy"));
    let bad = classify(
        importer("systemd"),
        found(&["https://x.example"]),
        Cluster::default(),
        &Syntax::Id,
    )
    .unwrap_err();
    assert!(bad[0].detail.contains("URL"), "{}", bad[0].detail);
}

/// An imported artifact holds credentials: a proxy URL that does not
/// parse is reported without quoting any part of it (here systemd's
/// word splitting cut an unquoted URL inside the password, so the port
/// the parser sees is the start of the password).
#[test]
fn bad_proxy_urls_are_reported_without_their_text() {
    for text in [
        "http://svc:Zq9secret",
        "http://svc:Zq9secret@",
        "Zq9secret:",
        "http://[Zq9secret]:3128",
        "http://Zq9secret..example:3128",
        "gopher://Zq9secret",
    ] {
        let finding = split_url(InputField::HttpProxy, "http_proxy", text).unwrap_err();
        assert!(
            !finding.detail.contains("Zq9") && !finding.summary.contains("Zq9"),
            "{text}: {finding:?}"
        );
        assert!(finding.detail.starts_with("http_proxy: "), "{finding:?}");
    }
}
