//! End-to-end tests of the node renderers (cloud-init, Ignition/Butane,
//! RKE2/k3s, Talos, kubespray) with real Terraform 1.11 and 1.0.3: each docs
//! example passes the full cycle with an empty second plan, the applied
//! outputs pass the platform's own validator or parse back to the intended
//! values, the proxy password never shows in plan output or trace logs, and
//! each platform rule is a diagnostic on its attribute.

use crate::cycle::{run_cycle, Cycle};
use crate::diagnostics::expect_bad_inputs;
use crate::examples::{apply_data_source_example, EXAMPLE_PASSWORD_ENCODED as PASSWORD_ENCODED};
use crate::harness::for_each_terraform_rendering;
use crate::harness::{import_fixture, Workdir};
use base64::Engine as _;
use clusterproxy::domain::render::kubespray;
use serde::Deserialize as _;
use std::process::Command;

/// Writes `content` to a temporary file and runs `program args... file`:
/// whether it succeeded, and its output.
fn run_on_file(program: &crate::tools::Tool, args: &[&str], content: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input");
    std::fs::write(&path, content).unwrap();
    let out = program
        .command()
        .args(args)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.name));
    let log =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), log)
}

#[test]
fn cloud_init_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_cloud_init");
        let user_data = outputs["user_data"].as_str().unwrap();
        for document in [user_data, outputs["user_data_redacted"].as_str().unwrap()] {
            let (ok, log) = run_on_file(
                &crate::tools::CLOUD_INIT,
                &["schema", "--config-file"],
                document,
            );
            assert!(ok && log.contains("Valid"), "{log}\n{document}");
        }
        let parsed: serde_json::Value = serde_yaml_ng::from_str(user_data).unwrap();
        let files = parsed["write_files"].as_array().unwrap();
        assert_eq!(
            files[0]["path"],
            "/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt"
        );
        assert_eq!(
            files[1]["path"],
            "/etc/systemd/system/containerd.service.d/http-proxy.conf"
        );
        assert_eq!(files[1]["permissions"], "0600");
        let dropin = files[1]["content"].as_str().unwrap();
        assert!(
            dropin.contains(&PASSWORD_ENCODED.replace('%', "%%")),
            "{dropin}"
        );
        assert!(dropin.contains("169.254.169.254"), "{dropin}");
        assert_eq!(
            outputs["runcmd"],
            serde_json::json!([
                "update-ca-trust extract",
                "systemctl daemon-reload",
                "systemctl restart -- 'containerd.service'",
                "systemctl restart -- 'kubelet.service'"
            ])
        );
        assert_eq!(parsed["runcmd"], outputs["runcmd"]);
        assert!(outputs["user_data_redacted"]
            .as_str()
            .unwrap()
            .contains("svc-k8s:***@proxy.corp.example:3128"));
    });
}

#[test]
fn ignition_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_ignition");
        let config = outputs["config"].as_str().unwrap();
        for document in [config, outputs["config_redacted"].as_str().unwrap()] {
            let (ok, log) = run_on_file(&crate::tools::IGNITION_VALIDATE, &[], document);
            assert!(ok, "{log}\n{document}");
        }
        let parsed: serde_json::Value = serde_json::from_str(config).unwrap();
        assert_eq!(parsed["ignition"]["version"], "3.3.0");
        let files = parsed["storage"]["files"].as_array().unwrap();
        assert_eq!(files[0]["path"], "/etc/ssl/certs/clusterproxy-proxy-ca.pem");
        assert_eq!(files[0]["mode"], 420);
        assert_eq!(files[1]["mode"], 384);
        let source = files[1]["contents"]["source"].as_str().unwrap();
        let dropin = base64::engine::general_purpose::STANDARD
            .decode(source.strip_prefix("data:;base64,").unwrap())
            .unwrap();
        let dropin = String::from_utf8(dropin).unwrap();
        assert!(dropin.starts_with("# Proxy settings for containerd.service"));
        assert!(
            dropin.contains(&PASSWORD_ENCODED.replace('%', "%%")),
            "{dropin}"
        );
        assert_eq!(
            parsed["systemd"]["units"][0]["name"],
            "clusterproxy-trust-ca.service"
        );
        let butane: serde_json::Value =
            serde_yaml_ng::from_str(outputs["butane_redacted"].as_str().unwrap()).unwrap();
        assert_eq!(
            (&butane["variant"], &butane["version"]),
            (&"flatcar".into(), &"1.0.0".into())
        );
        assert!(butane["storage"]["files"][1]["contents"]["inline"]
            .as_str()
            .unwrap()
            .contains("svc-k8s:***@"));
    });
}

#[test]
fn rke2_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_rke2");
        assert_eq!(outputs["path"], "/etc/default/rke2-agent");
        assert_eq!(outputs["permissions"], "0600");
        assert_eq!(
            outputs["commands"],
            serde_json::json!([
                "update-ca-certificates",
                "systemctl restart -- 'rke2-agent.service'"
            ])
        );
        assert_eq!(
            outputs["ca_files"][0]["path"],
            "/usr/local/share/ca-certificates/clusterproxy-proxy-ca.crt"
        );
        // Sourced by `sh`, the file sets exactly the containerd variables.
        let content = outputs["content"].as_str().unwrap();
        let out = Command::new("sh")
            .args(["-c", &format!("{content}\nset")])
            .env_clear()
            .output()
            .unwrap();
        let set = String::from_utf8(out.stdout).unwrap();
        let names: Vec<&str> = set
            .lines()
            .filter_map(|l| l.split_once('=').map(|(n, _)| n))
            .filter(|n| n.contains("PROXY"))
            .collect();
        assert_eq!(
            names,
            [
                "CONTAINERD_HTTPS_PROXY",
                "CONTAINERD_HTTP_PROXY",
                "CONTAINERD_NO_PROXY"
            ]
        );
        assert!(content.contains(PASSWORD_ENCODED), "{content}");
        assert!(content.contains("10.43.0.0/16"), "{content}");
        assert!(outputs["content_redacted"]
            .as_str()
            .unwrap()
            .contains("CONTAINERD_HTTP_PROXY=\"http://svc-k8s:***@proxy.corp.example:3128\""));
    });
}

#[test]
fn talos_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_talos");
        let documents: Vec<serde_json::Value> =
            serde_yaml_ng::Deserializer::from_str(outputs["patch"].as_str().unwrap())
                .map(|d| serde_json::Value::deserialize(d).unwrap())
                .collect();
        assert_eq!(documents.len(), 2);
        assert_eq!(documents[0]["kind"], "EnvironmentConfig");
        assert!(documents[0].get("machine").is_none());
        let env = documents[0]["variables"].as_object().unwrap();
        assert_eq!(
            env.keys().collect::<Vec<_>>(),
            ["http_proxy", "https_proxy", "no_proxy"]
        );
        assert!(env["http_proxy"]
            .as_str()
            .unwrap()
            .contains(PASSWORD_ENCODED));
        assert!(env["no_proxy"].as_str().unwrap().contains("10.5.0.2"));
        assert_eq!(documents[1]["kind"], "TrustedRootsConfig");
        assert!(documents[1]["certificates"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert!(!outputs["patch_redacted"]
            .as_str()
            .unwrap()
            .contains(PASSWORD_ENCODED));
    });
}

#[test]
fn kubespray_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_kubespray");
        let vars: serde_json::Value =
            serde_yaml_ng::from_str(outputs["group_vars"].as_str().unwrap()).unwrap();
        let additional = vars["additional_no_proxy"].as_str().unwrap();
        let entries: Vec<&str> = additional.split(',').collect();
        for entry in [".corp.example", "10.233.0.0/18", "localhost"] {
            assert!(entries.contains(&entry), "{additional}");
        }
        assert!(vars.get("no_proxy").is_none());
        assert!(vars["http_proxy"]
            .as_str()
            .unwrap()
            .contains(PASSWORD_ENCODED));
        assert_eq!(
            outputs["ca_files"][0]["path"],
            "/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt"
        );
        assert_eq!(
            outputs["ca_commands"],
            serde_json::json!(["update-ca-trust extract"])
        );
        assert_eq!(
            vars["https_proxy_cert_file"],
            "/etc/pki/tls/certs/ca-bundle.crt"
        );
        // kubespray 2.31: the load balancer named by its address, addresses,
        // names, qualified names, then the rest once each.
        let effective = outputs["effective_no_proxy"].as_str().unwrap();
        assert!(
            effective.starts_with(&format!(
                "10.0.0.10,10.0.0.11,10.0.0.21,cp1,node1,cp1.cluster.local,node1.cluster.local,{}",
                entries[..2].join(",")
            )),
            "{effective}"
        );
        let entries: Vec<&str> = effective.split(',').collect();
        let unique: std::collections::BTreeSet<&str> = entries.iter().copied().collect();
        assert_eq!(unique.len(), entries.len(), "{effective}");
    });
}

/// The consumer version inputs shape the outputs as each release reads
/// them: Talos before 1.13 gets `machine.env`, 1.13 an `EnvironmentConfig`
/// document; kubespray 2.29 names the load balancer
/// `lb-apiserver.kubernetes.local`, 2.31 by its address, and a zero-width
/// character in an inventory name never reaches `effective_no_proxy`. The
/// second plan is empty.
#[test]
fn consumer_versions_shape_outputs() {
    let main = r#"locals {
  proxy = "http://proxy.corp.example:3128"
}

data "clusterproxy_talos" "v12" {
  http_proxy    = local.proxy
  talos_version = "v1.12.6"
}

data "clusterproxy_talos" "current" {
  http_proxy = local.proxy
}

data "clusterproxy_kubespray" "v29" {
  http_proxy                     = local.proxy
  kubespray_version              = "2.29"
  inventory_hosts                = { "cp\u200b1" = "10.0.0.11" }
  loadbalancer_apiserver_address = "10.0.0.10"
}

data "clusterproxy_kubespray" "current" {
  http_proxy                     = local.proxy
  inventory_hosts                = { "cp\u200b1" = "10.0.0.11" }
  loadbalancer_apiserver_address = "10.0.0.10"
}

output "talos" {
  value = [data.clusterproxy_talos.v12.patch_redacted, data.clusterproxy_talos.current.patch_redacted]
}

output "kubespray" {
  value = [data.clusterproxy_kubespray.v29.effective_no_proxy, data.clusterproxy_kubespray.current.effective_no_proxy]
}
"#;
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, main);
        work.run_ok(&["apply", "-auto-approve"]);
        let outputs = work.outputs();
        let talos: Vec<serde_json::Value> = outputs["talos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|patch| serde_yaml_ng::from_str(patch.as_str().unwrap()).unwrap())
            .collect();
        assert!(
            talos[0]["machine"]["env"]["no_proxy"].is_string(),
            "{talos:?}"
        );
        assert_eq!(talos[1]["kind"], "EnvironmentConfig", "{talos:?}");
        assert_eq!(talos[1]["variables"], talos[0]["machine"]["env"]);
        let kubespray = outputs["kubespray"].as_array().unwrap();
        let (old, current) = (
            kubespray[0].as_str().unwrap(),
            kubespray[1].as_str().unwrap(),
        );
        assert!(
            old.starts_with(
                "lb-apiserver.kubernetes.local,10.0.0.10,10.0.0.11,cp1,cp1.cluster.local,"
            ),
            "{old}"
        );
        assert!(
            current.starts_with("10.0.0.10,10.0.0.11,cp1,cp1.cluster.local,"),
            "{current}"
        );
        assert!(!format!("{old}{current}").contains('\u{200b}'));
        work.assert_plan_empty(&[]);
    });
}

/// Each platform rule fails the plan with a diagnostic on the attribute at fault.
#[test]
fn node_renderer_bad_input_is_a_diagnostic() {
    let cases: Vec<(&str, &str, &str, Option<&str>)> = vec![
        (
            r#"data "clusterproxy_talos" "x" {
  http_proxy    = "http://proxy.corp.example:3128"
  talos_version = "2.0"
}"#,
            "Invalid Talos version",
            "talos_version",
            None,
        ),
        (
            r#"data "clusterproxy_kubespray" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  inventory_hosts = { node1 = "node1.corp.example" }
}"#,
            "Inventory host address is not an IP address",
            "inventory_hosts",
            None,
        ),
        (
            r#"data "clusterproxy_kubespray" "x" {
  http_proxy                     = "http://proxy.corp.example:3128"
  loadbalancer_apiserver_address = "lb.corp.example"
}"#,
            "Load balancer address is not an IP address",
            "loadbalancer_apiserver_address",
            None,
        ),
        (
            r#"data "clusterproxy_kubespray" "x" {
  http_proxy                         = "http://proxy.corp.example:3128"
  loadbalancer_apiserver_address     = "10.0.0.5"
  apiserver_loadbalancer_domain_name = "lb\n{{ lookup(\"pipe\",\"id\") }}"
}"#,
            "Invalid host",
            "apiserver_loadbalancer_domain_name",
            None,
        ),
        (
            r#"data "clusterproxy_kubespray" "x" {
  http_proxy        = "http://proxy.corp.example:3128"
  kubespray_version = "3.0"
}"#,
            "Invalid kubespray version",
            "kubespray_version",
            None,
        ),
        (
            r#"data "clusterproxy_rke2" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  scope      = "kubelet"
}"#,
            "Invalid value",
            "scope",
            None,
        ),
        (
            r#"data "clusterproxy_ignition" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["containerd", "docker.socket"]
}"#,
            "Not a service unit",
            "units",
            None,
        ),
        (
            r#"data "clusterproxy_cloud_init" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  units      = ["-Hroot@attacker.example"]
}"#,
            "Invalid systemd unit name",
            "units",
            None,
        ),
    ];
    let warned = r#"data "clusterproxy_rke2" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  pod_cidrs  = ["10.42.0.0/16"]
  role       = "agent"
  scope      = "all"
}"#;
    let kubespray_2_30 = r#"data "clusterproxy_kubespray" "x" {
  http_proxy        = "http://proxy.corp.example:3128"
  kubespray_version = "2.30"
}"#;
    let hosts: Vec<String> = (0..150)
        .map(|i| format!("\"host-{i}.corp.example\""))
        .collect();
    let large = format!(
        "data \"clusterproxy_cloud_init\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  extra      = [{}]\n  cloud      = \"aws\"\n}}\n",
        hosts.join(", ")
    );
    for_each_terraform_rendering(|tf| {
        expect_bad_inputs(tf, &[], None, &cases);
        // Warnings do not stop the plan, and point at their attribute.
        for (config, summary, attribute) in [
            (
                warned.to_owned(),
                "In-cluster traffic would go to the proxy",
                "scope",
            ),
            (large.clone(), "User data larger than EC2 accepts", "cloud"),
            (
                kubespray_2_30.to_owned(),
                kubespray::GARBLED_NO_PROXY,
                "kubespray_version",
            ),
        ] {
            let work = Workdir::with_provider(tf, &config);
            work.expect_diagnostic(&["plan"], "warning", summary, attribute);
        }
    });
}

/// The RKE2/k3s import kind: the configuration that matches a k3s
/// environment file (credentials in its `CONTAINERD_*` URLs) creates a
/// profile; importing the file, by CLI and (Terraform >= 1.5) by import
/// block with and without generated configuration, yields exactly that state
/// and an empty plan.
#[test]
fn rke2_env_file_import_round_trip() {
    let fixture = import_fixture("rke2/k3s.service.env");
    let main = r#"variable "proxy_password" {
  type      = string
  sensitive = true
}

resource "clusterproxy_profile" "imported" {
  name        = "rke2"
  http_proxy  = "http://proxy.corp.example:3128"
  username    = "svc-k8s"
  password    = var.proxy_password
  no_proxy    = ["127.0.0.0/8", "10.0.0.0/8", "registry.corp.example", ".corp.example", "10.42.0.0/16", "10.43.0.0/16"]
}
"#;
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, main);
        work.write_file("test.tfvars", "proxy_password = \"s3cr@t\"\n");
        run_cycle(
            &work,
            &Cycle::importing("clusterproxy_profile.imported", format!("rke2:{fixture}")),
        );
    });
}

/// The Docker Engine example: `daemon.json` parses, keeps the given
/// settings in their order with `proxies` last, holding Docker's three keys
/// (moby/moby `daemon/config/config.go` `Proxies`) and the merged list; the
/// redacted twin holds no password.
#[test]
fn docker_daemon_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_docker_daemon");
        let text = outputs["daemon_json"].as_str().unwrap();
        let daemon: serde_json::Value = serde_json::from_str(text).unwrap();
        let keys: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("  \""))
            .map(|l| l.trim().split('"').nth(1).unwrap())
            .collect();
        // jsonencode writes the map's keys sorted; they stay so, and
        // `proxies` follows.
        assert_eq!(keys, ["live-restore", "log-driver", "log-opts", "proxies"]);
        assert_eq!(daemon["log-opts"]["max-size"], "10m");
        let proxies = daemon["proxies"].as_object().unwrap();
        assert_eq!(
            proxies.keys().collect::<Vec<_>>(),
            ["http-proxy", "https-proxy", "no-proxy"]
        );
        assert!(proxies["http-proxy"]
            .as_str()
            .unwrap()
            .contains(PASSWORD_ENCODED));
        let no_proxy: Vec<&str> = proxies["no-proxy"].as_str().unwrap().split(',').collect();
        // `registry.corp.example` is covered by `.corp.example`.
        for entry in [".corp.example", "10.0.0.0/8", "localhost"] {
            assert!(no_proxy.contains(&entry), "{no_proxy:?}");
        }
        let redacted = outputs["daemon_json_redacted"].as_str().unwrap();
        assert!(!redacted.contains(PASSWORD_ENCODED), "{redacted}");
        assert!(redacted.contains("svc-docker:***@proxy.corp.example:3128"));
    });
}

/// The Bottlerocket example: the user data parses with the `toml` crate
/// into `settings.network` with `https-proxy` alone and `no-proxy` as a list
/// holding the EKS entries (instance metadata, API server, VPC), and the CA
/// as a trusted `settings.pki` bundle; the `apiclient` command carries the
/// same settings as JSON; no twin holds the password.
#[test]
fn bottlerocket_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_bottlerocket");
        let user_data: toml::Table =
            toml::from_str(outputs["user_data"].as_str().unwrap()).unwrap();
        let settings = serde_json::to_value(&user_data["settings"]).unwrap();
        let network = settings["network"].as_object().unwrap();
        assert_eq!(
            network.keys().collect::<Vec<_>>(),
            ["https-proxy", "no-proxy"]
        );
        assert!(network["https-proxy"]
            .as_str()
            .unwrap()
            .contains(PASSWORD_ENCODED));
        let no_proxy: Vec<&str> = network["no-proxy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        for entry in [
            "169.254.169.254",
            "0123456789abcdef0123456789abcdef.gr7.eu-west-1.eks.amazonaws.com",
            "10.0.0.0/16",
            "172.20.0.0/16",
            ".internal",
        ] {
            assert!(no_proxy.contains(&entry), "{no_proxy:?}");
        }
        let pem = &settings["pki"]["clusterproxy-proxy-ca"];
        assert_eq!(pem["trusted"], true);
        let ca = base64::engine::general_purpose::STANDARD
            .decode(pem["data"].as_str().unwrap())
            .unwrap();
        assert!(ca.starts_with(b"-----BEGIN CERTIFICATE-----\n"));
        let command = outputs["apiclient_command_redacted"].as_str().unwrap();
        let json = command
            .strip_prefix("apiclient set --json '")
            .and_then(|rest| rest.strip_suffix('\''))
            .unwrap();
        let apiclient: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            apiclient["settings"]["network"]["no-proxy"],
            network["no-proxy"]
        );
        for twin in ["user_data_redacted", "apiclient_command_redacted"] {
            let text = outputs[twin].as_str().unwrap();
            assert!(!text.contains(PASSWORD_ENCODED), "{twin}: {text}");
            assert!(
                text.contains("svc-eks:***@proxy.corp.example:3128"),
                "{twin}"
            );
        }
    });
}

/// What Docker or Bottlerocket would not read as meant is an error on its
/// attribute, never rendered: settings that are no JSON object or already
/// hold `proxies`, a CA for `daemon.json`; a second proxy for Bottlerocket.
#[test]
fn docker_daemon_and_bottlerocket_bad_input_is_a_diagnostic() {
    let cases: Vec<(&str, &str, &str, Option<&str>)> = vec![
        (
            r#"data "clusterproxy_docker_daemon" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  daemon_settings = "{\"debug\": tru"
}"#,
            "Daemon settings are not JSON",
            "daemon_settings",
            None,
        ),
        (
            r#"data "clusterproxy_docker_daemon" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  daemon_settings = jsonencode(["debug"])
}"#,
            "Daemon settings are not a JSON object",
            "daemon_settings",
            None,
        ),
        (
            r#"data "clusterproxy_docker_daemon" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  daemon_settings = jsonencode({ proxies = { "no-proxy" = "a.example" } })
}"#,
            "Daemon settings already hold proxies",
            "daemon_settings",
            None,
        ),
        (
            r#"data "clusterproxy_docker_daemon" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  trusted_ca = file("${path.module}/proxy-ca.pem")
}"#,
            "daemon.json has no place for a proxy CA",
            "trusted_ca",
            None,
        ),
        (
            r#"data "clusterproxy_bottlerocket" "x" {
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3129"
}"#,
            "Bottlerocket has no http-proxy setting",
            "http_proxy",
            None,
        ),
    ];
    let ca = crate::examples::ca_certificate(&["proxy-ca.corp.example"]);
    for_each_terraform_rendering(|tf| {
        expect_bad_inputs(tf, &[("proxy-ca.pem", ca.as_str())], None, &cases);
    });
}
