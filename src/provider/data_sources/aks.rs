//! `clusterproxy_aks_http_proxy_config`: AKS's `httpProxyConfig`.

use crate::domain::render::aks::{effective, injected, Aks};
use crate::domain::render::Secrets;
use crate::domain::warning::Warning;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct AksHttpProxyConfigDataSource;

crate::object! {
    /// azurerm's `http_proxy_config` block.
    pub struct Block {
        /// HTTP proxy.
        pub http_proxy: Option<String>,
        /// HTTPS proxy.
        pub https_proxy: Option<String>,
        /// NO_PROXY entries.
        pub no_proxy: Vec<String>,
        /// Base64 of the CA bundle.
        pub trusted_ca: Option<String>,
    }
}

crate::model! {
    pub struct State {
        /// The block.
        pub http_proxy_config: Block [computed(
            "The values for azurerm's `http_proxy_config` block: `http_proxy`, `https_proxy`, `no_proxy` and `trusted_ca` (base64 of the canonical PEM bundle, null without `trusted_ca`). `no_proxy` is the merged list followed by every `injected` entry it lacks, so that it equals, as a set, what AKS returns and azurerm stores: the plan after apply is empty (azurerm issue 24188). That holds once `apiserver_host` is the cluster's FQDN; see the AKS with azurerm guide for new clusters.",
        )],
        /// The JSON file.
        pub json: String [computed(
            "The `httpProxyConfig` object as JSON, with the same `noProxy` as `http_proxy_config`: the file `az aks create --http-proxy-config` reads and the ARM property.",
        )],
        /// What AKS adds.
        pub injected: Vec<String> [computed(
            "Entries AKS adds itself, in canonical spelling: `node_cidrs` (the node subnets, or the managed VNet's address space), `pod_cidrs`, `service_cidrs`, 168.63.129.16, 169.254.169.254, `apiserver_host` (the apiserver FQDN), `konnectivity` (its in-cluster tunnel service), localhost, 127.0.0.1.",
        )],
        /// What AKS reports.
        pub effective_no_proxy: Vec<String> [computed(
            "The list AKS reports as `effectiveNoProxy` (a read-only property of the preview API versions only; the stable ones, 2026-01-01 included, do not return it) for this configuration: `http_proxy_config.no_proxy` followed by the injected entries it lacks, which is `http_proxy_config.no_proxy` itself. When the cluster reports more entries, give the cluster inputs that produce them.",
        )],
    }
}

impl DataSource for AksHttpProxyConfigDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_aks_http_proxy_config"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders AKS's `httpProxyConfig` for `azurerm_kubernetes_cluster.http_proxy_config` (no perpetual diff), `az aks` and ARM, and enforces AKS's rules: `http://` httpProxy, no proxy credentials, no `*` or `*.` entries, RFC 1123 host names, at most 20 CA certificates and 35 KB of them, each with a subjectAltName. Known at plan time whenever its inputs are. A full `azurerm_kubernetes_cluster` example, the round-trip model and what to do for clusters created before are in the guide `docs/guides/aks-azurerm.md`.",
            model::attributes::<RendererInputs, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = RendererInputs::get(value, diags)?;
        let proxy = config.resolve(diags)?;
        warn_trailing_slash(&config, diags);
        let cluster = &proxy.cluster;
        let aks = inputs::render(&Aks, &proxy, Secrets::Include, diags)?;
        Some(model::computed(State {
            http_proxy_config: Block {
                http_proxy: aks.http_proxy.clone(),
                https_proxy: aks.https_proxy.clone(),
                no_proxy: aks.no_proxy.clone(),
                trusted_ca: aks.trusted_ca.clone(),
            },
            json: aks.to_json_file(),
            injected: injected(cluster),
            effective_no_proxy: effective(&aks.no_proxy, cluster),
        }))
    }
}

/// AKS stores `httpProxy`/`httpsProxy` as sent and returns them so, and
/// azurerm copies them into state verbatim
/// (`flattenKubernetesClusterHttpProxyConfig` in
/// internal/services/containers/kubernetes_cluster_resource.go): the
/// rendered URL, written without a trailing `/` like every renderer's, makes
/// the second plan empty. A trailing `/` in the input is dropped; the warning
/// says so, because a cluster created with it (as in Microsoft's example
/// configuration) would see azurerm plan an in-place change of the proxy,
/// which AKS applies to every node.
fn warn_trailing_slash(config: &RendererInputs, diags: &mut Diagnostics) {
    let settings = config.profile.known();
    for (name, raw) in [
        (
            "http_proxy",
            settings.map_or(&config.http_proxy, |s| &s.http_proxy),
        ),
        (
            "https_proxy",
            settings.map_or(&config.https_proxy, |s| &s.https_proxy),
        ),
    ] {
        if !raw.as_deref().is_some_and(|u| u.trim().ends_with('/')) {
            continue;
        }
        let path = match settings {
            Some(_) => AttributePath::attribute("profile").attr(name),
            None => AttributePath::attribute(name),
        };
        diags.push(
            Diagnostic::warning(
                "AKS receives the proxy URL without its trailing `/`",
                format!("`http_proxy_config.{name}` is written without the trailing `/`, as every renderer writes it, and AKS returns it as sent, so azurerm's next plan is empty. A cluster created with the `/` (e.g. from Microsoft's example configuration) would see azurerm plan an in-place change of `{name}`, which AKS applies to every node; drop the `/` here to silence this warning."),
            )
            .with_id(Warning::AksTrailingSlash.code())
            .at(path),
        );
    }
}

impl Platform for AksHttpProxyConfigDataSource {
    fn area(&self) -> Area {
        Area::Distributions
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "AKS (az, ARM, azurerm)",
            writes: "`httpProxyConfig` and the value for `azurerm_kubernetes_cluster.http_proxy_config`",
            pitfalls: "AKS takes no proxy credentials; the list includes what AKS injects so azurerm's second plan is empty (see the AKS with azurerm guide)",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "AKS `httpProxyConfig` (ARM `ManagedClusterHTTPProxyConfig`; checked against the stable API versions 2025-10-01 and 2026-01-01) and azurerm `http_proxy_config`",
            differences: "one format across the API versions that have the object; `effectiveNoProxy` is read-only and exists in the preview API versions only",
        }
    }

    fn summary(&self) -> &'static str {
        "AKS `httpProxyConfig` (az JSON, azurerm values that plan empty after AKS and azurerm read them back; guide in `docs/guides/aks-azurerm.md`) and the effective list AKS reports"
    }
}

#[cfg(test)]
mod tests {
    use crate::framework::diagnostics::{Diagnostics, Severity};
    use crate::framework::server::Server;
    use crate::framework::value::Value;

    /// A trailing `/` on an AKS proxy URL is dropped with a warning on the
    /// attribute; without it there is none.
    #[test]
    fn a_trailing_slash_is_dropped_with_a_warning() {
        let name = "clusterproxy_aks_http_proxy_config";
        let server = Server::new(&crate::provider::ClusterProxy);
        let schema = &server.registry().data_sources()[name].schema;
        for (url, warned) in [
            ("http://proxy.corp.example:3128/", true),
            ("http://proxy.corp.example:3128", false),
        ] {
            let mut config = Value::object(
                schema
                    .attributes
                    .iter()
                    .map(|a| (a.name.clone(), Value::null())),
            );
            config.set_attr("http_proxy", Value::string(url));
            let mut diags = Diagnostics::default();
            let state = server.read_data_source(name, config, &mut diags).unwrap();
            let warnings: Vec<String> = diags
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .map(|d| d.path.as_ref().map(ToString::to_string).unwrap_or_default())
                .collect();
            assert_eq!(warnings.len(), usize::from(warned), "{url}: {diags:?}");
            assert!(
                warnings.iter().all(|p| p.starts_with("http_proxy")),
                "{warnings:?}"
            );
            let block = state.get_attr("http_proxy_config").unwrap();
            assert_eq!(
                block.get_attr("http_proxy"),
                Some(&Value::string("http://proxy.corp.example:3128"))
            );
        }
    }
}
