//! `clusterproxy_eksa_proxy_config`: EKS Anywhere's `proxyConfiguration`.

use crate::domain::render::eksa::{self, Eksa};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct EksaProxyConfigDataSource;

crate::object! {
    /// `proxyConfiguration`.
    pub struct ProxyConfiguration {
        /// `httpProxy`.
        pub http_proxy: Option<String>,
        /// `httpsProxy`.
        pub https_proxy: Option<String>,
        /// `noProxy`.
        pub no_proxy: Vec<String>,
    }
}

crate::model! {
    pub struct State {
        pub proxy_configuration: ProxyConfiguration [computed("`httpProxy`, `httpsProxy` and `noProxy` (the merged list) of the Cluster's `spec.proxyConfiguration`, for a Cluster spec built in HCL. Holds the credentials: EKS Anywhere's `proxyConfiguration` takes no Secret reference.").sensitive()],
        pub proxy_configuration_redacted: ProxyConfiguration [computed("`proxy_configuration` with the proxy password replaced by `***`.")],
        pub cluster_spec_yaml: String [computed("`spec.proxyConfiguration` as a YAML fragment to merge into the cluster config for `eksctl anywhere create cluster -f`. Holds the credentials: EKS Anywhere's `proxyConfiguration` takes no Secret reference.").sensitive()],
        pub cluster_spec_yaml_redacted: String [computed("`cluster_spec_yaml` with the proxy password replaced by `***`.")],
        pub node_no_proxy: Vec<String> [computed("The list EKS Anywhere writes onto the nodes (Bottlerocket, Ubuntu/RHEL drop-ins and etcdadm alike): `pod_cidrs`, `service_cidrs`, `noProxy`, localhost, 127.0.0.1, .svc and the control-plane endpoint host (`control_plane_endpoint`), duplicates kept as EKS Anywhere keeps them.")],
    }
}

impl From<eksa::ProxyConfiguration> for ProxyConfiguration {
    fn from(config: eksa::ProxyConfiguration) -> Self {
        Self {
            http_proxy: config.http_proxy,
            https_proxy: config.https_proxy,
            no_proxy: config.no_proxy,
        }
    }
}

impl DataSource for EksaProxyConfigDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_eksa_proxy_config"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders EKS Anywhere's `proxyConfiguration` for the Cluster spec and enforces its rules (both `httpProxy` and `httpsProxy`, each with a port; no `trusted_ca`, for which proxyConfiguration has no field). EKS Anywhere also resolves a proxy host name on the admin machine when it validates the spec. Known at plan time whenever its inputs are.",
            model::attributes::<RendererInputs, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = RendererInputs::get(value, diags)?.resolve(diags)?;
        let (secret, redacted) = inputs::render_both(&Eksa, &proxy, diags)?;
        Some(model::computed(State {
            proxy_configuration: secret.proxy_configuration.into(),
            proxy_configuration_redacted: redacted.proxy_configuration.into(),
            cluster_spec_yaml: secret.cluster_spec,
            cluster_spec_yaml_redacted: redacted.cluster_spec,
            node_no_proxy: secret.node_no_proxy,
        }))
    }
}

impl Platform for EksaProxyConfigDataSource {
    fn area(&self) -> Area {
        Area::Distributions
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "EKS Anywhere",
            writes: "`spec.proxyConfiguration`",
            pitfalls: "both proxies required; no CA field (a `trusted_ca` is an error); the node list EKS-A writes is the same on every OS",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "EKS Anywhere `anywhere.eks.amazonaws.com/v1alpha1` `Cluster` `proxyConfiguration` (checked against the v0.26.1 CRD)",
            differences: "one format",
        }
    }

    fn summary(&self) -> &'static str {
        "EKS Anywhere's `proxyConfiguration` for the Cluster spec, its rules and the list it writes onto the nodes"
    }
}
