//! `clusterproxy_ignition`: an Ignition config and its Butane source for
//! Flatcar Container Linux and Fedora CoreOS.

use crate::domain::render::ignition::{self, Variant};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, OneOf, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct Ignition;

impl DataSource for Ignition {
    fn type_name(&self) -> &'static str {
        "clusterproxy_ignition"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            inputs::units_attribute(),
            Attribute::with_default(
                "variant",
                Type::String,
                Value::string(Variant::NAMES[0]),
                "`flatcar` (Flatcar Container Linux: the CA at `/etc/ssl/certs/clusterproxy-proxy-ca.pem`, `update-ca-certificates`; Butane variant `flatcar` 1.0.0) or `fcos` (Fedora CoreOS: `/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt`, `update-ca-trust extract`; Butane variant `fcos` 1.4.0). Defaults to `flatcar`.",
            )
            .validator(OneOf(&Variant::NAMES)),
            Attribute::computed(
                "config",
                Type::String,
                "The Ignition config (spec 3.3.0, JSON): `storage.files` with, with `trusted_ca`, the CA bundle (mode 0644), then one drop-in per unit at `/etc/systemd/system/<unit>.d/http-proxy.conf` (mode 0600 when the proxy URLs carry credentials, 0644 otherwise; written as files because Ignition's `systemd.units[].dropins` are always 0644), contents as `data:` URLs; with `trusted_ca` also the enabled oneshot unit `clusterproxy-trust-ca.service`, which rebuilds the trust store before the units start. Ignition writes everything before the first boot's services start, so no restart is needed. Merge it with `ignition.config.merge` or your provider's merge. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("config_redacted", Type::String, "`config` with the proxy password replaced by `***`, for review."),
            Attribute::computed("butane", Type::String, "The same config as Butane YAML (variant and version per `variant`, contents inline), for teams that keep Butane sources; Butane translates it to `config`. Holds the credentials.").sensitive(),
            Attribute::computed("butane_redacted", Type::String, "`butane` with the proxy password replaced by `***`, for review."),
        ]);
        Schema::new(
            "Renders the systemd drop-ins with the proxy environment and merged NO_PROXY, and with `trusted_ca` the CA bundle and a unit that makes the OS trust it, as an Ignition 3.3.0 config and as Butane YAML for Flatcar Container Linux and Fedora CoreOS. The config passes `ignition-validate`. systemd's line and environment limits apply as in `clusterproxy_systemd_dropin`. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let (proxy, units) = inputs::read_proxy_and_units(config, diags)?;
        let renderer = ignition::Ignition {
            units,
            variant: convert::string(config, "variant")
                .and_then(|name| Variant::from_name(&name))
                .unwrap_or(Variant::Flatcar),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr("config", Value::string(secret.config));
        state.set_attr("config_redacted", Value::string(redacted.config));
        state.set_attr("butane", Value::string(secret.butane));
        state.set_attr("butane_redacted", Value::string(redacted.butane));
        Some(state)
    }
}
