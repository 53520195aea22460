//! `clusterproxy_talos`: a Talos machine config patch.

use crate::domain::render::talos;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct Talos;

impl DataSource for Talos {
    fn type_name(&self) -> &'static str {
        "clusterproxy_talos"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::with_default(
                "talos_version",
                Type::String,
                Value::string("1.10"),
                "Talos version of the machines (`1.9`, `v1.10.3`...): decides where the CA goes. Before 1.10, a `machine.files` entry that appends the bundle to `/etc/ssl/certs/ca-certificates`; from 1.10, a `TrustedRootsConfig` document named `clusterproxy-proxy-ca`. Defaults to `1.10`.",
            ),
            Attribute::computed(
                "patch",
                Type::String,
                "The machine config patch (YAML): `machine.env` with `http_proxy`, `https_proxy` and `no_proxy`, which Talos sets on PID 1 and every Talos service (containerd, kubelet, etcd, apid), and with `trusted_ca` the CA as `talos_version` wants it (from 1.10 a second YAML document). Apply with `talosctl gen config --config-patch`, `talosctl patch machineconfig` or a `talos_machine_configuration_apply` `config_patches` entry. `machine.env` does not reach pods, static control-plane pods included: give those their env separately (`clusterproxy_pod_env`). Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("patch_redacted", Type::String, "`patch` with the proxy password replaced by `***`, for review."),
        ]);
        Schema::new(
            "Renders a Talos Linux machine config patch with the proxy and the merged NO_PROXY in `machine.env`, and with `trusted_ca` the CA bundle for the Talos version. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if let Some(version) = convert::string(config, "talos_version") {
            if let Err(finding) = talos::minor("talos_version", &version) {
                convert::push_findings(&[finding], &AttributePath::root(), diags);
            }
        }
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let version = convert::string(config, "talos_version").unwrap_or_default();
        let minor = talos::minor("talos_version", &version)
            .map_err(|finding| convert::push_findings(&[finding], &AttributePath::root(), diags));
        let proxy = inputs::read_proxy(config, diags)?;
        minor.ok()?;
        let talos = talos::Talos { version };
        let (secret, redacted) = inputs::render_both(&talos, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr("patch", Value::string(secret));
        state.set_attr("patch_redacted", Value::string(redacted));
        Some(state)
    }
}
