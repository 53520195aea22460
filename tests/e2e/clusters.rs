//! End-to-end tests of the platform data sources (OpenShift, EKS Anywhere,
//! Kyverno, Helm values) with real Terraform 1.11 and 1.0.3: each docs
//! example passes the full cycle, rendered outputs parse back to the intended
//! values, the proxy password never shows in CLI output or trace logs, and
//! each platform rule is a diagnostic on the attribute at fault.

use crate::cycle::{run_cycle, Capability, Cycle};
use crate::diagnostics::expect_bad_inputs;
use crate::examples::{
    apply_data_source_example, ca_certificate, EXAMPLE_PASSWORD_ENCODED as PASSWORD_ENCODED,
};
use crate::harness::{for_each_terraform_rendering, for_each_terraform_with, Workdir};
use clusterproxy::domain::render::kyverno::evaluate;
use serde_json::{json, Value};

fn yaml(text: &Value) -> Value {
    serde_yaml_ng::from_str(text.as_str().expect("a string output")).expect("valid YAML")
}

#[test]
fn openshift_proxy_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_openshift_proxy");
        let install = yaml(&outputs["install_config"]);
        let http = install["proxy"]["httpProxy"].as_str().unwrap();
        assert_eq!(
            http,
            format!("http://svc-ocp:{PASSWORD_ENCODED}@proxy.corp.example:3128")
        );
        assert!(install["additionalTrustBundle"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----\n"));
        let no_proxy = install["proxy"]["noProxy"].as_str().unwrap();
        // registry.corp.example is covered by .corp.example for every client.
        assert!(
            no_proxy.starts_with("cluster.local,.cluster.local,.corp.example,localhost,.svc,10.0.0.0/16,10.128.0.0/14,"),
            "{no_proxy}"
        );
        assert!(!no_proxy.contains(' '));

        let proxy = yaml(&outputs["proxy_redacted"]);
        assert_eq!(proxy["apiVersion"], "config.openshift.io/v1");
        assert_eq!(proxy["kind"], "Proxy");
        assert_eq!(proxy["metadata"]["name"], "cluster");
        assert_eq!(
            proxy["spec"]["httpProxy"],
            "http://svc-ocp:***@proxy.corp.example:3128"
        );
        assert_eq!(proxy["spec"]["noProxy"], no_proxy);
        assert_eq!(
            proxy["spec"]["readinessEndpoints"],
            json!(["https://quay.io/"])
        );
        assert_eq!(proxy["spec"]["trustedCA"]["name"], "user-ca-bundle");

        let ca = yaml(&outputs["ca_config_map"]);
        assert_eq!(
            ca["metadata"],
            json!({"name": "user-ca-bundle", "namespace": "openshift-config"})
        );
        assert_eq!(
            ca["data"]["ca-bundle.crt"],
            install["additionalTrustBundle"]
        );

        let status: Vec<&str> = outputs["status_no_proxy"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut sorted = status.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(status, sorted, "a sorted set");
        for entry in [
            ".cluster.local",
            ".eu-west-1.compute.internal",
            "10.0.0.0/16",
            "10.128.0.0/14",
            "169.254.169.254",
            "172.30.0.0/16",
            "api-int.ocp.corp.example",
            ".corp.example",
        ] {
            assert!(status.contains(&entry), "{entry} missing from {status:?}");
        }
    });
}

#[test]
fn eksa_proxy_config_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_eksa_proxy_config");
        let spec = yaml(&outputs["cluster_spec"]);
        let proxy = &spec["spec"]["proxyConfiguration"];
        assert_eq!(
            proxy["httpsProxy"],
            format!("http://svc-eksa:{PASSWORD_ENCODED}@proxy.corp.example:3128")
        );
        let redacted = &outputs["proxy_configuration"];
        assert_eq!(
            redacted["http_proxy"],
            "http://svc-eksa:***@proxy.corp.example:3128"
        );
        assert_eq!(redacted["no_proxy"], proxy["noProxy"]);
        let node = outputs["node_no_proxy"].as_array().unwrap();
        assert_eq!(node[0], "192.168.0.0/16");
        assert_eq!(node[1], "10.96.0.0/12");
        assert_eq!(node.last().unwrap(), "10.20.30.40");
    });
}

/// A pod in `namespace` as the MutatingPolicy `policy` admits it, evaluated
/// by a real CEL implementation: `None` when the policy leaves it alone.
fn admitted(policy: &Value, namespace: &str, annotations: Value) -> Option<Value> {
    let pod = json!({
        "metadata": {"name": "app", "annotations": annotations},
        "spec": {"containers": [{"name": "app", "image": "app:1"}]},
    });
    evaluate::mutate(policy, namespace, &pod).unwrap()
}

#[test]
fn kyverno_policy_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_kyverno_policy");
        // The default: Kyverno 1.19's MutatingPolicy, its JSON Patch evaluated on a pod.
        let policy = yaml(&outputs["policy"]);
        assert_eq!(policy["apiVersion"], "policies.kyverno.io/v1");
        assert_eq!(policy["kind"], "MutatingPolicy");
        let pod = admitted(&policy, "default", json!({})).expect("mutated");
        let container = &pod["spec"]["containers"][0];
        let env = container["env"].as_array().unwrap();
        assert_eq!(env[0]["name"], "HTTP_PROXY");
        assert_eq!(
            env[0]["value"],
            format!("http://svc-apps:{PASSWORD_ENCODED}@proxy.corp.example:3128")
        );
        assert!(env.iter().any(|e| e["name"] == "SSL_CERT_FILE"));
        assert_eq!(
            container["volumeMounts"][0]["mountPath"],
            "/etc/clusterproxy/ca"
        );
        assert_eq!(admitted(&policy, "flux-system", json!({})), None);
        assert_eq!(
            admitted(
                &policy,
                "default",
                json!({"corp.example/no-proxy-env": "true"})
            ),
            None
        );
        let redacted = outputs["policy_redacted"].as_str().unwrap();
        assert!(redacted.contains("http://svc-apps:***@proxy.corp.example:3128"));
        // The GeneratingPolicy keeps the CA ConfigMap in every namespace,
        // those that exist included.
        let generating = yaml(&outputs["generating_policy"]);
        assert_eq!(generating["kind"], "GeneratingPolicy");
        assert_eq!(
            generating["spec"]["evaluation"]["generateExisting"]["enabled"],
            true
        );
        let namespace = json!({"metadata": {"name": "team-a"}});
        let generated = evaluate::generate(&generating, 19, &namespace, &[])
            .unwrap()
            .unwrap();
        assert_eq!(generated[0].1["kind"], "ConfigMap");
        // With credentials_secret: the env reads the Secret, which the
        // GeneratingPolicy clones from `platform`; no credential in either.
        let text = outputs["policy_from_secret"].as_str().unwrap();
        assert!(
            !text.contains("svc-apps") && !text.contains(PASSWORD_ENCODED),
            "{text}"
        );
        let pod = admitted(&yaml(&outputs["policy_from_secret"]), "default", json!({})).unwrap();
        let env = pod["spec"]["containers"][0]["env"].as_array().unwrap();
        assert_eq!(
            env[0],
            json!({"name": "HTTP_PROXY", "valueFrom": {"secretKeyRef": {"name": "proxy-credentials", "key": "HTTP_PROXY"}}})
        );
        assert_eq!(env[4]["name"], "NO_PROXY");
        assert!(env[4]["value"]
            .as_str()
            .unwrap()
            .contains("registry.corp.example"));
        let source = json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "proxy-credentials", "namespace": "platform"},
        });
        let generating = yaml(&outputs["generating_policy_from_secret"]);
        let cloned = evaluate::generate(&generating, 19, &namespace, std::slice::from_ref(&source));
        assert_eq!(cloned, Ok(Some(vec![("team-a".to_owned(), source)])));
        let secret = yaml(&outputs["credentials_secret_redacted"]);
        assert_eq!(
            secret["metadata"],
            json!({"name": "proxy-credentials", "namespace": "platform"})
        );
        // kyverno_version = "1.16": the ClusterPolicy, with the
        // per-rule `generateExisting` of 1.13, not the deprecated policy-wide one.
        let policy = yaml(&outputs["cluster_policy"]);
        assert_eq!(policy["apiVersion"], "kyverno.io/v1");
        assert_eq!(policy["kind"], "ClusterPolicy");
        let rules = policy["spec"]["rules"].as_array().unwrap();
        assert_eq!(rules[0]["generate"]["kind"], "ConfigMap");
        assert_eq!(rules[0]["generate"]["generateExisting"], true);
        assert_eq!(policy["spec"].get("generateExisting"), None);
        assert_eq!(
            rules[1]["exclude"]["any"][0]["resources"]["namespaces"],
            json!(["kube-system"])
        );
        let env = &rules[1]["mutate"]["patchStrategicMerge"]["spec"]["containers"][0]["env"];
        assert_eq!(env[0]["value"], "http://proxy.corp.example:3128");
    });
}

/// `render("kyverno_policy", ...)`: the MutatingPolicy by default (its
/// JSON Patch evaluated on a pod), the ClusterPolicy with
/// `kyverno_version = "1.16"`; a version older than supported is an error
/// on `options` naming the attribute.
#[test]
fn kyverno_policy_through_the_render_function() {
    let config = |options: &str| {
        format!(
            r#"
locals {{
  settings = {{ http_proxy = "http://proxy.corp.example:3128", no_proxy = ["registry.corp.example"] }}
}}

output "default" {{
  value = provider::clusterproxy::render("kyverno_policy", local.settings, {{}}).policy_yaml
}}

output "chosen" {{
  value = provider::clusterproxy::render("kyverno_policy", local.settings, {options}).policy_yaml
}}
"#
        )
    };
    for_each_terraform_with(Capability::Functions, |tf| {
        let work = Workdir::with_provider(tf, &config(r#"{ kyverno_version = "1.16" }"#));
        let outputs = run_cycle(&work, &Cycle::default());
        let policy = yaml(&outputs["default"]);
        assert_eq!(policy["kind"], "MutatingPolicy");
        let pod = admitted(&policy, "default", json!({})).expect("mutated");
        let env = &pod["spec"]["containers"][0]["env"];
        assert_eq!(
            env[0],
            json!({"name": "HTTP_PROXY", "value": "http://proxy.corp.example:3128"})
        );
        assert_eq!(yaml(&outputs["chosen"])["kind"], "ClusterPolicy");
        work.write_file("main.tf", &config(r#"{ kyverno_version = "1.12" }"#));
        let reported = work.expect_diagnostic_at(
            &["plan"],
            "Invalid value for \"options\" parameter",
            "value",
        );
        assert!(
            reported
                .text()
                .contains("kyverno_version: Unsupported Kyverno version"),
            "{}",
            reported.text()
        );
    });
}

#[test]
fn helm_values_example() {
    for_each_terraform_rendering(|tf| {
        let outputs = apply_data_source_example(tf, "clusterproxy_helm_values");
        let cert_manager = yaml(&outputs["cert_manager"]);
        assert_eq!(
            cert_manager["https_proxy"],
            format!("http://svc-charts:{PASSWORD_ENCODED}@proxy.corp.example:3128")
        );
        // `clients = ["go"]` lets the merge drop 10.96.0.1 as covered by the
        // service CIDR; cert-manager's values keep it.
        let list: Vec<&str> = cert_manager["no_proxy"]
            .as_str()
            .unwrap()
            .split(',')
            .collect();
        assert!(list.contains(&"10.96.0.1"), "{list:?}");
        // The CA: cert-manager mounts the ConfigMap and points SSL_CERT_FILE at it.
        assert_eq!(cert_manager["volumes"][0]["configMap"]["name"], "proxy-ca");
        let mount = cert_manager["volumeMounts"][0]["mountPath"]
            .as_str()
            .unwrap();
        assert_eq!(cert_manager["extraEnv"][0]["name"], "SSL_CERT_FILE");
        assert_eq!(
            cert_manager["extraEnv"][0]["value"],
            format!("{mount}/ca.crt")
        );
        let ca = yaml(&outputs["ca_config_map"]);
        assert_eq!(
            ca["metadata"],
            json!({"name": "proxy-ca", "namespace": "cert-manager"})
        );
        assert!(ca["data"]["ca.crt"]
            .as_str()
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----\n"));
        // With credentials_secret: cert-manager's and the extraEnv values
        // read the Secret and hold no credential; the Secret's data does.
        let with_secret = yaml(&outputs["cert_manager_from_secret"]);
        assert!(with_secret.get("https_proxy").is_none(), "{with_secret}");
        assert_eq!(
            with_secret["extraEnv"],
            json!([
                {"name": "HTTP_PROXY", "valueFrom": {"secretKeyRef": {"name": "proxy-credentials", "key": "HTTP_PROXY"}}},
                {"name": "HTTPS_PROXY", "valueFrom": {"secretKeyRef": {"name": "proxy-credentials", "key": "HTTPS_PROXY"}}},
            ])
        );
        assert_eq!(with_secret["no_proxy"], cert_manager["no_proxy"]);
        for name in ["cert_manager_from_secret", "extra_env_from_secret"] {
            let text = outputs[name].as_str().unwrap();
            assert!(
                !text.contains("svc-charts") && !text.contains(PASSWORD_ENCODED),
                "{text}"
            );
        }
        assert_eq!(
            outputs["credentials_secret_data"]["HTTPS_PROXY"],
            format!("http://svc-charts:{PASSWORD_ENCODED}@proxy.corp.example:3128")
        );
        let global = yaml(&outputs["giantswarm_global_redacted"]);
        assert_eq!(global["global"]["connectivity"]["proxy"]["enabled"], true);
        let cluster = yaml(&outputs["giantswarm_cluster_redacted"]);
        assert_eq!(
            cluster["cluster"]["proxy"]["http"],
            "http://svc-charts:***@proxy.corp.example:3128"
        );
        let global = yaml(&outputs["global_proxy_redacted"]);
        assert_eq!(
            global["global"]["proxy"],
            "http://svc-charts:***@proxy.corp.example:3128"
        );
        let env = yaml(&outputs["extra_env_redacted"]);
        assert_eq!(env["extraEnv"][4]["name"], "NO_PROXY");
    });
}

/// Each platform rule is an error on the attribute that holds the value.
#[test]
fn platform_rules_are_diagnostics() {
    let ca = ca_certificate(&["proxy-ca.corp.example"]);
    let cases: Vec<(&str, &str, &str, Option<&str>)> = vec![
        (
            r#"data "clusterproxy_openshift_proxy" "x" {
  http_proxy  = "https://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3128"
}"#,
            "Proxy scheme OpenShift rejects",
            "http_proxy",
            None,
        ),
        (
            r#"data "clusterproxy_openshift_proxy" "x" {
  http_proxy = "http://10.128.4.4:3128"
  pod_cidrs  = ["10.128.0.0/14"]
}"#,
            "Proxy inside the cluster",
            "http_proxy",
            Some("cluster (pod) networks"),
        ),
        (
            r#"data "clusterproxy_openshift_proxy" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  extra      = ["ok.corp.example", "registry.corp.example:5000"]
}"#,
            "noProxy entry OpenShift rejects",
            "extra",
            Some("registry.corp.example:5000"),
        ),
        (
            r#"data "clusterproxy_openshift_proxy" "x" {
  http_proxy          = "http://proxy.corp.example:3128"
  readiness_endpoints = ["quay.io"]
}"#,
            "Invalid readiness endpoint",
            "readiness_endpoints",
            None,
        ),
        (
            r#"data "clusterproxy_openshift_proxy" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  aws_region = "eu-west-1"
}"#,
            "aws_region without cloud",
            "aws_region",
            None,
        ),
        (
            r#"data "clusterproxy_eksa_proxy_config" "x" {
  https_proxy = "http://proxy.corp.example:3128"
}"#,
            "EKS Anywhere needs both proxies",
            "data \"clusterproxy_eksa_proxy_config\" \"x\" {",
            Some("httpProxy"),
        ),
        (
            r#"data "clusterproxy_eksa_proxy_config" "x" {
  http_proxy = "http://proxy.corp.example:3128"
  trusted_ca = file("${path.module}/ca.pem")
}"#,
            "EKS Anywhere has no place for a proxy CA",
            "trusted_ca",
            None,
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy         = "http://proxy.corp.example:3128"
  opt_out_annotation = "corp.example/no proxy"
}"#,
            "Invalid annotation key",
            "opt_out_annotation",
            None,
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  kyverno_version = "latest"
}"#,
            "Invalid Kyverno version",
            "kyverno_version",
            Some("latest"),
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy      = "http://proxy.corp.example:3128"
  kyverno_version = "v1.12.4"
}"#,
            "Unsupported Kyverno version",
            "kyverno_version",
            Some("1.13"),
        ),
        (
            r#"data "clusterproxy_kyverno_policy" "x" {
  http_proxy          = "http://proxy.corp.example:3128"
  excluded_namespaces = ["kube-system", "Flux"]
}"#,
            "Invalid Kubernetes name",
            "excluded_namespaces",
            Some("Flux"),
        ),
        (
            r#"data "clusterproxy_helm_values" "x" {
  http_proxy    = "http://proxy.corp.example:3128"
  service_cidrs = ["10.96.0.0/12"]
  namespace     = "Cert_Manager"
}"#,
            "Invalid Kubernetes name",
            "namespace",
            Some("Cert_Manager"),
        ),
    ];
    for_each_terraform_rendering(|tf| {
        expect_bad_inputs(tf, &[("ca.pem", &ca)], None, &cases);
        // cert-manager without service_cidrs: a warning, the plan goes on.
        let config = r#"data "clusterproxy_helm_values" "x" {
  http_proxy = "http://proxy.corp.example:3128"
}"#;
        let work = Workdir::with_provider(tf, config);
        work.expect_diagnostic(
            &["plan"],
            "warning",
            "cert-manager needs the kubernetes ClusterIP",
            "data \"clusterproxy_helm_values\" \"x\" {",
        );
    });
}

/// The OpenShift importer's round trip: the configuration that matches the
/// artifact (the cluster Proxy with its CA ConfigMap; an install-config)
/// creates a profile, and importing the artifact, by CLI and (>= 1.5) by
/// import block, yields exactly that state and an empty plan.
#[test]
fn openshift_import_matches_its_configuration() {
    let root = env!("CARGO_MANIFEST_DIR");
    let ca = std::fs::read_to_string(format!("{root}/tests/fixtures/import/aks/trusted-ca.pem"))
        .unwrap();
    let cases = [
        (
            "proxy-cluster.yaml",
            r#"name        = "openshift"
  http_proxy  = "http://proxy.corp.example:3128"
  username    = "svc-ocp"
  password    = var.proxy_password
  no_proxy    = [".corp.example", "registry.corp.example"]
  trusted_ca  = file("${path.module}/ca.pem")"#,
            "\"s3cr@t\"",
        ),
        (
            "install-config.yaml",
            r#"name        = "ocp-prod"
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3129"
  password    = var.proxy_password
  no_proxy    = [".corp.example", "10.20.0.0/16"]
  trusted_ca  = file("${path.module}/ca.pem")"#,
            "null",
        ),
    ];
    for_each_terraform_rendering(|tf| {
        for (file, attributes, password) in &cases {
            let main = format!(
                "variable \"proxy_password\" {{\n  type      = string\n  sensitive = true\n  default   = null\n}}\n\nresource \"clusterproxy_profile\" \"imported\" {{\n  {attributes}\n}}\n"
            );
            let work = Workdir::with_provider(tf, &main);
            work.write_file("test.tfvars", &format!("proxy_password = {password}\n"));
            work.write_file("ca.pem", &ca);
            run_cycle(
                &work,
                &Cycle::importing(
                    "clusterproxy_profile.imported",
                    format!("openshift:{root}/tests/fixtures/import/openshift/{file}"),
                ),
            );
            for secret in ["s3cr@t", "s3cr%40t"] {
                work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], secret);
            }
        }
    });
}
