//! End-to-end import with real Terraform, over the whole corpus: every
//! fixture of every registered kind (tests/fixtures/import/<kind>/, with the
//! cluster facts of its `.facts` file), imported by its ID on Terraform 1.11
//! and 1.0.3. A fixture the domain imports becomes a profile whose
//! configuration is built from that import: importing it plans no change
//! but the configured password (an `import` block, whose plan shows the
//! domain's import note, and `-generate-config-out` on 1.11; `terraform
//! import` on 1.0.3), and the next plan is empty. A fixture the domain
//! refuses is an error diagnostic that writes no state. A new importer and
//! its fixtures need no edit here. Also: the drift data source round trip,
//! what an import stores of a password, and bad import IDs (missing file,
//! FIFO, inline password...) as prompt diagnostics that write no state.

use std::collections::BTreeSet;

use clusterproxy::domain::import::{kinds, Imported};
use serde_json::{json, Value};

use crate::cycle::{hcl_literal, hcl_string, run_cycle, Capability, Cycle};
use crate::harness::for_each_terraform_rendering;
use crate::harness::{
    example, for_each_terraform, for_each_terraform_with, import_fixture, run_on, terraform_1_0,
    terraform_1_11, Terraform, Workdir,
};
use crate::import_corpus::{fixtures, Fixture};

/// One import of the corpus: a fixture with one of its facts, and what the
/// domain makes of it.
struct Case {
    fixture: Fixture,
    facts: String,
    /// The import, or the details of the findings that refuse it.
    imported: Result<Imported, Vec<String>>,
}

impl Case {
    /// The import ID Terraform is given.
    fn id(&self) -> String {
        self.fixture.import_id(&self.facts)
    }

    fn label(&self) -> String {
        format!(
            "{}/{} ({})",
            self.fixture.kind, self.fixture.file, self.facts
        )
    }
}

/// Every fixture of every registered kind, with each of its facts.
fn corpus() -> Vec<Case> {
    kinds()
        .iter()
        .flat_map(|kind| fixtures(kind))
        .flat_map(|fixture| {
            fixture.facts().into_iter().map(move |facts| Case {
                imported: fixture.import(&facts),
                fixture: fixture.clone(),
                facts,
            })
        })
        .collect()
}

/// Every registered import kind has a fixture the E2E import test imports
/// into a profile.
#[test]
fn every_import_kind_has_an_e2e_case() {
    let corpus = corpus();
    let missing: Vec<&str> = kinds()
        .iter()
        .filter(|kind| {
            !corpus
                .iter()
                .any(|case| case.fixture.kind == **kind && case.imported.is_ok())
        })
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "no E2E import case for {missing:?}: add a fixture that imports to a profile under tests/fixtures/import/<kind>/ (and run `make generate`)"
    );
}

/// The profile resource of an import: its address and its configuration,
/// built from what the domain imports, as a user writes it.
fn resource(address: &str, imported: &Imported) -> String {
    let input = imported.input();
    let name = address.split_once('.').unwrap().1;
    let mut lines = vec![
        format!("  name       = {}", hcl_string(&imported.name)),
        format!("  http_proxy = {}", hcl_literal(&json!(input.http_proxy))),
    ];
    if let Some(https) = &input.https_proxy {
        lines.push(format!("  https_proxy = {}", hcl_string(https)));
    }
    if let Some(username) = &input.username {
        lines.push(format!("  username   = {}", hcl_string(username)));
    }
    if input.password.is_some() {
        lines.push(format!(
            "  password   = var.passwords[{}]",
            hcl_string(address)
        ));
    }
    // An artifact whose every entry is cluster-specific leaves the list
    // empty, and a configuration then leaves `no_proxy` out, as the
    // import's state does.
    if !input.no_proxy.is_empty() {
        lines.push(format!(
            "  no_proxy   = {}",
            hcl_literal(&json!(input.no_proxy))
        ));
    }
    if let Some(ca) = &input.trusted_ca {
        lines.push(format!("  trusted_ca = {}", hcl_string(ca)));
    }
    format!(
        "resource \"clusterproxy_profile\" {name:?} {{\n{}\n}}\n",
        lines.join("\n")
    )
}

/// `text` with its whitespace runs collapsed to one space: Terraform wraps
/// long lines of its human output.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Asserts that the saved plan `plan_file` imports each of `imports`
/// (address, case) by its ID (where Terraform records it) with no change
/// but the configured password (an import stores none), and nothing else.
fn assert_imports_only(work: &Workdir, plan_file: &str, imports: &[(String, &Case)]) {
    let plan: Value =
        serde_json::from_str(&work.run_ok(&["show", "-json", plan_file]).stdout).unwrap();
    let changes = plan["resource_changes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        changes.len(),
        imports.len(),
        "{plan_file} on {}: {changes:#?}",
        work.tf.version_string()
    );
    for (address, case) in imports {
        let change = crate::plancheck::planned_change(&plan, address);
        let password = case.imported.as_ref().unwrap().password.is_some();
        let action = if password { "update" } else { "no-op" };
        assert_eq!(
            change["change"]["actions"],
            json!([action]),
            "{} on {}: {change:#}",
            case.label(),
            work.tf.version_string()
        );
        if work.tf.supports(Capability::ImportBlock) {
            assert_eq!(
                change["change"]["importing"],
                json!({ "id": case.id() }),
                "{}",
                case.label()
            );
        }
    }
}

/// Every fixture of every kind through Terraform's import: see the module
/// doc. All the corpus in one working directory, on Terraform 1.11 (import
/// blocks and `-generate-config-out`, which 1.15.5 has from the same 1.5)
/// and 1.0.3 (`terraform import` only).
#[test]
fn every_fixture_imports_as_the_domain_reads_it() {
    let corpus = corpus();
    let imports: Vec<(String, &Case)> = corpus
        .iter()
        .filter(|case| case.imported.is_ok())
        .enumerate()
        .map(|(n, case)| {
            (
                format!("clusterproxy_profile.{}_{n}", case.fixture.kind),
                case,
            )
        })
        .collect();
    let refused: Vec<&Case> = corpus
        .iter()
        .filter(|case| case.imported.is_err())
        .collect();
    let mut main =
        "variable \"passwords\" {\n  type      = map(string)\n  sensitive = true\n}\n\n".to_owned();
    let mut passwords = serde_json::Map::new();
    for (address, case) in &imports {
        let imported = case.imported.as_ref().unwrap();
        main.push_str(&resource(address, imported));
        if let Some(password) = &imported.password {
            passwords.insert(address.clone(), json!(password));
        }
    }
    let tfvars = format!("passwords = {}\n", hcl_literal(&Value::Object(passwords)));
    let blocks: String = imports
        .iter()
        .map(|(address, case)| {
            format!(
                "import {{\n  to = {address}\n  id = {}\n}}\n",
                hcl_string(&case.id())
            )
        })
        .collect();
    let vars = ["-var-file=test.tfvars"];
    run_on(&[terraform_1_11(), terraform_1_0()], |tf| {
        let version = tf.version_string();
        let work = Workdir::with_provider(tf, &main);
        work.write_file("test.tfvars", &tfvars);
        if tf.supports(Capability::ImportBlock) {
            work.write_file("import.tf", &blocks);
            let planned = work.run_ok(&["plan", "-json", "-out=import.tfplan", vars[0]]);
            // The import note of each, as the domain writes it (Terraform
            // shows two equal warnings once).
            let shown: BTreeSet<String> = planned
                .warnings(|s| s.starts_with("Imported proxy settings from "))
                .iter()
                .map(|d| flat(d["detail"].as_str().unwrap_or_default()))
                .collect();
            let notes: BTreeSet<String> = imports
                .iter()
                .map(|(_, case)| flat(&case.imported.as_ref().unwrap().note()))
                .collect();
            assert_eq!(shown, notes, "the import notes on {version}");
            assert_imports_only(&work, "import.tfplan", &imports);
            work.run_ok(&["apply", "import.tfplan"]);
            std::fs::remove_file(work.path().join("import.tf")).unwrap();
        } else {
            for (address, case) in &imports {
                let run = work.run_ok(&["import", vars[0], address, &case.id()]);
                let note = case.imported.as_ref().unwrap().note();
                let first = note.lines().next().unwrap_or_default();
                assert!(
                    flat(&run.combined()).contains(&flat(first)),
                    "{} on {version}: the note lacks {first:?}",
                    case.label()
                );
            }
            work.run_ok(&["plan", "-out=import.tfplan", vars[0]]);
            assert_imports_only(&work, "import.tfplan", &imports);
            work.run_ok(&["apply", "import.tfplan"]);
        }
        work.assert_plan_empty(&vars);

        if tf.supports(Capability::ImportBlock) {
            // The configuration Terraform writes itself, the password (which
            // it writes as `null # sensitive`) filled in.
            let generated = Workdir::from_files(
                tf,
                &[
                    ("provider.tf", &example("provider/provider.tf")),
                    ("import.tf", &blocks),
                ],
            );
            generated.run_ok(&["plan", "-generate-config-out=generated.tf"]);
            let text = std::fs::read_to_string(generated.path().join("generated.tf")).unwrap();
            generated.write_file("generated.tf", &fill_passwords(&text, &imports));
            generated.run_ok(&["plan", "-out=import.tfplan"]);
            assert_imports_only(&generated, "import.tfplan", &imports);
            generated.run_ok(&["apply", "import.tfplan"]);
            generated.assert_plan_empty(&[]);
        }

        // What the domain refuses is an error: from Terraform 1.5 all in one
        // plan, one import block each (a plan writes no state); before, each
        // by `terraform import`, which writes none.
        if tf.supports(Capability::ImportBlock) {
            let mut main = String::new();
            for (n, case) in refused.iter().enumerate() {
                main.push_str(&format!(
                    "resource \"clusterproxy_profile\" \"refused_{n}\" {{\n  name       = \"refused\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n}}\n\nimport {{\n  to = clusterproxy_profile.refused_{n}\n  id = {}\n}}\n",
                    hcl_string(&case.id())
                ));
            }
            let work = Workdir::with_provider(tf, &main);
            let planned = work.run(&["plan", "-json"]);
            assert_ne!(planned.code, 0, "{}", planned.combined());
            let errors: Vec<String> = planned.error_texts().iter().map(|t| flat(t)).collect();
            for case in &refused {
                for detail in case.imported.as_ref().unwrap_err() {
                    let detail = flat(detail);
                    assert!(
                        errors.iter().any(|e| e.contains(&detail)),
                        "{} on {version}: no error {detail:?} in {errors:#?}",
                        case.label()
                    );
                }
            }
        } else {
            let bad = profile_workdir(tf);
            for case in &refused {
                let details = case.imported.as_ref().unwrap_err();
                bad.expect_import_failure(
                    &vars,
                    "clusterproxy_profile.imported",
                    &case.id(),
                    &needle(&details[0]),
                );
            }
        }
    });
}

/// The first words of a refusal's detail, up to 40 characters (at least
/// one word): Terraform's human output starts the detail on a line of its
/// own, which it wraps only further on.
fn needle(detail: &str) -> String {
    let mut needle = String::new();
    for word in detail.split(' ') {
        if !needle.is_empty() && needle.len() + 1 + word.len() > 40 {
            break;
        }
        if !needle.is_empty() {
            needle.push(' ');
        }
        needle.push_str(word);
    }
    needle
}

/// The configuration `-generate-config-out` wrote, each resource's
/// `password = null # sensitive` replaced by its imported password (or
/// `null` when it has none).
fn fill_passwords(generated: &str, imports: &[(String, &Case)]) -> String {
    let mut address = String::new();
    generated
        .lines()
        .map(|line| {
            if let Some(rest) = line.strip_prefix("resource \"clusterproxy_profile\" \"") {
                address = format!("clusterproxy_profile.{}", rest.split('"').next().unwrap());
            }
            match line.trim_end().strip_suffix("= null # sensitive") {
                Some(head) if head.trim() == "password" => {
                    let password = imports
                        .iter()
                        .find(|(a, _)| *a == address)
                        .and_then(|(_, case)| case.imported.as_ref().unwrap().password.clone());
                    let value = password.map_or("null".to_owned(), |p| hcl_string(&p));
                    format!("{head}= {value}\n")
                }
                _ => format!("{line}\n"),
            }
        })
        .collect()
}

/// A working directory declaring `clusterproxy_profile.imported`, with
/// `test.tfvars`, to import into.
fn profile_workdir(tf: &Terraform) -> Workdir {
    let main = "variable \"passwords\" {\n  type      = map(string)\n  sensitive = true\n  default   = {}\n}\n\nresource \"clusterproxy_profile\" \"imported\" {\n  name       = \"imported\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n}\n";
    let work = Workdir::with_provider(tf, main);
    work.write_file("test.tfvars", "passwords = {}\n");
    work
}

/// A node holding exactly what the renderer wrote (with pod and service
/// CIDRs) is in sync; a node with another password or another NO_PROXY is
/// not, and the differing field is named without its value.
#[test]
fn artifact_settings_round_trip_with_cluster_inputs() {
    let main = r#"variable "proxy_password" {
  type      = string
  sensitive = true
}

resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example", ".corp.example"]
}

locals {
  cluster = {
    pod_cidrs     = ["10.244.0.0/16"]
    service_cidrs = ["10.96.0.0/12"]
    apiserver_ip  = "10.0.0.10"
  }
}

data "clusterproxy_systemd_dropin" "node" {
  http_proxy    = "http://proxy.corp.example:3128"
  username      = "svc-k8s"
  password      = var.proxy_password
  installation  = ["registry.corp.example", ".corp.example"]
  pod_cidrs     = local.cluster.pod_cidrs
  service_cidrs = local.cluster.service_cidrs
  apiserver_ip  = local.cluster.apiserver_ip
}

data "clusterproxy_artifact_settings" "faithful" {
  kind          = "systemd"
  content       = data.clusterproxy_systemd_dropin.node.dropins[0].content
  profile       = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  pod_cidrs     = local.cluster.pod_cidrs
  service_cidrs = local.cluster.service_cidrs
  apiserver_ip  = local.cluster.apiserver_ip
}

data "clusterproxy_artifact_settings" "other_password" {
  kind          = "systemd"
  content       = replace(data.clusterproxy_systemd_dropin.node.dropins[0].content, "svc-k8s:s3cr", "svc-k8s:x")
  profile       = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  pod_cidrs     = local.cluster.pod_cidrs
  service_cidrs = local.cluster.service_cidrs
  apiserver_ip  = local.cluster.apiserver_ip
}

data "clusterproxy_artifact_settings" "other_list" {
  kind          = "systemd"
  content       = replace(data.clusterproxy_systemd_dropin.node.dropins[0].content, ".corp.example,", ".corp2.example,")
  profile       = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  pod_cidrs     = local.cluster.pod_cidrs
  service_cidrs = local.cluster.service_cidrs
  apiserver_ip  = local.cluster.apiserver_ip
}

output "faithful" {
  value = [data.clusterproxy_artifact_settings.faithful.in_sync, data.clusterproxy_artifact_settings.faithful.differences]
}

output "other_password" {
  value = [data.clusterproxy_artifact_settings.other_password.in_sync, data.clusterproxy_artifact_settings.other_password.differences]
}

output "other_list" {
  value = [data.clusterproxy_artifact_settings.other_list.in_sync, data.clusterproxy_artifact_settings.other_list.differences]
}
"#;
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, main);
        work.write_file("test.tfvars", "proxy_password = \"s3cr@t\"\n");
        let outputs = run_cycle(&work, &Cycle::with_vars());
        assert_eq!(outputs["faithful"], serde_json::json!([true, []]));
        assert_eq!(
            outputs["other_password"],
            serde_json::json!([false, ["password differs."]])
        );
        assert_eq!(
            outputs["other_list"],
            serde_json::json!([false, ["no_proxy differs: in the artifact only: [.corp2.example]; in the profile only: [.corp.example]."]])
        );
        work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], "s3cr@t");
    });
}

/// Bad import IDs are diagnostics, promptly (a FIFO is never opened for a
/// blocking read), and write no state.
#[test]
fn bad_import_sources_are_diagnostics() {
    for_each_terraform(|tf| {
        let work = profile_workdir(tf);
        let fifo = work.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.display().to_string()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path, valid for the call.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let missing = format!("systemd:file:{}/nope.conf", work.path().display());
        let fifo_id = format!("systemd:{}", fifo.display());
        let deep = format!("capi:inline:{}", "[".repeat(100_000));
        // An inline artifact with a password: refused, naming `file:`.
        let inline_password = "systemd:inline:[Service]\nEnvironment=\"HTTP_PROXY=http://svc:s3cr3t@proxy.corp.example:3128\" \"HTTPS_PROXY=http://svc:s3cr3t@proxy.corp.example:3128\"\n";
        let http_only = format!("systemd:file:{}", import_fixture("systemd/http-only.conf"));
        let space = format!(
            "systemd:file:{}",
            import_fixture("systemd/bad-space-password.conf")
        );
        let hash = format!(
            "systemd:file:{}",
            import_fixture("systemd/bad-hash-password.conf")
        );
        for (id, needle) in [
            (missing.as_str(), "File not found"),
            (fifo_id.as_str(), "not a regular file"),
            (deep.as_str(), "nests"),
            (inline_password, "import it with `file:`"),
            (http_only.as_str(), "https_through_proxy=true"),
            (space.as_str(), "space or control"),
            (hash.as_str(), "unencoded"),
            ("systemd(pods=10.0.0.0/8):inline:x", "Unknown cluster fact"),
        ] {
            work.expect_import_failure(
                &["-var-file=test.tfvars"],
                "clusterproxy_profile.imported",
                id,
                needle,
            );
        }
    });
}

/// The password of the imported artifact; it is also the configured one
/// unless a test says otherwise.
const IMPORTED_PASSWORD: &str = "imp0rted p@ss";

/// A systemd drop-in whose proxy URL holds [`IMPORTED_PASSWORD`].
fn artifact_with_password(work: &Workdir) -> String {
    let path = work.write_file(
        "proxy.conf",
        "[Service]\nEnvironment=\"HTTP_PROXY=http://svc-k8s:imp0rted%20p%40ss@proxy.corp.example:3128\" \"HTTPS_PROXY=http://svc-k8s:imp0rted%20p%40ss@proxy.corp.example:3128\"\n",
    );
    format!("corp=systemd:file:{}", path.display())
}

/// Asserts that no secret form of `secret` is in `text`.
fn assert_absent(text: &str, secret: &str, what: &str) {
    for form in crate::secrets::secret_forms(secret) {
        assert!(
            !text.contains(&form),
            "{what} holds the password as {form:?}"
        );
    }
}

/// Asserts that neither `show -json PLAN` nor any member of the plan file
/// (`tfplan`, `tfstate`, `tfstate-prev`, ...) holds `secret`; with
/// `configured`, `secret` is the configured `password`, which the planned
/// values hold: then only what the plan holds of the prior state
/// (`prior_state`, `before`, `tfstate`, `tfstate-prev`) is checked.
fn assert_plan_file_clean(work: &Workdir, plan: &str, secret: &str, configured: bool) {
    let shown = work.run_ok(&["show", "-json", plan]).stdout;
    if configured {
        let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
        let change = &crate::plancheck::planned_change(&shown, "clusterproxy_profile.corp");
        assert_absent(&shown["prior_state"].to_string(), secret, "prior_state");
        assert_absent(&change["change"]["before"].to_string(), secret, "before");
    } else {
        assert_absent(&shown, secret, "show -json of the saved plan");
    }
    let members = work.path().join("members");
    let unzip = crate::tools::UNZIP
        .command()
        .args(["-q", "-o", plan, "-d"])
        .arg(&members)
        .current_dir(work.path())
        .status()
        .expect("run unzip");
    assert!(unzip.success());
    let mut names = Vec::new();
    let mut stack = vec![members.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).expect("read members") {
            let path = entry.expect("member").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).expect("read member");
            let name = path.file_name().unwrap().to_string_lossy();
            if configured && !name.starts_with("tfstate") {
                names.push(name.into_owned());
                continue;
            }
            assert_absent(
                &String::from_utf8_lossy(&bytes),
                secret,
                &path.display().to_string(),
            );
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    for name in ["tfplan", "tfstate", "tfstate-prev"] {
        assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
    }
    std::fs::remove_dir_all(members).expect("remove members");
}

/// The profile configuration with the password given by `password_line`.
fn password_config(password_line: &str) -> String {
    format!(
        r#"variable "proxy_password" {{
  type      = string
  ephemeral = true
}}

resource "clusterproxy_profile" "corp" {{
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  {password_line}
}}
"#
    )
}

/// An import stores no password: with an `import` block and `plan -out`,
/// neither the saved plan (JSON and every member of the plan file) nor the
/// state holds the artifact's password, with `password_wo` (no copy
/// anywhere, ever) and with `password` (only the configured value, after
/// apply). The first plan knows whether the configured password is the
/// imported one: the same keeps revision 1 and the next plan is empty; a
/// different one moves the revision. `terraform import` (no configured
/// password at all) stores none either.
#[test]
fn import_stores_no_password() {
    for_each_terraform_with(Capability::WriteOnly, import_stores_no_password_on);
}

fn import_stores_no_password_on(tf: &Terraform) {
    let write_only = "password_wo         = var.proxy_password\n  password_wo_version = 1";
    // The stored attribute cannot take an ephemeral value.
    let stored = "password   = nonsensitive(var.stored_password)";
    for (line, extra, rotated) in [
        (write_only, "", false),
        (write_only, "", true),
        (
            stored,
            "variable \"stored_password\" {\n  type      = string\n  sensitive = true\n}\n",
            false,
        ),
        (
            stored,
            "variable \"stored_password\" {\n  type      = string\n  sensitive = true\n}\n",
            true,
        ),
    ] {
        let configured = if rotated {
            "rotated p@ss"
        } else {
            IMPORTED_PASSWORD
        };
        let work = Workdir::with_provider(tf, &format!("{}{extra}", password_config(line)));
        work.write_file(
            "test.tfvars",
            &format!(
                "proxy_password = {0}\n{1}",
                hcl_string(configured),
                if extra.is_empty() {
                    String::new()
                } else {
                    format!("stored_password = {}\n", hcl_string(configured))
                }
            ),
        );
        let id = artifact_with_password(&work);
        work.write_file(
            "import.tf",
            &format!(
                "import {{\n  to = clusterproxy_profile.corp\n  id = {}\n}}\n",
                hcl_string(&id)
            ),
        );
        let vars = ["-var-file=test.tfvars"];
        work.run_ok(&["plan", "-out=import.tfplan", vars[0]]);
        let configured_stored = line == stored && !rotated;
        assert_plan_file_clean(&work, "import.tfplan", IMPORTED_PASSWORD, configured_stored);
        let plan: serde_json::Value =
            serde_json::from_str(&work.run_ok(&["show", "-json", "import.tfplan"]).stdout).unwrap();
        let change =
            &crate::plancheck::planned_change(&plan, "clusterproxy_profile.corp")["change"];
        assert_eq!(change["before"]["password"], serde_json::Value::Null);
        assert_eq!(
            change["after"]["revision"],
            if rotated { 2 } else { 1 },
            "{change:#}"
        );
        work.run_ok(&["apply", vars[0], "import.tfplan"]);
        let state = std::fs::read_to_string(work.path().join("terraform.tfstate")).unwrap();
        if line == write_only || rotated {
            assert_absent(&state, IMPORTED_PASSWORD, "the state");
        }
        let values = work.resource_values("clusterproxy_profile.corp");
        assert_eq!(values["revision"], if rotated { 2 } else { 1 });
        std::fs::remove_file(work.path().join("import.tf")).unwrap();
        work.assert_plan_empty(&vars);
        work.assert_no_drift(&vars);
    }

    // `terraform import`: no configured password reaches the import.
    let work = Workdir::with_provider(tf, &password_config(write_only));
    work.write_file(
        "test.tfvars",
        &format!("proxy_password = {}\n", hcl_string(IMPORTED_PASSWORD)),
    );
    let id = artifact_with_password(&work);
    work.run_ok(&[
        "import",
        "-var-file=test.tfvars",
        "clusterproxy_profile.corp",
        &id,
    ]);
    let state = std::fs::read_to_string(work.path().join("terraform.tfstate")).unwrap();
    assert_absent(&state, IMPORTED_PASSWORD, "the imported state");
    work.run_ok(&["plan", "-out=after.tfplan", "-var-file=test.tfvars"]);
    assert_plan_file_clean(&work, "after.tfplan", IMPORTED_PASSWORD, false);
    work.run_ok(&["apply", "-var-file=test.tfvars", "after.tfplan"]);
    assert_eq!(
        work.resource_values("clusterproxy_profile.corp")["revision"],
        1
    );
    work.assert_plan_empty(&["-var-file=test.tfvars"]);
}
