//! The clusterproxy provider: maps the domain core onto the framework. Each
//! resource, data source, ephemeral resource, list resource, action and
//! function lives in its own file.

pub(crate) mod actions;
pub mod attributes;
pub mod compatibility;
pub(crate) mod convert;
pub mod data_sources;
pub mod docs;
pub(crate) mod ephemeral_resources;
pub(crate) mod fleet;
pub(crate) mod functions;
pub mod inputs;
pub(crate) mod list_resources;
pub mod platform;
pub(crate) mod resources;
pub(crate) mod validators;

use std::sync::Arc;

use crate::framework::action::Action;
use crate::framework::data_source::DataSource;
use crate::framework::ephemeral_resource::EphemeralResource;
use crate::framework::function::Function;
use crate::framework::list_resource::ListResource;
use crate::framework::provider::Provider;
use crate::framework::resource::Resource;
use crate::framework::schema::Schema;
use crate::framework::server::ProviderServer;

pub use data_sources::renderers;
pub use platform::NAME;

/// Registry address the provider is published under.
pub const ADDRESS: &str = "registry.terraform.io/clusterproxy/clusterproxy";

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
            Arc::new(data_sources::no_proxy::NoProxyDataSource),
            Arc::new(data_sources::no_proxy_report::NoProxyReportDataSource),
        ];
        all.extend(
            renderers()
                .iter()
                .map(|r| Arc::new(*r) as Arc<dyn DataSource>),
        );
        all.push(Arc::new(
            data_sources::artifact_settings::ArtifactSettingsDataSource,
        ));
        all.push(Arc::new(data_sources::fleet::FleetDataSource));
        all
    }

    fn ephemeral_resources(&self) -> Vec<Arc<dyn EphemeralResource>> {
        vec![Arc::new(ephemeral_resources::proxy_check::ProxyCheck)]
    }

    fn list_resources(&self) -> Vec<Arc<dyn ListResource>> {
        vec![Arc::new(list_resources::profile::ProfileList)]
    }

    fn actions(&self) -> Vec<Arc<dyn Action>> {
        vec![Arc::new(actions::proxy_check::ProxyCheckAction)]
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
}
