//! The Terraform binaries the E2E and install tests run against (1.11 and
//! 1.0.3, looked up through `tools` when a test first runs one), the plugin
//! transport they start the provider on, and the result of one Terraform
//! command.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::tools;

/// One Terraform binary and its version.
#[derive(Debug, Clone)]
pub struct Terraform {
    /// Path of the executable.
    pub path: PathBuf,
    /// Version reported by `terraform version -json` / `terraform version`.
    pub version: (u32, u32, u32),
    /// The plugin transport the provider is told to use
    /// (`CLUSTERPROXY_PLUGIN_TRANSPORT`); `None`: the platform's default.
    pub transport: Option<&'static str>,
}

impl Terraform {
    /// Human-readable version, e.g. `1.0.3`.
    pub fn version_string(&self) -> String {
        let (major, minor, patch) = self.version;
        format!("{major}.{minor}.{patch}")
    }

    /// This Terraform with the provider serving on loopback TCP, as on Windows.
    pub fn over_tcp(&self) -> Terraform {
        Terraform {
            transport: Some("tcp"),
            ..self.clone()
        }
    }

    /// Sets, on a Terraform command, the provider's transport: Terraform
    /// passes its environment on to the plugins it starts.
    pub fn select_transport(&self, command: &mut Command) {
        match self.transport {
            Some(transport) => command.env("CLUSTERPROXY_PLUGIN_TRANSPORT", transport),
            None => command.env_remove("CLUSTERPROXY_PLUGIN_TRANSPORT"),
        };
    }

    fn probe(path: PathBuf) -> Terraform {
        let output = Command::new(&path)
            .arg("version")
            .env("CHECKPOINT_DISABLE", "1")
            .output()
            .unwrap_or_else(|err| panic!("cannot run {}: {err}", path.display()));
        let stdout = Run::from_output(output)
            .expect_ok(&["version"], &path.display().to_string())
            .stdout;
        let version = stdout
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("Terraform v"))
            .and_then(parse_version)
            .unwrap_or_else(|| panic!("{} printed no version: {stdout}", path.display()));
        Terraform {
            path,
            version,
            transport: None,
        }
    }
}

fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|part| part.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// Terraform >= 1.11 ([`tools::TERRAFORM_1_11`]), probed once; panics
/// naming it when it is missing or older.
pub fn terraform_1_11() -> Terraform {
    static FOUND: OnceLock<Terraform> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let tf = Terraform::probe(tools::TERRAFORM_1_11.path());
            assert!(
                tf.version >= (1, 11, 0),
                "{} must be Terraform >= 1.11, found {}",
                tf.path.display(),
                tf.version_string()
            );
            tf
        })
        .clone()
}

/// Terraform 1.0.3 ([`tools::TERRAFORM_1_0`]), probed once; panics naming it
/// when it is missing or another version.
pub fn terraform_1_0() -> Terraform {
    static FOUND: OnceLock<Terraform> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let tf = Terraform::probe(tools::TERRAFORM_1_0.path());
            assert_eq!(
                tf.version,
                (1, 0, 3),
                "{} must be Terraform 1.0.3; run scripts/install-test-tools",
                tf.path.display()
            );
            tf
        })
        .clone()
}

/// The Terraform binaries every E2E test of both versions runs against:
/// 1.11 then 1.0.3.
pub fn terraform_binaries() -> Vec<Terraform> {
    vec![terraform_1_11(), terraform_1_0()]
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
    /// The result of a finished command.
    pub fn from_output(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// The run of `terraform ARGS...`, or a panic naming it and `on` (the
    /// Terraform version or binary) unless it exited 0.
    pub fn expect_ok(self, args: &[&str], on: &str) -> Run {
        assert_eq!(
            self.code,
            0,
            "terraform {} failed on {on}:\n{}",
            args.join(" "),
            self.combined()
        );
        self
    }

    /// Both streams, for leak checks and failure messages.
    pub fn combined(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}
