//! The Terraform binaries the E2E and install tests run against (1.15.5,
//! 1.11 and 1.0.3, looked up through `tools` when a test first runs one),
//! what each version is known to do ([`Terraform::supports`] a
//! [`Capability`] of the compatibility table, [`refusal`] and the behaviour
//! methods of [`Terraform`]: the one home of that knowledge),
//! the plugin transport they start the provider on, and the result of one
//! Terraform command.
//!
//! Which versions a test runs on:
//! - [`for_each_terraform`]: every version (1.15.5, 1.11, 1.0.3).
//! - [`for_each_terraform_with`]: the versions with a [`Capability`]; the
//!   others are named on stderr as not run, and
//!   `newer_features_are_refused_clearly` checks that each of them refuses
//!   it with a clear error.
//! - [`for_each_terraform_rendering`]: a case about what the provider
//!   renders or diagnoses, not about how Terraform plans, stores, refreshes
//!   or imports: on the current Terraform (1.15.5) in the CI tier, on every
//!   version in the full tier (`tier`).
//! - [`terraform_1_15`], [`terraform_1_11`], [`terraform_1_0`]: one version,
//!   for what only that version shows; [`run_on`] some of them, each even
//!   when another fails.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

pub use clusterproxy::provider::compatibility::Capability;

use crate::tier::{self, Tier};
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

/// How a Terraform without a [`Capability`] refuses it: `main` (beside the
/// provider example) and the command that uses the capability fail with
/// `error` in their output.
#[derive(Debug, Clone, Copy)]
pub struct Refusal {
    /// The configuration using the capability (`main.tf`).
    pub main: &'static str,
    /// The command that uses it.
    pub args: &'static [&'static str],
    /// The error Terraform (or the provider) gives.
    pub error: &'static str,
}

/// How `tf`, which does not have `capability`, refuses it; `None` for a
/// version that has it, and for a capability a version without it does not
/// refuse (it fetches the provider schema more often: `SchemaOnce`).
pub fn refusal(capability: Capability, tf: &Terraform) -> Option<Refusal> {
    const VALIDATE: &[&str] = &["validate"];
    if tf.supports(capability) {
        return None;
    }
    // An `import` block is an unknown block before 1.5, whatever it holds.
    let import_block = if tf.supports(Capability::ImportBlock) {
        "Unsupported argument"
    } else {
        "Unsupported block type"
    };
    Some(match capability {
        // Every Terraform here speaks protocol 6; one without `SchemaOnce`
        // fetches the schema once per provider instance, refusing nothing.
        Capability::Protocol6 | Capability::SchemaOnce => return None,
        Capability::MovedBlock => Refusal {
            main: "moved {\n  from = clusterproxy_profile.x\n  to   = clusterproxy_profile.y\n}\n",
            args: VALIDATE,
            error: "Unsupported block type",
        },
        Capability::TerraformData => Refusal {
            main: "resource \"terraform_data\" \"x\" {}\n",
            args: VALIDATE,
            error: "Invalid resource type",
        },
        Capability::ImportBlock => Refusal {
            main: concat!(
                "resource \"clusterproxy_profile\" \"x\" {\n  name       = \"x\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n}\n",
                "import {\n  to = clusterproxy_profile.x\n  id = \"x\"\n}\n"
            ),
            args: VALIDATE,
            error: "Unsupported block type",
        },
        Capability::CheckBlock => Refusal {
            main: "check \"x\" {\n  assert {\n    condition     = true\n    error_message = \"x\"\n  }\n}\n",
            args: VALIDATE,
            error: "Unsupported block type",
        },
        Capability::ImportForEach => Refusal {
            main: concat!(
                "resource \"clusterproxy_profile\" \"x\" {\n  for_each   = toset([\"x\"])\n  name       = each.key\n  http_proxy = \"http://proxy.corp.example:3128\"\n}\n",
                "import {\n  for_each = toset([\"x\"])\n  to       = clusterproxy_profile.x[each.key]\n  id       = each.key\n}\n"
            ),
            args: VALIDATE,
            error: import_block,
        },
        Capability::Functions => Refusal {
            main: "output \"x\" {\n  value = provider::clusterproxy::merge_no_proxy([[\".corp.example\"]], null)\n}\n",
            args: VALIDATE,
            // Before 1.8 `::` is no HCL expression.
            error: "Missing newline after argument",
        },
        Capability::Ephemeral => Refusal {
            main: "ephemeral \"clusterproxy_proxy_check\" \"x\" {\n  url = \"http://proxy.corp.example:3128\"\n}\n",
            args: VALIDATE,
            error: "Unsupported block type",
        },
        // The provider refuses it: this Terraform would store the value.
        Capability::WriteOnly => Refusal {
            main: concat!(
                "resource \"clusterproxy_profile\" \"x\" {\n  name       = \"x\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n",
                "  username   = \"svc\"\n  password_wo = \"pw\"\n  password_wo_version = 1\n}\n"
            ),
            args: VALIDATE,
            error: "Write-only attribute not supported",
        },
        Capability::Identity => Refusal {
            main: concat!(
                "resource \"clusterproxy_profile\" \"x\" {\n  name       = \"x\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n}\n",
                "import {\n  to       = clusterproxy_profile.x\n  identity = { name = \"x\" }\n}\n"
            ),
            args: VALIDATE,
            error: import_block,
        },
        Capability::ListResources => Refusal {
            main: "",
            args: &["query"],
            error: "Terraform has no command named \"query\"",
        },
        Capability::Actions => Refusal {
            main: "action \"clusterproxy_proxy_check\" \"x\" {\n  config {\n    http_proxy = \"http://proxy.corp.example:3128\"\n    url        = \"https://registry-1.docker.io/v2/\"\n  }\n}\n",
            args: VALIDATE,
            error: "Unsupported block type",
        },
    })
}

impl Terraform {
    /// Whether this Terraform has `capability`.
    pub fn supports(&self, capability: Capability) -> bool {
        self.version >= capability.terraform_version()
    }

    /// Whether this Terraform reuses a provider's schema across its instances
    /// when the provider allows it (`get_provider_schema_optional`, 1.6).
    pub fn reuses_provider_schema(&self) -> bool {
        self.version >= Capability::SchemaOnce.terraform_version()
    }

    /// Whether this Terraform stores a resource's sensitive paths in a
    /// stable order (1.12, hashicorp/terraform#36465). Terraform 1.11 orders
    /// two or more paths at random and compares the list, so a refresh-only
    /// plan's exit code flips between 0 and 2 on "No changes"
    /// (hashicorp/terraform#36403).
    pub fn sorts_sensitive_paths(&self) -> bool {
        self.version >= (1, 12, 0)
    }

    /// Whether `plan -refresh-only -detailed-exitcode` exits 0 when nothing
    /// drifted. Terraform 1.15.x compares data resources too (commit
    /// 659d5e2218, first in v1.15.0; hashicorp/terraform#37406), so it exits
    /// 2 ("No changes") for every configuration with a data source; drift
    /// checks read `resource_drift` of `plan -refresh-only -json` instead.
    pub fn refresh_only_exit_code_is_reliable(&self) -> bool {
        !(self.version >= (1, 15, 0) && self.version < (1, 16, 0))
    }
}

fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().split('.').map(|part| part.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// Terraform 1.15.5 ([`tools::TERRAFORM_1_15`]), probed once; panics naming
/// it when it is missing or another version.
pub fn terraform_1_15() -> Terraform {
    static FOUND: OnceLock<Terraform> = OnceLock::new();
    FOUND
        .get_or_init(|| exact(tools::TERRAFORM_1_15, (1, 15, 5)))
        .clone()
}

/// Terraform >= 1.11 ([`tools::TERRAFORM_1_11`]), probed once; panics naming
/// it when it is missing or older.
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
        .get_or_init(|| exact(tools::TERRAFORM_1_0, (1, 0, 3)))
        .clone()
}

/// `tool` probed, asserting it is exactly `version`.
fn exact(tool: tools::Tool, version: (u32, u32, u32)) -> Terraform {
    let tf = Terraform::probe(tool.path());
    assert_eq!(
        tf.version,
        version,
        "{} must be {}; run scripts/install-test-tools",
        tf.path.display(),
        tool.name
    );
    tf
}

/// The Terraform binaries every E2E test of all versions runs against,
/// newest first: 1.15.5, 1.11, 1.0.3.
pub fn terraform_binaries() -> Vec<Terraform> {
    vec![terraform_1_15(), terraform_1_11(), terraform_1_0()]
}

/// Runs `test` once per Terraform binary, one after the other: the test
/// runner already runs two tests at a time (`--test-threads 2`), which keeps
/// at most two Terraform processes on the two-core CI machine. Every version
/// always runs; a failure on any is reported with its version.
pub fn for_each_terraform(test: impl Fn(&Terraform)) {
    run_on(&terraform_binaries(), test);
}

/// Runs `test`, a case about what the provider renders or diagnoses, on
/// the current Terraform in the CI tier and on every version in the full
/// tier ([`tier::tier`]). Such a case takes the path every data source read
/// and function call takes, which the cases of [`for_each_terraform`]
/// (the quickstart, the inputs every renderer shares, the profile's cycle)
/// run on every version in every tier; what differs between versions is
/// Terraform's, not the rendering's.
pub fn for_each_terraform_rendering(test: impl Fn(&Terraform)) {
    match tier::tier() {
        Tier::Ci => run_on(&[terraform_1_15()], test),
        Tier::Full | Tier::Soak => for_each_terraform(test),
    }
}

/// Runs `test` on every Terraform that has `capability` (see
/// [`for_each_terraform`]). The versions without it are named on stderr as
/// not run; how each refuses it is checked once, by
/// `newer_features_are_refused_clearly`.
pub fn for_each_terraform_with(capability: Capability, test: impl Fn(&Terraform)) {
    let (with, without): (Vec<Terraform>, Vec<Terraform>) = terraform_binaries()
        .into_iter()
        .partition(|tf| tf.supports(capability));
    let (major, minor, patch) = capability.terraform_version();
    for tf in &without {
        eprintln!(
            "not run on Terraform {}: needs {capability:?} (Terraform >= {major}.{minor}.{patch}), which it refuses",
            tf.version_string(),
        );
    }
    assert!(!with.is_empty(), "no Terraform here has {capability:?}");
    run_on(&with, test);
}

/// Runs `test` on each of `binaries`, all of them even when one fails.
pub fn run_on(binaries: &[Terraform], test: impl Fn(&Terraform)) {
    let failures: Vec<String> = binaries
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
