//! The docs examples: every directory under examples/ is applied by an E2E
//! test (`every_example_directory_is_applied_by_an_e2e_test`). Every
//! data-source, function and resource example is applied by one test,
//! `every_example_is_applied`, so a new one needs no test of its own; the
//! renderers' tests apply theirs again through the whole cycle
//! (`apply_data_source_example`) with a password and a CA certificate that
//! need care, and check what they render. Also the drift check the docs give.

use serde_json::Value;

use std::path::Path;

use crate::cycle::{hcl_string, run_cycle, Capability, Cycle, DRIFT_CHECK};
use crate::harness::{example, for_each_terraform, import_fixture, Terraform, Workdir};

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

/// How many times a soak repetition runs: 20 in the soak tier (for what
/// goes wrong only now and then, such as Terraform 1.11's random order of
/// sensitive paths), else once ([`crate::tier::repetitions`]).
fn soak_runs() -> usize {
    crate::tier::repetitions(1, 20)
}

/// examples/drift-check/drift-check.sh, the drift check every doc gives, on
/// every Terraform: after an apply of a profile and a data source it is
/// quiet (on 1.0.3, and on examples/secret-free-state on 1.11 and 1.15: once,
/// 20 times each in the soak tier), where the exit-code recipe it replaces
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

        let runs = if tf.supports(Capability::WriteOnly) {
            1
        } else {
            soak_runs()
        };
        for _ in 0..runs {
            work.assert_drift_check_quiet(&vars);
        }

        if tf.supports(Capability::WriteOnly) && !tf.sorts_sensitive_paths() {
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
            for _ in 0..soak_runs() {
                sensitive.assert_drift_check_quiet(&vars);
            }
        }

        let failed = work.drift_check(&["-var=undeclared=1"]);
        assert!(
            failed.code == 1 && failed.stderr.contains("undeclared variable"),
            "a failing plan on {version}: {failed:?}"
        );

        if !tf.supports(Capability::MovedBlock) {
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

/// The drift check every doc gives, word for word: the secret-free-state
/// and day-2 guides show [`DRIFT_RECIPE`] (whose filter is the one
/// examples/drift-check/drift-check.sh runs) and link the 1.15 exit-code
/// regression upstream; README.md sends its readers to the day-2 guide for
/// it and gives no recipe of its own; examples/secret-free-state names the
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
    let readme = read("README.md");
    assert!(
        readme
            .lines()
            .any(|line| line.contains("](docs/guides/day-2.md)"))
            && readme.contains("nightly drift check")
            && !readme.contains("-detailed-exitcode"),
        "README.md links the day-2 guide for the drift check and gives no recipe of its own"
    );
    for doc in ["docs/guides/secret-free-state.md", "docs/guides/day-2.md"] {
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

/// The tfplugindocs directories every example of which is applied by
/// [`every_example_is_applied`], and the file that holds it: a new data
/// source's, function's or resource's example needs no test of its own.
const APPLIED_GENERICALLY: [(&str, &str); 3] = [
    ("data-sources", "data-source.tf"),
    ("functions", "function.tf"),
    ("resources", "resource.tf"),
];

/// The example directories that need more than [`every_example_is_applied`]
/// gives (a proxy, a fleet folder, a script, a guide), each with the module
/// of tests/e2e and the test that applies it.
const APPLIED_BY_THEIR_OWN_TEST: [(&str, &str, &str); 9] = [
    ("provider", "provider", "quick_start_example"),
    ("quickstart", "provider", "quickstart_example"),
    (
        "drift-check",
        "examples",
        "drift_check_is_right_on_every_version",
    ),
    ("secret-free-state", "render", "secret_free_state_example"),
    (
        "fleet-adoption",
        "fleet",
        "the_fleet_adoption_example_is_adopted_as_the_guide_says",
    ),
    (
        "ephemeral-resources/clusterproxy_proxy_check",
        "proxy_check",
        "rotation_gate_example_stops_a_refused_password",
    ),
    (
        "list-resources/clusterproxy_profile",
        "fleet",
        "the_list_resource_example_lists_the_fleet",
    ),
    (
        "actions/clusterproxy_proxy_check",
        "proxy_check",
        "action_gate_example_halts_the_roll_on_a_refused_password",
    ),
    (
        "fleet-lifecycle",
        "fleet_lifecycle",
        "a_changing_fleet_is_adopted_cluster_by_cluster",
    ),
];

/// The example directories under examples/, relative to it: those that hold
/// files, but not under another one (examples/fleet-adoption/clusters/ is
/// part of examples/fleet-adoption).
fn example_directories() -> Vec<String> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<String>) {
        let mut holds_files = false;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, found);
            } else {
                holds_files = true;
            }
        }
        if holds_files {
            found.push(dir.strip_prefix(root).unwrap().display().to_string());
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut found = Vec::new();
    walk(&root, &root, &mut found);
    found.sort();
    let tops: Vec<String> = found
        .iter()
        .filter(|dir| {
            !found
                .iter()
                .any(|other| dir.starts_with(&format!("{other}/")))
        })
        .cloned()
        .collect();
    tops
}

/// The examples [`every_example_is_applied`] applies: (directory under
/// examples/, its example file).
fn generic_examples() -> Vec<(String, &'static str)> {
    example_directories()
        .into_iter()
        .filter_map(|dir| {
            let (category, _) = dir.split_once('/')?;
            let (_, file) = APPLIED_GENERICALLY.iter().find(|(c, _)| *c == category)?;
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples")
                .join(&dir)
                .join(file)
                .is_file()
                .then_some((dir, *file))
        })
        .collect()
}

/// Every directory under examples/ is applied by an E2E test: by
/// [`every_example_is_applied`] (a tfplugindocs example of a data source,
/// function or resource), or by the test [`APPLIED_BY_THEIR_OWN_TEST`] names,
/// which exists and reads it.
#[test]
fn every_example_directory_is_applied_by_an_e2e_test() {
    let generic: Vec<String> = generic_examples().into_iter().map(|(d, _)| d).collect();
    let e2e = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e");
    let mut unapplied = Vec::new();
    for dir in example_directories() {
        if generic.contains(&dir) {
            continue;
        }
        let Some((_, module, test)) = APPLIED_BY_THEIR_OWN_TEST.iter().find(|(d, _, _)| *d == dir)
        else {
            unapplied.push(format!(
                "examples/{dir}: put its example where `every_example_is_applied` applies it ({}), or apply it in a test of tests/e2e and name that test in APPLIED_BY_THEIR_OWN_TEST (tests/e2e/examples.rs)",
                APPLIED_GENERICALLY
                    .iter()
                    .map(|(category, file)| format!("examples/{category}/<name>/{file}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        let source = std::fs::read_to_string(e2e.join(format!("{module}.rs"))).unwrap_or_default();
        if !source.contains(&format!("fn {test}(")) || !source.contains(dir.as_str()) {
            unapplied.push(format!(
                "examples/{dir}: tests/e2e/{module}.rs has no `fn {test}` that reads it: fix APPLIED_BY_THEIR_OWN_TEST (tests/e2e/examples.rs)"
            ));
        }
    }
    assert!(unapplied.is_empty(), "{}", unapplied.join("\n"));
}

/// The Terraform features an example's configuration uses, by the syntax
/// that needs them (comments left out): a provider function call, an
/// ephemeral variable or block, a write-only argument (`<name>_wo = ...`).
fn features_used(text: &str) -> Vec<Capability> {
    let code: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .collect();
    let uses = |test: &dyn Fn(&str) -> bool| code.iter().any(|line| test(line));
    let mut features = Vec::new();
    if uses(&|line| line.contains("provider::")) {
        features.push(Capability::Functions);
    }
    if uses(&|line| line.starts_with("ephemeral ")) {
        features.push(Capability::Ephemeral);
    }
    if uses(&|line| {
        line.split_once('=')
            .is_some_and(|(name, _)| name.trim_end().ends_with("_wo"))
    }) {
        features.push(Capability::WriteOnly);
    }
    features
}

/// The files an example reads beside it (`file("${path.module}/<name>")`).
fn files_read(text: &str) -> Vec<String> {
    text.split("${path.module}/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// What the test gives an example for a file it reads beside it: a fresh
/// CA certificate for `proxy-ca.pem`, the messy drop-in of the import
/// corpus for `http-proxy.conf`.
fn example_input(name: &str) -> Option<String> {
    match name {
        "proxy-ca.pem" => Some(ca_certificate(&["proxy-ca.corp.example"])),
        "http-proxy.conf" => {
            Some(std::fs::read_to_string(import_fixture("systemd/messy.conf")).unwrap())
        }
        _ => None,
    }
}

/// The module name of an example directory.
fn module_name(dir: &str) -> String {
    dir.replace(['/', '-'], "_")
}

/// Every data-source, function and resource example (`APPLIED_GENERICALLY`),
/// on every Terraform that has the features it uses, all as modules of one
/// working directory: [`EXAMPLE_PASSWORD`] as `proxy_password` and a fresh
/// CA as `proxy-ca.pem` for those that read them. Validate, plan, apply, an
/// empty plan, no drift, destroy; the plan and its trace log never hold the
/// password. Every output of every example holds a value; each one known at
/// plan time (all of them, but in an example whose data source reads a
/// resource it creates, which Terraform reads at apply) is what apply
/// gives.
#[test]
fn every_example_is_applied() {
    let examples = generic_examples();
    assert!(!examples.is_empty());
    for_each_terraform(|tf| {
        let version = tf.version_string();
        let work = Workdir::with_provider(tf, "");
        let mut main =
            "variable \"proxy_password\" {\n  type      = string\n  sensitive = true\n}\n"
                .to_owned();
        let mut tfvars = format!("proxy_password = {}\n", hcl_string(EXAMPLE_PASSWORD));
        let mut modules = Vec::new();
        for (dir, file) in &examples {
            let text = example(&format!("{dir}/{file}"));
            if !features_used(&text).iter().all(|f| tf.supports(*f)) {
                eprintln!(
                    "examples/{dir} not applied on Terraform {version}: it uses a newer feature"
                );
                continue;
            }
            let module = module_name(dir);
            let into = work.path().join(&module);
            std::fs::create_dir(&into).unwrap();
            std::fs::write(into.join(file), &text).unwrap();
            std::fs::write(
                into.join("versions.tf"),
                example(&format!("{dir}/versions.tf")),
            )
            .unwrap();
            for input in files_read(&text) {
                let content = example_input(&input).unwrap_or_else(|| {
                    panic!("examples/{dir} reads {input}: say what it holds in `example_input` (tests/e2e/examples.rs)")
                });
                std::fs::write(into.join(&input), content).unwrap();
            }
            // The password as the example declares it: a sensitive value
            // given to an ephemeral variable would be a second sensitive
            // path of its write-only argument, which Terraform 1.11 orders
            // at random (`Terraform::sorts_sensitive_paths`).
            let password = match (
                text.contains("variable \"proxy_password\""),
                features_used(&text).contains(&Capability::Ephemeral),
            ) {
                (false, _) => "",
                (true, false) => "\n  proxy_password = var.proxy_password",
                (true, true) => {
                    if !main.contains("proxy_password_ephemeral") {
                        main.push_str("\nvariable \"proxy_password_ephemeral\" {\n  type      = string\n  ephemeral = true\n}\n");
                        tfvars.push_str(&format!(
                            "proxy_password_ephemeral = {}\n",
                            hcl_string(EXAMPLE_PASSWORD)
                        ));
                    }
                    "\n  proxy_password = var.proxy_password_ephemeral"
                }
            };
            main.push_str(&format!(
                "\nmodule \"{module}\" {{\n  source = \"./{module}\"{password}\n}}\n\noutput \"{module}\" {{\n  value     = module.{module}\n  sensitive = true\n}}\n"
            ));
            modules.push(module);
        }
        work.write_file("main.tf", &main);
        work.write_file("test.tfvars", &tfvars);
        let vars = ["-var-file=test.tfvars"];
        // Records the local modules (it installs no provider).
        work.run_ok(&["get"]);
        work.run_ok(&["validate"]);
        let plan = work.saved_plan("tfplan", &vars);
        work.assert_known_at_plan_time("tfplan");
        // Ephemeral variables are given again when a saved plan is applied
        // (Terraform before 1.10 refuses variables with a saved plan).
        if main.contains("proxy_password_ephemeral") {
            work.run_ok(&["apply", "-auto-approve", vars[0], "tfplan"]);
        } else {
            work.run_ok(&["apply", "-auto-approve", "tfplan"]);
        }
        let outputs = work.outputs();
        // Modules a data source of which Terraform reads at apply.
        let deferred: Vec<String> = plan["resource_changes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| {
                c["mode"] == "data" && c["change"]["actions"] == serde_json::json!(["read"])
            })
            .filter_map(|c| c["module_address"].as_str())
            .map(|m| m.trim_start_matches("module.").to_owned())
            .collect();
        for module in &modules {
            let applied = outputs[module.as_str()].as_object().unwrap_or_else(|| {
                panic!(
                    "{module} gives no outputs on {version}: {}",
                    outputs[module.as_str()]
                )
            });
            assert!(!applied.is_empty(), "{module} has no output on {version}");
            for (name, value) in applied {
                assert!(
                    !value.is_null() && value != "" && value != &serde_json::json!([]),
                    "output {name} of {module} is empty on {version}: {value}"
                );
            }
            let change = &plan["output_changes"][module.as_str()];
            if deferred.contains(module) {
                continue;
            }
            assert_eq!(
                change["after_unknown"],
                Value::Bool(false),
                "{module}: outputs unknown at plan time on {version}: {change}"
            );
            assert_eq!(
                &change["after"],
                &outputs[module.as_str()],
                "{module}: the plan shows other outputs than apply gives on {version}"
            );
        }
        work.assert_plan_empty(&vars);
        work.assert_no_resource_changes(&crate::cycle::args_with(&["-refresh-only"], &vars));
        work.assert_no_drift(&vars);
        let in_dropins = EXAMPLE_PASSWORD_ENCODED.replace('%', "%%");
        for secret in [EXAMPLE_PASSWORD, EXAMPLE_PASSWORD_ENCODED, &in_dropins] {
            work.assert_secret_absent(&["plan", vars[0]], secret);
        }
        work.run_ok(&["destroy", "-auto-approve", vars[0]]);
    });
}
