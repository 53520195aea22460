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

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct Talos;

crate::model! {
    /// The inputs.
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        /// `talos_version`.
        pub talos_version: Maybe<String> [with_default(Value::string("1.10"), "Talos version of the machines (`1.9`, `v1.10.3`...): decides where the CA goes. Before 1.10, a `machine.files` entry that appends the bundle to `/etc/ssl/certs/ca-certificates`; from 1.10, a `TrustedRootsConfig` document named `clusterproxy-proxy-ca`. Defaults to `1.10`; it shapes nothing else, so setting it without a `trusted_ca` is an error.")],
    }
}

crate::model! {
    /// The computed attributes.
    pub struct State {
        /// `patch`.
        pub patch: String [computed("The machine config patch (YAML): `machine.env` with `http_proxy`, `https_proxy` and `no_proxy`, which Talos sets on PID 1 and every Talos service (containerd, kubelet, etcd, apid), and with `trusted_ca` the CA as `talos_version` wants it (from 1.10 a second YAML document). Apply with `talosctl gen config --config-patch`, `talosctl patch machineconfig` or a `talos_machine_configuration_apply` `config_patches` entry. `machine.env` does not reach pods, static control-plane pods included: give those their env separately (`clusterproxy_pod_env`). Holds the credentials: `machine.env` takes no Secret reference.").sensitive()],
        /// `patch_redacted`.
        pub patch_redacted: String [computed("`patch` with the proxy password replaced by `***`, for review.")],
    }
}

impl DataSource for Talos {
    fn type_name(&self) -> &'static str {
        "clusterproxy_talos"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders a Talos Linux machine config patch with the proxy and the merged NO_PROXY in `machine.env`, and with `trusted_ca` the CA bundle for the Talos version. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let config = Config::read(config);
        config.proxy.validate_ca_only_inputs(
            &[(
                Config::talos_version,
                config.talos_version.known().is_some(),
            )],
            diags,
        );
        if let Some(version) = config.talos_version.known() {
            if let Err(finding) = talos::minor(version) {
                let root = AttributePath::root();
                convert::push_findings(&[finding], &root, SettingsAt::Renderer, diags);
            }
        }
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::read(value);
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
