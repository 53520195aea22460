//! Import fixtures for every kind, clean and messy: what each importer reads,
//! keeps as installation-wide, and leaves out (with the reason).

use clusterproxy::domain::import::{parse, Imported};

fn import(kind: &str, file: &str) -> Imported {
    let path = format!(
        "{}/tests/fixtures/import/{kind}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    parse(kind, &text).unwrap_or_else(|e| panic!("{path}: {e:?}"))
}

fn dropped(imported: &Imported) -> Vec<&str> {
    imported.dropped.iter().map(|d| d.entry.as_str()).collect()
}

#[test]
fn aks_show_output() {
    let i = import("aks", "az-aks-show.json");
    assert_eq!(i.name, "prod-weu-1");
    assert_eq!(
        i.http_proxy.as_deref(),
        Some("http://proxy.corp.example:3128")
    );
    assert_eq!(
        i.no_proxy,
        ["registry.corp.example", ".corp.example", "10.20.0.0/16"]
    );
    assert_eq!(
        dropped(&i),
        [
            "10.96.0.0/12",
            "konnectivity",
            "localhost",
            "registry.corp.example"
        ]
    );
    assert_eq!(i.dropped[0].reason, "service CIDR of this cluster");
    assert_eq!(
        i.dropped[1].reason,
        "AKS's in-cluster konnectivity service, injected by AKS"
    );
    assert_eq!(i.dropped[3].reason, "duplicate");
}

#[test]
fn aks_bare_http_proxy_config() {
    let i = import("aks", "http-proxy-config.json");
    assert_eq!(i.name, "aks");
    assert_eq!(
        i.https_proxy.as_deref(),
        Some("http://proxy.corp.example:3129")
    );
    assert_eq!(i.no_proxy, ["registry.corp.example"]);
    assert_eq!(dropped(&i), ["169.254.169.254", "168.63.129.16"]);
    let pem = std::fs::read_to_string(format!(
        "{}/tests/fixtures/import/aks/trusted-ca.pem",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(i.trusted_ca.as_deref(), Some(pem.as_str()));
}

#[test]
fn tkg_cluster_config() {
    let i = import("tkg", "cluster-config.yaml");
    assert_eq!(i.name, "tkg-prod-1");
    assert_eq!(
        (i.username.as_deref(), i.password.as_deref()),
        (Some("svc-k8s"), Some("s3cr@t"))
    );
    assert_eq!(
        i.no_proxy,
        ["registry.corp.example", "vcenter.corp.example"]
    );
    assert_eq!(
        dropped(&i),
        [
            "100.64.0.0/13",
            "100.96.0.0/11",
            "localhost",
            "127.0.0.1",
            ".svc",
            ".svc.cluster.local",
            "registry.corp.example"
        ]
    );
}

#[test]
fn capi_inline_base64_and_exports() {
    let i = import("capi", "kubeadm-control-plane.yaml");
    assert_eq!(i.name, "capi-prod");
    assert_eq!(i.no_proxy, ["registry.corp.example", ".corp.example"]);
    assert!(i
        .dropped
        .iter()
        .any(|d| d.entry == "192.168.0.0/16" && d.reason == "pod CIDR of this cluster"));
    let i = import("capi", "kubeadm-config-template-base64.yaml");
    assert_eq!(i.name, "capi-prod-md-0");
    assert_eq!(i.password.as_deref(), Some("pa$$"));
    assert_eq!(i.no_proxy, ["registry.corp.example"]);
    let i = import("capi", "kubeadm-config-template-exports.yaml");
    assert_eq!(i.no_proxy, ["registry.corp.example", "10.0.0.0/8"]);
    assert_eq!(
        i.https_proxy.as_deref(),
        Some("http://proxy.corp.example:3128")
    );
}

#[test]
fn systemd_messy_dropin() {
    let i = import("systemd", "messy.conf");
    assert_eq!(
        (i.username.as_deref(), i.password.as_deref()),
        (Some("svc-k8s"), Some("p@ss word"))
    );
    assert_eq!(
        i.no_proxy,
        ["registry.corp.example", ".corp.example", "10.96.0.0/12"]
    );
    assert_eq!(
        dropped(&i),
        [
            "localhost",
            "127.0.0.1",
            "registry.corp.example",
            "cluster.local",
            "169.254.169.254"
        ]
    );
}

#[test]
fn giantswarm_secrets() {
    let i = import("giantswarm", "cluster-values-secret.yaml");
    assert_eq!(i.name, "gs-prod");
    assert_eq!(
        i.no_proxy,
        ["10.96.0.0/12", "192.168.0.0/16", "registry.corp.example"]
    );
    assert!(i
        .dropped
        .iter()
        .any(|d| d.entry == "gs-prod.gigantic.corp.example"));
    let i = import("giantswarm", "systemd-proxy-secret.yaml");
    assert_eq!(i.name, "gs-prod");
    assert_eq!(i.no_proxy, ["registry.corp.example", "10.20.0.0/16"]);
}

#[test]
fn unreadable_input_is_an_error() {
    for (kind, text) in [
        ("aks", "{}"),
        ("aks", "not json: ["),
        ("tkg", "TKG_HTTP_PROXY_ENABLED: false"),
        ("tkg", "CLUSTER_NAME: x"),
        ("capi", "kind: Cluster"),
        ("systemd", "[Service]\nExecStart=/bin/true"),
        ("giantswarm", "kind: Secret\nmetadata:\n  name: x\n"),
    ] {
        assert!(parse(kind, text).is_err(), "{kind}: {text:?}");
    }
}

#[test]
fn k3s_env_file_with_containerd_variables() {
    let i = import("rke2", "k3s.service.env");
    assert_eq!(i.name, "rke2");
    assert_eq!(
        i.http_proxy.as_deref(),
        Some("http://proxy.corp.example:3128")
    );
    assert_eq!(
        (i.username.as_deref(), i.password.as_deref()),
        (Some("svc-k8s"), Some("s3cr@t"))
    );
    assert_eq!(
        i.no_proxy,
        [
            "127.0.0.0/8",
            "10.0.0.0/8",
            "registry.corp.example",
            ".corp.example",
            "10.42.0.0/16",
            "10.43.0.0/16"
        ]
    );
    assert_eq!(dropped(&i), [".svc", ".cluster.local", "localhost"]);
}

#[test]
fn rke2_server_env_file() {
    let i = import("rke2", "rke2-server");
    assert_eq!(
        i.https_proxy.as_deref(),
        Some("http://proxy.corp.example:3129")
    );
    assert_eq!(i.username, None);
    assert!(i.no_proxy.contains(&"registry.corp.example".to_owned()));
}
