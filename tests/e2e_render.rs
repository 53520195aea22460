//! End-to-end tests of the renderer data sources with real Terraform 1.11 and
//! 1.0.3: each docs example passes the full cycle, rendered outputs parse back
//! to the intended values, the proxy password never shows in CLI output or
//! trace logs, and each platform rule is a diagnostic on the right attribute.

#[path = "e2e/cycle.rs"]
mod cycle;
#[path = "e2e/diagnostics.rs"]
mod diagnostics;
#[path = "e2e/examples.rs"]
mod examples;
#[path = "e2e/mod.rs"]
mod harness;
#[path = "e2e/secrets.rs"]
mod secrets;
#[path = "e2e/stored_state.rs"]
mod stored_state;

use base64::Engine as _;
use cycle::{hcl_string, run_cycle, Cycle};
use diagnostics::expect_bad_inputs;
use examples::{
    apply_data_source_example, ca_certificate, EXAMPLE_PASSWORD as PASSWORD,
    EXAMPLE_PASSWORD_ENCODED as PASSWORD_ENCODED,
};
use harness::{for_each_terraform, Workdir};

#[test]
fn systemd_dropin_example() {
    for_each_terraform(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_systemd_dropin");
        let review = outputs["containerd_dropin"].as_str().unwrap();
        assert!(
            review.starts_with("# Proxy settings for containerd.service"),
            "{review}"
        );
        assert!(
            review
                .contains("Environment=\"HTTP_PROXY=http://svc-k8s:***@proxy.corp.example:3128\""),
            "{review}"
        );
        let dropins = outputs["dropins"].as_array().unwrap();
        assert_eq!(dropins.len(), 3);
        assert_eq!(
            dropins[2]["path"],
            "/etc/systemd/system/docker.service.d/http-proxy.conf"
        );
        assert!(dropins.iter().all(|d| d["permissions"] == "0600"));
        let content = dropins[0]["content"].as_str().unwrap();
        assert!(
            content.contains(&PASSWORD_ENCODED.replace('%', "%%")),
            "{content}"
        );
        let ca_files = outputs["ca_files"].as_array().unwrap();
        assert_eq!(
            ca_files[0]["path"],
            "/usr/local/share/ca-certificates/clusterproxy-proxy-ca.crt"
        );
        assert_eq!(ca_files[0]["permissions"], "0644");
        assert!(ca_files[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert_eq!(
            outputs["commands"],
            serde_json::json!([
                "update-ca-certificates",
                "systemctl daemon-reload",
                "systemctl restart -- 'containerd.service'",
                "systemctl restart -- 'kubelet.service'",
                "systemctl restart -- 'docker.service'"
            ])
        );
    });
}

/// The Secret variant: the kubeadm YAML holds no credential in any form and
/// no inline content; every unit gets its drop-in from the Secret, files with
/// credentials are 0600, the CA bundle comes from the Secret too, and the
/// environment file, sourced by `sh`, yields exactly the variables.
#[test]
fn capi_kubeadm_example() {
    for_each_terraform(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_capi_kubeadm");
        let yaml = outputs["kubeadm_config_spec"].as_str().unwrap();
        for secret in [PASSWORD, PASSWORD_ENCODED] {
            for form in secrets::secret_forms(secret) {
                assert!(!yaml.contains(&form), "{form:?} in the KCP YAML:\n{yaml}");
            }
        }
        let spec: serde_json::Value = serde_yaml_ng::from_str(yaml).unwrap();
        let files = spec["files"].as_array().unwrap();
        assert!(files.iter().all(|f| f.get("content").is_none()), "{yaml}");
        let manifest: serde_json::Value =
            serde_yaml_ng::from_str(outputs["secret_manifest"].as_str().unwrap()).unwrap();
        assert_eq!(manifest["metadata"]["name"], "prod-1-systemd-proxy");
        let from_secret = |path: &str| -> (String, String) {
            let file = files
                .iter()
                .find(|f| f["path"] == path)
                .unwrap_or_else(|| panic!("no {path}"));
            assert_eq!(
                file["contentFrom"]["secret"]["name"],
                "prod-1-systemd-proxy"
            );
            let key = file["contentFrom"]["secret"]["key"].as_str().unwrap();
            let data = manifest["data"][key].as_str().unwrap();
            let content = base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap();
            (
                String::from_utf8(content).unwrap(),
                file["permissions"].as_str().unwrap().to_owned(),
            )
        };
        for unit in ["containerd.service", "kubelet.service"] {
            let (dropin, mode) =
                from_secret(&format!("/etc/systemd/system/{unit}.d/http-proxy.conf"));
            assert!(
                dropin.contains(&PASSWORD_ENCODED.replace('%', "%%")),
                "{dropin}"
            );
            assert_eq!(mode, "0600");
        }
        let (ca, mode) = from_secret("/usr/local/share/ca-certificates/clusterproxy-proxy-ca.crt");
        assert!(ca.starts_with("-----BEGIN CERTIFICATE-----"));
        assert_eq!(mode, "0644");
        let (env_file, mode) = from_secret("/etc/clusterproxy/proxy.env");
        assert_eq!(mode, "0600");
        let commands = spec["preKubeadmCommands"].as_array().unwrap();
        assert_eq!(
            *commands,
            serde_json::json!([
                "update-ca-certificates",
                "systemctl daemon-reload",
                "systemctl restart -- 'containerd.service'",
                ". '/etc/clusterproxy/proxy.env'"
            ])
            .as_array()
            .unwrap()
            .clone()
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proxy.env");
        std::fs::write(&path, &env_file).unwrap();
        let out = std::process::Command::new("sh")
            .args(["-c", ". \"$1\" && env", "sh"])
            .arg(&path)
            .env_clear()
            .output()
            .unwrap();
        assert!(out.status.success());
        let env = String::from_utf8(out.stdout).unwrap();
        let url = format!("http://svc-k8s:{PASSWORD_ENCODED}@proxy.corp.example:3128");
        for name in ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"] {
            assert!(
                env.lines().any(|l| l == format!("{name}={url}")),
                "{name}:\n{env}"
            );
        }
        let no_proxy = env
            .lines()
            .find_map(|l| l.strip_prefix("NO_PROXY="))
            .unwrap();
        assert!(no_proxy.contains("registry.corp.example") && no_proxy.contains("10.96.0.0/12"));
        let review: serde_json::Value =
            serde_yaml_ng::from_str(outputs["review"].as_str().unwrap()).unwrap();
        assert!(!review.to_string().contains("p%2540ss"));
    });
}

#[test]
fn tkg_config_example() {
    for_each_terraform(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_tkg_config");
        let config: serde_json::Value =
            serde_yaml_ng::from_str(outputs["cluster_config"].as_str().unwrap()).unwrap();
        assert_eq!(config["TKG_HTTP_PROXY_ENABLED"], true);
        assert_eq!(
            config["TKG_NO_PROXY"],
            "cluster.local,registry.corp.example,vcenter.corp.example"
        );
        assert_eq!(outputs["tkg_no_proxy"], config["TKG_NO_PROXY"]);
        // TKG appends SERVICE_CIDR and CLUSTER_CIDR: emitted, as they are
        // left out of TKG_NO_PROXY.
        assert_eq!(config["SERVICE_CIDR"], "100.64.0.0/13");
        assert_eq!(config["CLUSTER_CIDR"], "100.96.0.0/11");
        let trust = &outputs["cluster_class_trust_variable"]["additionalTrustedCAs"];
        assert_eq!(trust[0]["name"], "proxy");
        assert_eq!(trust[0]["data"], config["TKG_PROXY_CA_CERT"]);
        assert_eq!(
            outputs["appended_by_tkg"],
            serde_json::json!([
                "localhost",
                ".svc",
                "100.64.0.0/13",
                "100.96.0.0/11",
                "127.0.0.1"
            ])
        );
    });
}

#[test]
fn aks_http_proxy_config_example() {
    for_each_terraform(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_aks_http_proxy_config");
        let json: serde_json::Value =
            serde_json::from_str(outputs["az_http_proxy_config_json"].as_str().unwrap()).unwrap();
        assert_eq!(json["httpProxy"], "http://proxy.corp.example:3128");
        assert_eq!(json["httpsProxy"], "http://proxy.corp.example:3128");
        let effective = outputs["effective_no_proxy"].as_array().unwrap();
        assert_eq!(effective.iter().filter(|e| *e == "localhost").count(), 1);
        assert!(effective.contains(&serde_json::json!("prod-abc123.hcp.westeurope.azmk8s.io")));
        assert!(effective.contains(&serde_json::json!("168.63.129.16")));
    });
}

#[test]
fn pod_env_example() {
    for_each_terraform(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_pod_env");
        let env = outputs["env"].as_array().unwrap();
        let names: Vec<&str> = env.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(
            names[..6],
            [
                "HTTP_PROXY",
                "http_proxy",
                "HTTPS_PROXY",
                "https_proxy",
                "NO_PROXY",
                "no_proxy"
            ]
        );
        assert!(env[0]["value"].as_str().unwrap().contains(PASSWORD_ENCODED));
        assert!(outputs["env_redacted"][0]["value"]
            .as_str()
            .unwrap()
            .contains("svc-apps:***@"));
        for (index, name) in ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"]
            .iter()
            .enumerate()
        {
            assert_eq!(env[6 + index]["name"], *name);
            assert_eq!(env[6 + index]["value"], "/etc/clusterproxy/ca/ca.crt");
        }
        let config_map: serde_json::Value =
            serde_yaml_ng::from_str(outputs["ca_config_map"].as_str().unwrap()).unwrap();
        assert_eq!(config_map["kind"], "ConfigMap");
        assert_eq!(config_map["metadata"]["name"], "proxy-ca");
        assert_eq!(config_map["metadata"]["namespace"], "apps");
        assert!(config_map["data"]["ca.crt"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----"));
        let volumes: serde_json::Value =
            serde_yaml_ng::from_str(outputs["volumes"].as_str().unwrap()).unwrap();
        let mounts: serde_json::Value =
            serde_yaml_ng::from_str(outputs["volume_mounts"].as_str().unwrap()).unwrap();
        assert_eq!(volumes["volumes"][0]["configMap"]["name"], "proxy-ca");
        assert_eq!(
            mounts["volumeMounts"][0]["name"],
            volumes["volumes"][0]["name"]
        );
        assert_eq!(
            mounts["volumeMounts"][0]["mountPath"],
            "/etc/clusterproxy/ca"
        );
        assert_eq!(mounts["volumeMounts"][0]["readOnly"], true);
    });
}

/// An AKS data source with `trusted_ca` set to `pem` (a heredoc).
fn aks_with_ca(pem: &str) -> String {
    format!(
        "data \"clusterproxy_aks_http_proxy_config\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  trusted_ca = <<-EOT\n{pem}EOT\n}}\n"
    )
}

/// `count` distinct host names, as HCL strings.
fn hosts(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| format!("\"host-{i}.corp.example\""))
        .collect()
}

/// Warnings that do not stop the plan, on the attribute at fault, and the
/// renderings they concern: a unit name one letter away from `kubelet`, a
/// drop-in line over 64 KiB; a proxy URL without a port renders the
/// scheme's port; a namespace `yes` is quoted in the Secret manifest.
#[test]
fn renderer_warnings_ports_and_quoting() {
    let config = format!(
        r#"data "clusterproxy_systemd_dropin" "typo" {{
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["containerd", "kublet"]
}}

data "clusterproxy_systemd_dropin" "long" {{
  http_proxy = "http://proxy.corp.example:3128"
  extra      = [{}]
}}

data "clusterproxy_pod_env" "portless" {{
  http_proxy  = "http://proxy.corp.example"
  https_proxy = "https://proxy.corp.example/"
}}

data "clusterproxy_capi_kubeadm" "yes" {{
  http_proxy   = "http://proxy.corp.example:3128"
  cluster_name = "prod"
  namespace    = "yes"
}}

output "typo_units" {{
  value = [for d in data.clusterproxy_systemd_dropin.typo.dropins_redacted : d.unit]
}}

output "env" {{
  value     = data.clusterproxy_pod_env.portless.env
  sensitive = true
}}

output "secret_manifest" {{
  value     = data.clusterproxy_capi_kubeadm.yes.secret_manifest
  sensitive = true
}}
"#,
        hosts(1_700).join(", ")
    );
    for_each_terraform(|tf| {
        let work = Workdir::with_provider(tf, &config);
        let typo =
            work.expect_diagnostic(&["plan"], "warning", "Unit name looks like a typo", "units");
        assert!(
            typo.text().contains("did you mean \"kubelet\""),
            "{}",
            typo.text()
        );
        assert_eq!(
            typo.diagnostic["range"]["start"]["line"], 3,
            "{:#}",
            typo.diagnostic
        );
        let long = work.expect_diagnostic(
            &["plan"],
            "warning",
            "Very long drop-in line",
            "data \"clusterproxy_systemd_dropin\" \"long\" {",
        );
        assert_eq!(
            long.diagnostic["range"]["start"]["line"], 6,
            "{:#}",
            long.diagnostic
        );
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(
            outputs["typo_units"],
            serde_json::json!(["containerd.service", "kublet.service"])
        );
        assert_eq!(outputs["env"][0]["value"], "http://proxy.corp.example:80");
        assert_eq!(outputs["env"][2]["value"], "https://proxy.corp.example:443");
        let manifest = outputs["secret_manifest"].as_str().unwrap();
        assert!(manifest.contains("namespace: \"yes\"\n"), "{manifest}");
    });
}

/// Each platform rule fails the plan with a diagnostic on the attribute at fault.
#[test]
fn renderer_bad_input_is_a_diagnostic() {
    let ca = base64::engine::general_purpose::STANDARD.encode("not a certificate");
    let long_list = hosts(800);
    // (configuration, diagnostic summary, the line Terraform's snippet must
    // show: the attribute or the block, text the diagnostic must mention)
    let cases: Vec<(String, &str, &str, Option<&str>)> = vec![
        (
            aks_with_ca(&ca_certificate(&[])),
            "CA certificate without subjectAltName",
            "trusted_ca",
            None,
        ),
        (
            aks_with_ca(
                &(0..21)
                    .map(|_| ca_certificate(&["proxy-ca.corp.example"]))
                    .collect::<String>(),
            ),
            "Too many CA certificates for AKS",
            "trusted_ca",
            None,
        ),
        (
            r#"data "clusterproxy_tkg_config" "x" {
  https_proxy = "http://proxy.corp.example:3128"
}"#
            .into(),
            "TKG needs both proxies",
            "data \"clusterproxy_tkg_config\" \"x\" {",
            Some("http_proxy"),
        ),
        (
            format!(
                "data \"clusterproxy_capi_kubeadm\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  extra = [{}]\n}}\n",
                long_list.join(", ")
            ),
            "File content too long for CAPI",
            "data \"clusterproxy_capi_kubeadm\" \"x\" {",
            Some("CAPI accepts 10240"),
        ),
        (
            r#"data "clusterproxy_aks_http_proxy_config" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  username   = "u"
  password   = "p"
}"#
            .into(),
            "AKS does not support proxy credentials",
            "username",
            None,
        ),
        (
            r#"data "clusterproxy_aks_http_proxy_config" "x" {
  http_proxy = "https://proxy.corp.example:3128"
}"#
            .into(),
            "AKS needs an http:// httpProxy",
            "http_proxy",
            None,
        ),
        (
            r#"data "clusterproxy_aks_http_proxy_config" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  extra      = ["bad_host.corp.example"]
}"#
            .into(),
            "NO_PROXY entry AKS rejects",
            "extra",
            Some("bad_host.corp.example"),
        ),
        (
            r#"data "clusterproxy_tkg_config" "x" {
  http_proxy     = "http://proxy.corp.example:3128"
  vsphere_server = "vcenter.corp.example"
}"#
            .into(),
            "vSphere server would go through the proxy",
            "vsphere_server",
            None,
        ),
        (
            r#"data "clusterproxy_tkg_config" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  extra      = ["*"]
}"#
            .into(),
            "TKG rejects `*` in TKG_NO_PROXY",
            "extra",
            Some("TKG_NO_PROXY"),
        ),
        (
            r#"data "clusterproxy_systemd_dropin" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["containerd", "bad unit"]
}"#
            .into(),
            "Invalid systemd unit name",
            "units",
            Some("bad unit"),
        ),
        (
            r#"data "clusterproxy_systemd_dropin" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["containerd", "docker.socket"]
}"#
            .into(),
            "Not a service unit",
            "units",
            Some("docker.service"),
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy   = "http://proxy.corp.example:3128"
  cluster_name = "prod"
  units        = ["containerd", "containerd.service", "..foo"]
}"#
            .into(),
            "Secret key not accepted by Kubernetes",
            "units",
            Some("..fooProxy"),
        ),
        (
            format!(
                r#"data "clusterproxy_pod_env" "x" {{
  http_proxy = "http://proxy.corp.example:3128"
  trusted_ca = base64decode("{ca}")
}}"#
            ),
            "Empty CA bundle",
            "trusted_ca",
            None,
        ),
        (
            r#"data "clusterproxy_pod_env" "x" {
  http_proxy = "ftp://proxy.corp.example"
}"#
            .into(),
            "unsupported proxy scheme",
            "http_proxy",
            None,
        ),
        (
            r#"variable "proxy_password" {
  type      = string
  sensitive = true
  default   = "secret-only"
}

data "clusterproxy_pod_env" "x" {
  password   = var.proxy_password
  http_proxy = "http://proxy.corp.example:3128"
}"#
            .into(),
            "password without username",
            "password",
            None,
        ),
        (
            r#"data "clusterproxy_systemd_dropin" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["containerd", "-Hroot@attacker.example:x.service"]
}"#
            .into(),
            "Invalid systemd unit name",
            "units",
            Some("starts with `-`"),
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["getty@"]
}"#
            .into(),
            "Template unit without an instance",
            "units",
            None,
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy   = "http://proxy.corp.example:3128"
  cluster_name = "prod"
  namespace    = "Yes"
}"#
            .into(),
            "Invalid Kubernetes name",
            "namespace",
            Some("DNS-1123"),
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy   = "http://proxy.corp.example:3128"
  cluster_name = "Prod_1"
}"#
            .into(),
            "Invalid Kubernetes name",
            "cluster_name",
            None,
        ),
        (
            r#"data "clusterproxy_pod_env" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  namespace  = "apps!"
}"#
            .into(),
            "Invalid Kubernetes name",
            "namespace",
            None,
        ),
        (
            r#"data "clusterproxy_systemd_dropin" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  os_family  = "ubuntu"
}"#
            .into(),
            "Invalid value",
            "os_family",
            Some("debian"),
        ),
        (
            r#"data "clusterproxy_systemd_dropin" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  os_family  = "rhel"
}"#
            .into(),
            "Set without trusted_ca",
            "os_family",
            None,
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy     = "http://proxy.corp.example:3128"
  cluster_name   = "prod"
  base64_content = true
}"#
            .into(),
            "base64_content with cluster_name",
            "base64_content",
            None,
        ),
        (
            r#"data "clusterproxy_pod_env" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  config_map_name = "proxy-ca"
}"#
            .into(),
            "Set without trusted_ca",
            "config_map_name",
            None,
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  config_map_name = "proxy-ca"
}"#
            .into(),
            "Set without trusted_ca",
            "config_map_name",
            None,
        ),
        (
            r#"data "clusterproxy_helm_values" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  namespace  = "apps"
}"#
            .into(),
            "Set without trusted_ca",
            "namespace",
            None,
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  namespace  = "org-acme"
}"#
            .into(),
            "Set without cluster_name",
            "namespace",
            None,
        ),
        (
            r#"data "clusterproxy_kubespray" "x" {
  http_proxy                         = "http://proxy.corp.example:3128"
  apiserver_loadbalancer_domain_name = "lb.corp.example"
}"#
            .into(),
            "Set without loadbalancer_apiserver_address",
            "apiserver_loadbalancer_domain_name",
            None,
        ),
        (
            format!(
                "data \"clusterproxy_systemd_dropin\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  extra = [{}]\n}}\n",
                hosts(25_000).join(", ")
            ),
            "Line too long for systemd",
            "data \"clusterproxy_systemd_dropin\" \"x\" {",
            Some("LONG_LINE_MAX"),
        ),
    ];
    for_each_terraform(|tf| expect_bad_inputs(tf, &[], Some("secret-only"), &cases));
}

/// A CA bundle is a set of trust anchors: reordering its certificates
/// renders the same bytes and moves no revision, and a profile stored by the
/// previous release (schema version 2, the certificates in the order
/// written) upgrades to the canonical order keeping its revision.
#[test]
fn ca_bundle_order_changes_no_byte_and_no_revision() {
    use clusterproxy::domain::profile::{fingerprint, PublicSettings};
    use clusterproxy::domain::trusted_ca::TrustedCa;
    let (a, b) = (
        ca_certificate(&["proxy-ca.corp.example"]),
        ca_certificate(&["proxy-ca-2.corp.example"]),
    );
    let pem = |text: &str| TrustedCa::parse(text).unwrap().to_pem();
    let canonical = pem(&format!("{a}{b}"));
    // The two orders: the canonical one and the other, as written.
    let (first, second) = if canonical.starts_with(&pem(&a)) {
        (a.clone(), b.clone())
    } else {
        (b.clone(), a.clone())
    };
    let config = |bundle: &str| {
        format!(
            "resource \"clusterproxy_profile\" \"corp\" {{\n  name       = \"corp\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n  trusted_ca = {}\n}}\n",
            hcl_string(bundle)
        )
    };
    let stored_ca = |work: &Workdir| {
        let values = work.resource_values("clusterproxy_profile.corp");
        (
            values["revision"].as_i64().unwrap(),
            values["settings"]["trusted_ca"].clone(),
        )
    };
    for_each_terraform(|tf| {
        let work = Workdir::with_provider(tf, &config(&format!("{first}{second}")));
        work.run_ok(&["apply", "-auto-approve"]);
        assert_eq!(stored_ca(&work), (1, serde_json::json!(canonical)));
        work.write_file("main.tf", &config(&format!("{second}{first}")));
        work.run_ok(&["apply", "-auto-approve"]);
        assert_eq!(stored_ca(&work), (1, serde_json::json!(canonical)));
        work.assert_plan_empty(&[]);

        // Version 2 stored the certificates in the order written.
        let written = format!("{second}{first}");
        let stored_pem = format!("{}{}", pem(&second), pem(&first));
        let url = "http://proxy.corp.example:3128";
        let settings = serde_json::json!({
            "http_proxy": url, "https_proxy": url, "username": null, "password": null,
            "no_proxy": [], "trusted_ca": stored_pem,
        });
        let attributes = serde_json::json!({
            "id": "corp", "name": "corp", "description": null, "http_proxy": url,
            "https_proxy": null, "username": null, "password": null, "no_proxy": null,
            "trusted_ca": written, "normalized_http_proxy": url, "normalized_https_proxy": url,
            "normalized_no_proxy": [], "http_proxy_url": url, "https_proxy_url": url,
            "fingerprint": fingerprint(&PublicSettings {
                http_proxy: Some(url),
                https_proxy: Some(url),
                username: None,
                no_proxy: &[],
                trusted_ca: Some(&stored_pem),
            }),
            "revision": 4,
            "settings": settings,
        });
        let work = Workdir::with_provider(tf, &config(&written));
        work.write_stored_state(
            "clusterproxy_profile.corp",
            2,
            attributes,
            &["http_proxy_url", "https_proxy_url", "settings"],
        );
        work.assert_no_resource_changes(&[]);
        work.run_ok(&["apply", "-auto-approve"]);
        assert_eq!(stored_ca(&work), (4, serde_json::json!(canonical)));
        work.assert_plan_empty(&[]);
    });
}
