//! End-to-end tests of the renderer data sources with real Terraform 1.11 and
//! 1.0.3: each docs example passes the full cycle, rendered outputs parse back
//! to the intended values, the proxy password never shows in CLI output or
//! trace logs, and each platform rule is a diagnostic on the right attribute.

use crate::cycle::{hcl_string, run_cycle, Capability, Cycle};
use crate::diagnostics::expect_bad_inputs;
use crate::examples::{
    apply_data_source_example, ca_certificate, EXAMPLE_PASSWORD as PASSWORD,
    EXAMPLE_PASSWORD_ENCODED as PASSWORD_ENCODED,
};
use crate::harness::for_each_terraform_rendering;
use crate::harness::{for_each_terraform, for_each_terraform_with, Workdir};
use base64::Engine as _;
use clusterproxy::domain::render::kyverno::evaluate;

#[test]
fn systemd_dropin_example() {
    for_each_terraform_rendering(|tf| {
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
        let manager = outputs["default_environment"].as_str().unwrap();
        assert!(manager.contains("[Manager]"), "{manager}");
        assert!(
            manager.contains("HTTP_PROXY=http://svc-k8s:***@proxy.corp.example:3128"),
            "{manager}"
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
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_capi_kubeadm");
        let yaml = outputs["kubeadm_config_spec"].as_str().unwrap();
        for secret in [PASSWORD, PASSWORD_ENCODED] {
            for form in crate::secrets::secret_forms(secret) {
                assert!(!yaml.contains(&form), "{form:?} in the KCP YAML:\n{yaml}");
            }
        }
        let spec: serde_json::Value = serde_yaml_ng::from_str(yaml).unwrap();
        let files = spec["files"].as_array().unwrap();
        assert!(files.iter().all(|f| f.get("content").is_none()), "{yaml}");
        let manifest: serde_json::Value =
            serde_yaml_ng::from_str(outputs["secret_manifest"].as_str().unwrap()).unwrap();
        assert_eq!(manifest["metadata"]["name"], "prod-1-systemd-proxy-r1");
        assert_eq!(outputs["template_name_suffix"], "-r1");
        assert_eq!(
            outputs["control_plane_api_version"],
            "controlplane.cluster.x-k8s.io/v1beta2"
        );
        assert_eq!(
            outputs["bootstrap_api_version"],
            "bootstrap.cluster.x-k8s.io/v1beta2"
        );
        let review: serde_json::Value =
            serde_yaml_ng::from_str(outputs["secret_manifest_review"].as_str().unwrap()).unwrap();
        assert_eq!(review["metadata"], manifest["metadata"]);
        assert_eq!(
            review["data"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            manifest["data"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>()
        );
        let from_secret = |path: &str| -> (String, String) {
            let file = files
                .iter()
                .find(|f| f["path"] == path)
                .unwrap_or_else(|| panic!("no {path}"));
            assert_eq!(
                file["contentFrom"]["secret"]["name"],
                "prod-1-systemd-proxy-r1"
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
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_tkg_config");
        let config: serde_json::Value =
            serde_yaml_ng::from_str(outputs["cluster_config"].as_str().unwrap()).unwrap();
        assert_eq!(config["TKG_HTTP_PROXY_ENABLED"], true);
        assert_eq!(
            config["TKG_NO_PROXY"],
            "cluster.local,registry.corp.example,vcenter.corp.example"
        );
        assert_eq!(outputs["tkg_no_proxy"], config["TKG_NO_PROXY"]);
        let redacted_url = "http://svc-k8s:***@proxy.corp.example:3128";
        let class = &outputs["cluster_class_variable_review"];
        assert_eq!(class["httpProxy"], redacted_url, "{class}");
        assert_eq!(class["httpsProxy"], redacted_url, "{class}");
        // system_wide is false: left to the class default, which fits
        // every ClusterClass (only vSphere's has the field).
        assert_eq!(class.get("systemWide"), None, "{class}");
        let variables = &outputs["variables_review"];
        assert_eq!(variables["TKG_HTTP_PROXY"], redacted_url, "{variables}");
        assert_eq!(variables["TKG_NO_PROXY"], config["TKG_NO_PROXY"]);
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
    for_each_terraform_rendering(|tf| {
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
    for_each_terraform_rendering(|tf| {
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
        // With credentials_secret: the proxy variables are Secret
        // references, the rest plain, and only the Secret's data holds the
        // credentials.
        let refs = outputs["env_secret_refs"].as_array().unwrap();
        let names: Vec<&str> = refs.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"]
        );
        assert_eq!(
            refs[3],
            serde_json::json!({"name": "https_proxy", "secret_name": "proxy-credentials", "key": "HTTPS_PROXY"})
        );
        let from_secret = outputs["env_yaml_from_secret"].as_str().unwrap();
        assert!(!from_secret.contains("svc-apps"), "{from_secret}");
        let parsed: serde_json::Value = serde_yaml_ng::from_str(from_secret).unwrap();
        assert_eq!(
            parsed["env"][0]["valueFrom"]["secretKeyRef"]["key"],
            "HTTP_PROXY"
        );
        assert_eq!(parsed["env"][4]["name"], "NO_PROXY");
        let url = format!("http://svc-apps:{PASSWORD_ENCODED}@proxy.corp.example:3128");
        assert_eq!(
            outputs["credentials_secret_data"],
            serde_json::json!({"HTTP_PROXY": url, "HTTPS_PROXY": url})
        );
        let manifest: serde_json::Value =
            serde_yaml_ng::from_str(outputs["credentials_secret_redacted"].as_str().unwrap())
                .unwrap();
        assert_eq!(manifest["kind"], "Secret");
        assert_eq!(manifest["metadata"]["namespace"], "apps");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(manifest["data"]["HTTP_PROXY"].as_str().unwrap())
            .unwrap();
        assert_eq!(decoded, b"http://svc-apps:***@proxy.corp.example:3128");
    });
}

/// With `credentials_secret`, the outputs that reference the Secret (pod
/// env, Kyverno policy, cert-manager and extraEnv values) hold the password
/// in none of its forms (outputs, plan output); the Secret's data does, and
/// its manifest holds it base64-encoded. What the state holds, precisely: a
/// data source given the password keeps it in its `password` input and in
/// `credentials_secret_data`/`_yaml`, and in none of the referencing outputs.
#[test]
fn credentials_secret_outputs_hold_no_credential() {
    use crate::secrets::secret_forms as forms;
    let config = r#"variable "proxy_password" {
  type      = string
  sensitive = true
}

locals {
  proxy = "http://proxy.corp.example:3128"
}

data "clusterproxy_pod_env" "x" {
  http_proxy         = local.proxy
  https_proxy        = "http://proxy.corp.example:3129"
  username           = "svc-apps"
  password           = var.proxy_password
  credentials_secret = "proxy.credentials"
}

data "clusterproxy_kyverno_policy" "x" {
  http_proxy                   = local.proxy
  username                     = "svc-apps"
  password                     = var.proxy_password
  excluded_namespaces          = []
  credentials_secret           = "proxy.credentials"
  credentials_secret_namespace = "platform"
}

data "clusterproxy_helm_values" "x" {
  http_proxy         = local.proxy
  username           = "svc-apps"
  password           = var.proxy_password
  service_cidrs      = ["10.96.0.0/12"]
  credentials_secret = "proxy.credentials"
}

output "free" {
  value = nonsensitive(jsonencode({
    env             = data.clusterproxy_pod_env.x.env
    env_yaml        = data.clusterproxy_pod_env.x.env_yaml
    env_secret_refs = data.clusterproxy_pod_env.x.env_secret_refs
    policy          = data.clusterproxy_kyverno_policy.x.policy_yaml
    generating      = data.clusterproxy_kyverno_policy.x.generating_policy_yaml
    cert_manager    = data.clusterproxy_helm_values.x.cert_manager_yaml
    extra_env       = data.clusterproxy_helm_values.x.extra_env_yaml
  }))
}

output "secret" {
  value     = data.clusterproxy_pod_env.x.credentials_secret_yaml
  sensitive = true
}

output "data" {
  value     = data.clusterproxy_helm_values.x.credentials_secret_data
  sensitive = true
}
"#;
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, config);
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(PASSWORD)),
        );
        let outputs = run_cycle(&work, &Cycle::with_vars());
        let free = outputs["free"].as_str().unwrap();
        for form in forms(PASSWORD)
            .iter()
            .chain(&[PASSWORD_ENCODED.to_owned(), "svc-apps".to_owned()])
        {
            assert!(!free.contains(form.as_str()), "{form:?} in {free}");
        }
        let free: serde_json::Value = serde_json::from_str(free).unwrap();
        // The GeneratingPolicy clones the Secret into every namespace but
        // its own (evaluated by a CEL implementation).
        let generating: serde_json::Value =
            serde_yaml_ng::from_str(free["generating"].as_str().unwrap()).unwrap();
        let source = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "proxy.credentials", "namespace": "platform"},
        });
        let generate = |name: &str| {
            let namespace = serde_json::json!({"metadata": {"name": name}});
            evaluate::generate(&generating, 19, &namespace, std::slice::from_ref(&source))
        };
        assert_eq!(
            generate("team-a"),
            Ok(Some(vec![("team-a".to_owned(), source.clone())]))
        );
        assert_eq!(generate("platform"), Ok(Some(Vec::new())));
        let env: Vec<&str> = free["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(env, ["NO_PROXY", "no_proxy"]);
        let urls = [3128, 3129]
            .map(|port| format!("http://svc-apps:{PASSWORD_ENCODED}@proxy.corp.example:{port}"));
        let manifest: serde_json::Value =
            serde_yaml_ng::from_str(outputs["secret"].as_str().unwrap()).unwrap();
        assert_eq!(
            manifest["metadata"],
            serde_json::json!({"name": "proxy.credentials"})
        );
        for (key, url) in ["HTTP_PROXY", "HTTPS_PROXY"].iter().zip(&urls) {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(manifest["data"][key].as_str().unwrap())
                .unwrap();
            assert_eq!(String::from_utf8(decoded).unwrap(), *url);
        }
        assert_eq!(
            outputs["data"],
            serde_json::json!({"HTTP_PROXY": urls[0], "HTTPS_PROXY": urls[0]})
        );
        work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], PASSWORD);
        work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], PASSWORD_ENCODED);
        work.run_ok(&["apply", "-auto-approve", "-var-file=test.tfvars"]);
        let stored = work.resource_values("data.clusterproxy_pod_env.x");
        assert_eq!(stored["password"], PASSWORD);
        assert_eq!(stored["credentials_secret_data"]["HTTP_PROXY"], urls[0]);
        let yaml: serde_json::Value =
            serde_yaml_ng::from_str(stored["credentials_secret_yaml"].as_str().unwrap()).unwrap();
        assert_eq!(yaml["data"], manifest["data"]);
        for name in [
            "env",
            "env_redacted",
            "env_yaml",
            "env_yaml_redacted",
            "env_secret_refs",
        ] {
            let text = stored[name].to_string();
            for form in forms(PASSWORD).iter().chain(&[PASSWORD_ENCODED.to_owned()]) {
                assert!(!text.contains(form.as_str()), "{form:?} in {name}: {text}");
            }
        }
    });
}

/// The Secret reference's inputs are checked at plan time, on the attribute.
#[test]
fn credentials_secret_bad_input_is_a_diagnostic() {
    let cases: Vec<(String, &str, &str, Option<&str>)> = vec![
        (
            r#"data "clusterproxy_pod_env" "x" {
  http_proxy         = "http://proxy.corp.example:3128"
  credentials_secret = "Proxy_Credentials"
}"#
            .into(),
            "Invalid Kubernetes name",
            "credentials_secret",
            Some("DNS-1123 subdomain"),
        ),
        (
            r#"data "clusterproxy_helm_values" "x" {
  http_proxy         = "http://proxy.corp.example:3128"
  credentials_secret = "proxy..credentials"
}"#
            .into(),
            "Invalid Kubernetes name",
            "credentials_secret",
            None,
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy                   = "http://proxy.corp.example:3128"
  credentials_secret           = "proxy-credentials"
  credentials_secret_namespace = "platform.apps"
}"#
            .into(),
            "Invalid Kubernetes name",
            "credentials_secret_namespace",
            Some("DNS-1123 label"),
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy                   = "http://proxy.corp.example:3128"
  credentials_secret_namespace = "platform"
}"#
            .into(),
            "Set without credentials_secret",
            "credentials_secret_namespace",
            None,
        ),
    ];
    for_each_terraform_rendering(|tf| expect_bad_inputs(tf, &[], None, &cases));
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
    for_each_terraform_rendering(|tf| {
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
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy       = "http://proxy.corp.example:3128"
  capi_api_version = "v1alpha4"
}"#
            .into(),
            "Invalid value",
            "capi_api_version",
            Some("`v1beta2`, `v1beta1`"),
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
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy   = "http://proxy.corp.example:3128"
  cluster_name = "prod"
  revision     = 0
}"#
            .into(),
            "Invalid revision",
            "revision",
            Some("whole number >= 1"),
        ),
        (
            r#"data "clusterproxy_capi_kubeadm" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  revision   = 1.5
}"#
            .into(),
            "Invalid revision",
            "revision",
            None,
        ),
        (
            r#"resource "clusterproxy_profile" "p" {
  name       = "p"
  http_proxy = "http://proxy.corp.example:3128"
}

data "clusterproxy_capi_kubeadm" "x" {
  profile  = clusterproxy_profile.p.settings
  revision = 2
}"#
            .into(),
            "Conflicting attributes",
            "revision",
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
    for_each_terraform_rendering(|tf| expect_bad_inputs(tf, &[], Some("secret-only"), &cases));
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

/// examples/secret-free-state (the guide's applied part) on Terraform >=
/// 1.11: the Secret's data reaches the write-only sink with the credentials,
/// while the state, the saved plan (`show -json`), `terraform show` and a
/// trace log hold the password in none of its forms; the pod env reads the
/// Secret. The guide holds the example verbatim, and every HCL block of the
/// guide is formatted HCL.
#[test]
fn secret_free_state_example() {
    use crate::secrets::secret_forms;
    let main = crate::harness::example("secret-free-state/main.tf");
    let guide = std::fs::read_to_string(format!(
        "{}/docs/guides/secret-free-state.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert!(
        guide.contains(&format!("```terraform\n{main}```")),
        "the guide holds examples/secret-free-state/main.tf verbatim"
    );
    // Provider functions, ephemeral variables, write-only arguments.
    for_each_terraform_with(Capability::WriteOnly, |tf| {
        let blocks: Vec<&str> = guide
            .split("```terraform\n")
            .skip(1)
            .map(|rest| rest.split("```").next().unwrap())
            .collect();
        let check = Workdir::empty(tf);
        std::fs::create_dir(check.path().join("guide")).unwrap();
        for (index, block) in blocks.iter().enumerate() {
            std::fs::write(check.path().join(format!("guide/block{index}.tf")), block).unwrap();
        }
        check.run_ok(&["fmt", "-check", "-diff", "guide"]);
        let work = Workdir::with_provider(tf, &main);
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(PASSWORD)),
        );
        let vars = ["-var-file=test.tfvars"];
        work.run_ok(&["plan", "-out=tfplan", vars[0]]);
        let saved = work.run_ok(&["show", "-json", "tfplan"]).stdout;
        work.run_ok(&["apply", "-auto-approve", vars[0], "tfplan"]);
        let sink = std::fs::read_to_string(work.path().join("proxy-credentials.json")).unwrap();
        let url = format!("http://svc-apps:{PASSWORD_ENCODED}@proxy.corp.example:3128");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&sink).unwrap(),
            serde_json::json!({"HTTP_PROXY": url, "HTTPS_PROXY": url})
        );
        let outputs = work.outputs();
        assert_eq!(
            outputs["env_secret_refs"][0],
            serde_json::json!({"name": "HTTP_PROXY", "secret_name": "proxy-credentials", "key": "HTTP_PROXY"})
        );
        assert!(outputs["env_yaml"]
            .as_str()
            .unwrap()
            .contains("secretKeyRef"));
        work.assert_plan_empty(&vars);
        // The nightly drift job (examples/drift-check), 20 runs of 20: its
        // recipe holds on 1.15 (whose exit code is 2 with a data source),
        // and with a sensitive value in `password_wo` Terraform 1.11 would
        // order the profile's two sensitive paths at random.
        for _ in 0..20 {
            work.assert_drift_check_quiet(&vars);
        }
        let state = std::fs::read_to_string(work.path().join("terraform.tfstate")).unwrap();
        let shown = work.run_ok(&["show"]).stdout;
        for secret in [PASSWORD, PASSWORD_ENCODED] {
            for form in secret_forms(secret) {
                for (name, text) in [("state", &state), ("saved plan", &saved), ("show", &shown)] {
                    assert!(!text.contains(&form), "{form:?} in the {name}");
                }
            }
            work.assert_secret_absent(&["plan", vars[0]], secret);
        }
        work.run_ok(&["destroy", "-auto-approve", vars[0]]);
    });
}

/// examples/functions/render_redacted on Terraform >= 1.11: the redacted
/// kubeadm pieces of a `password_wo` profile are known, not sensitive, in
/// the plan; they change exactly when a rotation (`password_wo_version`
/// bumped, `revision` moves) does, and the password shows nowhere.
#[test]
fn render_redacted_shows_a_rotation_in_the_plan() {
    let main = crate::harness::example("functions/render_redacted/function.tf");
    for_each_terraform_with(Capability::WriteOnly, |tf| {
        let work = Workdir::with_provider(tf, &main);
        let vars = |password: &str| {
            work.write_file(
                "test.tfvars",
                &format!("proxy_password = {}\n", hcl_string(password)),
            );
        };
        let planned = |args: &[&str]| -> serde_json::Value {
            let mut all = vec!["plan", "-out=tfplan", "-var-file=test.tfvars"];
            all.extend_from_slice(args);
            work.run_ok(&all);
            let shown = work.run_ok(&["show", "-json", "tfplan"]).stdout;
            for form in crate::secrets::secret_forms(PASSWORD) {
                assert!(!shown.contains(&form), "{form:?} in the saved plan");
            }
            serde_json::from_str(&shown).unwrap()
        };
        vars(PASSWORD);
        let first = planned(&[]);
        let change = &first["output_changes"]["kubeadm_yaml"];
        assert_eq!(
            change["after_sensitive"],
            serde_json::json!(false),
            "{change}"
        );
        let yaml = change["after"].as_str().expect("known at plan").to_owned();
        assert!(yaml.contains("prod-systemd-proxy-r1"), "{yaml}");
        let names = |plan: &serde_json::Value| {
            ["secret_name", "template_name_suffix"].map(|name| {
                let change = &plan["output_changes"][name];
                assert_eq!(
                    change["after_sensitive"],
                    serde_json::json!(false),
                    "{change}"
                );
                change["after"].as_str().expect("known at plan").to_owned()
            })
        };
        assert_eq!(names(&first), ["prod-systemd-proxy-r1", "-r1"]);
        work.run_ok(&["apply", "-auto-approve", "-var-file=test.tfvars", "tfplan"]);
        // Same password, same version: nothing moves.
        work.assert_plan_empty(&["-var-file=test.tfvars"]);
        // A rotation: the new password and the version bumped.
        vars("rotated-p@ss:w/rd#%");
        let main = main.replace("password_wo_version = 1", "password_wo_version = 2");
        work.write_file("main.tf", &main);
        let second = planned(&[]);
        let change = &second["output_changes"]["kubeadm_yaml"];
        let rotated = change["after"].as_str().expect("known at plan");
        assert_ne!(rotated, yaml);
        assert_eq!(rotated, yaml.replace("-r1", "-r2"));
        assert_eq!(names(&second), ["prod-systemd-proxy-r2", "-r2"]);
        assert!(!rotated.contains("rotated-p"), "{rotated}");
        work.run_ok(&["apply", "-auto-approve", "-var-file=test.tfvars", "tfplan"]);
        work.run_ok(&["destroy", "-auto-approve", "-var-file=test.tfvars"]);
    });
}

/// `render` cannot warn, so a unit typo that the data source warns about
/// fails the plan, naming the warning's code, until the caller acknowledges
/// that code (or the former path-and-summary form of it); the render then
/// returns the warning (Terraform >= 1.8).
#[test]
fn render_function_fails_on_an_unacknowledged_warning() {
    let config = |acknowledge: &str| {
        format!(
            r#"resource "clusterproxy_profile" "corp" {{
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
}}

output "warnings" {{
  value = nonsensitive(provider::clusterproxy::render("systemd_dropin", clusterproxy_profile.corp.settings, {{
    units = ["containerd", "kublet"]
    {acknowledge}
  }}).warnings)
}}
"#
        )
    };
    for_each_terraform_with(Capability::Functions, |tf| {
        let work = Workdir::with_provider(tf, &config(""));
        let reported = work.expect_diagnostic_at(
            &["plan"],
            "Invalid value for \"options\" parameter",
            "value",
        );
        let code = "units[1]:unit_name_typo";
        assert!(
            reported
                .text()
                .contains(&format!("acknowledge_warnings = [\"{code}\"]")),
            "{}",
            reported.text()
        );
        // The code the error names, and the deprecated form (path and
        // summary) that configurations written before hold.
        for acknowledged in [code, "units[1]: Unit name looks like a typo"] {
            work.write_file(
                "main.tf",
                &config(&format!("acknowledge_warnings = [\"{acknowledged}\"]")),
            );
            let outputs = run_cycle(&work, &Cycle::default());
            let warnings = outputs["warnings"].as_array().unwrap();
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert!(
                warnings[0].as_str().unwrap().starts_with(code),
                "{warnings:?}"
            );
        }
    });
}

/// Arguments of `render` over 3 MiB in the wire format, here 16,000
/// NO_PROXY names of 210 characters, fail the plan with an error on the
/// largest argument naming the limit and why, refused unread; 100
/// names render (Terraform >= 1.8). Long names keep the list short: what
/// Terraform takes to convert an argument grows faster than its length
/// (140,000 short names took it 3.5 minutes).
#[test]
fn render_function_refuses_arguments_over_its_limit() {
    let label = "a".repeat(60);
    // `range` makes at most 1,024 values: `outer` times `inner` names.
    let config = |outer: usize, inner: usize| {
        format!(
            r#"locals {{
  names = flatten([for i in range({outer}) : [for j in range({inner}) : "host-${{i}}-${{j}}.{label}.{label}.{label}.corp.example"]])
}}

output "rendered" {{
  value = provider::clusterproxy::render_redacted("openshift_proxy", {{
    http_proxy = "http://proxy.corp.example:3128"
    no_proxy   = local.names
  }}, null).install_config_yaml_redacted
}}
"#
        )
    };
    for_each_terraform_with(Capability::Functions, |tf| {
        let work = Workdir::with_provider(tf, &config(16, 1000));
        let reported = work.expect_diagnostic_at(
            &["plan"],
            "Invalid value for \"settings\" parameter",
            "value",
        );
        for said in [
            "the arguments take ",
            "more than the 3145728 bytes (3.0 MiB) this function takes",
            "Linux refuses to a program at 128 KiB",
            "They were refused before they were read",
        ] {
            assert!(
                reported.text().contains(said),
                "{said}: {}",
                reported.text()
            );
        }
        work.write_file("main.tf", &config(1, 100));
        let outputs = run_cycle(&work, &Cycle::default());
        let yaml = outputs["rendered"].as_str().unwrap();
        assert!(yaml.contains(&format!("host-0-99.{label}.")), "{yaml}");
    });
}

/// A password-only rotation reaches the CAPI nodes: the profile's revision
/// moves, so the Secret variant's `kubeadmConfigSpec` (shown redacted) names
/// the Secret `prod-systemd-proxy-r2` and a KubeadmControlPlane would roll;
/// nothing else of it changes, the password shows nowhere, and an unchanged
/// profile plans no change at all.
#[test]
fn password_rotation_changes_the_secret_variant_spec_through_the_revision() {
    let config = r#"variable "proxy_password" {
  type      = string
  sensitive = true
}

resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-capi"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example"]
}

# The profile's settings carry its revision, never its password.
data "clusterproxy_capi_kubeadm" "prod" {
  profile      = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  cluster_name = "prod"
}

output "revision" {
  value = clusterproxy_profile.corp.revision
}

output "spec" {
  value = data.clusterproxy_capi_kubeadm.prod.yaml_redacted
}

output "files" {
  value = data.clusterproxy_capi_kubeadm.prod.files_redacted
}

output "secret_manifest" {
  value = data.clusterproxy_capi_kubeadm.prod.secret_manifest_redacted
}

output "cluster_values" {
  value = data.clusterproxy_capi_kubeadm.prod.cluster_values_yaml_redacted
}

output "template_name_suffix" {
  value = data.clusterproxy_capi_kubeadm.prod.template_name_suffix
}
"#;
    let (old, new) = ("0ld-Passw0rd", "n3w-Passw0rd");
    // With functions (Terraform >= 1.8) the plan that rotates shows the new
    // spec, redacted, before anything is applied.
    let planned = r#"output "planned_spec" {
  value = nonsensitive(provider::clusterproxy::render("capi_kubeadm", merge(clusterproxy_profile.corp.settings, { password = var.proxy_password }), {
    cluster_name = "prod"
  }).yaml_redacted)
}
"#;
    for_each_terraform(|tf| {
        let work = Workdir::with_provider(tf, config);
        if tf.supports(Capability::Functions) {
            work.write_file("planned.tf", planned);
        }
        let vars = ["-var-file=test.tfvars"];
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(old)),
        );
        work.run_ok(&["apply", "-auto-approve", vars[0]]);
        let before = work.outputs();
        assert_eq!(before["revision"], 1);
        assert_eq!(before["template_name_suffix"], "-r1");
        work.assert_plan_empty(&vars);

        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(new)),
        );
        let plan = work.saved_plan("rotate.tfplan", &vars);
        let managed: Vec<&serde_json::Value> = plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| {
                c["mode"] == "managed" && c["change"]["actions"] != serde_json::json!(["no-op"])
            })
            .collect();
        assert_eq!(managed.len(), 1, "{managed:#?}");
        assert_eq!(managed[0]["address"], "clusterproxy_profile.corp");
        if tf.supports(Capability::Functions) {
            let change = &plan["output_changes"]["planned_spec"];
            assert_eq!(change["before"], before["spec"], "{change:#}");
            let after = change["after"].as_str().expect("known in the plan");
            assert!(after.contains("name: prod-systemd-proxy-r2"), "{after}");
            assert!(!after.contains(new), "{after}");
        }
        work.assert_secret_absent(&["apply", "-auto-approve", vars[0]], new);
        let after = work.outputs();
        assert_eq!(after["revision"], 2);
        assert_eq!(after["template_name_suffix"], "-r2");
        let spec_before = before["spec"].as_str().unwrap();
        let spec_after = after["spec"].as_str().unwrap();
        assert_ne!(spec_before, spec_after, "the rotation rolls no machine");
        assert!(
            spec_after.contains("name: prod-systemd-proxy-r2"),
            "{spec_after}"
        );
        assert_eq!(
            spec_before.replace("prod-systemd-proxy-r1", "prod-systemd-proxy-r2"),
            spec_after,
            "only the Secret's name changes"
        );
        assert_eq!(
            before["files"].to_string().replace("-r1", "-r2"),
            after["files"].to_string()
        );
        assert_eq!(before["cluster_values"], after["cluster_values"]);
        let manifest = after["secret_manifest"].as_str().unwrap();
        assert!(
            manifest.contains("name: prod-systemd-proxy-r2"),
            "{manifest}"
        );
        for output in after.values().chain(before.values()) {
            for password in [old, new] {
                assert!(!output.to_string().contains(password), "{output}");
            }
        }
        work.assert_plan_empty(&vars);
    });
}

/// An object literal with only the public fields is a `settings` argument
/// of `render` and `render_redacted` (the parameter type's attributes are
/// optional): no `password_required` or `revision` spelt. With a literal
/// password the result is not sensitive, so an output needs no
/// `sensitive = true` (what docs/guides/plan-time-renders.md says).
#[test]
fn render_takes_a_literal_with_public_fields_only() {
    let config = r#"
locals {
  proxy = "http://proxy.corp.example:3128"
}

output "literal" {
  value = provider::clusterproxy::render("systemd_dropin", { http_proxy = local.proxy, no_proxy = ["registry.corp.example"] }, { units = ["containerd"] }).dropins[0].content
}

output "redacted" {
  value = provider::clusterproxy::render_redacted("pod_env", { http_proxy = local.proxy, username = "svc", password = "l1teral" }, {}).env_redacted[0].value
}

output "with_password" {
  value = provider::clusterproxy::render("pod_env", { http_proxy = local.proxy, username = "svc", password = "l1teral" }, {}).env[0].value
}
"#;
    for_each_terraform(|tf| {
        if !tf.supports(Capability::Functions) {
            return;
        }
        let work = Workdir::with_provider(tf, config);
        let outputs = run_cycle(&work, &Cycle::default());
        let literal = outputs["literal"].as_str().unwrap();
        assert!(
            literal.contains("Environment=\"HTTP_PROXY=http://proxy.corp.example:3128\"")
                && literal.contains(".registry.corp.example"),
            "{literal}"
        );
        assert_eq!(
            outputs["redacted"],
            "http://svc:***@proxy.corp.example:3128"
        );
        assert_eq!(
            outputs["with_password"],
            "http://svc:l1teral@proxy.corp.example:3128"
        );
    });
}
