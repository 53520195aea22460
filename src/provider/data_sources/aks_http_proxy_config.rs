//! `clusterproxy_aks_http_proxy_config`: AKS's `httpProxyConfig`.

use crate::domain::render::aks::{effective, injected, AksCluster, HttpProxyConfig};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct AksHttpProxyConfig;

impl DataSource for AksHttpProxyConfig {
    fn type_name(&self) -> &'static str {
        "clusterproxy_aks_http_proxy_config"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::computed(
                "http_proxy_config",
                Type::object([
                    ("http_proxy", Type::String),
                    ("https_proxy", Type::String),
                    ("no_proxy", Type::list(Type::String)),
                    ("trusted_ca", Type::String),
                ]),
                "The values for azurerm's `http_proxy_config` block: `http_proxy`, `https_proxy`, `no_proxy` (the merged list) and `trusted_ca` (base64 of the canonical PEM bundle, null without `trusted_ca`).",
            ),
            Attribute::computed(
                "json",
                Type::String,
                "The `httpProxyConfig` object as JSON: the file `az aks create --http-proxy-config` reads and the ARM property.",
            ),
            Attribute::computed(
                "injected",
                Type::list(Type::String),
                "Entries AKS adds itself: `node_cidrs`, `pod_cidrs`, `service_cidrs`, 168.63.129.16, 169.254.169.254, `apiserver_host` (the apiserver FQDN), `konnectivity` (its in-cluster tunnel service), localhost, 127.0.0.1.",
            ),
            Attribute::computed(
                "effective_no_proxy",
                Type::list(Type::String),
                "The list AKS reports as `effectiveNoProxy`: `http_proxy_config.no_proxy` followed by the injected entries it lacks. Compare with it (or ignore changes to `no_proxy`) to avoid azurerm's perpetual `no_proxy` diff.",
            ),
        ]);
        Schema::new(
            "Renders AKS's `httpProxyConfig` and enforces AKS's rules: `http://` httpProxy, no proxy credentials, no `*` or `*.` entries, RFC 1123 host names, at most 20 CA certificates and 35 KB of them, each with a subjectAltName. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let aks = HttpProxyConfig::new(&proxy.settings)
            .map_err(|findings| inputs::push_render_findings(&findings, &proxy, diags))
            .ok()?;
        let cluster = AksCluster {
            node_cidrs: proxy.cluster.node_cidrs.clone(),
            pod_cidrs: proxy.cluster.pod_cidrs.clone(),
            service_cidrs: proxy.cluster.service_cidrs.clone(),
            apiserver_fqdn: proxy.cluster.apiserver_host.clone(),
        };
        let mut state = config.clone();
        state.set_attr(
            "http_proxy_config",
            Value::object([
                (
                    "http_proxy".to_owned(),
                    Value::opt_string(aks.http_proxy.clone()),
                ),
                (
                    "https_proxy".to_owned(),
                    Value::opt_string(aks.https_proxy.clone()),
                ),
                ("no_proxy".to_owned(), convert::string_list(&aks.no_proxy)),
                (
                    "trusted_ca".to_owned(),
                    Value::opt_string(aks.trusted_ca.clone()),
                ),
            ]),
        );
        state.set_attr("json", Value::string(aks.to_json_file()));
        state.set_attr("injected", convert::string_list(&injected(&cluster)));
        state.set_attr(
            "effective_no_proxy",
            convert::string_list(&effective(&aks, &cluster)),
        );
        Some(state)
    }
}
