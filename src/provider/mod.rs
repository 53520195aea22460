//! The clusterproxy provider: maps the domain core onto the framework. Each
//! resource, data source, ephemeral resource and function lives in its own
//! file.

pub mod attributes;
pub(crate) mod convert;
pub mod data_sources;
pub(crate) mod ephemeral_resources;
pub(crate) mod functions;
pub(crate) mod inputs;
pub(crate) mod list_resources;
pub mod platform;
pub(crate) mod resources;
pub(crate) mod validators;

use std::sync::Arc;

use crate::framework::data_source::DataSource;
use crate::framework::ephemeral_resource::EphemeralResource;
use crate::framework::function::Function;
use crate::framework::list_resource::ListResource;
use crate::framework::provider::Provider;
use crate::framework::resource::Resource;
use crate::framework::schema::Schema;
use crate::framework::server::ProviderServer;
use platform::Platform;

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
        all.extend(renderers().into_iter().map(|r| r as Arc<dyn DataSource>));
        all.push(Arc::new(data_sources::artifact_settings::ArtifactSettings));
        all
    }

    fn ephemeral_resources(&self) -> Vec<Arc<dyn EphemeralResource>> {
        vec![Arc::new(ephemeral_resources::proxy_check::ProxyCheck)]
    }

    fn list_resources(&self) -> Vec<Arc<dyn ListResource>> {
        vec![Arc::new(list_resources::profile::ProfileList)]
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
/// `RENDERER_MODULES` in the same order. Each implements [`Platform`], from
/// which the docs test writes the README's and the platform guide's tables.
macro_rules! renderers {
    ($($module:ident::$source:ident),* $(,)?) => {
        /// The renderer data sources: each takes a profile's `settings` as
        /// `profile` and is also a platform of the `render` function.
        pub fn renderers() -> Vec<Arc<dyn Platform>> {
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

/// The README's table of the resources, data sources, ephemeral resources
/// and functions: each renderer's row from its [`Platform::summary`], in
/// registry order between `clusterproxy_no_proxy_report` and
/// `clusterproxy_artifact_settings`.
pub fn readme_table() -> String {
    use crate::framework::data_source::DataSource as _;
    use crate::framework::ephemeral_resource::EphemeralResource as _;
    use crate::framework::resource::Resource as _;
    let row = |kind: &str, name: &str, text: &str| format!("| {kind} | `{name}` | {text} |\n");
    let mut table = String::from("| kind | name | what it does |\n|---|---|---|\n");
    table += &row(
        "resource",
        resources::profile::ProfileResource.type_name(),
        "proxy URLs, credentials, installation-wide NO_PROXY, trusted CA; plan-time normalised values, fingerprint, `revision` for `replace_triggered_by`; importable from AKS, TKG, CAPI (and EKS Anywhere), systemd, Giant Swarm, OpenShift and RKE2/k3s artifacts, by ID or by identity (Terraform >= 1.12)",
    );
    table += &row(
        "list resource",
        resources::profile::ProfileResource.type_name(),
        "every cluster's profile in a directory of artifacts (a GitOps repository), for `terraform query -generate-config-out`: adopts a fleet in one command (Terraform >= 1.14; `docs/guides/fleet-adoption.md`)",
    );
    table += &row(
        "data source",
        data_sources::no_proxy::NoProxy.type_name(),
        "the merged NO_PROXY of a cluster, per-client renderings, a coverage check that fails the plan on a gap (`fail_on_gap`)",
    );
    table += &row(
        "data source",
        data_sources::no_proxy_report::NoProxyReport.type_name(),
        "the detail behind that list, for review: the gaps per client (`gaps_by_client`), every destination checked, entries left out as covered, what each client cannot express",
    );
    for platform in renderers() {
        table += &row("data source", platform.type_name(), platform.summary());
    }
    table += &row(
        "data source",
        data_sources::artifact_settings::ArtifactSettings.type_name(),
        "the settings an artifact holds, for drift reports against a profile",
    );
    table += &row(
        "ephemeral resource",
        ephemeral_resources::proxy_check::ProxyCheck.type_name(),
        "sends one request through the proxy with the given credentials from the machine that runs Terraform; fails the plan on a refused password, an unreachable proxy or a TLS failure: the gate before a password rotation (Terraform >= 1.10)",
    );
    let functions: Vec<&str> = ClusterProxy.functions().iter().map(|f| f.name()).collect();
    table += &row(
        "function",
        &functions.join("`, `"),
        "merge lists; would a client bypass the proxy for a URL; any renderer at plan time (Terraform >= 1.8); its redacted outputs without the password, for review",
    );
    table
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
