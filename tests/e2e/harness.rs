//! The working directories the E2E tests run real Terraform in: the provider
//! is wired in through `dev_overrides`, so no registry access and no
//! `terraform init` happen; a proxy pointing at a closed port makes any
//! accidental network access fail. Plugin TLS stays on.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub use crate::terraform::*;

/// Provider source address used in `dev_overrides`.
pub const PROVIDER_ADDRESS: &str = "registry.terraform.io/clusterproxy/clusterproxy";

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

/// The path of a file of the importers' corpus, tests/fixtures/import/`path`.
pub fn import_fixture(path: &str) -> String {
    format!(
        "{}/tests/fixtures/import/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A throwaway Terraform working directory wired to the provider via
/// `dev_overrides` for one Terraform binary.
pub struct Workdir {
    /// The temporary directory: the CLI config, logs and `work/`.
    pub dir: tempfile::TempDir,
    /// The Terraform binary this directory runs.
    pub tf: Terraform,
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

    /// `terraform ARGS...` in this directory, with `-no-color` and an
    /// environment that allows no network access.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.tf.path);
        // Every subcommand the harness uses accepts -no-color right after it;
        // plain text keeps `expect_failure` needles matching.
        if let Some((subcommand, rest)) = args.split_first() {
            command.arg(subcommand).arg("-no-color").args(rest);
        }
        self.environment(&mut command);
        command
    }

    /// Sets up `command` (Terraform, or a script that runs it) to run in
    /// this directory with an environment that allows no network access.
    pub fn environment(&self, command: &mut Command) {
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
        self.tf.select_transport(command);
    }

    /// Runs `terraform ARGS...` and returns its result whatever the exit code.
    pub fn run(&self, args: &[&str]) -> Run {
        let output = self.command(args).output().expect("spawn terraform");
        Run::from_output(output)
    }
}

impl Run {
    /// The diagnostics of a `-json` run (see [`json_diagnostics`]).
    pub fn diagnostics(&self) -> Vec<Value> {
        json_diagnostics(&self.stdout)
    }

    /// The summary and detail of each of its errors ([`diagnostic_text`]).
    pub fn error_texts(&self) -> Vec<String> {
        self.diagnostics()
            .iter()
            .filter(|d| d["severity"] == "error")
            .map(diagnostic_text)
            .collect()
    }

    /// Its warnings whose summary `summary` accepts.
    pub fn warnings(&self, summary: impl Fn(&str) -> bool) -> Vec<Value> {
        self.diagnostics()
            .into_iter()
            .filter(|d| d["severity"] == "warning" && d["summary"].as_str().is_some_and(&summary))
            .collect()
    }
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

/// A diagnostic's summary and detail, one line apart.
pub fn diagnostic_text(diagnostic: &Value) -> String {
    format!(
        "{}\n{}",
        diagnostic["summary"].as_str().unwrap_or_default(),
        diagnostic["detail"].as_str().unwrap_or_default()
    )
}

/// Each Terraform here refuses every capability it does not have with a
/// clear error ([`refusal`]): what [`for_each_terraform_with`] does not run
/// on a version is checked here once.
#[test]
fn newer_features_are_refused_clearly() {
    for_each_terraform(|tf| {
        for capability in Capability::ALL {
            let Some(refusal) = refusal(capability, tf) else {
                continue;
            };
            let work = Workdir::with_provider(tf, refusal.main);
            let run = work.run(refusal.args);
            assert!(
                run.code == 1 && run.combined().contains(refusal.error),
                "Terraform {} gave no {:?} for {capability:?} (`terraform {}`):\n{}",
                tf.version_string(),
                refusal.error,
                refusal.args.join(" "),
                run.combined()
            );
        }
    });
}
