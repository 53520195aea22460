//! `clusterproxy_tkg_config`: TKG's proxy variables.

use std::collections::BTreeMap;

use crate::domain::render::tkg::Tkg;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct TkgConfigDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub vsphere_server: Option<String> [optional("VSPHERE_SERVER: TKG requires it to bypass the proxy; the plan fails when the merged list does not cover it.")],
        pub system_wide: bool [with_default(Value::bool(false), "TKG_NODE_SYSTEM_WIDE_PROXY: also set the proxy for every process on the nodes (a vSphere variable). In `cluster_class_variable` it becomes `systemWide: true`, which only the vSphere ClusterClass of TKG 2.1.1 and later takes.")],
    }
}

crate::model! {
    pub struct State {
        pub variables: BTreeMap<String, String> [computed("TKG_HTTP_PROXY_ENABLED, TKG_HTTP_PROXY, TKG_HTTPS_PROXY, TKG_NO_PROXY, TKG_PROXY_CA_CERT (base64 PEM, when `trusted_ca` is set), TKG_NODE_SYSTEM_WIDE_PROXY, and SERVICE_CIDR and CLUSTER_CIDR (comma-joined `service_cidrs` and `pod_cidrs`, when set: TKG appends them to TKG_NO_PROXY itself, so they are left out of it). Holds the credentials: TKG's variables take no Secret reference.").sensitive()],
        pub variables_redacted: BTreeMap<String, String> [computed("`variables` with the proxy password replaced by `***`, for review.")],
        pub yaml: String [computed("The variables as a cluster configuration file fragment (keys sorted). Holds the credentials: TKG's variables take no Secret reference.").sensitive()],
        pub yaml_redacted: String [computed("`yaml` with the proxy password replaced by `***`, for review.")],
        pub cluster_class_variable: String [computed("The ClusterClass `proxy` variable value as JSON: `httpProxy`, `httpsProxy`, `noProxy` (the whole merged list: the class template only de-duplicates and sorts it, so nothing is left to TKG) and, when `system_wide` is true, `systemWide` (only vSphere classes have the field, from TKG 2.1.1; its default is false, so it is left out otherwise and the value fits every class). Holds the credentials: TKG's variables take no Secret reference.").sensitive()],
        pub cluster_class_variable_redacted: String [computed("`cluster_class_variable` with the proxy password replaced by `***`, for review.")],
        pub cluster_class_trust_variable: Option<String> [computed("With `trusted_ca`, the ClusterClass `trust` variable value as JSON: `{\"additionalTrustedCAs\": [{\"name\": \"proxy\", \"data\": <base64 PEM>}]}`, the shape TKG's CLI gives TKG_PROXY_CA_CERT (tanzu-framework `providers/yttcc/lib/config_variable_association.star`); null without it.")],
        pub no_proxy: String [computed("TKG_NO_PROXY: the merged list without the entries TKG appends itself.")],
        pub appended_by_tkg: Vec<String> [computed("Entries of the merged list left out of TKG_NO_PROXY because TKG appends them itself: the service and pod CIDRs (emitted as SERVICE_CIDR and CLUSTER_CIDR), `localhost`, `127.0.0.1`, `.svc` and `.svc.cluster.local`. Entries TKG appends only from variables not rendered here (VPC/VNet CIDRs, `::1`, cloud ranges) stay in TKG_NO_PROXY.")],
    }
}

impl DataSource for TkgConfigDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_tkg_config"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders TKG's proxy variables and enforces TKG's rules: both proxies set, no `*` in TKG_NO_PROXY, the vSphere server bypassing the proxy. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let proxy = config.proxy.resolve(diags)?;
        let tkg = Tkg {
            vsphere_server: config.vsphere_server,
            system_wide: config.system_wide,
        };
        let (secret, redacted) = inputs::render_both(&tkg, &proxy, diags)?;
        Some(model::computed(State {
            variables: secret.string_variables().into_iter().collect(),
            variables_redacted: redacted.string_variables().into_iter().collect(),
            yaml: secret.to_yaml(),
            yaml_redacted: redacted.to_yaml(),
            cluster_class_variable: secret.cluster_class_variable().to_string(),
            cluster_class_variable_redacted: redacted.cluster_class_variable().to_string(),
            cluster_class_trust_variable: secret.trust_variable().map(|v| v.to_string()),
            no_proxy: secret.no_proxy.join(","),
            appended_by_tkg: secret.appended.clone(),
        }))
    }
}

impl Platform for TkgConfigDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "TKG",
            writes: "cluster-config variables, the ClusterClass `proxy` and `trust` variables",
            pitfalls: "TKG appends `SERVICE_CIDR`/`CLUSTER_CIDR`, so they are emitted with the proxy variables; nothing else is left to TKG unless it always appends it; vCenter must bypass the proxy",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "TKG 2.x cluster-config variables (checked against TKG 2.2's `config_default.yaml` and its CLI's variable names; `TKG_NODE_SYSTEM_WIDE_PROXY` exists from TKG 2.1.1) and the `proxy`/`trust` variables of the `tkg-<infra>-default-v1.0.0` ClusterClasses; checked against the vSphere class of TKG 2.1.0 and the vSphere, AWS and Azure classes of TKG 2.2 (tanzu-framework v0.28.0 and v0.29.0, the last public ones)",
            differences: "one format: `systemWide` is in the vSphere class only, from TKG 2.1.1, so it is written only when `system_wide` is true (false is the class default)",
        }
    }

    fn summary(&self) -> &'static str {
        "TKG cluster-config variables and the ClusterClass `proxy` variable"
    }
}
