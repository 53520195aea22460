//! RKE2 and k3s: the environment file their systemd units read.
//!
//! From the RKE2 docs (rancher/rke2 `docs/advanced.md`, "Configuring an HTTP
//! proxy") and the k3s docs (k3s-io/docs `docs/advanced/advanced.md`, same
//! section): RKE2 reads `/etc/default/rke2-server` or `/etc/default/rke2-agent`,
//! k3s reads `/etc/systemd/system/k3s.service.env` (server) or
//! `/etc/systemd/system/k3s-agent.service.env` (agent), through the unit's
//! `EnvironmentFile=`. `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` there reach
//! the rke2/k3s process, its embedded kubelet and the containerd it starts;
//! `CONTAINERD_HTTP_PROXY`, `CONTAINERD_HTTPS_PROXY` and `CONTAINERD_NO_PROXY`
//! are passed to containerd only (with the prefix removed), so image pulls
//! use the proxy and nothing else does. The `CONTAINERD_` variables came
//! with k3s-io/k3s#3552; `NO_PROXY` could shadow `CONTAINERD_NO_PROXY` until
//! the fix of k3s-io/k3s#5642 (validated in k3s v1.24.2-rc1). RKE2 runs the
//! k3s agent code, so the same holds there.
//!
//! Values are written `NAME="value"`: systemd's environment file reader (and
//! `sh`) remove the quotes and the backslash before `"`, `\`, `` ` `` and `$`.

use super::{systemd, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};
use crate::{Field, Finding};

/// The distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// RKE2.
    Rke2,
    /// k3s.
    K3s,
}

impl Distribution {
    /// The names accepted in configuration, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["rke2", "k3s"];

    /// The distribution called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "rke2" => Some(Self::Rke2),
            "k3s" => Some(Self::K3s),
            _ => None,
        }
    }

    /// The service unit of `role` (`server` or `agent`).
    pub fn unit(self, role: Role) -> &'static str {
        match (self, role) {
            (Self::Rke2, Role::Server) => "rke2-server.service",
            (Self::Rke2, Role::Agent) => "rke2-agent.service",
            (Self::K3s, Role::Server) => "k3s.service",
            (Self::K3s, Role::Agent) => "k3s-agent.service",
        }
    }

    /// The environment file the unit of `role` reads.
    pub fn env_path(self, role: Role) -> &'static str {
        match (self, role) {
            (Self::Rke2, Role::Server) => "/etc/default/rke2-server",
            (Self::Rke2, Role::Agent) => "/etc/default/rke2-agent",
            (Self::K3s, Role::Server) => "/etc/systemd/system/k3s.service.env",
            (Self::K3s, Role::Agent) => "/etc/systemd/system/k3s-agent.service.env",
        }
    }
}

/// The node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Control plane (rke2-server, k3s).
    Server,
    /// Worker (rke2-agent, k3s-agent).
    Agent,
}

impl Role {
    /// The names accepted in configuration, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["server", "agent"];

    /// The role called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "server" => Some(Self::Server),
            "agent" => Some(Self::Agent),
            _ => None,
        }
    }
}

/// Which components get the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// containerd only (`CONTAINERD_*`): image pulls; the kubelet, the
    /// apiserver and etcd never see the proxy.
    Containerd,
    /// The rke2/k3s process, its kubelet and containerd (`HTTP_PROXY`...).
    All,
}

impl Scope {
    /// The names accepted in configuration, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["containerd", "all"];

    /// The scope called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "containerd" => Some(Self::Containerd),
            "all" => Some(Self::All),
            _ => None,
        }
    }

    /// The prefix of the variable names.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Containerd => "CONTAINERD_",
            Self::All => "",
        }
    }
}

/// RKE2 and k3s: which distribution, which node role, which processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rke2 {
    /// RKE2 or k3s.
    pub distribution: Distribution,
    /// Server or agent.
    pub role: Role,
    /// containerd only, or every process of the service.
    pub scope: Scope,
}

/// The environment file and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rke2Env {
    /// The path of the file (see [`Distribution::env_path`]).
    pub path: &'static str,
    /// The unit that reads it (see [`Distribution::unit`]).
    pub unit: &'static str,
    /// The file (see [`env_file`]).
    pub content: String,
}

impl Renderer for Rke2 {
    type Output = Rke2Env;

    /// The file, within systemd's limits; with `scope = all`, a warning
    /// unless the cluster's pod and service CIDRs are in the list.
    fn render(&self, input: Input) -> Rendering<Rke2Env> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let content = env_file(settings, self.scope, secrets);
        let mut findings = systemd::check_limits(settings, &content);
        findings.extend(check(
            self.scope,
            !cluster.pod_cidrs.is_empty(),
            !cluster.service_cidrs.is_empty(),
        ));
        Rendered::checked(
            Rke2Env {
                path: self.distribution.env_path(self.role),
                unit: self.distribution.unit(self.role),
                content,
            },
            findings,
        )
    }
}

/// The variables, uppercase as both docs write them: `HTTP_PROXY`,
/// `HTTPS_PROXY`, `NO_PROXY`, with the prefix of `scope`.
pub fn variables(
    settings: &ProxySettings,
    scope: Scope,
    secrets: Secrets,
) -> Vec<(String, String)> {
    settings
        .variables(secrets)
        .into_iter()
        .filter(|(name, _)| name.chars().all(|c| !c.is_ascii_lowercase()))
        .map(|(name, value)| (format!("{}{name}", scope.prefix()), value))
        .collect()
}

/// The platform rule of `scope = all`: the kubelet and the rke2/k3s
/// process then send every address missing from NO_PROXY to the proxy, so
/// without the cluster's pod and service CIDRs their in-cluster traffic
/// (apiserver Service IP, webhooks, metrics) leaks to the proxy. A warning
/// on `scope` naming the missing inputs.
pub fn check(scope: Scope, has_pod_cidrs: bool, has_service_cidrs: bool) -> Option<Finding> {
    let missing: Vec<&str> = [
        ("pod_cidrs", has_pod_cidrs),
        ("service_cidrs", has_service_cidrs),
    ]
    .into_iter()
    .filter(|(_, present)| !present)
    .map(|(name, _)| name)
    .collect();
    (scope == Scope::All && !missing.is_empty()).then(|| {
        Finding::warning(
            Field::Option("scope"),
            "In-cluster traffic would go to the proxy",
            format!("With scope \"all\" the kubelet and the rke2/k3s process read NO_PROXY, which lacks the cluster's {}; set them (RKE2 and k3s default to 10.42.0.0/16 and 10.43.0.0/16), or use scope \"containerd\".", missing.join(" and ")),
        )
    })
}

/// `value` in double quotes with `"`, `\`, `` ` `` and `$` escaped.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '`' | '$') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The environment file.
pub fn env_file(settings: &ProxySettings, scope: Scope, secrets: Secrets) -> String {
    let mut out = String::from("# Proxy settings, managed by Terraform (clusterproxy).\n");
    for (name, value) in variables(settings, scope, secrets) {
        out.push_str(&format!("{name}={}\n", quote(&value)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};
    use std::process::Command;

    /// The file read by systemd's own environment file parser: the
    /// environment.d generator reads `*.conf` files with the parser of
    /// `EnvironmentFile=` and prints the result, double-quoted with
    /// backslash escapes where a value needs it. (environment.d also expands
    /// `$NAME`, which `EnvironmentFile=` does not; rendered values never hold
    /// `$`, which percent-encoding turns into `%24`.)
    fn systemd_reads(content: &str) -> Vec<(String, String)> {
        let generator = [
            "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator",
            "/lib/systemd/user-environment-generators/30-systemd-environment-d-generator",
        ]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("systemd is installed (scripts/install-test-tools)");
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("environment.d");
        std::fs::create_dir(&conf).unwrap();
        std::fs::write(conf.join("50-proxy.conf"), content).unwrap();
        let out = Command::new(generator)
            .env_clear()
            .env("XDG_CONFIG_HOME", dir.path())
            .env("XDG_CONFIG_DIRS", dir.path().join("none"))
            .env("XDG_DATA_DIRS", dir.path().join("none"))
            .output()
            .unwrap();
        assert!(out.status.success());
        let unquote = |v: &str| match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            Some(inner) => {
                let mut out = String::new();
                let mut chars = inner.chars();
                while let Some(c) = chars.next() {
                    out.push(if c == '\\' { chars.next().unwrap() } else { c });
                }
                out
            }
            None => v.to_owned(),
        };
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), unquote(v)))
            .collect()
    }

    fn sh_reads(content: &str, names: &[String]) -> Vec<(String, String)> {
        names
            .iter()
            .map(|name| {
                let out = Command::new("sh")
                    .args(["-c", &format!("{content}\nprintf '%s' \"${name}\"")])
                    .env_clear()
                    .output()
                    .unwrap();
                (name.clone(), String::from_utf8(out.stdout).unwrap())
            })
            .collect()
    }

    /// Raw values with characters that need care: `"`, `\`, space, `` ` ``, `'`, `%`.
    const RAW: [&str; 4] = [r#"a"b"#, r"c\d e", "`id` 100%", "it's"];

    /// systemd's parser and `sh` both read back exactly the variables, also
    /// for raw values with every character that needs care; `sh` also for `$`.
    #[test]
    fn systemd_and_sh_read_the_intended_values() {
        let s = settings();
        let mut want = variables(&s, Scope::Containerd, Secrets::Include);
        let mut content = env_file(&s, Scope::Containerd, Secrets::Include);
        for (i, raw) in RAW.iter().enumerate() {
            content.push_str(&format!("RAW{i}={}\n", quote(raw)));
            want.push((format!("RAW{i}"), (*raw).to_owned()));
        }
        // Only ours: the host's /usr/lib/environment.d files are read too.
        let mut got: Vec<_> = systemd_reads(&content)
            .into_iter()
            .filter(|(name, _)| want.iter().any(|(n, _)| n == name))
            .collect();
        got.sort();
        let mut sorted = want.clone();
        sorted.sort();
        assert_eq!(got, sorted, "{content}");
        content.push_str(&format!("DOLLAR={}\n", quote("$HOME ${X}")));
        want.push(("DOLLAR".to_owned(), "$HOME ${X}".to_owned()));
        let names: Vec<String> = want.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(sh_reads(&content, &names), want);
    }

    #[test]
    fn scope_decides_the_names() {
        let s = settings();
        let names = |scope| -> Vec<String> {
            variables(&s, scope, Secrets::Redact)
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        assert_eq!(
            names(Scope::Containerd),
            [
                "CONTAINERD_HTTP_PROXY",
                "CONTAINERD_HTTPS_PROXY",
                "CONTAINERD_NO_PROXY"
            ]
        );
        assert_eq!(names(Scope::All), ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"]);
        assert_eq!(
            Distribution::K3s.env_path(Role::Agent),
            "/etc/systemd/system/k3s-agent.service.env"
        );
    }

    #[test]
    fn scope_all_without_cluster_cidrs_warns() {
        let warning = check(Scope::All, true, false).unwrap();
        assert!(!warning.is_error() && warning.location == Some(Field::Option("scope").into()));
        assert!(
            warning.detail.contains("service_cidrs"),
            "{}",
            warning.detail
        );
        assert_eq!(check(Scope::All, true, true), None);
        assert_eq!(check(Scope::Containerd, false, false), None);
    }

    #[test]
    fn golden_files() {
        let s = settings();
        golden(
            "rke2/containerd.env",
            &env_file(&s, Scope::Containerd, Secrets::Include),
        );
        golden(
            "rke2/all-redacted.env",
            &env_file(&s, Scope::All, Secrets::Redact),
        );
    }
}
