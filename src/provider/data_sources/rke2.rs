//! `clusterproxy_rke2`: the environment file of an RKE2 or k3s node.

use crate::domain::render::rke2::{self, Distribution, Role, Scope};
use crate::domain::render::systemd;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::{OneOf, Schema};
use crate::framework::value::Value;
use crate::provider::inputs::{self, CaFile, OsFamilyInput, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct Rke2DataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub distribution: Option<String> [with_default(Value::string(Distribution::NAMES[0]), "`rke2` or `k3s`. Defaults to `rke2`.").validator(OneOf(&Distribution::NAMES))],
        pub role: Option<String> [with_default(Value::string(Role::NAMES[0]), "`server` (rke2-server, k3s) or `agent` (rke2-agent, k3s-agent). Defaults to `server`.").validator(OneOf(&Role::NAMES))],
        pub scope: Option<String> [with_default(Value::string(Scope::NAMES[0]), "Which components get the proxy. `containerd` (the default): `CONTAINERD_HTTP_PROXY`, `CONTAINERD_HTTPS_PROXY`, `CONTAINERD_NO_PROXY`, which RKE2 and k3s pass to their containerd only, so image pulls use the proxy while the rke2/k3s process, its kubelet, apiserver and etcd never do (before the fix of k3s-io/k3s#5642, in k3s v1.24.2, a `NO_PROXY` set elsewhere could shadow `CONTAINERD_NO_PROXY`; RKE2 runs the same agent code). `all`: `HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`, read by the rke2/k3s process, its kubelet and the containerd it starts; then every in-cluster address must be in NO_PROXY or the kubelet's and apiserver's traffic goes to the proxy. A server appends its own cluster and service CIDRs, `.svc` and `.<cluster domain>` to NO_PROXY; an agent does not, so on an agent without `pod_cidrs` or `service_cidrs` this scope gets a warning.").validator(OneOf(&Scope::NAMES))],
        /// The OS family.
        pub os_family: OsFamilyInput [embed],
    }
}

crate::model! {
    pub struct State {
        pub path: String [computed("Where the file goes: `/etc/default/rke2-server`, `/etc/default/rke2-agent`, `/etc/systemd/system/k3s.service.env` or `/etc/systemd/system/k3s-agent.service.env`, read by the unit's `EnvironmentFile=`.")],
        pub permissions: String [computed("`0600` when the proxy URLs carry credentials, `0644` otherwise; owner `root:root`.")],
        pub content: String [computed("The environment file: the variables of `scope`, uppercase, one `NAME=\"value\"` line each (`\"`, `\\`, `` ` `` and `$` escaped). The k3s install script writes its own `K3S_*` variables into the k3s file: append these lines there rather than replacing it. Each run of that script (also an upgrade through it) writes the file anew from the script's own environment (its `K3S_*` and proxy variables), so run it with these variables set or append the lines again after it; OpenRC nodes source the file with `sh`, which reads these lines the same way. Holds the credentials: these files take no Secret reference.").sensitive()],
        pub content_redacted: String [computed("`content` with the proxy password replaced by `***`, for review.")],
        /// The CA bundle file.
        pub ca_files: Vec<CaFile> [computed(inputs::OS_TRUST_CA_FILES)],
        pub commands: Vec<String> [computed("Commands that apply the files, in order: with `trusted_ca` the trust store update of `os_family`, then `systemctl restart -- '<unit>'` for the unit of `distribution` and `role` (no daemon-reload: the unit file itself is unchanged).")],
    }
}

fn choice<T>(value: &Option<String>, parse: fn(&str) -> Option<T>, default: T) -> T {
    value.as_deref().and_then(parse).unwrap_or(default)
}

impl DataSource for Rke2DataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_rke2"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders the environment file of an RKE2 or k3s node with the proxy and the merged NO_PROXY, for containerd only (`CONTAINERD_*`, the default) or for every component. With `trusted_ca`, the CA bundle file for `os_family` and the command that makes the OS trust it. Give the cluster's node, pod and service CIDRs as inputs: the merged list carries them explicitly, so the file does not depend on what a given RKE2 or k3s release adds on its own. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let Some(config) = Config::get_planned(config, diags) else {
            return;
        };
        config
            .proxy
            .validate_ca_only_inputs(&[config.os_family.ca_only()], diags);
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let proxy = config.proxy.resolve(diags)?;
        let settings = &proxy.settings;
        let renderer = rke2::Rke2 {
            distribution: choice(
                &config.distribution,
                Distribution::from_name,
                Distribution::Rke2,
            ),
            role: choice(&config.role, Role::from_name, Role::Server),
            scope: choice(&config.scope, Scope::from_name, Scope::Containerd),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let os = config.os_family.family();
        let unit = secret.unit.to_owned();
        let trust_command = settings.trusted_ca.as_ref().map(|_| os.trust_command());
        // apply_commands orders trust, daemon-reload, restarts; no unit file changes here.
        let commands: Vec<String> = systemd::apply_commands(&[unit], trust_command)
            .into_iter()
            .filter(|c| c != "systemctl daemon-reload")
            .collect();
        Some(model::computed(State {
            path: secret.path.to_owned(),
            permissions: systemd::permissions(settings).to_owned(),
            content: secret.content,
            content_redacted: redacted.content,
            ca_files: inputs::ca_files(settings, os),
            commands,
        }))
    }
}

impl Platform for Rke2DataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "RKE2, k3s",
            writes: "`/etc/default/rke2-server|agent` or `k3s[-agent].service.env`",
            pitfalls: "`scope = \"containerd\"` (default) sets only `CONTAINERD_*`, so the proxy never leaks into the kubelet or the API server; `scope = \"all\"` warns without the cluster CIDRs",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "RKE2 and k3s environment files (`CONTAINERD_*` since k3s v1.24.2), read by the units' `EnvironmentFile=`; checked with systemd's environment file parser",
            differences: "one format; a server adds its own cluster and service CIDRs to NO_PROXY, an agent does not",
        }
    }

    fn summary(&self) -> &'static str {
        "RKE2 `/etc/default/rke2-*` and k3s `*.service.env` files, `CONTAINERD_*` or all components"
    }
}
