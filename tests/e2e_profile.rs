//! End-to-end tests of `clusterproxy_profile` with real Terraform 1.11 and
//! 1.0.3: create, update in place, replace, import (CLI, and on >= 1.5 an
//! import block with -generate-config-out), state upgrade from version 0,
//! plan empty after each step, secrets absent from CLI output and trace logs,
//! and bad input as diagnostics that write no state.

#[path = "e2e/mod.rs"]
mod harness;

use harness::{
    example, for_each_terraform, hcl_string, run_cycle, Cycle, Feature, ImportStep, Workdir,
};

/// The password of tests/fixtures/import/systemd/messy.conf.
const PASSWORD: &str = "p@ss word";

fn fixture(path: &str) -> String {
    format!(
        "{}/tests/fixtures/import/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn workdir(tf: &harness::Terraform, main: &str) -> Workdir {
    let work = Workdir::from_files(
        tf,
        &[
            ("provider.tf", &example("provider/provider.tf")),
            ("main.tf", main),
        ],
    );
    work.write_file(
        "test.tfvars",
        &format!("proxy_password = {}\n", hcl_string(PASSWORD)),
    );
    work
}

fn revision(work: &Workdir) -> i64 {
    work.resource_values("clusterproxy_profile.corp")["revision"]
        .as_i64()
        .unwrap()
}

/// The docs example: full cycle, then import of the matching systemd drop-in
/// (CLI and import block), which yields exactly the created state.
#[test]
fn profile_example_cycle_and_import() {
    for_each_terraform(|tf| {
        let work = workdir(tf, &example("resources/clusterproxy_profile/resource.tf"));
        let outputs = run_cycle(
            &work,
            &Cycle {
                var_file: Some("test.tfvars".into()),
                import: Some(ImportStep {
                    address: "clusterproxy_profile.corp".into(),
                    id: format!("corp=systemd:{}", fixture("systemd/messy.conf")),
                }),
            },
        );
        assert_eq!(outputs["revision"], 1);
        let dropin = outputs["containerd_dropin"].as_str().unwrap();
        assert!(
            dropin.contains("HTTP_PROXY=http://svc-k8s:***@proxy.corp.example:3128"),
            "{dropin}"
        );
        assert!(
            dropin.contains(
                "NO_PROXY=cluster.local,.cluster.local,.corp.example,localhost,.svc,10.96.0.0/12,127.0.0.1,192.168.0.0/16\""
            ),
            "{dropin}"
        );
    });
}

/// One importable artifact per kind and the configuration that matches it.
struct ImportCase {
    /// `<kind>:<fixture path under tests/fixtures/import>`.
    source: &'static str,
    /// The profile's attributes as HCL lines (the password comes from a variable).
    attributes: &'static str,
    /// The password the artifact carries.
    password: Option<&'static str>,
}

const IMPORT_CASES: &[ImportCase] = &[
    ImportCase {
        source: "aks:aks/http-proxy-config.json",
        attributes: r#"name        = "aks"
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3129"
  no_proxy    = ["registry.corp.example"]
  trusted_ca  = file("${path.module}/ca.pem")"#,
        password: None,
    },
    ImportCase {
        source: "tkg:tkg/cluster-config.yaml",
        attributes: r#"name        = "tkg-prod-1"
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3128"
  username    = "svc-k8s"
  no_proxy    = ["registry.corp.example", "vcenter.corp.example"]"#,
        password: Some("s3cr@t"),
    },
    ImportCase {
        source: "capi:capi/kubeadm-config-template-base64.yaml",
        attributes: r#"name        = "capi-prod-md-0"
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3128"
  username    = "svc-k8s"
  no_proxy    = ["registry.corp.example"]"#,
        password: Some("pa$$"),
    },
    ImportCase {
        source: "giantswarm:giantswarm/cluster-values-secret.yaml",
        attributes: r#"name        = "gs-prod"
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3128"
  no_proxy    = ["10.96.0.0/12", "192.168.0.0/16", "registry.corp.example"]"#,
        password: None,
    },
];

/// Every other import kind (systemd is the docs example above): the
/// configuration that matches the artifact creates a profile; importing the
/// artifact, by CLI and by import block, yields exactly that state and an
/// empty plan.
#[test]
fn profile_import_of_every_kind_matches_its_configuration() {
    let ca = std::fs::read_to_string(fixture("aks/trusted-ca.pem")).unwrap();
    for_each_terraform(|tf| {
        for case in IMPORT_CASES {
            let (kind, path) = case.source.split_once(':').unwrap();
            let password = case.password.map_or("null".to_owned(), hcl_string);
            let main = format!(
                "variable \"proxy_password\" {{\n  type      = string\n  sensitive = true\n  default   = null\n}}\n\nresource \"clusterproxy_profile\" \"imported\" {{\n  {}\n  password    = var.proxy_password\n}}\n",
                case.attributes
            );
            let work = Workdir::from_files(
                tf,
                &[
                    ("provider.tf", &example("provider/provider.tf")),
                    ("main.tf", &main),
                ],
            );
            work.write_file("test.tfvars", &format!("proxy_password = {password}\n"));
            work.write_file("ca.pem", &ca);
            run_cycle(
                &work,
                &Cycle {
                    var_file: Some("test.tfvars".into()),
                    import: Some(ImportStep {
                        address: "clusterproxy_profile.imported".into(),
                        id: format!("{kind}:{}", fixture(path)),
                    }),
                },
            );
        }
    });
}

/// Update in place keeps the revision unless the effective settings change;
/// a new name replaces; secrets never show.
#[test]
fn profile_update_replace_and_secrets() {
    let config = |name: &str, description: &str, proxy: &str| {
        format!(
            r#"
variable "proxy_password" {{
  type      = string
  sensitive = true
}}

resource "clusterproxy_profile" "corp" {{
  name        = "{name}"
  description = "{description}"
  http_proxy  = "{proxy}"
  username    = "svc-k8s"
  password    = var.proxy_password
  no_proxy    = ["registry.corp.example", "Registry.Corp.Example."]
}}
"#
        )
    };
    for_each_terraform(|tf| {
        let work = workdir(tf, &config("corp", "one", "http://proxy.corp.example:3128"));
        let vars = ["-var-file=test.tfvars"];
        work.run_ok(&["apply", "-auto-approve", vars[0]]);
        assert_eq!(revision(&work), 1);
        let state = work.resource_values("clusterproxy_profile.corp");
        assert_eq!(
            state["normalized_no_proxy"],
            serde_json::json!(["registry.corp.example"])
        );
        assert_eq!(
            state["https_proxy_url"],
            "http://svc-k8s:p%40ss%20word@proxy.corp.example:3128"
        );

        work.write_file(
            "main.tf",
            &config("corp", "two", "http://proxy.corp.example:3128"),
        );
        let plan = work.run_ok(&["plan", vars[0]]);
        assert!(
            plan.stdout.contains("1 to change, 0 to destroy"),
            "{}",
            plan.stdout
        );
        work.run_ok(&["apply", "-auto-approve", vars[0]]);
        assert_eq!(
            revision(&work),
            1,
            "a description change keeps the revision"
        );
        work.assert_plan_empty(&vars);

        work.write_file(
            "main.tf",
            &config("corp", "two", "http://proxy2.corp.example:3128"),
        );
        for secret in [PASSWORD, "p%40ss%20word"] {
            work.assert_secret_absent(&["plan", vars[0]], secret);
        }
        work.run_ok(&["apply", "-auto-approve", vars[0]]);
        assert_eq!(revision(&work), 2, "a proxy change moves the revision");
        work.assert_plan_empty(&vars);
        work.assert_no_resource_changes(&["-refresh-only", vars[0]]);

        work.write_file(
            "main.tf",
            &config("corp-2", "two", "http://proxy2.corp.example:3128"),
        );
        let plan = work.run_ok(&["plan", vars[0]]);
        assert!(
            plan.stdout.contains("1 to add, 0 to change, 1 to destroy"),
            "{}",
            plan.stdout
        );
        work.run_ok(&["apply", "-auto-approve", vars[0]]);
        assert_eq!(revision(&work), 1);
        work.assert_plan_empty(&vars);
        work.run_ok(&["destroy", "-auto-approve", vars[0]]);
    });
}

/// State written with schema version 0 (no_proxy as one string, no computed
/// settings) is upgraded without loss: the matching configuration plans empty.
/// Inputs that are unknown at plan time (here a password that comes from
/// another resource) leave every computed attribute unknown in the plan, on
/// create and on update, so the applied values never contradict the plan;
/// the revision still moves only with the effective settings.
#[test]
fn profile_with_inputs_unknown_at_plan_time() {
    let config = |secret: &str| {
        format!(
            r#"
resource "terraform_data" "secret" {{
  input = "{secret}"
}}

resource "clusterproxy_profile" "corp" {{
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = terraform_data.secret.output
  no_proxy   = ["registry.corp.example"]
}}

data "clusterproxy_systemd_dropin" "prod" {{
  profile = clusterproxy_profile.corp.settings
}}

output "fingerprint" {{
  value = clusterproxy_profile.corp.fingerprint
}}
"#
        )
    };
    for_each_terraform(|tf| {
        if !tf.supports(Feature::TerraformData) {
            return;
        }
        let work = Workdir::from_files(
            tf,
            &[
                ("provider.tf", &example("provider/provider.tf")),
                ("main.tf", &config("first-secret")),
            ],
        );
        for (secret, expected_revision) in [("first-secret", 1), ("second-secret", 2)] {
            work.write_file("main.tf", &config(secret));
            work.run_ok(&["plan", "-out=tfplan"]);
            let plan: serde_json::Value =
                serde_json::from_str(&work.run_ok(&["show", "-json", "tfplan"]).stdout).unwrap();
            let profile = plan["resource_changes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["address"] == "clusterproxy_profile.corp")
                .unwrap();
            for attribute in ["fingerprint", "revision", "settings", "http_proxy_url"] {
                assert_eq!(
                    profile["change"]["after_unknown"][attribute],
                    serde_json::Value::Bool(true),
                    "{attribute} planned as known from an unknown password on {}",
                    tf.version_string()
                );
            }
            work.run_ok(&["apply", "-auto-approve", "tfplan"]);
            assert_eq!(revision(&work), expected_revision);
            work.assert_plan_empty(&[]);
        }
        work.run_ok(&["destroy", "-auto-approve"]);
    });
}

#[test]
fn profile_state_upgrade_from_version_0() {
    let config = r#"
variable "proxy_password" {
  type      = string
  sensitive = true
}

resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example", "10.0.0.0/8"]
}
"#;
    for_each_terraform(|tf| {
        let work = workdir(tf, config);
        let state = serde_json::json!({
            "version": 4,
            "terraform_version": "1.0.3",
            "serial": 1,
            "lineage": "5b0a4f0e-7c3e-4c21-9f6a-0d6c3f2b9a11",
            "outputs": {},
            "resources": [{
                "mode": "managed",
                "type": "clusterproxy_profile",
                "name": "corp",
                "provider": "provider[\"registry.terraform.io/clusterproxy/clusterproxy\"]",
                "instances": [{
                    "schema_version": 0,
                    "attributes": {
                        "id": "corp",
                        "name": "corp",
                        "description": null,
                        "http_proxy": "http://proxy.corp.example:3128",
                        "https_proxy": null,
                        "username": "svc-k8s",
                        "password": PASSWORD,
                        "no_proxy": "registry.corp.example, 10.0.0.0/8",
                        "trusted_ca": null
                    },
                    "sensitive_attributes": [[{"type": "get_attr", "value": "password"}]]
                }]
            }]
        });
        work.write_file("terraform.tfstate", &state.to_string());
        // The upgrade itself succeeds on plan; Terraform 1.0 then plans a
        // one-time in-place update that only marks the new computed
        // attributes sensitive.
        work.run_ok(&["plan", "-var-file=test.tfvars"]);
        work.run_ok(&["apply", "-auto-approve", "-var-file=test.tfvars"]);
        let upgraded = work.resource_values("clusterproxy_profile.corp");
        assert_eq!(
            upgraded["no_proxy"],
            serde_json::json!(["registry.corp.example", "10.0.0.0/8"])
        );
        assert_eq!(upgraded["password"], PASSWORD);
        assert_eq!(upgraded["revision"], 1);
        work.assert_plan_empty(&["-var-file=test.tfvars"]);
    });
}

/// Bad input for each attribute is a diagnostic on that attribute; a bad
/// import writes no state.
#[test]
fn profile_bad_input_is_a_diagnostic() {
    let cases = [
        ("name = \"x\"\n  http_proxy = \"ftp://proxy.corp.example\"", "unsupported proxy scheme", "http_proxy"),
        ("name = \"x\"\n  http_proxy = \"http://user:pw@proxy.corp.example:3128\"", "proxy URL contains credentials", "http_proxy"),
        ("name = \"x\"\n  https_proxy = \"http://proxy.corp.example:99999\"", "invalid proxy port", "https_proxy"),
        ("name = \"x\"\n  http_proxy = \"http://p:3128\"\n  password = var.proxy_password", "password without username", "password"),
        ("name = \"x\"\n  http_proxy = \"http://p:3128\"\n  no_proxy = [\"ok.example\", \"https://bad.example\"]", "URL given as a NO_PROXY entry", "no_proxy"),
        ("name = \"x\"\n  http_proxy = \"http://p:3128\"\n  trusted_ca = \"junk\"", "Empty CA bundle", "trusted_ca"),
        ("name = \"x\"\n  description = \"no proxy\"", "No proxy configured", "resource \"clusterproxy_profile\" \"x\" {"),
        ("name = \" \"\n  http_proxy = \"http://p:3128\"", "Invalid value", "name"),
    ];
    for_each_terraform(|tf| {
        for (body, summary, attribute) in cases {
            let config = format!("resource \"clusterproxy_profile\" \"x\" {{\n  {body}\n}}\n");
            let work = workdir(tf, &format!("{config}\nvariable \"proxy_password\" {{\n  type      = string\n  sensitive = true\n  default   = \"secret-only\"\n}}\n"));
            let run = work.expect_diagnostic_at(&["plan"], summary, attribute);
            let text = run.combined();
            assert!(
                !text.contains("secret-only") && !text.contains("panic"),
                "{text}"
            );
        }
        let work = workdir(tf, &example("resources/clusterproxy_profile/resource.tf"));
        for (id, needle) in [
            ("corp=nope:x", "Invalid import ID"),
            (
                "corp=systemd:[Service]",
                "No `Environment=` assignment found",
            ),
            (
                "corp=aks:{\"httpProxyConfig\": {\"httpProxy\": \"ftp://x\"}}",
                "Cannot import proxy settings",
            ),
        ] {
            work.expect_failure(
                &[
                    "import",
                    "-var-file=test.tfvars",
                    "clusterproxy_profile.corp",
                    id,
                ],
                needle,
            );
            assert!(
                !work.path().join("terraform.tfstate").exists()
                    || !std::fs::read_to_string(work.path().join("terraform.tfstate"))
                        .unwrap()
                        .contains("clusterproxy_profile"),
                "a failed import wrote state"
            );
        }
    });
}

/// The drift data source reads a node's drop-in and agrees with the profile
/// it was rendered from; its bad input is a diagnostic on `content`.
#[test]
fn artifact_settings_report_drift() {
    for_each_terraform(|tf| {
        let work = workdir(
            tf,
            &example("data-sources/clusterproxy_artifact_settings/data-source.tf"),
        );
        std::fs::copy(
            fixture("systemd/messy.conf"),
            work.path().join("http-proxy.conf"),
        )
        .unwrap();
        let outputs = run_cycle(
            &work,
            &Cycle {
                var_file: Some("test.tfvars".into()),
                import: None,
            },
        );
        assert_eq!(outputs["in_sync"], true);
        assert_eq!(
            outputs["dropped"][0],
            serde_json::json!({"entry": "localhost", "reason": "loopback, added for every cluster"})
        );
        // The artifact's password: as read, in its URL, and as the drop-in writes it.
        for secret in [PASSWORD, "p%40ss%20word", "p%%40ss%%20word"] {
            work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], secret);
        }
        let bad = "data \"clusterproxy_artifact_settings\" \"x\" {\n  kind    = \"systemd\"\n  content = \"[Service]\"\n}\n";
        let work = workdir(
            tf,
            &format!("{bad}\nvariable \"proxy_password\" {{\n  default = \"\"\n}}\n"),
        );
        work.expect_diagnostic_at(&["plan"], "No `Environment=` assignment found", "content");
    });
}
