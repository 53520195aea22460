//! End-to-end import with real Terraform 1.11 and 1.0.3, one fixture of the
//! corpus per kind (giantswarm, capi, tkg, systemd) with cluster facts in the
//! import ID: the natural configuration creates the profile, importing the
//! artifact yields exactly that state and an empty plan (CLI import, and from
//! Terraform 1.5 an import block and -generate-config-out), and the import note is
//! readable in the output. Also: the drift data source round trip, and bad
//! import IDs (missing file, FIFO) as prompt diagnostics that write no state.

use crate::cycle::{hcl_string, run_cycle, Cycle, Feature};
use crate::harness::{
    for_each_terraform, for_each_terraform_with, import_fixture, Terraform, Workdir,
};

/// One fixture per kind, the import ID facts, and the configuration that matches.
struct Case {
    kind: &'static str,
    facts: &'static str,
    path: &'static str,
    attributes: &'static str,
    password: Option<&'static str>,
    /// Lines the import note must hold.
    note: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        kind: "giantswarm",
        facts: "",
        path: "giantswarm/cluster-aws-values.yaml",
        attributes: r#"name        = "gs-eu1"
  http_proxy  = "http://proxy.corp.example:4000"
  no_proxy    = ["registry.corp.example", "local", ".corp.example", "10.123.0.0/16"]"#,
        password: None,
        note: &[
            "Kept as installation-wide NO_PROXY (4): registry.corp.example, local, .corp.example, 10.123.0.0/16.",
            "  - 100.64.0.0/16: added by the renderers from `pod_cidrs`",
            "  - pod_cidrs = [\"100.64.0.0/16\"]",
        ],
    },
    Case {
        kind: "capi",
        facts: "",
        path: "capi/tkg-cluster-and-kcp.yaml",
        attributes: r#"name        = "tkg-wc1"
  http_proxy  = "http://tkg-proxy.corp.example:3128"
  no_proxy    = ["vcenter.corp.example", "registry.corp.example"]"#,
        password: None,
        note: &[
            "  - 10.10.0.5: added by the renderers from `control_plane_endpoint`",
            "  - control_plane_endpoint = \"10.10.0.5\"",
        ],
    },
    Case {
        kind: "tkg",
        facts: "cloud=aws",
        path: "tkg/aws-cluster-config.yaml",
        attributes: r#"name        = "tkg-aws-1"
  http_proxy  = "http://proxy.corp.example:3128"
  no_proxy    = ["registry.corp.example", "local", "10.0.0.0/16", "169.254.0.0/16"]"#,
        password: None,
        // The VPC CIDR and 169.254.0.0/16 stay: TKG appends them only from
        // variables the TKG renderer does not emit.
        note: &["  - cloud = \"aws\""],
    },
    Case {
        kind: "systemd",
        facts: "service_cidrs=10.96.0.0/12;pod_cidrs=192.168.0.0/16",
        path: "systemd/messy.conf",
        attributes: r#"name        = "systemd"
  http_proxy  = "http://proxy.corp.example:3128"
  username    = "svc-k8s"
  no_proxy    = ["registry.corp.example", ".corp.example"]"#,
        password: Some("p@ss word"),
        note: &[
            "  - 10.96.0.0/12: added by the renderers from `service_cidrs`",
            "  - registry.corp.example: duplicate",
        ],
    },
    // The artifact names no port: the profile keeps its spelling, so the
    // configuration that writes what the artifact writes plans no change.
    Case {
        kind: "systemd",
        facts: "",
        path: "systemd/port-less.conf",
        attributes: r#"name        = "systemd"
  http_proxy  = "http://proxy.corp.example"
  no_proxy    = ["registry.corp.example"]"#,
        password: None,
        note: &["Kept as installation-wide NO_PROXY (1): registry.corp.example."],
    },
    // An install-config fragment (`proxy:` and `additionalTrustBundle`
    // only), as CI scripts append and `install_config_yaml` renders it.
    Case {
        kind: "openshift",
        facts: "",
        path: "openshift/install-config-fragment.yaml",
        attributes: concat!(
            r#"name        = "openshift"
  http_proxy  = "http://proxy.corp.example:3128"
  no_proxy    = [".corp.example", "registry.corp.example"]
  trusted_ca  = file(""#,
            env!("CARGO_MANIFEST_DIR"),
            r#"/tests/fixtures/import/aks/trusted-ca.pem")"#
        ),
        password: None,
        note: &["  - .cluster.local: added by OpenShift's network operator"],
    },
    // EKS Anywhere adds the control-plane and datacenter endpoints itself:
    // the cluster's own, left out of the profile.
    Case {
        kind: "capi",
        facts: "",
        path: "capi/eks-anywhere-nutanix.yaml",
        attributes: r#"name        = "eksa-ntnx"
  http_proxy  = "http://proxy.corp.example:3128"
  no_proxy    = ["registry.corp.example"]"#,
        password: None,
        note: &[
            "  - prism.corp.example: datacenter endpoint of this cluster, added to NO_PROXY by EKS Anywhere",
            "  - 10.20.30.41: added by the renderers from `control_plane_endpoint`",
        ],
    },
];

fn case_workdir(tf: &crate::harness::Terraform, case: &Case, extra: &str) -> Workdir {
    let main = format!(
        "variable \"proxy_password\" {{\n  type      = string\n  sensitive = true\n  default   = null\n}}\n\nresource \"clusterproxy_profile\" \"imported\" {{\n  {}\n  password    = var.proxy_password\n}}\n{extra}",
        case.attributes
    );
    let work = Workdir::with_provider(tf, &main);
    let password = case.password.map_or("null".to_owned(), hcl_string);
    work.write_file("test.tfvars", &format!("proxy_password = {password}\n"));
    work
}

fn id(case: &Case) -> String {
    let facts = if case.facts.is_empty() {
        String::new()
    } else {
        format!("({})", case.facts)
    };
    format!("{}{facts}:file:{}", case.kind, import_fixture(case.path))
}

/// The detail of the import warning, from `plan -json` with an import block
/// (>= 1.5) or from the `terraform import` output (1.0.3, which has no
/// machine-readable output for import).
fn import_note(tf: &crate::harness::Terraform, case: &Case) -> String {
    if tf.supports(Feature::ImportBlock) {
        let block = format!(
            "import {{\n  to = clusterproxy_profile.imported\n  id = {}\n}}\n",
            hcl_string(&id(case))
        );
        let work = case_workdir(tf, case, &block);
        let run = work.run_ok(&["plan", "-json", "-var-file=test.tfvars"]);
        let prefix = format!("Imported proxy settings from {}", case.kind);
        let notes: Vec<String> = run
            .diagnostics()
            .iter()
            .filter(|d| d["severity"] == "warning")
            .filter(|d| {
                d["summary"]
                    .as_str()
                    .is_some_and(|s| s.starts_with(&prefix))
            })
            .map(|d| d["detail"].as_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(notes.len(), 1, "{}: {}", case.path, run.stdout);
        notes[0].clone()
    } else {
        let work = case_workdir(tf, case, "");
        work.run_ok(&[
            "import",
            "-var-file=test.tfvars",
            "clusterproxy_profile.imported",
            &id(case),
        ])
        .combined()
    }
}

#[test]
fn import_of_each_kind_with_cluster_facts() {
    for_each_terraform(|tf| {
        for case in CASES {
            let work = case_workdir(tf, case, "");
            run_cycle(
                &work,
                &Cycle::importing("clusterproxy_profile.imported", id(case)),
            );
            // Terraform may wrap long lines: compare with whitespace collapsed.
            let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            let note = flat(&import_note(tf, case));
            for line in case.note {
                assert!(
                    note.contains(&flat(line)),
                    "{} on {}: the note lacks {line:?}:\n{note}",
                    case.path,
                    tf.version_string()
                );
            }
            if let Some(password) = case.password {
                assert!(!note.contains(password), "the note shows the password");
            }
        }
    });
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
    for_each_terraform(|tf| {
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
        let case = &CASES[3];
        let work = case_workdir(tf, case, "");
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
    for_each_terraform_with(Feature::WriteOnly, import_stores_no_password_on);
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
