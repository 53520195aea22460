//! `clusterproxy_tkg_config`: TKG's proxy variables.

use crate::domain::render::tkg::Tkg;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct TkgConfigSource;

impl DataSource for TkgConfigSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_tkg_config"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::optional("vsphere_server", Type::String, "VSPHERE_SERVER: TKG requires it to bypass the proxy; the plan fails when the merged list does not cover it."),
            Attribute::with_default("system_wide", Type::Bool, Value::bool(false), "TKG_NODE_SYSTEM_WIDE_PROXY: also set the proxy for every process on the nodes."),
            Attribute::computed(
                "variables",
                Type::map(Type::String),
                "TKG_HTTP_PROXY_ENABLED, TKG_HTTP_PROXY, TKG_HTTPS_PROXY, TKG_NO_PROXY, TKG_PROXY_CA_CERT (base64 PEM, when `trusted_ca` is set), TKG_NODE_SYSTEM_WIDE_PROXY, and SERVICE_CIDR and CLUSTER_CIDR (comma-joined `service_cidrs` and `pod_cidrs`, when set: TKG appends them to TKG_NO_PROXY itself, so they are left out of it). Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("yaml", Type::String, "The variables as a cluster configuration file fragment (keys sorted). Holds the credentials.").sensitive(),
            Attribute::computed("yaml_redacted", Type::String, "`yaml` with the proxy password replaced by `***`, for review."),
            Attribute::computed(
                "cluster_class_variable",
                Type::String,
                "The ClusterClass `proxy` variable value as JSON: `httpProxy`, `httpsProxy`, `noProxy` (the whole merged list: the class template only de-duplicates and sorts it, so nothing is left to TKG) and `systemWide`. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed(
                "cluster_class_trust_variable",
                Type::String,
                "With `trusted_ca`, the ClusterClass `trust` variable value as JSON: `{\"additionalTrustedCAs\": [{\"name\": \"proxy\", \"data\": <base64 PEM>}]}`, the shape TKG's CLI gives TKG_PROXY_CA_CERT (tanzu-framework `providers/yttcc/lib/config_variable_association.star`); null without it.",
            ),
            Attribute::computed("no_proxy", Type::String, "TKG_NO_PROXY: the merged list without the entries TKG appends itself."),
            Attribute::computed(
                "appended_by_tkg",
                Type::list(Type::String),
                "Entries of the merged list left out of TKG_NO_PROXY because TKG appends them itself: the service and pod CIDRs (emitted as SERVICE_CIDR and CLUSTER_CIDR), `localhost`, `127.0.0.1`, `.svc` and `.svc.cluster.local`. Entries TKG appends only from variables not rendered here (VPC/VNet CIDRs, `::1`, cloud ranges) stay in TKG_NO_PROXY.",
            ),
        ]);
        Schema::new(
            "Renders TKG's proxy variables and enforces TKG's rules: both proxies set, no `*` in TKG_NO_PROXY, the vSphere server bypassing the proxy. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let tkg = Tkg {
            vsphere_server: convert::string(config, "vsphere_server"),
            system_wide: convert::boolean(config, "system_wide"),
        };
        let (secret, redacted) = inputs::render_both(&tkg, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr(
            "variables",
            Value::map(
                secret
                    .string_variables()
                    .into_iter()
                    .map(|(k, v)| (k, Value::string(v))),
            ),
        );
        state.set_attr("yaml", Value::string(secret.to_yaml()));
        state.set_attr("yaml_redacted", Value::string(redacted.to_yaml()));
        state.set_attr(
            "cluster_class_variable",
            Value::string(secret.cluster_class_variable().to_string()),
        );
        state.set_attr(
            "cluster_class_trust_variable",
            Value::opt_string(secret.trust_variable().map(|v| v.to_string())),
        );
        state.set_attr("no_proxy", Value::string(secret.no_proxy.join(",")));
        state.set_attr("appended_by_tkg", convert::string_list(&secret.appended));
        Some(state)
    }
}
