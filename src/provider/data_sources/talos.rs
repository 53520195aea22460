//! `clusterproxy_talos`: a Talos machine config patch.

use crate::domain::render::talos;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::inputs;
use crate::provider::inputs::RendererInputs;

#[derive(Debug, Clone, Copy)]
pub struct Talos;

/// `talos_version` when unset: the current stable Talos minor.
pub const DEFAULT_VERSION: &str = "1.13";

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub talos_version: Maybe<String> [with_default(Value::string(DEFAULT_VERSION), "Talos version of the machines (`1.12`, `v1.13.3`...): decides where the variables and the CA go. Before 1.13 the variables go into `machine.env`; from 1.13, which deprecates `machine.env` and drops it from its config schema, into an `EnvironmentConfig` document. With `trusted_ca`, before 1.10 a `machine.files` entry that appends the bundle to `/etc/ssl/certs/ca-certificates`; from 1.10, a `TrustedRootsConfig` document named `clusterproxy-proxy-ca`. Defaults to `1.13`, the current stable release.")],
    }
}

crate::model! {
    pub struct State {
        pub patch: String [computed("The machine config patch (YAML, one or more documents): `http_proxy`, `https_proxy` and `no_proxy`, which Talos sets on PID 1 and every Talos service (containerd, kubelet, etcd, apid), in `machine.env` before Talos 1.13 and in an `EnvironmentConfig` document from 1.13, and with `trusted_ca` the CA as `talos_version` wants it (from 1.10 a `TrustedRootsConfig` document). Apply with `talosctl gen config --config-patch`, `talosctl patch machineconfig` or a `talos_machine_configuration_apply` `config_patches` entry. These variables do not reach pods, static control-plane pods included: give those their env separately (`clusterproxy_pod_env`). Holds the credentials: Talos's environment takes no Secret reference.").sensitive()],
        pub patch_redacted: String [computed("`patch` with the proxy password replaced by `***`, for review.")],
    }
}

impl DataSource for Talos {
    fn type_name(&self) -> &'static str {
        "clusterproxy_talos"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders a Talos Linux machine config patch with the proxy and the merged NO_PROXY (`machine.env`, or from Talos 1.13 an `EnvironmentConfig` document), and with `trusted_ca` the CA bundle for the Talos version. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let Some(config) = Config::get_planned(config, diags) else {
            return;
        };
        if let Some(version) = config.talos_version.known() {
            if let Err(finding) = talos::minor(version) {
                let root = AttributePath::root();
                convert::push_findings(&[finding], &root, SettingsAt::Renderer, diags);
            }
        }
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let version = config.talos_version.known().cloned().unwrap_or_default();
        let root = AttributePath::root();
        let minor = talos::minor(&version).map_err(|finding| {
            convert::push_findings(&[finding], &root, SettingsAt::Renderer, diags)
        });
        let proxy = config.proxy.resolve(diags)?;
        minor.ok()?;
        let (secret, redacted) = inputs::render_both(&talos::Talos { version }, &proxy, diags)?;
        Some(model::computed(State {
            patch: secret,
            patch_redacted: redacted,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::renderers;

    /// The supported-versions table of the platform guide has a row per
    /// renderer, and the row of every renderer with a version input names
    /// that input and its default (a changed default must reach the table).
    #[test]
    fn supported_versions_table_lists_every_default() {
        let guide = include_str!("../../../docs/guides/choosing-your-platform.md");
        let table = guide
            .split("## Supported versions")
            .nth(1)
            .and_then(|rest| rest.split("\n## ").next())
            .expect("a Supported versions section");
        for renderer in renderers() {
            let name = renderer.type_name();
            let row = table
                .lines()
                .find(|line| line.starts_with(&format!("| `{name}` |")))
                .unwrap_or_else(|| panic!("no row for {name}"));
            let inputs: Vec<_> = renderer
                .schema()
                .attributes
                .into_iter()
                .filter(|a| a.name.ends_with("_version"))
                .collect();
            let version_cell = row.split('|').nth(2).unwrap().trim();
            if inputs.is_empty() {
                assert_eq!(version_cell, "none", "{name}");
            }
            for input in inputs {
                let default = input
                    .default
                    .as_ref()
                    .and_then(|d| d.as_str())
                    .unwrap_or_else(|| panic!("{name}.{} has no default", input.name));
                assert_eq!(
                    version_cell,
                    format!("`{}` (`{default}`)", input.name),
                    "{name}"
                );
            }
        }
    }
}
