//! The clusterproxy provider: maps the domain core onto the framework. Each
//! resource, data source, ephemeral resource and function lives in its own
//! file.

pub mod attributes;
pub(crate) mod convert;
pub mod data_sources;
pub(crate) mod ephemeral_resources;
pub(crate) mod functions;
pub(crate) mod inputs;
pub(crate) mod resources;
pub(crate) mod validators;

use std::sync::Arc;

use crate::framework::data_source::DataSource;
use crate::framework::ephemeral_resource::EphemeralResource;
use crate::framework::function::Function;
use crate::framework::provider::Provider;
use crate::framework::resource::Resource;
use crate::framework::schema::Schema;
use crate::framework::server::ProviderServer;

/// Registry address the provider is published under.
pub const ADDRESS: &str = "registry.terraform.io/clusterproxy/clusterproxy";

/// Local name and type-name prefix.
pub const NAME: &str = "clusterproxy";

/// The provider.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClusterProxy;

impl Provider for ClusterProxy {
    fn schema(&self) -> Schema {
        Schema::new(
            "The clusterproxy provider needs no configuration: every computation is local and deterministic.",
            Vec::new(),
        )
    }

    fn resources(&self) -> Vec<Arc<dyn Resource>> {
        vec![Arc::new(resources::profile::ProfileResource)]
    }

    fn data_sources(&self) -> Vec<Arc<dyn DataSource>> {
        let mut all: Vec<Arc<dyn DataSource>> = vec![
            Arc::new(data_sources::no_proxy::NoProxy),
            Arc::new(data_sources::no_proxy_report::NoProxyReport),
        ];
        all.extend(renderers());
        all.push(Arc::new(data_sources::artifact_settings::ArtifactSettings));
        all
    }

    fn ephemeral_resources(&self) -> Vec<Arc<dyn EphemeralResource>> {
        vec![Arc::new(ephemeral_resources::proxy_check::ProxyCheck)]
    }

    fn functions(&self) -> Vec<Arc<dyn Function>> {
        vec![
            Arc::new(functions::merge_no_proxy::MergeNoProxy),
            Arc::new(functions::no_proxy_bypasses::NoProxyBypasses),
            Arc::new(functions::render::Render),
            Arc::new(functions::render_redacted::RenderRedacted),
        ]
    }
}

/// Declares the renderer data sources once, by module: `renderers()` and
/// `RENDERER_MODULES` in the same order.
macro_rules! renderers {
    ($($module:ident::$source:ident),* $(,)?) => {
        /// The renderer data sources: each takes a profile's `settings` as
        /// `profile` and is also a platform of the `render` function.
        pub fn renderers() -> Vec<Arc<dyn DataSource>> {
            vec![$(Arc::new(data_sources::$module::$source)),*]
        }

        /// The module of each of `renderers()`, in its order: the name of
        /// its file under `src/provider/data_sources/` and of its domain
        /// renderer's under `crates/domain/src/render/`.
        pub const RENDERER_MODULES: &[&str] = &[$(stringify!($module)),*];
    };
}

renderers! {
    systemd_dropin::SystemdDropin,
    capi::CapiKubeadm,
    tkg::TkgConfigSource,
    aks::AksHttpProxyConfig,
    pod_env::PodEnv,
    openshift::OpenShiftProxySource,
    eksa::EksaProxyConfig,
    kyverno::KyvernoPolicy,
    helm::HelmValues,
    cloud_init::CloudInit,
    ignition::Ignition,
    rke2::Rke2,
    talos::Talos,
    kubespray::Kubespray,
}

/// The gRPC routes that serve this provider.
pub fn routes() -> tonic::service::Routes {
    tonic::service::Routes::new(ProviderServer::new(&ClusterProxy).into_service())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attribute names are unique in every schema (an input and an output of
    /// the same name would make Terraform reject every plan).
    #[test]
    fn attribute_names_are_unique() {
        let provider = ClusterProxy;
        let schemas = provider
            .data_sources()
            .iter()
            .map(|d| (d.type_name(), d.schema()))
            .chain(
                provider
                    .resources()
                    .iter()
                    .map(|r| (r.type_name(), r.schema())),
            )
            .collect::<Vec<_>>();
        for (name, schema) in schemas {
            let mut names: Vec<&str> = schema.attributes.iter().map(|a| a.name.as_str()).collect();
            let total = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), total, "{name} has duplicate attribute names");
        }
    }

    /// Every renderer takes a profile and leaves the name `warnings` to the
    /// `render` function's result.
    #[test]
    fn renderers_take_a_profile() {
        for renderer in renderers() {
            let schema = renderer.schema();
            assert!(
                schema.attribute(inputs::RendererInputs::profile).is_some(),
                "{}",
                renderer.type_name()
            );
            assert!(
                schema.attribute(functions::render::WARNINGS).is_none(),
                "{}",
                renderer.type_name()
            );
        }
    }

    /// The source of `module`'s domain renderer, or of its data source.
    fn source(dir: &str, module: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(dir)
            .join(format!("{module}.rs"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Each renderer data source has the file name of its domain renderer.
    #[test]
    fn renderer_files_match_their_domain_files() {
        for module in RENDERER_MODULES {
            source("src/provider/data_sources", module);
            source("crates/domain/src/render", module);
        }
        assert_eq!(RENDERER_MODULES.len(), renderers().len());
    }
}
