//! `clusterproxy_ignition`: an Ignition config and its Butane source for
//! Flatcar Container Linux and Fedora CoreOS.

use crate::domain::render::ignition::{self, Variant};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::{OneOf, Schema};
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs, UnitsInput};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct IgnitionDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        /// The units.
        pub units: UnitsInput [embed],
        /// The OS variant.
        pub variant: Option<String> [with_default(
            Value::string(Variant::NAMES[0]),
            "`flatcar` (Flatcar Container Linux: the CA at `/etc/ssl/certs/clusterproxy-proxy-ca.pem`, `update-ca-certificates`; Butane variant `flatcar` 1.0.0) or `fcos` (Fedora CoreOS: `/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt`, `update-ca-trust extract`; Butane variant `fcos` 1.4.0). Defaults to `flatcar`.",
        )
        .validator(OneOf(&Variant::NAMES))],
    }
}

crate::model! {
    pub struct State {
        /// The Ignition config.
        pub config: String [computed(
            "The Ignition config (spec 3.3.0, JSON): `storage.files` with, with `trusted_ca`, the CA bundle (mode 0644), then one drop-in per unit at `/etc/systemd/system/<unit>.d/http-proxy.conf` (mode 0600 when the proxy URLs carry credentials, 0644 otherwise; written as files because Ignition's `systemd.units[].dropins` are always 0644), contents as `data:` URLs; with `trusted_ca` also the enabled oneshot unit `clusterproxy-trust-ca.service`, which rebuilds the trust store before the units start. Ignition writes everything before the first boot's services start, so no restart is needed. Merge it with `ignition.config.merge` or your provider's merge. Holds the credentials: Ignition and Butane configs take no Secret reference.",
        )
        .sensitive()],
        /// The config without the password.
        pub config_redacted: String [computed("`config` with the proxy password replaced by `***`, for review.")],
        /// The Butane source.
        pub butane: String [computed("The same config as Butane YAML (variant and version per `variant`, contents inline), for teams that keep Butane sources; Butane translates it to `config`. Holds the credentials: Ignition and Butane configs take no Secret reference.").sensitive()],
        /// The Butane source without the password.
        pub butane_redacted: String [computed("`butane` with the proxy password replaced by `***`, for review.")],
    }
}

impl DataSource for IgnitionDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_ignition"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders the systemd drop-ins with the proxy environment and merged NO_PROXY, and with `trusted_ca` the CA bundle and a unit that makes the OS trust it, as an Ignition 3.3.0 config and as Butane YAML for Flatcar Container Linux and Fedora CoreOS. The config passes `ignition-validate`. systemd's line and environment limits apply as in `clusterproxy_systemd_dropin`. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let (proxy, units) = inputs::read_proxy_and_units(&config.proxy, &config.units, diags)?;
        let renderer = ignition::Ignition {
            units,
            variant: config
                .variant
                .as_deref()
                .and_then(Variant::from_name)
                .unwrap_or(Variant::Flatcar),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        Some(model::computed(State {
            config: secret.config,
            config_redacted: redacted.config,
            butane: secret.butane,
            butane_redacted: redacted.butane,
        }))
    }
}

impl Platform for IgnitionDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "Flatcar, Fedora CoreOS",
            writes: "an Ignition 3.3.0 config and the Butane YAML",
            pitfalls: "Ignition writes its own drop-ins `0644`; ours are files with `0600`; the CA trust unit runs before the runtime starts",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "Ignition spec 3.3.0 (Flatcar, Fedora CoreOS), read by every Ignition release from 2.11 (which made spec 3.3.0 stable) to 2.26 (which reads specs 3.0.0 to 3.6.0); Butane `flatcar` 1.0.0 and `fcos` 1.4.0, both still stable in Butane 0.29",
            differences: "one spec version: the fields written have the same shape in every 3.x spec, and Ignition and Butane-based tools read an older spec by translating it forward",
        }
    }

    fn summary(&self) -> &'static str {
        "Ignition 3.3.0 config and Butane YAML for Flatcar and Fedora CoreOS"
    }
}
