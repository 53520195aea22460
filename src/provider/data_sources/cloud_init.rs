//! `clusterproxy_cloud_init`: cloud-init user data that writes the systemd
//! drop-ins and the trusted CA and restarts the units.

use crate::domain::render::cloud_init;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::NodeConfig;
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct CloudInitDataSource;

crate::model! {
    pub struct State {
        /// The user data.
        pub user_data: String [computed(
            "A `#cloud-config` document: `write_files` with, with `trusted_ca`, the CA bundle for `os_family` (`0644`), then one drop-in per unit at `/etc/systemd/system/<unit>.d/http-proxy.conf` (owner `root:root`, `0600` when the proxy URLs carry credentials, `0644` otherwise; the content of `clusterproxy_systemd_dropin`), and `runcmd` with the trust store update of `os_family`, `systemctl daemon-reload` and `systemctl restart -- '<unit>'` per unit. cloud-init writes the files in its init stage and runs `runcmd` in its final stage. Merge it into your user data (cloud-init merges several `#cloud-config` parts of a MIME multipart). Holds the credentials: user data takes no Secret reference.",
        )
        .sensitive()],
        /// The user data without the password.
        pub user_data_redacted: String [computed("`user_data` with the proxy password replaced by `***`, for review.")],
        /// The commands.
        pub runcmd: Vec<String> [computed("The `runcmd` commands alone, in order, for user data you assemble yourself.")],
    }
}

impl DataSource for CloudInitDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_cloud_init"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders cloud-init user data (`write_files` and `runcmd`) that gives systemd units such as containerd and kubelet the proxy environment with the merged NO_PROXY, and with `trusted_ca` makes the node's OS trust the proxy's CA. The document passes `cloud-init schema`. With `cloud = \"aws\"`, user data over EC2's 16 KB limit gets a warning (compress it). systemd's line and environment limits apply as in `clusterproxy_systemd_dropin`. Known at plan time whenever its inputs are.",
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
            .render_both(|units, os| cloud_init::CloudInit { units, os }, diags)?;
        Some(model::computed(State {
            user_data: secret.user_data,
            user_data_redacted: redacted.user_data,
            runcmd: secret.runcmd,
        }))
    }
}

impl Platform for CloudInitDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "cloud-init images",
            writes: "`write_files` (drop-ins, CA) and `runcmd` (trust, reload, restarts)",
            pitfalls: "validated by `cloud-init schema`; EC2's 16 KB user-data limit warns",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "cloud-init `write_files`/`runcmd`; checked with Debian's `cloud-init schema` (22.4) and the cloud-config schema of cloud-init 26.2",
            differences: "one format: both modules have kept their fields and the octal-string `permissions`",
        }
    }

    fn summary(&self) -> &'static str {
        "cloud-init user data: `write_files` (drop-ins, CA) and `runcmd` (trust, reload, restarts)"
    }
}
