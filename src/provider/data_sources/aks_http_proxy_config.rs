//! `clusterproxy_aks_http_proxy_config`: AKS's `httpProxyConfig`.

use crate::domain::render::aks::{effective, injected, Aks};
use crate::domain::render::Secrets;
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
                "The values for azurerm's `http_proxy_config` block: `http_proxy`, `https_proxy`, `no_proxy` and `trusted_ca` (base64 of the canonical PEM bundle, null without `trusted_ca`). `no_proxy` is the merged list followed by every `injected` entry it lacks, so that it equals, as a set, what AKS returns and azurerm stores: the plan after apply is empty (azurerm issue 24188). That holds once `apiserver_host` is the cluster's FQDN; see the AKS with azurerm guide for new clusters.",
            ),
            Attribute::computed(
                "json",
                Type::String,
                "The `httpProxyConfig` object as JSON, with the same `noProxy` as `http_proxy_config`: the file `az aks create --http-proxy-config` reads and the ARM property.",
            ),
            Attribute::computed(
                "injected",
                Type::list(Type::String),
                "Entries AKS adds itself, in canonical spelling: `node_cidrs` (the node subnets, or the managed VNet's address space), `pod_cidrs`, `service_cidrs`, 168.63.129.16, 169.254.169.254, `apiserver_host` (the apiserver FQDN), `konnectivity` (its in-cluster tunnel service), localhost, 127.0.0.1.",
            ),
            Attribute::computed(
                "effective_no_proxy",
                Type::list(Type::String),
                "The list AKS reports as `effectiveNoProxy` (`az aks show --query httpProxyConfig.effectiveNoProxy`) for this configuration: `http_proxy_config.no_proxy` followed by the injected entries it lacks, which is `http_proxy_config.no_proxy` itself. When the cluster reports more entries, give the cluster inputs that produce them.",
            ),
        ]);
        Schema::new(
            "Renders AKS's `httpProxyConfig` for `azurerm_kubernetes_cluster.http_proxy_config` (no perpetual diff), `az aks` and ARM, and enforces AKS's rules: `http://` httpProxy, no proxy credentials, no `*` or `*.` entries, RFC 1123 host names, at most 20 CA certificates and 35 KB of them, each with a subjectAltName. Known at plan time whenever its inputs are. A full `azurerm_kubernetes_cluster` example, the round-trip model and what to do for clusters created before are in the guide `docs/guides/aks-azurerm.md`.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let cluster = &proxy.cluster;
        let aks = inputs::render(&Aks, &proxy, Secrets::Include, diags)?;
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
        state.set_attr("injected", convert::string_list(&injected(cluster)));
        state.set_attr(
            "effective_no_proxy",
            convert::string_list(&effective(&aks.no_proxy, cluster)),
        );
        Some(state)
    }
}
