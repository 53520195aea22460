//! The testing cycle of terraform-plugin-testing (validate, plan, apply,
//! empty re-plan, empty refresh-only plan, optional import, destroy) and
//! the import checks it runs.

use serde_json::Value;

use std::path::Path;
use std::process::Command;

pub use crate::harness::Capability;
use crate::harness::{example, Run, Workdir};
use crate::tools;

/// The drift check the docs give users, relative to the crate root.
pub const DRIFT_CHECK: &str = "examples/drift-check/drift-check.sh";

/// `value` as an HCL literal: JSON syntax, with template sequences escaped.
pub fn hcl_literal(value: &Value) -> String {
    serde_json::to_string(value)
        .expect("value as JSON")
        .replace("${", "$${")
        .replace("%{", "%%{")
}

/// `text` as an HCL quoted string.
pub fn hcl_string(text: &str) -> String {
    hcl_literal(&Value::String(text.to_owned()))
}

impl Workdir {
    /// Runs `terraform ARGS...`, panicking unless it exits 0.
    pub fn run_ok(&self, args: &[&str]) -> Run {
        self.run(args).expect_ok(args, &self.tf.version_string())
    }

    /// Root module outputs as `{name: value}` (from `terraform output -json`).
    pub fn outputs(&self) -> serde_json::Map<String, Value> {
        let run = self.run_ok(&["output", "-json"]);
        let all: serde_json::Map<String, Value> =
            serde_json::from_str(&run.stdout).expect("output -json is JSON");
        all.into_iter()
            .map(|(name, output)| (name, output["value"].clone()))
            .collect()
    }

    /// The state as `terraform show -json` prints it.
    pub fn state(&self) -> Value {
        serde_json::from_str(&self.run_ok(&["show", "-json"]).stdout).expect("show -json is JSON")
    }

    /// Attribute values of the root-module resource at `address` in the state.
    pub fn resource_values(&self, address: &str) -> Value {
        let state = self.state();
        state["values"]["root_module"]["resources"]
            .as_array()
            .and_then(|resources| resources.iter().find(|r| r["address"] == address))
            .map(|resource| resource["values"].clone())
            .unwrap_or_else(|| panic!("{address} not in state: {state}"))
    }

    /// Asserts that a plan (with `extra` arguments) proposes no change: exit
    /// code 0 with `-detailed-exitcode`.
    pub fn assert_plan_empty(&self, extra: &[&str]) {
        let mut args = vec!["plan", "-detailed-exitcode"];
        args.extend_from_slice(extra);
        let run = self.run(&args);
        assert_eq!(
            run.code,
            0,
            "terraform {} is not empty on {}:\n{}",
            args.join(" "),
            self.tf.version_string(),
            run.combined()
        );
    }

    /// Asserts that the saved plan `plan_file` reads every data source and
    /// knows every output at plan time, so users review rendered values in
    /// the plan. The one exception is Terraform's own rule: a data source
    /// that references a managed resource with pending changes is read at
    /// apply (`read_because_dependency_pending`; Terraform 1.0 gives no
    /// reason, so there a pending managed change must exist). A read
    /// deferred because our values are unknown always fails.
    pub fn assert_known_at_plan_time(&self, plan_file: &str) {
        let plan = self.show_plan(plan_file);
        let changes = plan["resource_changes"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let managed_change_pending = changes.iter().any(|c| {
            c["mode"] == "managed" && c["change"]["actions"] != serde_json::json!(["no-op"])
        });
        let deferred: Vec<&Value> = changes.iter().filter(|c| c["mode"] == "data").collect();
        let unexplained: Vec<(&Value, &Value)> = deferred
            .iter()
            .filter(|c| match c["action_reason"].as_str() {
                Some(reason) => reason != "read_because_dependency_pending",
                None => !managed_change_pending,
            })
            .map(|c| (&c["address"], &c["action_reason"]))
            .collect();
        assert!(
            unexplained.is_empty(),
            "data sources read at apply on {}: {unexplained:?}",
            self.tf.version_string()
        );
        if deferred.is_empty() {
            let unknown_outputs: Vec<&String> = plan["output_changes"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, change)| change["after_unknown"] != Value::Bool(false))
                .map(|(name, _)| name)
                .collect();
            assert!(
                unknown_outputs.is_empty(),
                "outputs unknown at plan time on {}: {unknown_outputs:?}",
                self.tf.version_string()
            );
        }
    }

    /// Asserts that a saved plan (with `extra` arguments) changes no resource
    /// and detects no drift, read from `terraform show -json` as
    /// terraform-plugin-testing does. Used for refresh-only plans (which
    /// [`Workdir::assert_no_drift`] checks as users do) and
    /// after an import, where outputs are not in the state yet. Changes of
    /// sensitivity marks alone do not count.
    pub fn assert_no_resource_changes(&self, extra: &[&str]) {
        let plan = self.saved_plan("check.tfplan", extra);
        let changed: Vec<&Value> = ["resource_changes", "resource_drift"]
            .iter()
            .filter_map(|key| plan[*key].as_array())
            .flatten()
            .filter(|change| change["change"]["actions"] != serde_json::json!(["no-op"]))
            // Terraform 1.0 plans an update that only adds sensitivity marks
            // (values unchanged) after an import or a state upgrade.
            .filter(|change| change["change"]["before"] != change["change"]["after"])
            // A data source read deferred to apply changes no infrastructure.
            .filter(|change| change["mode"] != "data")
            .collect();
        assert!(
            changed.is_empty(),
            "terraform plan {} changes resources on {}: {changed:#?}",
            extra.join(" "),
            self.tf.version_string()
        );
    }

    /// The drift check users run (`examples/drift-check/drift-check.sh`, the
    /// docs' recipe), right on every Terraform version: the addresses of the
    /// `resource_drift` messages of `terraform plan -refresh-only -json
    /// EXTRA...`. The run also takes `-detailed-exitcode`: where that exit
    /// code is reliable ([`Terraform::refresh_only_exit_code_is_reliable`])
    /// it must agree with the drift found, as pipelines that still read it
    /// require (Terraform 1.11 exits 2 on "No changes" when the refreshed
    /// state differs in anything it compares, number precision and the
    /// order of `sensitive_attributes` included); elsewhere it must only not
    /// be an error.
    ///
    /// [`Terraform::refresh_only_exit_code_is_reliable`]: crate::harness::Terraform::refresh_only_exit_code_is_reliable
    pub fn drift(&self, extra: &[&str]) -> Vec<String> {
        let args = args_with(
            &["plan", "-refresh-only", "-json", "-detailed-exitcode"],
            extra,
        );
        let run = self.run(&args);
        let drifted = resource_drift(&run.stdout);
        let version = self.tf.version_string();
        assert!(
            run.code == 0 || run.code == 2,
            "terraform {} failed on {version}:\n{}",
            args.join(" "),
            run.combined()
        );
        if self.tf.refresh_only_exit_code_is_reliable() {
            assert_eq!(
                run.code,
                if drifted.is_empty() { 0 } else { 2 },
                "terraform {} exited {} with drift {drifted:?} on {version}:\n{}",
                args.join(" "),
                run.code,
                run.combined()
            );
        }
        drifted
    }

    /// Runs examples/drift-check/drift-check.sh, the drift check the docs
    /// give users, with this directory's Terraform and `extra` plan options.
    pub fn drift_check(&self, extra: &[&str]) -> Run {
        self.drift_check_using(&self.tf.path, extra)
    }

    /// [`Workdir::drift_check`] with `terraform` run as Terraform.
    pub fn drift_check_using(&self, terraform: &Path, extra: &[&str]) -> Run {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(DRIFT_CHECK);
        let jq_dir = tools::JQ
            .path()
            .parent()
            .expect("jq's directory")
            .to_owned();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path =
            std::env::join_paths(std::iter::once(jq_dir).chain(std::env::split_paths(&path)))
                .expect("PATH");
        let mut command = Command::new(script);
        self.environment(&mut command);
        let output = command
            .args(extra)
            .env("TERRAFORM", terraform)
            .env("PATH", path)
            .output()
            .expect("run the drift check");
        Run::from_output(output)
    }

    /// Asserts that the users' drift check ([`Workdir::drift_check`]) exits
    /// 0 and prints nothing.
    pub fn assert_drift_check_quiet(&self, extra: &[&str]) {
        let run = self.drift_check(extra);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (0, ""),
            "{DRIFT_CHECK} is not quiet on {}:\n{}",
            self.tf.version_string(),
            run.stderr
        );
    }

    /// Asserts that the drift check ([`Workdir::drift`]) finds nothing.
    pub fn assert_no_drift(&self, extra: &[&str]) {
        let drifted = self.drift(extra);
        assert!(
            drifted.is_empty(),
            "drift {drifted:?} on {}",
            self.tf.version_string()
        );
    }

    /// Runs `terraform plan -out=PLAN_FILE EXTRA...` and returns the saved
    /// plan as `terraform show -json` prints it.
    pub fn saved_plan(&self, plan_file: &str, extra: &[&str]) -> Value {
        let out = format!("-out={plan_file}");
        let mut args = vec!["plan", out.as_str()];
        args.extend_from_slice(extra);
        self.run_ok(&args);
        self.show_plan(plan_file)
    }

    /// The saved plan `plan_file` as `terraform show -json` prints it.
    fn show_plan(&self, plan_file: &str) -> Value {
        serde_json::from_str(&self.run_ok(&["show", "-json", plan_file]).stdout)
            .expect("show -json is JSON")
    }

    /// Asserts that a plan of this directory (which holds an `import {}`
    /// block for `step`) only imports `step.address`, with no change but
    /// the configured password (an import stores none), and
    /// that applying it stores exactly `expected`; the next plan is empty.
    fn assert_import_only(
        &self,
        step: &ImportStep,
        importing: &Value,
        expected: &Value,
        vars: &[&str],
    ) {
        let plan = self.saved_plan("import.tfplan", vars);
        // No password imported: one configured with `password` is an update.
        let action = match expected.get("password") {
            Some(password) if !password.is_null() => "update",
            _ => "no-op",
        };
        let change = plan["resource_changes"]
            .as_array()
            .and_then(|changes| {
                changes
                    .iter()
                    .find(|c| c["address"] == step.address.as_str())
            })
            .unwrap_or_else(|| panic!("no change for {} in {plan}", step.address));
        assert_eq!(
            (&change["change"]["actions"], &change["change"]["importing"]),
            (&serde_json::json!([action]), importing),
            "import block of {} on {} does more than import: {change:#}",
            step.address,
            self.tf.version_string()
        );
        self.run_ok(&["apply", "import.tfplan"]);
        assert_eq!(
            self.resource_values(&step.address),
            *expected,
            "{} imported by an import block differs on {}",
            step.address,
            self.tf.version_string()
        );
        self.assert_no_resource_changes(vars);
    }
}

/// The resources that drifted, by address: the `resource_drift` messages of
/// a `terraform plan -json` run's output that update or delete a resource
/// (as examples/drift-check/drift-check.sh reads them). A resource only
/// moved by a `moved` block is reported as drift with the action `move`
/// (Terraform >= 1.1, `driftedResources` in internal/terraform/context_plan.go):
/// nothing changed outside Terraform.
pub fn resource_drift(json_lines: &str) -> Vec<String> {
    json_lines
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["type"] == "resource_drift")
        .filter(|message| message["change"]["action"] != "move")
        .map(|message| {
            message["change"]["resource"]["addr"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// An import step: the resource address and the import ID.
#[derive(Debug, Clone)]
pub struct ImportStep {
    /// Resource address, e.g. `clusterproxy_profile.example`.
    pub address: String,
    /// The ID passed to `terraform import` / `import { id = .. }`.
    pub id: String,
}

/// What one full cycle runs.
#[derive(Debug, Clone, Default)]
pub struct Cycle {
    /// File name of a `.tfvars` file already written into the working dir.
    pub var_file: Option<String>,
    /// Import step to run after the first apply.
    pub import: Option<ImportStep>,
}

impl Cycle {
    /// A cycle with the variables of `test.tfvars`.
    pub fn with_vars() -> Cycle {
        Cycle {
            var_file: Some("test.tfvars".into()),
            import: None,
        }
    }

    /// A cycle with the variables of `test.tfvars` that imports `id` into
    /// `address` after the first apply.
    pub fn importing(address: &str, id: impl Into<String>) -> Cycle {
        Cycle {
            import: Some(ImportStep {
                address: address.to_owned(),
                id: id.into(),
            }),
            ..Cycle::with_vars()
        }
    }
}

/// `base` followed by `extra`, as one argument list.
pub fn args_with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(extra).copied().collect()
}

/// Runs the terraform-plugin-testing cycle in `work`: validate, plan -out
/// (every output and data source known at plan time), apply, empty plan, empty refresh-only plan, the optional import step,
/// destroy. Returns the outputs read right after apply.
pub fn run_cycle(work: &Workdir, cycle: &Cycle) -> serde_json::Map<String, Value> {
    let var_args: Vec<String> = cycle
        .var_file
        .iter()
        .map(|file| format!("-var-file={file}"))
        .collect();
    let vars: Vec<&str> = var_args.iter().map(String::as_str).collect();

    work.run_ok(&["validate"]);
    work.run_ok(&args_with(&["plan", "-out=tfplan"], &vars));
    work.assert_known_at_plan_time("tfplan");
    work.run_ok(&["apply", "-auto-approve", "tfplan"]);
    let outputs = work.outputs();
    work.assert_plan_empty(&vars);
    work.assert_no_resource_changes(&args_with(&["-refresh-only"], &vars));
    work.assert_no_drift(&vars);

    if let Some(import) = &cycle.import {
        run_import(work, import, &vars);
    }

    work.run_ok(&args_with(&["destroy", "-auto-approve"], &vars));
    outputs
}

/// Imports `step.address` into fresh state (CLI `terraform import`), checks
/// that the imported attributes equal the created ones and that the plan is
/// empty; on Terraform >= 1.5 also imports through an `import {}` block with
/// `-generate-config-out` and applies it.
fn run_import(created: &Workdir, step: &ImportStep, vars: &[&str]) {
    let expected = created.resource_values(&step.address);
    let tf = &created.tf;

    let fresh = Workdir::empty(tf);
    copy_inputs(created, &fresh);
    let mut import_args = vec!["import"];
    import_args.extend_from_slice(vars);
    import_args.extend([step.address.as_str(), step.id.as_str()]);
    fresh.run_ok(&import_args);
    // What the import stored as the resource's identity, where Terraform
    // keeps identities.
    let identity = tf
        .supports(Capability::Identity)
        .then(|| resource_in(&fresh.state(), &step.address)["identity"].clone());
    assert_eq!(
        fresh.resource_values(&step.address),
        without_password(&expected),
        "imported {} differs from the created one (but for the password, never imported) on {}",
        step.address,
        tf.version_string()
    );
    // The configured password goes into the state by an update that keeps
    // the revision.
    fresh.run_ok(&args_with(&["apply", "-auto-approve"], vars));
    assert_eq!(fresh.resource_values(&step.address), expected);
    fresh.assert_no_resource_changes(vars);

    if tf.supports(Capability::ImportBlock) {
        // The configuration the resource was created from, plus an import block.
        let declared = Workdir::empty(tf);
        copy_inputs(created, &declared);
        declared.write_file("import.tf", &import_block(step));
        let by_id = serde_json::json!({ "id": step.id });
        declared.assert_import_only(step, &by_id, &expected, vars);

        // `-generate-config-out` from an empty directory: Terraform writes
        // sensitive attributes as `null # sensitive`; with those filled in
        // from the created state, the generated configuration imports with
        // no change either.
        let generated = Workdir::from_files(
            tf,
            &[
                ("provider.tf", &example("provider/provider.tf")),
                ("import.tf", &import_block(step)),
            ],
        );
        generated.run_ok(&["plan", "-generate-config-out=generated.tf"]);
        let text = std::fs::read_to_string(generated.path().join("generated.tf"))
            .expect("-generate-config-out wrote generated.tf");
        generated.write_file("generated.tf", &fill_sensitive(&text, &expected));
        generated.assert_import_only(step, &by_id, &expected, &[]);
    }

    // An inline artifact has no path in its identity, so nothing to import
    // by identity (tests/e2e/identity.rs checks that such an identity is an
    // error on its attribute).
    if let Some(identity) = identity.filter(|identity| !identity["path"].is_null()) {
        // The identity the import stored, given to an import block instead of
        // the ID: the same profile and the same first plan.
        let by_identity = Workdir::empty(tf);
        copy_inputs(created, &by_identity);
        by_identity.write_file(
            "import.tf",
            &identity_import_block(&step.address, &identity),
        );
        let importing = serde_json::json!({ "identity": identity });
        by_identity.assert_import_only(step, &importing, &expected, vars);
    }
}

/// The resource at `address` in `show -json` state.
fn resource_in(state: &Value, address: &str) -> Value {
    state["values"]["root_module"]["resources"]
        .as_array()
        .and_then(|all| all.iter().find(|r| r["address"] == address))
        .cloned()
        .unwrap_or_else(|| panic!("{address} not in {state}"))
}

/// An `import {}` block for `address` by `identity` (its null attributes
/// left out).
fn identity_import_block(address: &str, identity: &Value) -> String {
    let attributes: Vec<String> = identity
        .as_object()
        .unwrap_or_else(|| panic!("no identity stored for {address}: {identity}"))
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| format!("    {name} = {value}\n"))
        .collect();
    format!(
        "import {{\n  to = {address}\n  identity = {{\n{}  }}\n}}\n",
        attributes.concat()
    )
}

/// `values` with `password` null, as an import stores it: an import never
/// stores a password.
fn without_password(values: &Value) -> Value {
    let mut values = values.clone();
    if let Some(password) = values.get_mut("password") {
        *password = Value::Null;
    }
    values
}

/// An `import {}` block for `step`.
pub fn import_block(step: &ImportStep) -> String {
    format!(
        "import {{\n  to = {}\n  id = {}\n}}\n",
        step.address,
        hcl_string(&step.id)
    )
}

/// Copies the inputs of `from` (`.tf`, `.tfvars` and `.pem` files) into `to`.
fn copy_inputs(from: &Workdir, to: &Workdir) {
    for entry in std::fs::read_dir(from.path()).expect("read work dir") {
        let path = entry.expect("dir entry").path();
        let is_input = path
            .extension()
            .is_some_and(|ext| ext == "tf" || ext == "tfvars" || ext == "pem");
        if is_input {
            std::fs::copy(&path, to.path().join(path.file_name().unwrap())).expect("copy");
        }
    }
}

/// Replaces each `attr = null # sensitive` line Terraform generated with the
/// attribute's value in `state` (an HCL string literal).
fn fill_sensitive(generated: &str, state: &Value) -> String {
    generated
        .lines()
        .map(
            |line| match line.trim_end().strip_suffix("= null # sensitive") {
                Some(head) => format!("{head}= {}\n", hcl_literal(&state[head.trim()])),
                None => format!("{line}\n"),
            },
        )
        .collect()
}
