//! The data-source docs examples, applied through the whole cycle with a
//! password and a CA certificate that need care.

use serde_json::Value;

use std::path::Path;

use crate::cycle::{hcl_string, run_cycle, Cycle, Feature, DRIFT_CHECK};
use crate::harness::{example, for_each_terraform, Terraform, Workdir};

/// The proxy password of the data-source examples' tests: every character
/// that needs care (`%`, `"`, `\`, `$`, space).
pub const EXAMPLE_PASSWORD: &str = r#"p%40ss "w\rd" $HOME x"#;

/// [`EXAMPLE_PASSWORD`] percent-encoded, as it appears inside proxy URLs.
pub const EXAMPLE_PASSWORD_ENCODED: &str = "p%2540ss%20%22w%5Crd%22%20%24HOME%20x";

/// A fresh self-signed CA certificate as PEM, with `sans` as subjectAltNames.
pub fn ca_certificate(sans: &[&str]) -> String {
    let mut params =
        rcgen::CertificateParams::new(sans.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
            .unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().unwrap();
    params.self_signed(&key).unwrap().pem()
}

/// Applies the docs example of `data_source` through the whole cycle (known at
/// plan time, empty second plan, refresh-only, destroy), with
/// [`EXAMPLE_PASSWORD`] in a var file when the example reads `proxy_password`
/// and a fresh CA as `proxy-ca.pem` when it reads that file. Checks that plan
/// output and trace logs never show the password as is, percent-encoded or
/// as systemd writes it (`%` doubled), and returns the outputs.
pub fn apply_data_source_example(
    tf: &Terraform,
    data_source: &str,
) -> serde_json::Map<String, Value> {
    let (password, password_encoded) = (EXAMPLE_PASSWORD, EXAMPLE_PASSWORD_ENCODED);
    let config = example(&format!("data-sources/{data_source}/data-source.tf"));
    let work = Workdir::with_provider(tf, &config);
    if config.contains("proxy-ca.pem") {
        work.write_file("proxy-ca.pem", &ca_certificate(&["proxy-ca.corp.example"]));
    }
    let needs_password = config.contains("proxy_password");
    let cycle = if needs_password {
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(password)),
        );
        Cycle::with_vars()
    } else {
        Cycle::default()
    };
    let outputs = run_cycle(&work, &cycle);
    if needs_password {
        let in_dropins = password_encoded.replace('%', "%%");
        for secret in [password, password_encoded, &in_dropins] {
            work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], secret);
        }
    }
    outputs
}

/// What Terraform 1.0.3 runs instead of examples/secret-free-state, whose
/// write-only arguments need 1.11: the same profile with its password
/// stored, and the same data source fed from it.
const STORED_PASSWORD_CONFIG: &str = r#"
variable "proxy_password" {
  type      = string
  sensitive = true
}

resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-apps"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example", ".corp.example"]
}

data "clusterproxy_pod_env" "apps" {
  http_proxy         = clusterproxy_profile.corp.settings.http_proxy
  https_proxy        = clusterproxy_profile.corp.settings.https_proxy
  installation       = clusterproxy_profile.corp.settings.no_proxy
  pod_cidrs          = ["192.168.0.0/16"]
  service_cidrs      = ["10.96.0.0/12"]
  credentials_secret = "proxy-credentials"
}
"#;

/// examples/drift-check/drift-check.sh, the drift check every doc gives, on
/// every Terraform: after an apply of a profile and a data source it is
/// quiet (20 runs of 20 on 1.0.3; 1.11 and 1.15 run it 20 times on
/// examples/secret-free-state), where the exit-code recipe it replaces
/// pages on 1.15.x; a `moved` block's pending move is no drift; a failing
/// plan exits 1 with Terraform's error; a resource Terraform reports updated
/// or deleted outside it exits 2 naming it.
#[test]
fn drift_check_is_right_on_every_version() {
    for_each_terraform(|tf| {
        let version = tf.version_string();
        let work = Workdir::with_provider(tf, STORED_PASSWORD_CONFIG);
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(EXAMPLE_PASSWORD)),
        );
        let vars = ["-var-file=test.tfvars"];
        work.run_ok(&["apply", "-auto-approve", vars[0]]);

        // The recipe the docs gave before: `-detailed-exitcode` says 2
        // ("No changes") on 1.15.x for any configuration with a data source.
        let exit_code = work
            .run(&["plan", "-refresh-only", "-detailed-exitcode", vars[0]])
            .code;
        let expected = if tf.refresh_only_exit_code_is_reliable() {
            0
        } else {
            2
        };
        assert_eq!(exit_code, expected, "refresh-only exit code on {version}");

        let runs = if tf.supports(Feature::WriteOnly) {
            1
        } else {
            20
        };
        for _ in 0..runs {
            work.assert_drift_check_quiet(&vars);
        }

        if tf.supports(Feature::WriteOnly) && !tf.sorts_sensitive_paths() {
            // examples/secret-free-state with a sensitive password variable:
            // two sensitive paths, which this Terraform orders at random, so
            // its refresh-only exit code flips; the drift check holds.
            let main = example("secret-free-state/main.tf").replace(
                "  ephemeral = true\n",
                "  ephemeral = true\n  sensitive = true\n",
            );
            let sensitive = Workdir::with_provider(tf, &main);
            sensitive.write_file(
                "test.tfvars",
                &format!("proxy_password = {}\n", hcl_string(EXAMPLE_PASSWORD)),
            );
            sensitive.run_ok(&["apply", "-auto-approve", vars[0]]);
            for _ in 0..20 {
                sensitive.assert_drift_check_quiet(&vars);
            }
        }

        let failed = work.drift_check(&["-var=undeclared=1"]);
        assert!(
            failed.code == 1 && failed.stderr.contains("undeclared variable"),
            "a failing plan on {version}: {failed:?}"
        );

        if !tf.supports(Feature::MovedBlock) {
            return;
        }
        // Terraform reports the pending move as drift with the action
        // `move`: nothing changed outside it.
        let moved = STORED_PASSWORD_CONFIG
            .replace("\"corp\" {", "\"renamed\" {")
            .replace(
                "clusterproxy_profile.corp.",
                "clusterproxy_profile.renamed.",
            );
        work.write_file(
            "main.tf",
            &format!("{moved}\nmoved {{\n  from = clusterproxy_profile.corp\n  to   = clusterproxy_profile.renamed\n}}\n"),
        );
        let plan = work
            .run_ok(&["plan", "-refresh-only", "-json", vars[0]])
            .stdout;
        let drift: Vec<serde_json::Value> = plan
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|message| message["type"] == "resource_drift")
            .collect();
        assert_eq!(drift.len(), 1, "{plan}");
        assert_eq!(drift[0]["change"]["action"], "move");
        work.assert_drift_check_quiet(&vars);

        // Updated and deleted outside Terraform: the two other actions
        // Terraform reports as drift (`driftedResources`,
        // internal/terraform/context_plan.go), in this version's own
        // message, replayed by a stand-in for Terraform.
        let mut replayed = String::new();
        for action in ["update", "delete"] {
            let mut message = drift[0].clone();
            message["change"]["action"] = action.into();
            replayed.push_str(&format!("{message}\n"));
        }
        let replay = work.write_file("plan.jsonl", &replayed);
        let stand_in = work.write_file(
            "terraform-replay",
            &format!("#!/bin/sh\ncat {}\n", replay.display()),
        );
        std::fs::set_permissions(
            &stand_in,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let found = work.drift_check_using(&stand_in, &[]);
        assert_eq!(
            (found.code, found.stdout.as_str()),
            (
                2,
                "drifted: clusterproxy_profile.renamed (update)\ndrifted: clusterproxy_profile.renamed (delete)\n"
            ),
            "{found:?}"
        );
    });
}

/// The drift check every doc gives, word for word: README, the
/// secret-free-state and day-2 guides show [`DRIFT_RECIPE`] (whose filter is
/// the one examples/drift-check/drift-check.sh runs) and link the 1.15
/// exit-code regression upstream; examples/secret-free-state names the
/// script. A doc that still gives the exit-code recipe fails here.
#[test]
fn every_doc_gives_the_same_drift_check() {
    let read = |path: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
            .unwrap_or_else(|err| panic!("read {path}: {err}"))
    };
    let filter = DRIFT_RECIPE
        .lines()
        .find_map(|line| line.strip_prefix("jq -r '"))
        .and_then(|rest| rest.split_once('\''))
        .and_then(|(filter, _)| filter.split(" | ").next())
        .expect("the recipe selects with a jq filter");
    assert!(
        read(DRIFT_CHECK).contains(filter),
        "{DRIFT_CHECK} runs another filter than the docs' {filter:?}"
    );
    for doc in [
        "README.md",
        "docs/guides/secret-free-state.md",
        "docs/guides/day-2.md",
    ] {
        let text = read(doc);
        for needle in [
            DRIFT_RECIPE,
            "https://github.com/hashicorp/terraform/commit/659d5e2218",
            "https://github.com/hashicorp/terraform/issues/37406",
        ] {
            assert!(text.contains(needle), "{doc} lacks {needle:?}");
        }
    }
    let example = read("examples/secret-free-state/main.tf");
    assert!(example.contains(DRIFT_CHECK) && example.contains("resource_drift"));
}

/// The drift check as the docs show it: examples/drift-check/drift-check.sh
/// in two lines.
const DRIFT_RECIPE: &str = r#"```shell
# examples/drift-check/drift-check.sh: exit 0 no drift, 2 drift (listed), 1 error
terraform plan -refresh-only -json -input=false > refresh.jsonl   # exit 1: error
jq -r 'select(.type == "resource_drift" and .change.action != "move") | .change.resource.addr' refresh.jsonl
```"#;
