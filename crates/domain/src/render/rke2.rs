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

use super::{
    systemd, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets,
};
use crate::warning::Warning;
use crate::{Finding, InputField};

/// The option `scope`: which components get the proxy.
pub const SCOPE: InputField = InputField::Option("scope");

/// Which distribution's units read the file: it decides the file's path.
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

    const MODULE: &'static str = "rke2";

    const OPTIONS: &'static [InputField] = &[SCOPE];

    fn sample() -> Self {
        Rke2 {
            distribution: Distribution::Rke2,
            role: Role::Agent,
            scope: Scope::All,
        }
    }

    /// The file, within systemd's limits; with `scope = all` on an agent, a
    /// warning unless the cluster's pod and service CIDRs are in the list.
    fn render(&self, input: Input) -> Rendering<Rke2Env> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let content = env_file(settings, self.scope, secrets);
        let mut findings = systemd::check_limits(settings, &content);
        findings.extend(check(
            self.scope,
            self.role,
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

    /// The environment file, under its own name.
    fn held(&self, output: &Rke2Env) -> Held {
        let name = output.path.rsplit('/').next().unwrap_or(output.path);
        Held::Files(vec![HeldFile::new(
            name,
            "rke2",
            output.content.clone(),
            false,
        )])
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
/// (apiserver Service IP, metrics) leaks to the proxy. A server is safe:
/// before it starts anything, the rke2/k3s server appends its own cluster
/// and service CIDRs, `.svc` and `.<cluster-domain>` to NO_PROXY (k3s
/// `pkg/server/server.go`, `setNoProxyEnv`, which RKE2 runs too; the RKE2
/// docs, "Configuring an HTTP proxy"), and the kubelet and containerd it
/// starts inherit it. An agent appends nothing. A warning on `scope` naming
/// the missing inputs, for agents.
pub fn check(
    scope: Scope,
    role: Role,
    has_pod_cidrs: bool,
    has_service_cidrs: bool,
) -> Option<Finding> {
    let missing: Vec<&str> = [
        ("pod_cidrs", has_pod_cidrs),
        ("service_cidrs", has_service_cidrs),
    ]
    .into_iter()
    .filter(|(_, present)| !present)
    .map(|(name, _)| name)
    .collect();
    (scope == Scope::All && role == Role::Agent && !missing.is_empty()).then(|| {
        Finding::warning(
            Warning::InClusterTrafficProxied,
            SCOPE,
            "In-cluster traffic would go to the proxy",
            format!("With scope \"all\" the kubelet and the rke2/k3s agent read NO_PROXY, which lacks the cluster's {}, and unlike a server an agent does not add them; set them (RKE2 and k3s default to 10.42.0.0/16 and 10.43.0.0/16), or use scope \"containerd\".", missing.join(" and ")),
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

/// The environment file: one `NAME=value` line per variable the scope
/// passes on, after a comment that says who manages it.
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
        let warning = check(Scope::All, Role::Agent, true, false).unwrap();
        assert!(!warning.is_error() && warning.location == Some(SCOPE.into()));
        assert!(
            warning.detail.contains("service_cidrs"),
            "{}",
            warning.detail
        );
        assert_eq!(check(Scope::All, Role::Agent, true, true), None);
        assert_eq!(check(Scope::Containerd, Role::Agent, false, false), None);
        assert_eq!(check(Scope::All, Role::Server, false, false), None);
    }

    /// With `scope = all` and no pod or service CIDRs, agents get the
    /// warning and servers do not: the rke2/k3s server process appends its
    /// cluster and service CIDRs, `.svc` and `.<cluster-domain>` to its own
    /// NO_PROXY before it starts the kubelet and containerd (k3s
    /// `pkg/server/server.go`, `setNoProxyEnv`), an agent does not.
    #[test]
    fn scope_all_warns_on_agents_only() {
        let s = settings();
        let cluster = crate::render::Cluster::default();
        let warnings = |role| {
            let renderer = Rke2 {
                distribution: Distribution::Rke2,
                role,
                scope: Scope::All,
            };
            let input = Input {
                settings: &s,
                cluster: &cluster,
                secrets: Secrets::Include,
            };
            renderer.render(input).unwrap().warnings
        };
        assert_eq!(warnings(Role::Server), Vec::new());
        let agent = warnings(Role::Agent);
        assert_eq!(agent.len(), 1, "{agent:?}");
        assert!(agent[0].detail.contains("agent"), "{}", agent[0].detail);
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
