//! `clusterproxy_systemd_dropin`: systemd drop-ins that give services the proxy environment.

use crate::domain::render::{systemd, systemd_dropin};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{CaFile, NodeConfig};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct SystemdDropinDataSource;

crate::object! {
    /// One drop-in file.
    pub(crate) struct Dropin {
        /// Unit name.
        pub unit: String,
        /// File path.
        pub path: String,
        /// File owner.
        pub owner: String,
        /// File mode.
        pub permissions: String,
        /// File content.
        pub content: String,
    }
}

crate::model! {
    pub(crate) struct State {
        /// Drop-ins with credentials.
        pub dropins: Vec<Dropin> [computed(
            "One drop-in per unit: `unit`, `path` (`/etc/systemd/system/<unit>.d/http-proxy.conf`), `owner` (`root:root`), `permissions` (`0600` when the proxy URLs carry credentials, `0644` otherwise) and `content`: a `[Service]` section with `HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY` and `no_proxy` as `Environment=` assignments (`\\` and `\"` escaped, `%` doubled). Holds the credentials: systemd takes no Secret reference (on Cluster API, `clusterproxy_capi_kubeadm` with `cluster_name` keeps them in a Secret).",
        )
        .sensitive()],
        /// Drop-ins without the password.
        pub dropins_redacted: Vec<Dropin> [computed("`dropins` with the proxy password replaced by `***`, for review.")],
        /// `[Manager]` drop-in.
        pub default_environment: String [computed(
            "The same variables as a `[Manager] DefaultEnvironment=` drop-in for `/etc/systemd/system.conf.d/http-proxy.conf`, which gives them to every service. `%` is doubled, which needs systemd 249 or later (older versions take `DefaultEnvironment=` verbatim; use `dropins` there when a value contains `%`). Holds the credentials: systemd takes no Secret reference (on Cluster API, `clusterproxy_capi_kubeadm` with `cluster_name` keeps them in a Secret).",
        )
        .sensitive()],
        /// `[Manager]` drop-in without the password.
        pub default_environment_redacted: String [computed("`default_environment` with the proxy password replaced by `***`, for review.")],
        /// The CA bundle file.
        pub ca_files: Vec<CaFile> [computed(
            "With `trusted_ca`, the bundle file to write for `os_family` (`path`, `owner` `root:root`, `permissions` `0644`, `content`: the canonical PEM); empty without it. Write it before running `commands`.",
        )],
        /// Commands to run.
        pub commands: Vec<String> [computed(
            "Commands that apply the files, in order: with `trusted_ca` the trust store update of `os_family` (e.g. `update-ca-certificates`), `systemctl daemon-reload`, then `systemctl restart -- '<unit>'` for each unit (`--` and single quotes, so that no name is read as an option and escapes reach systemctl intact through `sh`).",
        )],
    }
}

fn files(dropins: Vec<systemd::Dropin>) -> Vec<Dropin> {
    dropins
        .into_iter()
        .map(|d| Dropin {
            unit: d.unit,
            path: d.path,
            owner: d.owner.to_owned(),
            permissions: d.permissions.to_owned(),
            content: d.content,
        })
        .collect()
}

impl DataSource for SystemdDropinDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_systemd_dropin"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders systemd drop-ins that set the proxy environment (upper- and lowercase variables, the merged NO_PROXY) for containerd, kubelet or any other unit, and with `trusted_ca` the CA bundle file and the command that makes the node's OS trust it. A drop-in line of 1 MiB or more (systemd's `LONG_LINE_MAX`) or a variable of 128 KiB or more (Linux's `MAX_ARG_STRLEN`) is an error, a line over 64 KiB a warning. Known at plan time whenever its inputs are.",
            model::attributes::<NodeConfig, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if let Some(config) = NodeConfig::get_planned(config, diags) {
            config.validate(diags)
        }
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let (secret, redacted) = NodeConfig::get(value, diags)?
            .render_both(|units, os| systemd_dropin::Systemd { units, os }, diags)?;
        Some(model::computed(State {
            dropins: files(secret.dropins),
            dropins_redacted: files(redacted.dropins),
            default_environment: secret.default_environment,
            default_environment_redacted: redacted.default_environment,
            ca_files: secret.ca_files.into_iter().map(CaFile::from).collect(),
            commands: secret.commands,
        }))
    }
}

impl Platform for SystemdDropinDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "any systemd host",
            writes: "a drop-in per unit (`0600`), the CA file and trust command per `os_family`, `systemctl restart -- '<unit>'`",
            pitfalls: "unit names checked against systemd's grammar (a leading `-` is refused, `kublet` warns); `%`, `\"`, `\\` and `$` escaped as systemd reads them; lines over systemd's 1 MiB limit refused",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "systemd of the supported distributions",
            differences: "one format: `Environment=` quoting and `%` escaping have not changed",
        }
    }

    fn summary(&self) -> &'static str {
        "drop-ins for containerd, kubelet or any unit, and a `DefaultEnvironment=` variant"
    }
}
