//! `clusterproxy_bottlerocket`: Bottlerocket's `settings.network` proxy
//! settings, as TOML user data and as `apiclient` JSON.

use crate::domain::render::bottlerocket::Bottlerocket;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct BottlerocketDataSource;

crate::model! {
    pub struct State {
        pub user_data: String [computed("TOML user data: `[settings.network]` with `https-proxy` and `no-proxy` (the merged list, as a list) and, with `trusted_ca`, a trusted `[settings.pki.clusterproxy-proxy-ca]` bundle. Append it to the node's user data (an EKS node group's launch template, next to `[settings.kubernetes]`). Bottlerocket writes `HTTPS_PROXY` and `NO_PROXY` (these entries, then `localhost`, `127.0.0.1`, the API server's host and `.` + the cluster domain) for containerd, the kubelet, host containers and its own services. Holds the credentials: Bottlerocket's settings take no Secret reference.").sensitive()],
        pub user_data_redacted: String [computed("`user_data` with the proxy password replaced by `***`, for review.")],
        pub apiclient_json: String [computed("The same settings as JSON for `apiclient set --json` on a running node (`{\"settings\": {\"network\": {...}}}`). Holds the credentials: Bottlerocket's settings take no Secret reference.").sensitive()],
        pub apiclient_json_redacted: String [computed("`apiclient_json` with the proxy password replaced by `***`, for review.")],
        pub apiclient_command: String [computed("`apiclient set --json '<apiclient_json>'`, quoted for a POSIX shell (the admin or control container). Holds the credentials: Bottlerocket's settings take no Secret reference.").sensitive()],
        pub apiclient_command_redacted: String [computed("`apiclient_command` with the proxy password replaced by `***`, for review.")],
    }
}

impl DataSource for BottlerocketDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_bottlerocket"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders Bottlerocket's proxy settings (`settings.network.https-proxy` and `no-proxy`, with the merged NO_PROXY) as TOML user data and as `apiclient set` JSON, and `trusted_ca` as a trusted `settings.pki` bundle. Bottlerocket has one proxy, for HTTPS: an `http_proxy` other than `https_proxy` is an error, and plain-HTTP traffic goes direct. For an EKS node, give `cloud = \"aws\"` (the instance metadata address), `apiserver_host`, `node_cidrs` (the VPC) and the cluster's CIDRs. Bottlerocket's `pluto` sends the proxy user and password to the proxy as they are percent-encoded: keep them to letters, digits and `-._~`. Known at plan time whenever its inputs are.",
            model::attributes::<RendererInputs, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = RendererInputs::get(value, diags)?.resolve(diags)?;
        let (secret, redacted) = inputs::render_both(&Bottlerocket, &proxy, diags)?;
        Some(model::computed(State {
            user_data: secret.user_data,
            user_data_redacted: redacted.user_data,
            apiclient_json: secret.apiclient_json,
            apiclient_json_redacted: redacted.apiclient_json,
            apiclient_command: secret.apiclient_command,
            apiclient_command_redacted: redacted.apiclient_command,
        }))
    }
}

impl Platform for BottlerocketDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "Bottlerocket",
            writes: "`settings.network` `https-proxy` and `no-proxy` (TOML user data, `apiclient set` JSON); the CA as a `settings.pki` bundle",
            pitfalls: "HTTPS proxy only (an `http_proxy` other than `https_proxy` is an error; plain HTTP goes direct); `pluto` sends the credentials percent-encoded",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "Bottlerocket 1.x (the settings model of v1.20.0, the `proxy-env` template of core-kit v3.1.1)",
            differences: "one format",
        }
    }

    fn summary(&self) -> &'static str {
        "Bottlerocket `settings.network` proxy as TOML user data and `apiclient set` JSON"
    }
}
