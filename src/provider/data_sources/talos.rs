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
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct TalosDataSource;

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

impl DataSource for TalosDataSource {
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

impl Platform for TalosDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "Talos",
            writes: "a machine config patch per `talos_version`: the variables in `machine.env` before 1.13, in an `EnvironmentConfig` document from 1.13; the CA in `machine.files` before 1.10, a `TrustedRootsConfig` document from 1.10",
            pitfalls: "the variables reach Talos's own services, not pods: render pod env separately",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: Some(Config::talos_version),
            consumers: "Talos 1.x; checked against the config schemas of 1.9, 1.10, 1.11, 1.12 and 1.13",
            differences: "before 1.10 the CA is a `machine.files` append, from 1.10 a `TrustedRootsConfig` document; before 1.13 the variables are in `machine.env`, from 1.13 (which deprecates it and drops it from its schema) in an `EnvironmentConfig` document",
        }
    }

    fn summary(&self) -> &'static str {
        "Talos machine config patch: `machine.env` and the CA per Talos version"
    }
}
