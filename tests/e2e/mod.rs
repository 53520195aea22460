//! End-to-end harness: drives real Terraform binaries (1.11 and 1.0.3) against
//! the provider binary built by cargo, replicating the testing cycle of
//! terraform-plugin-testing (validate, plan, apply, empty re-plan, empty
//! refresh-only plan, optional import, destroy).
//!
//! Terraform binaries come from `CLUSTERPROXY_TF_1_11` (default: `terraform`
//! on PATH) and `CLUSTERPROXY_TF_1_0` (default:
//! `.tools/terraform-1.0.3/terraform`, installed by scripts/install-test-tools).
//! The provider is wired in through `dev_overrides`, so no registry access and
//! no `terraform init` happen; a proxy pointing at a closed port makes any
//! accidental network access fail. Plugin TLS stays on.

#![allow(dead_code)] // each test binary uses a different subset of the harness

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Provider source address used in `dev_overrides`.
pub const PROVIDER_ADDRESS: &str = "registry.terraform.io/clusterproxy/clusterproxy";

/// Environment variable naming the Terraform 1.11 binary.
pub const ENV_TF_1_11: &str = "CLUSTERPROXY_TF_1_11";
/// Environment variable naming the Terraform 1.0.3 binary.
pub const ENV_TF_1_0: &str = "CLUSTERPROXY_TF_1_0";

/// A Terraform feature with a minimum Terraform version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// `import {}` blocks and `-generate-config-out` (1.5).
    ImportBlock,
    /// Provider-defined functions (1.8).
    Functions,
    /// The built-in `terraform_data` resource (1.4).
    TerraformData,
}

impl Feature {
    /// The first Terraform version that supports the feature.
    pub fn min_version(self) -> (u32, u32, u32) {
        match self {
            Feature::ImportBlock => (1, 5, 0),
            Feature::Functions => (1, 8, 0),
            Feature::TerraformData => (1, 4, 0),
        }
    }
}

/// One Terraform binary and its version.
#[derive(Debug, Clone)]
pub struct Terraform {
    /// Path of the executable.
    pub path: PathBuf,
    /// Version reported by `terraform version -json` / `terraform version`.
    pub version: (u32, u32, u32),
}

impl Terraform {
    /// Whether this Terraform supports `feature`.
    pub fn supports(&self, feature: Feature) -> bool {
        self.version >= feature.min_version()
    }

    /// Human-readable version, e.g. `1.0.3`.
    pub fn version_string(&self) -> String {
        let (major, minor, patch) = self.version;
        format!("{major}.{minor}.{patch}")
    }

    fn probe(path: PathBuf) -> Terraform {
        let output = Command::new(&path)
            .arg("version")
            .env("CHECKPOINT_DISABLE", "1")
            .output()
            .unwrap_or_else(|err| panic!("cannot run {}: {err}", path.display()));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let version = stdout
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("Terraform v"))
            .and_then(parse_version)
            .unwrap_or_else(|| panic!("{} printed no version: {stdout}", path.display()));
        Terraform { path, version }
    }
}

fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|part| part.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// The Terraform binaries every E2E test runs against: 1.11 then 1.0.3.
/// Panics with an install hint when one is missing or has the wrong version.
pub fn terraform_binaries() -> Vec<Terraform> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let new = std::env::var_os(ENV_TF_1_11)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("terraform"));
    let old = std::env::var_os(ENV_TF_1_0)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join(".tools/terraform-1.0.3/terraform"));
    assert!(
        old.is_file(),
        "Terraform 1.0.3 not found at {} (set {ENV_TF_1_0}); run scripts/install-test-tools",
        old.display()
    );
    let binaries = vec![Terraform::probe(new), Terraform::probe(old)];
    assert!(
        binaries[0].version >= (1, 11, 0),
        "{ENV_TF_1_11} must be Terraform >= 1.11, found {}",
        binaries[0].version_string()
    );
    assert_eq!(
        binaries[1].version,
        (1, 0, 3),
        "{ENV_TF_1_0} must be Terraform 1.0.3; run scripts/install-test-tools"
    );
    binaries
}

/// Runs `test` once per Terraform binary, one after the other: the test
/// runner already runs two tests at a time (`--test-threads 2`), which keeps
/// at most two Terraform processes on the two-core CI machine. Both versions
/// always run; a failure on either is reported with its version.
pub fn for_each_terraform(test: impl Fn(&Terraform)) {
    let failures: Vec<String> = terraform_binaries()
        .iter()
        .filter(|tf| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(tf))).is_err())
        .map(Terraform::version_string)
        .collect();
    assert!(
        failures.is_empty(),
        "E2E failed on Terraform {failures:?} (see panics above)"
    );
}

/// Directory holding the provider binary built by cargo for this test run.
pub fn provider_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_terraform-provider-clusterproxy"))
        .parent()
        .expect("provider binary has a parent directory")
        .to_path_buf()
}

/// Reads a file under examples/ (the tfplugindocs layout), e.g. `provider/provider.tf`.
pub fn example(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("read {}: {err}", path.display()))
}

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

/// Result of one Terraform command.
#[derive(Debug)]
pub struct Run {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Captured standard output.
    pub stdout: String,
    /// Captured standard error.
    pub stderr: String,
}

impl Run {
    fn from_output(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Both streams, for leak checks and failure messages.
    pub fn combined(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// The diagnostics of a `-json` run (see [`json_diagnostics`]).
    pub fn diagnostics(&self) -> Vec<Value> {
        json_diagnostics(&self.stdout)
    }
}

/// A run and the diagnostic [`Workdir::expect_diagnostic`] found in it.
#[derive(Debug)]
pub struct Reported {
    /// The whole run (for leak checks).
    pub run: Run,
    /// The matching diagnostic, as Terraform's JSON output holds it.
    pub diagnostic: Value,
}

impl Reported {
    /// The diagnostic's summary and detail, one line apart.
    pub fn text(&self) -> String {
        diagnostic_text(&self.diagnostic)
    }
}

/// A diagnostic's summary and detail, one line apart.
pub fn diagnostic_text(diagnostic: &Value) -> String {
    format!(
        "{}\n{}",
        diagnostic["summary"].as_str().unwrap_or_default(),
        diagnostic["detail"].as_str().unwrap_or_default()
    )
}

/// Whether `diagnostic` has `severity`, holds `summary` in its summary or
/// detail, and has its source snippet on the line of `attribute` (`attribute
/// = ...`) or on the whole line `attribute`.
fn diagnostic_matches(diagnostic: &Value, severity: &str, summary: &str, attribute: &str) -> bool {
    let at_attribute = |code: &str| {
        code.lines().any(|line| {
            line.trim_start()
                .strip_prefix(attribute)
                .is_some_and(|rest| rest.is_empty() || rest.trim_start().starts_with('='))
        })
    };
    diagnostic["severity"] == severity
        && diagnostic_text(diagnostic).contains(summary)
        && diagnostic["snippet"]["code"]
            .as_str()
            .is_some_and(at_attribute)
}

/// A throwaway Terraform working directory wired to the provider via
/// `dev_overrides` for one Terraform binary.
pub struct Workdir {
    dir: tempfile::TempDir,
    tf: Terraform,
}

impl Workdir {
    /// An empty working directory (plus the CLI config) for `tf`.
    pub fn empty(tf: &Terraform) -> Workdir {
        let dir = tempfile::Builder::new()
            .prefix("clusterproxy-e2e-")
            .tempdir()
            .expect("create temp dir");
        let cli_config = format!(
            "provider_installation {{\n  dev_overrides {{\n    \"{PROVIDER_ADDRESS}\" = \"{}\"\n  }}\n  direct {{}}\n}}\n",
            provider_dir().display()
        );
        std::fs::write(dir.path().join("cli.tfrc"), cli_config).expect("write CLI config");
        std::fs::create_dir(dir.path().join("work")).expect("create work dir");
        Workdir {
            dir,
            tf: tf.clone(),
        }
    }

    /// A working directory holding a copy of every `.tf` file in `example`
    /// (a path relative to the crate root, e.g. `examples/quickstart`).
    pub fn from_example(tf: &Terraform, example: &str) -> Workdir {
        let work = Workdir::empty(tf);
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(example);
        let entries = std::fs::read_dir(&source)
            .unwrap_or_else(|err| panic!("read {}: {err}", source.display()));
        for entry in entries {
            let path = entry.expect("dir entry").path();
            if path.extension().is_some_and(|ext| ext == "tf") {
                std::fs::copy(&path, work.path().join(path.file_name().unwrap()))
                    .expect("copy example file");
            }
        }
        work
    }

    /// A working directory holding the provider example as `provider.tf`
    /// and `main` as `main.tf`.
    pub fn with_provider(tf: &Terraform, main: &str) -> Workdir {
        let provider = example("provider/provider.tf");
        Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", main)])
    }

    /// A working directory holding the given `(file name, content)` pairs.
    pub fn from_files(tf: &Terraform, files: &[(&str, &str)]) -> Workdir {
        let work = Workdir::empty(tf);
        for (name, content) in files {
            work.write_file(name, content);
        }
        work
    }

    /// The Terraform binary this directory runs.
    pub fn terraform(&self) -> &Terraform {
        &self.tf
    }

    /// The directory Terraform runs in.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// Writes (or replaces) a file in the working directory; returns its path.
    /// Use it for `.tfvars` files passed with `-var-file`.
    pub fn write_file(&self, name: &str, content: &str) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, content).expect("write file");
        path
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.tf.path);
        // Every subcommand the harness uses accepts -no-color right after it;
        // plain text keeps `expect_failure` needles matching.
        if let Some((subcommand, rest)) = args.split_first() {
            command.arg(subcommand).arg("-no-color").args(rest);
        }
        command
            .current_dir(self.path())
            .env_remove("TF_DISABLE_PLUGIN_TLS")
            .env_remove("TF_REATTACH_PROVIDERS")
            .env_remove("TF_LOG")
            .env_remove("TF_LOG_PATH")
            .env("TF_CLI_CONFIG_FILE", self.dir.path().join("cli.tfrc"))
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            .env("CHECKPOINT_DISABLE", "1")
            .env("TF_PLUGIN_CACHE_DIR", "")
            // Any registry or network access goes to a closed port and fails.
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", "")
            .env("TF_REGISTRY_DISCOVERY_RETRY", "0");
        command
    }

    /// Runs `terraform ARGS...` and returns its result whatever the exit code.
    pub fn run(&self, args: &[&str]) -> Run {
        let output = self.command(args).output().expect("spawn terraform");
        Run::from_output(output)
    }

    /// Runs `terraform ARGS...`, panicking unless it exits 0.
    pub fn run_ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert_eq!(
            run.code,
            0,
            "terraform {} failed on {}:\n{}",
            args.join(" "),
            self.tf.version_string(),
            run.combined()
        );
        run
    }

    /// Asserts that importing `id` into `address` (a resource this
    /// directory declares) fails with an error whose summary or detail holds
    /// `needle`, promptly (under a minute), and writes no state. From
    /// Terraform 1.5 the error is read from `plan -json` with an `import {}`
    /// block; `terraform import` has no machine-readable output, so on older
    /// versions its text is searched.
    pub fn expect_import_failure(&self, vars: &[&str], address: &str, id: &str, needle: &str) {
        let started = std::time::Instant::now();
        let run = self.run(&args_with(&["import"], &args_with(vars, &[address, id])));
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        assert_ne!(
            run.code,
            0,
            "importing {id:?} succeeded on {}:\n{}",
            self.tf.version_string(),
            run.combined()
        );
        let (kind, _) = address.split_once('.').expect("type.name address");
        let state = std::fs::read_to_string(self.path().join("terraform.tfstate"));
        assert!(
            !state.is_ok_and(|state| state.contains(kind)),
            "a failed import wrote state"
        );
        if !self.tf.supports(Feature::ImportBlock) {
            assert!(
                run.stderr.contains(needle),
                "importing {id:?} failed without {needle:?} on {}:\n{}",
                self.tf.version_string(),
                run.stderr
            );
            return;
        }
        let step = ImportStep {
            address: address.to_owned(),
            id: id.to_owned(),
        };
        self.write_file("import.tf", &import_block(&step));
        // Terraform 1.11 gives the importer's diagnostics no source range.
        let planned = self.run(&args_with(&["plan", "-json"], vars));
        let diagnostics = planned.diagnostics();
        assert!(
            planned.code != 0
                && diagnostics
                    .iter()
                    .any(|d| d["severity"] == "error" && diagnostic_text(d).contains(needle)),
            "importing {id:?} by an import block gave no error {needle:?} on {}:\n{diagnostics:#?}",
            self.tf.version_string()
        );
        std::fs::remove_file(self.path().join("import.tf")).expect("remove import.tf");
    }

    /// Runs `terraform ARGS...` with `TF_LOG=trace` and asserts that neither
    /// stdout, stderr nor the trace log (which must hold the provider's own
    /// lines) contains `secret` in any of its [`secret_forms`]. Returns the run.
    pub fn assert_secret_absent(&self, args: &[&str], secret: &str) -> Run {
        let log_path = self.dir.path().join("trace.log");
        let output = self
            .command(args)
            .env("TF_LOG", "trace")
            .env("TF_LOG_PATH", &log_path)
            .output()
            .expect("spawn terraform");
        let run = Run::from_output(output);
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        assert!(
            log.contains("provider.terraform-provider-clusterproxy") && log.contains("tf_rpc="),
            "the trace log holds no log line of the provider"
        );
        for form in secret_forms(secret) {
            for (name, text) in [
                ("stdout", &run.stdout),
                ("stderr", &run.stderr),
                ("trace log", &log),
            ] {
                assert!(
                    !text.contains(&form),
                    "secret leaked into {name} of terraform {} on {} (as {form:?})",
                    args.join(" "),
                    self.tf.version_string()
                );
            }
        }
        run
    }

    /// Runs `terraform ARGS... -json` (a plan, apply or validate) and
    /// expects a diagnostic of `severity` (`error`: the command fails;
    /// `warning`: it succeeds) whose summary or detail contains `summary` and
    /// whose source snippet (Terraform's structured `snippet.code`) is the
    /// line of `attribute` (so the diagnostic carries its attribute path), or
    /// the whole line `attribute` (e.g. a block header), in the manner of
    /// terraform-plugin-testing's `ExpectError`/plancheck. Returns the run
    /// and the diagnostic.
    pub fn expect_diagnostic(
        &self,
        args: &[&str],
        severity: &str,
        summary: &str,
        attribute: &str,
    ) -> Reported {
        let mut json_args = args.to_vec();
        json_args.push("-json");
        let run = self.run(&json_args);
        assert_eq!(
            run.code == 0,
            severity != "error",
            "terraform {} exited {} with an expected {severity} on {}:\n{}",
            json_args.join(" "),
            run.code,
            self.tf.version_string(),
            run.combined()
        );
        // A plugin panic shows only as text (Terraform's crash report); no
        // JSON field carries it.
        assert!(!run.combined().contains("panic"), "{}", run.combined());
        let diagnostics = run.diagnostics();
        let diagnostic = diagnostics
            .iter()
            .find(|d| diagnostic_matches(d, severity, summary, attribute))
            .unwrap_or_else(|| {
                panic!(
                    "{summary}: no {severity} diagnostic at `{attribute}` on {}:\n{diagnostics:#?}",
                    self.tf.version_string()
                )
            })
            .clone();
        Reported { run, diagnostic }
    }

    /// [`Workdir::expect_diagnostic`] for an error: the command fails.
    pub fn expect_diagnostic_at(&self, args: &[&str], summary: &str, attribute: &str) -> Reported {
        self.expect_diagnostic(args, "error", summary, attribute)
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
    /// terraform-plugin-testing does. Used for refresh-only plans, whose exit
    /// code Terraform 1.11 also sets when only the order of the state's
    /// `sensitive_attributes` differs, and after an import, where outputs are
    /// not in the state yet. Changes of sensitivity marks alone do not count.
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
    /// block for `step`) only imports `step.address`, with no change, and
    /// that applying it stores exactly `expected`; the next plan is empty.
    fn assert_import_only(&self, step: &ImportStep, expected: &Value, vars: &[&str]) {
        let plan = self.saved_plan("import.tfplan", vars);
        let change = plan["resource_changes"]
            .as_array()
            .and_then(|changes| {
                changes
                    .iter()
                    .find(|c| c["address"] == step.address.as_str())
            })
            .unwrap_or_else(|| panic!("no change for {} in {plan}", step.address));
        assert_eq!(
            (
                &change["change"]["actions"],
                &change["change"]["importing"]["id"]
            ),
            (
                &serde_json::json!(["no-op"]),
                &Value::String(step.id.clone())
            ),
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

/// The planned change of `address` in a saved plan (`show -json`), in the
/// manner of terraform-plugin-testing's plancheck.
pub fn planned_change<'a>(plan: &'a Value, address: &str) -> &'a Value {
    plan["resource_changes"]
        .as_array()
        .and_then(|changes| changes.iter().find(|c| c["address"] == address))
        .unwrap_or_else(|| panic!("{address} not in the plan: {plan:#}"))
}

/// Asserts the actions planned for `address` (`["update"]`, `["delete",
/// "create"]`...).
pub fn expect_action(plan: &Value, address: &str, actions: &[&str]) {
    assert_eq!(
        planned_change(plan, address)["change"]["actions"],
        serde_json::json!(actions),
        "actions planned for {address}"
    );
}

/// Asserts that `attribute` of `address` is known in the plan.
pub fn expect_known(plan: &Value, address: &str, attribute: &str) {
    let change = &planned_change(plan, address)["change"];
    assert!(
        change["after_unknown"][attribute] != Value::Bool(true)
            && !change["after"][attribute].is_null(),
        "{address}.{attribute} is not known in the plan: {change:#}"
    );
}

/// The diagnostics in Terraform's machine-readable output: the
/// `diagnostic` messages of `plan -json` / `apply -json`, or the
/// `diagnostics` of `validate -json`.
pub fn json_diagnostics(stdout: &str) -> Vec<Value> {
    if let Ok(document) = serde_json::from_str::<Value>(stdout) {
        if let Some(all) = document["diagnostics"].as_array() {
            return all.clone();
        }
    }
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["type"] == "diagnostic")
        .map(|message| message["diagnostic"].clone())
        .collect()
}

/// The forms a leaked `secret` could take in output and logs: as is,
/// JSON-escaped, and base64-encoded inside a larger text (the characters
/// that depend on the secret alone, for each of the three byte alignments).
pub fn secret_forms(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    let mut forms = vec![secret.to_owned()];
    let escaped = serde_json::to_string(secret).expect("JSON string");
    forms.push(escaped[1..escaped.len() - 1].to_owned());
    for offset in 0..3usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret.as_bytes());
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        let start = (offset * 8).div_ceil(6);
        let end = bytes.len() * 8 / 6;
        if end >= start + 8 {
            forms.push(encoded[start..end].to_owned());
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

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

/// Plans each bad configuration `(main.tf, summary, attribute, mention)`
/// beside the provider example and `files`, expecting the error diagnostic
/// at `attribute` (see [`Workdir::expect_diagnostic`]) whose summary or
/// detail also holds `mention`. `secret`, a value the configurations hold,
/// shows nowhere in the output.
pub fn expect_bad_inputs<C: AsRef<str>>(
    tf: &Terraform,
    files: &[(&str, &str)],
    secret: Option<&str>,
    cases: &[(C, &str, &str, Option<&str>)],
) {
    for (config, summary, attribute, mention) in cases {
        let work = Workdir::with_provider(tf, config.as_ref());
        for (name, content) in files {
            work.write_file(name, content);
        }
        let reported = work.expect_diagnostic_at(&["plan"], summary, attribute);
        if let Some(mention) = mention {
            assert!(
                reported.text().contains(mention),
                "{summary}: {mention} not mentioned on {}:\n{}",
                tf.version_string(),
                reported.text()
            );
        }
        if let Some(secret) = secret {
            assert!(
                !reported.run.combined().contains(secret),
                "{summary}: the secret shows on {}",
                tf.version_string()
            );
        }
    }
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
fn args_with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
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
    let tf = created.terraform();

    let fresh = Workdir::empty(tf);
    copy_inputs(created, &fresh);
    let mut import_args = vec!["import"];
    import_args.extend_from_slice(vars);
    import_args.extend([step.address.as_str(), step.id.as_str()]);
    fresh.run_ok(&import_args);
    assert_eq!(
        fresh.resource_values(&step.address),
        expected,
        "imported {} differs from the created one on {}",
        step.address,
        tf.version_string()
    );
    fresh.assert_no_resource_changes(vars);

    if tf.supports(Feature::ImportBlock) {
        // The configuration the resource was created from, plus an import block.
        let declared = Workdir::empty(tf);
        copy_inputs(created, &declared);
        declared.write_file("import.tf", &import_block(step));
        declared.assert_import_only(step, &expected, vars);

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
        generated.assert_import_only(step, &expected, &[]);
    }
}

/// An `import {}` block for `step`.
fn import_block(step: &ImportStep) -> String {
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
