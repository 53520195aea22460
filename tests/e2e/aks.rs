//! AKS with azurerm: the rendered `http_proxy_config` survives AKS's and
//! azurerm's read-back, checked against `az aks show` output in the shapes AKS
//! returns (tests/fixtures/import/aks, sources in each header); the AKS
//! importer on that corpus; and, with real Terraform 1.11 and 1.0.3, the
//! round trip, import by `trustedCa`/`trustedCA`, bad input and the guide.
//!
//! azurerm itself cannot be installed here (no registry). Its read-back is
//! set arithmetic (`no_proxy` is a `TypeSet`, flattened verbatim from
//! `noProxy`), which Terraform's own `setunion`/`setsubtract` express.

use std::collections::BTreeSet;

use crate::cycle::{hcl_string, run_cycle, Cycle, ImportStep};
use crate::diagnostics::expect_bad_inputs;
use crate::harness::for_each_terraform_rendering;
use crate::harness::{example, import_fixture, Workdir};
use clusterproxy::domain::import::{parse, Imported};
use clusterproxy::domain::no_proxy::{
    merge, normalize, Cloud, Cluster, Destination, Dialect, MergeOptions,
};
use clusterproxy::domain::render::aks::{effective, Aks, HttpProxyConfig};
use clusterproxy::domain::render::ProxySettings;
use clusterproxy::domain::render::{Input, Renderer, Secrets};
use clusterproxy::domain::trusted_ca::TrustedCa;
use serde_json::Value;

fn fixture_path(name: &str) -> String {
    import_fixture(&format!("aks/{name}"))
}

/// The fixture as JSON (its `#` header is YAML comment).
fn fixture_json(name: &str) -> Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(fixture_path(name)).unwrap()).unwrap()
}

fn import(name: &str) -> Imported {
    let text = std::fs::read_to_string(fixture_path(name)).unwrap();
    parse("aks", &text).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The canonical set of a NO_PROXY list, as the engine spells entries.
fn canonical(list: &[String]) -> BTreeSet<String> {
    list.iter()
        .map(|e| normalize(None, e).unwrap_or_else(|_| e.clone()))
        .collect()
}

/// The cluster inputs of the `az aks show` fixture `show`, with `installation`.
fn cluster_of(show: &Value, node_cidrs: &[&str], installation: &[String]) -> Cluster {
    let network = &show["networkProfile"];
    Cluster {
        installation: installation.to_vec(),
        node_cidrs: node_cidrs.iter().map(|s| (*s).to_owned()).collect(),
        pod_cidrs: vec![network["podCidr"].as_str().unwrap().to_owned()],
        service_cidrs: vec![network["serviceCidr"].as_str().unwrap().to_owned()],
        apiserver_host: show["fqdn"].as_str().map(str::to_owned),
        cluster_domain: Some("cluster.local".into()),
        cloud: Cloud::from_name("azure"),
        ..Cluster::default()
    }
}

/// What the AKS data source renders for `imported` on `cluster`.
fn render(imported: &Imported, cluster: &Cluster) -> HttpProxyConfig {
    let list = merge(&cluster.sources().unwrap(), &MergeOptions::default())
        .unwrap()
        .list;
    let url = |u: &Option<String>| {
        u.as_deref().map(|u| {
            clusterproxy::domain::proxy_url::ProxyUrl::parse(
                clusterproxy::domain::InputField::HttpProxy,
                u,
            )
            .unwrap()
        })
    };
    let settings = ProxySettings {
        http_proxy: url(&imported.http_proxy),
        https_proxy: url(&imported.https_proxy),
        no_proxy: list,
        trusted_ca: imported
            .trusted_ca
            .as_deref()
            .map(|pem| TrustedCa::parse(pem).unwrap()),
        revision: None,
    };
    Aks.render(Input {
        settings: &settings,
        cluster,
        secrets: Secrets::Include,
    })
    .unwrap()
    .output
}

/// Whether Go and curl (AKS's node components and scripts) still send `entry`
/// (a host, an address or a CIDR block, by its network address) direct with `list`.
fn bypassed(entry: &str, list: &[String]) -> bool {
    let host = entry.split('/').next().unwrap_or(entry);
    let Ok(destination) = Destination::parse(host) else {
        return false;
    };
    let setting = list.join(",");
    [Dialect::GO, Dialect::CURL]
        .into_iter()
        .all(|client| client.bypasses(&setting, &destination))
}

/// Import, then the natural configuration: the rendered `noProxy` holds every
/// entry the cluster reports in `effectiveNoProxy` (nothing sent direct before
/// goes through the proxy after import), and AKS writing its entries back
/// leaves the set unchanged (azurerm's second plan is empty).
fn assert_import_round_trip(name: &str, node_cidrs: &[&str]) -> Imported {
    let show = fixture_json(name);
    let imported = import(name);
    let cluster = cluster_of(&show, node_cidrs, &imported.no_proxy);
    let rendered = render(&imported, &cluster);
    let reported = canonical(&strings(&show["httpProxyConfig"]["effectiveNoProxy"]));
    let sent = canonical(&rendered.no_proxy);
    let missing: Vec<_> = reported
        .iter()
        .filter(|entry| !sent.contains(*entry) && !bypassed(entry, &rendered.no_proxy))
        .collect();
    assert!(
        missing.is_empty(),
        "{name}: proxied after import: {missing:?}"
    );
    let read_back = canonical(&effective(&rendered.no_proxy, &cluster));
    assert_eq!(read_back, sent, "{name}: azurerm would plan a change");
    imported
}

#[test]
fn corpus_effective_no_proxy_separates_what_aks_added() {
    let i = assert_import_round_trip("az-aks-show-effective-no-proxy.json", &["10.240.0.0/16"]);
    assert_eq!(i.name, "prod-weu-2");
    assert_eq!(
        i.http_proxy.as_deref(),
        Some("http://proxy.corp.example:3128/")
    );
    assert_eq!(i.no_proxy, ["registry.corp.example", ".corp.example"]);
    let reason = |entry: &str| {
        i.dropped
            .iter()
            .find(|d| d.entry == entry)
            .map(|d| d.reason.as_str())
            .unwrap_or_else(|| panic!("{entry} not dropped: {:?}", i.dropped))
    };
    assert_eq!(
        reason("10.240.0.0/16"),
        "added by the renderers from `node_cidrs`"
    );
    assert_eq!(
        reason("10.244.0.0/16"),
        "added by the renderers from `pod_cidrs`"
    );
    assert_eq!(
        reason("prod-weu-2-k3x9q2ab.hcp.westeurope.azmk8s.io"),
        "added by the renderers from `apiserver_host`"
    );
    // The note names every input the AKS guide gives the renderers.
    let note = i.note();
    for line in [
        "node_cidrs = [\"10.240.0.0/16\"]",
        "pod_cidrs = [\"10.244.0.0/16\"]",
        "apiserver_host = \"prod-weu-2-k3x9q2ab.hcp.westeurope.azmk8s.io\"",
    ] {
        assert!(note.contains(line), "{line}: {note}");
    }
    let pem = std::fs::read_to_string(fixture_path("trusted-ca.pem")).unwrap();
    assert_eq!(i.trusted_ca.as_deref(), Some(pem.as_str()));
}

#[test]
fn corpus_no_proxy_echoed_by_aks() {
    // noProxy == effectiveNoProxy: AKS's entries are known by value; the
    // managed VNet range cannot be told from a corporate range and stays
    // (never proxied after import).
    let i = assert_import_round_trip("az-aks-show-no-proxy-echoed.json", &[]);
    assert_eq!(i.no_proxy, ["10.224.0.0/12", "registry.corp.example"]);
    let dropped: BTreeSet<&str> = i.dropped.iter().map(|d| d.entry.as_str()).collect();
    for entry in [
        "konnectivity",
        "dev-weu-1-7f2c1d9e.hcp.westeurope.azmk8s.io",
        "localhost",
        "127.0.0.1",
        "169.254.169.254",
        "168.63.129.16",
        "10.244.0.0/16",
        "10.0.0.0/16",
    ] {
        assert!(dropped.contains(entry), "{entry} kept: {:?}", i.no_proxy);
    }
}

#[test]
fn corpus_trusted_ca_spelled_as_in_microsofts_example() {
    let i = import("http-proxy-config-trustedCA.json");
    let pem = std::fs::read_to_string(fixture_path("trusted-ca.pem")).unwrap();
    assert_eq!(i.trusted_ca.as_deref(), Some(pem.as_str()));
    assert_eq!(
        i.https_proxy.as_deref(),
        Some("http://proxy.corp.example:8080/")
    );
    assert_eq!(i.no_proxy, ["registry.corp.example"]);
}

#[test]
fn corpus_bad_artifacts_are_named_errors() {
    for (name, needle) in [
        (
            "bad-trusted-ca-not-a-certificate.json",
            "`trustedCa` is not a CA certificate bundle",
        ),
        (
            "bad-proxy-disabled.json",
            "`httpProxyConfig.enabled` is false",
        ),
    ] {
        let text = std::fs::read_to_string(fixture_path(name)).unwrap();
        let errors = parse("aks", &text).unwrap_err();
        assert!(
            errors[0].detail.contains(needle),
            "{name}: {}",
            errors[0].detail
        );
    }
}

/// HCL list literal of `items`.
fn hcl_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| hcl_string(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// The data source for the cluster of the `effectiveNoProxy` fixture, and
/// azurerm's read-back in Terraform's own set functions: AKS returning
/// `noProxy` as sent, or with the entries it added written into it (those of
/// its `effectiveNoProxy` missing from its configured `noProxy`).
fn round_trip_config() -> String {
    let show = fixture_json("az-aks-show-effective-no-proxy.json");
    let reported = strings(&show["httpProxyConfig"]["effectiveNoProxy"]);
    let configured = strings(&show["httpProxyConfig"]["noProxy"]);
    let pem = std::fs::read_to_string(fixture_path("trusted-ca.pem")).unwrap();
    format!(
        r#"
data "clusterproxy_aks_http_proxy_config" "prod" {{
  http_proxy     = "http://proxy.corp.example:3128"
  trusted_ca     = {pem}
  installation   = ["registry.corp.example", ".corp.example"]
  node_cidrs     = ["10.240.0.0/16"]
  pod_cidrs      = ["10.244.0.0/16"]
  service_cidrs  = ["10.0.0.0/16"]
  apiserver_host = {fqdn}
  cloud          = "azure"
}}

locals {{
  sent      = toset(data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config.no_proxy)
  aks_added = setsubtract(toset({reported}), toset({configured}))
  echoed    = setunion(local.sent, local.aks_added)
}}

output "sent" {{
  value = data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config.no_proxy
}}

output "azurerm_plan_if_echoed" {{
  value = {{
    add    = setsubtract(local.sent, local.echoed)
    remove = setsubtract(local.echoed, local.sent)
  }}
}}

output "reported_not_in_model" {{
  value = setsubtract(local.aks_added, toset(data.clusterproxy_aks_http_proxy_config.prod.effective_no_proxy))
}}
"#,
        pem = hcl_string(&pem),
        fqdn = hcl_string(show["fqdn"].as_str().unwrap()),
        reported = hcl_list(&reported),
        configured = hcl_list(&configured),
    )
}

#[test]
fn round_trip_against_what_aks_reports() {
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, &round_trip_config());
        let outputs = run_cycle(&work, &Cycle::default());
        let empty = serde_json::json!({"add": [], "remove": []});
        assert_eq!(
            outputs["azurerm_plan_if_echoed"],
            empty,
            "{}",
            tf.version_string()
        );
        assert_eq!(outputs["reported_not_in_model"], serde_json::json!([]));
        work.run_ok(&["apply", "-auto-approve"]);
        let state = work.resource_values("data.clusterproxy_aks_http_proxy_config.prod");
        let config = &state["http_proxy_config"];
        assert_eq!(config["no_proxy"], outputs["sent"]);
        assert_eq!(config["http_proxy"], "http://proxy.corp.example:3128");
        let pem = std::fs::read_to_string(fixture_path("trusted-ca.pem")).unwrap();
        use base64::Engine as _;
        let ca = base64::engine::general_purpose::STANDARD
            .decode(config["trusted_ca"].as_str().unwrap())
            .unwrap();
        assert_eq!(String::from_utf8(ca).unwrap(), pem);
        let json: Value = serde_json::from_str(state["json"].as_str().unwrap()).unwrap();
        assert_eq!(json["noProxy"], config["no_proxy"]);
        assert_eq!(json["trustedCa"], config["trusted_ca"]);
        assert_eq!(state["effective_no_proxy"], config["no_proxy"]);
    });
}

/// The docs example: the object handed to azurerm is the data source's own,
/// with `trusted_ca` and a `no_proxy` that already holds AKS's entries.
#[test]
fn example_hands_azurerm_a_complete_block() {
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(
            tf,
            &example("data-sources/clusterproxy_aks_http_proxy_config/data-source.tf"),
        );
        let outputs = run_cycle(&work, &Cycle::default());
        let block = &outputs["azurerm_http_proxy_config"];
        let no_proxy = strings(&block["no_proxy"]);
        for entry in [
            "konnectivity",
            "168.63.129.16",
            "169.254.169.254",
            "10.224.0.0/16",
            "prod-abc123.hcp.westeurope.azmk8s.io",
            ".corp.example",
        ] {
            assert!(
                no_proxy.iter().any(|e| e == entry),
                "{entry} missing: {no_proxy:?}"
            );
        }
        assert!(block["trusted_ca"]
            .as_str()
            .is_some_and(|ca| !ca.is_empty()));
        assert_eq!(outputs["effective_no_proxy"], block["no_proxy"]);
    });
}

/// The profile that matches each AKS artifact imports to the same state and
/// an empty plan, with the CA read from `trustedCa` and from `trustedCA`
/// (`https_proxy` unset: the artifacts' HTTPS proxy equals the HTTP proxy; the
/// proxies keep the trailing `/` that the artifacts write).
#[test]
fn import_reads_both_ca_spellings() {
    let ca = std::fs::read_to_string(fixture_path("trusted-ca.pem")).unwrap();
    let cases = [
        (
            "az-aks-show-effective-no-proxy.json",
            r#"name        = "prod-weu-2"
  http_proxy  = "http://proxy.corp.example:3128/"
  no_proxy    = ["registry.corp.example", ".corp.example"]"#,
        ),
        (
            "http-proxy-config-trustedCA.json",
            r#"name        = "aks"
  http_proxy  = "http://proxy.corp.example:8080/"
  no_proxy    = ["registry.corp.example"]"#,
        ),
    ];
    for_each_terraform_rendering(|tf| {
        for (file, attributes) in cases {
            let main = format!(
                "resource \"clusterproxy_profile\" \"imported\" {{\n  {attributes}\n  trusted_ca  = file(\"${{path.module}}/ca.pem\")\n}}\n"
            );
            let work = Workdir::with_provider(tf, &main);
            work.write_file("ca.pem", &ca);
            run_cycle(
                &work,
                &Cycle {
                    var_file: None,
                    import: Some(ImportStep {
                        address: "clusterproxy_profile.imported".into(),
                        id: format!("aks:{}", fixture_path(file)),
                    }),
                },
            );
        }
    });
}

/// AKS's rules fail the plan on the attribute at fault; bad artifacts fail the import with the key named.
#[test]
fn aks_bad_input_is_a_diagnostic() {
    let cases: Vec<(String, &str, &str, Option<&str>)> = [
        ("extra", "*"),
        ("installation", "under_score.corp.example"),
    ]
    .into_iter()
    .map(|(list, value)| {
        (
            format!(
                "data \"clusterproxy_aks_http_proxy_config\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  {list} = [{}]\n}}\n",
                hcl_string(value)
            ),
            "NO_PROXY entry AKS rejects",
            list,
            Some(value),
        )
    })
    .collect();
    for_each_terraform_rendering(|tf| {
        expect_bad_inputs(tf, &[], None, &cases);
        let work = Workdir::with_provider(tf, "resource \"clusterproxy_profile\" \"x\" {\n  name       = \"x\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n}\n");
        for (file, needle) in [
            (
                "bad-trusted-ca-not-a-certificate.json",
                "`trustedCa` is not a CA certificate bundle",
            ),
            (
                "bad-proxy-disabled.json",
                "`httpProxyConfig.enabled` is false",
            ),
        ] {
            let id = format!("aks:{}", fixture_path(file));
            work.expect_import_failure(&[], "clusterproxy_profile.x", &id, needle);
        }
    });
}

/// The guide's HCL parses (`terraform fmt -check`) and uses the example's data source block.
#[test]
fn guide_examples_are_valid_hcl() {
    let guide = std::fs::read_to_string(format!(
        "{}/docs/guides/aks-azurerm.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let blocks: Vec<&str> = guide
        .split("```terraform\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .collect();
    assert!(
        blocks.len() >= 2,
        "the guide holds its HCL in ```terraform blocks"
    );
    assert!(guide.contains("azurerm_kubernetes_cluster") && guide.contains("trusted_ca"));
    let tf = crate::harness::terraform_1_11();
    let work = Workdir::empty(&tf);
    std::fs::create_dir(work.path().join("guide")).unwrap();
    for (index, block) in blocks.iter().enumerate() {
        std::fs::write(work.path().join(format!("guide/block{index}.tf")), block).unwrap();
    }
    work.run_ok(&["fmt", "-check", "-diff", "guide"]);
}

/// A trailing `/` on the proxy URL is dropped from what azurerm gets, with
/// a warning on the attribute in the plan.
#[test]
fn a_trailing_slash_is_dropped_with_a_warning_in_the_plan() {
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(
            tf,
            r#"
data "clusterproxy_aks_http_proxy_config" "prod" {
  http_proxy = "http://proxy.corp.example:3128/"
}

output "http_proxy" {
  value = data.clusterproxy_aks_http_proxy_config.prod.http_proxy_config.http_proxy
}
"#,
        );
        let run = work.run_ok(&["plan", "-json"]);
        let warnings = run
            .warnings(|s| s.contains("without its trailing `/`"))
            .len();
        assert_eq!(warnings, 1, "{}: {}", tf.version_string(), run.stdout);
        work.run_ok(&["apply", "-auto-approve"]);
        assert_eq!(
            work.outputs()["http_proxy"],
            "http://proxy.corp.example:3128"
        );
    });
}
