//! `clusterproxy_helm_values`: proxy settings in the Helm values shapes
//! charts commonly read.

use crate::domain::render::{helm, Secrets};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct HelmValues;

/// The shapes: attribute name, description, renderer.
type Render = fn(&crate::domain::render::ProxySettings, &[String], Secrets) -> String;
const SHAPES: [(&str, &str, Render); 5] = [
    ("cert_manager", "cert-manager (jetstack/cert-manager chart, v1.16 values): top-level `http_proxy`, `https_proxy` and `no_proxy`, the merged list plus the `kubernetes` Service ClusterIP (first address of each of `service_cidrs`), which cert-manager needs literally.", |s, services, secrets| helm::cert_manager(s, services, secrets)),
    ("giantswarm_global", "Giant Swarm's `cluster` chart (cluster-aws, cluster-azure, ...): `global.connectivity.proxy` with `enabled: true`, `httpProxy`, `httpsProxy` and `noProxy` (comma-joined).", |s, _, secrets| helm::giantswarm_global(s, secrets)),
    ("giantswarm_cluster", "Giant Swarm's older cluster-values `cluster.proxy` with `http`, `https` and `noProxy`, as chart-operator and the default apps read it.", |s, _, secrets| helm::giantswarm_cluster(s, secrets)),
    ("global_proxy", "New Relic's charts (newrelic/helm-charts common library): `global.proxy`, one proxy URL, the HTTPS proxy (these charts take no NO_PROXY list).", |s, _, secrets| helm::global_proxy(s, secrets)),
    ("extra_env", "An `extraEnv:` list of `name`/`value` objects (the `clusterproxy_pod_env` variables, CA variables included with `trusted_ca`), for charts that take extra container env.", |s, _, secrets| helm::extra_env(s, secrets)),
];

impl DataSource for HelmValues {
    fn type_name(&self) -> &'static str {
        "clusterproxy_helm_values"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        for (name, description, _) in SHAPES {
            attributes.push(
                Attribute::computed(
                    &format!("{name}_yaml"),
                    Type::String,
                    &format!("{description} Holds the credentials."),
                )
                .sensitive(),
            );
            attributes.push(Attribute::computed(
                &format!("{name}_yaml_redacted"),
                Type::String,
                &format!("`{name}_yaml` with the proxy password replaced by `***`."),
            ));
        }
        Schema::new(
            "Renders the proxy settings as Helm values in the common shapes: cert-manager, Giant Swarm's `global.connectivity.proxy` and `cluster.proxy`, New Relic's `global.proxy`, and an `extraEnv` list (`clusterproxy_pod_env` has the `env` list). Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        inputs::validate_proxy(config, diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let services = &proxy.cluster.service_cidrs;
        convert::push_findings(
            &helm::cert_manager_findings(services),
            &AttributePath::root(),
            diags,
        );
        let mut state = config.clone();
        for (name, _, render) in SHAPES {
            state.set_attr(
                &format!("{name}_yaml"),
                Value::string(render(&proxy.settings, services, Secrets::Include)),
            );
            state.set_attr(
                &format!("{name}_yaml_redacted"),
                Value::string(render(&proxy.settings, services, Secrets::Redact)),
            );
        }
        Some(state)
    }
}
