//! `clusterproxy_eksa_proxy_config`: EKS Anywhere's `proxyConfiguration`.

use crate::domain::render::eksa::Eksa;
use crate::domain::render::Secrets;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct EksaProxyConfig;

impl DataSource for EksaProxyConfig {
    fn type_name(&self) -> &'static str {
        "clusterproxy_eksa_proxy_config"
    }

    fn schema(&self) -> Schema {
        let proxy_type = Type::object([
            ("http_proxy", Type::String),
            ("https_proxy", Type::String),
            ("no_proxy", Type::list(Type::String)),
        ]);
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::computed("proxy_configuration", proxy_type.clone(), "`httpProxy`, `httpsProxy` and `noProxy` (the merged list) of the Cluster's `spec.proxyConfiguration`, for a Cluster spec built in HCL. Holds the credentials.").sensitive(),
            Attribute::computed("proxy_configuration_redacted", proxy_type, "`proxy_configuration` with the proxy password replaced by `***`."),
            Attribute::computed("cluster_spec_yaml", Type::String, "`spec.proxyConfiguration` as a YAML fragment to merge into the cluster config for `eksctl anywhere create cluster -f`. Holds the credentials.").sensitive(),
            Attribute::computed("cluster_spec_yaml_redacted", Type::String, "`cluster_spec_yaml` with the proxy password replaced by `***`."),
            Attribute::computed("node_no_proxy", Type::list(Type::String), "The list EKS Anywhere writes onto the nodes (Bottlerocket, Ubuntu/RHEL drop-ins and etcdadm alike): `pod_cidrs`, `service_cidrs`, `noProxy`, localhost, 127.0.0.1, .svc and the control-plane endpoint host (`control_plane_endpoint`), duplicates kept as EKS Anywhere keeps them."),
        ]);
        Schema::new(
            "Renders EKS Anywhere's `proxyConfiguration` for the Cluster spec and enforces its rules (both `httpProxy` and `httpsProxy`, each with a port; no `trusted_ca`, for which proxyConfiguration has no field). EKS Anywhere also resolves a proxy host name on the admin machine when it validates the spec. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let (secret, redacted) = inputs::render_both(&Eksa, &proxy, diags)?;
        let settings = &proxy.settings;
        let object = |secrets: Secrets| {
            let url = |u: &Option<crate::domain::proxy_url::ProxyUrl>| {
                Value::opt_string(
                    u.as_ref()
                        .map(|u| crate::domain::render::ProxySettings::url(u, secrets)),
                )
            };
            Value::object([
                ("http_proxy".to_owned(), url(&settings.http_proxy)),
                ("https_proxy".to_owned(), url(&settings.https_proxy)),
                (
                    "no_proxy".to_owned(),
                    convert::string_list(&settings.no_proxy),
                ),
            ])
        };
        let mut state = config.clone();
        state.set_attr("proxy_configuration", object(Secrets::Include));
        state.set_attr("proxy_configuration_redacted", object(Secrets::Redact));
        state.set_attr("cluster_spec_yaml", Value::string(secret.cluster_spec));
        state.set_attr(
            "cluster_spec_yaml_redacted",
            Value::string(redacted.cluster_spec),
        );
        state.set_attr("node_no_proxy", convert::string_list(&secret.node_no_proxy));
        Some(state)
    }
}
