//! End-to-end tests of the renderer data sources with real Terraform 1.11 and
//! 1.0.3: each docs example passes the full cycle, rendered outputs parse back
//! to the intended values, the proxy password never shows in CLI output or
//! trace logs, and each platform rule is a diagnostic on the right attribute.

#[path = "e2e/mod.rs"]
mod harness;

use base64::Engine as _;
use harness::{example, for_each_terraform, hcl_string, run_cycle, Cycle, Workdir};

/// A password with every character that needs care: `%`, `"`, `\`, `$`, space.
const PASSWORD: &str = r#"p%40ss "w\rd" $HOME x"#;
/// The same, percent-encoded as it appears inside proxy URLs.
const PASSWORD_ENCODED: &str = "p%2540ss%20%22w%5Crd%22%20%24HOME%20x";

/// Applies the docs example of `data_source` with the password in a var file,
/// checks that plan output and trace logs never show the password, and returns the outputs.
fn apply_example(
    tf: &harness::Terraform,
    data_source: &str,
) -> serde_json::Map<String, serde_json::Value> {
    let provider = example("provider/provider.tf");
    let config = example(&format!("data-sources/{data_source}/data-source.tf"));
    let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", &config)]);
    let needs_password = config.contains("proxy_password");
    let cycle = if needs_password {
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(PASSWORD)),
        );
        Cycle {
            var_file: Some("test.tfvars".into()),
            import: None,
        }
    } else {
        Cycle::default()
    };
    let outputs = run_cycle(&work, &cycle);
    if needs_password {
        // As is, in proxy URLs, and in URLs inside systemd drop-ins (`%%`).
        let in_dropins = PASSWORD_ENCODED.replace('%', "%%");
        for secret in [PASSWORD, PASSWORD_ENCODED, &in_dropins] {
            work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], secret);
        }
    }
    outputs
}

#[test]
fn systemd_dropin_example() {
    for_each_terraform(|tf| {
        let outputs = apply_example(tf, "clusterproxy_systemd_dropin");
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
        let content = dropins[0]["content"].as_str().unwrap();
        assert!(
            content.contains(&PASSWORD_ENCODED.replace('%', "%%")),
            "{content}"
        );
        assert_eq!(
            outputs["commands"],
            serde_json::json!([
                "systemctl daemon-reload",
                "systemctl restart containerd.service",
                "systemctl restart kubelet.service",
                "systemctl restart docker.service"
            ])
        );
    });
}

#[test]
fn capi_kubeadm_example() {
    for_each_terraform(|tf| {
        let outputs = apply_example(tf, "clusterproxy_capi_kubeadm");
        let spec: serde_json::Value =
            serde_yaml_ng::from_str(outputs["kubeadm_config_spec"].as_str().unwrap()).unwrap();
        assert_eq!(spec["files"].as_array().unwrap().len(), 2);
        let exports = spec["preKubeadmCommands"].as_array().unwrap();
        assert_eq!(exports[0], "systemctl daemon-reload");
        assert!(exports[2]
            .as_str()
            .unwrap()
            .starts_with("export HTTP_PROXY='http://svc-k8s:p%2540ss"));
        let review: serde_json::Value =
            serde_yaml_ng::from_str(outputs["review"].as_str().unwrap()).unwrap();
        assert!(!review.to_string().contains("p%2540ss"));
    });
}

#[test]
fn tkg_config_example() {
    for_each_terraform(|tf| {
        let outputs = apply_example(tf, "clusterproxy_tkg_config");
        let config: serde_json::Value =
            serde_yaml_ng::from_str(outputs["cluster_config"].as_str().unwrap()).unwrap();
        assert_eq!(config["TKG_HTTP_PROXY_ENABLED"], true);
        assert_eq!(
            config["TKG_NO_PROXY"],
            "cluster.local,registry.corp.example,vcenter.corp.example"
        );
        assert_eq!(outputs["tkg_no_proxy"], config["TKG_NO_PROXY"]);
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
        let outputs = apply_example(tf, "clusterproxy_aks_http_proxy_config");
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
        let outputs = apply_example(tf, "clusterproxy_pod_env");
        let env = outputs["env"].as_array().unwrap();
        let names: Vec<&str> = env.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
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
    });
}

/// A self-signed CA certificate as PEM, with `sans` as subjectAltNames.
fn certificate(sans: &[&str]) -> String {
    let mut params =
        rcgen::CertificateParams::new(sans.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
            .unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().unwrap();
    params.self_signed(&key).unwrap().pem()
}

/// An AKS data source with `trusted_ca` set to `pem` (a heredoc).
fn aks_with_ca(pem: &str) -> String {
    format!(
        "data \"clusterproxy_aks_http_proxy_config\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  trusted_ca = <<-EOT\n{pem}EOT\n}}\n"
    )
}

/// Each platform rule fails the plan with a diagnostic on the attribute at fault.
#[test]
fn renderer_bad_input_is_a_diagnostic() {
    let provider = example("provider/provider.tf");
    let ca = base64::engine::general_purpose::STANDARD.encode("not a certificate");
    let long_list: Vec<String> = (0..800)
        .map(|i| format!("\"host-{i}.corp.example\""))
        .collect();
    // (configuration, diagnostic summary, the line Terraform's snippet must
    // show: the attribute or the block, text the diagnostic must mention)
    let cases: Vec<(String, &str, &str, Option<&str>)> = vec![
        (
            aks_with_ca(&certificate(&[])),
            "CA certificate without subjectAltName",
            "trusted_ca",
            None,
        ),
        (
            aks_with_ca(
                &(0..21)
                    .map(|_| certificate(&["proxy-ca.corp.example"]))
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
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["containerd", "containerd.service"]
}"#
            .into(),
            "Duplicate file path",
            "units",
            Some("containerd.service.d/http-proxy.conf"),
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
    ];
    for_each_terraform(|tf| {
        for (config, summary, at, mentions) in &cases {
            let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", config)]);
            let run = work.expect_diagnostic_at(&["plan"], summary, at);
            let text = run.combined();
            if let Some(mentions) = mentions {
                assert!(
                    text.contains(mentions),
                    "{summary}: {mentions} not mentioned:\n{text}"
                );
            }
            assert!(
                !text.contains("secret-only") && !text.contains("panic"),
                "{text}"
            );
        }
    });
}
