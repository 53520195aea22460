//! `clusterproxy_helm_values`: proxy settings in the Helm values shapes
//! charts commonly read.

use crate::domain::render::{helm, k8s};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct HelmValues;

/// The shapes: attribute name, description, renderer.
type Render = fn(&helm::HelmValues) -> &str;
const SHAPES: [(&str, &str, Render); 5] = [
    ("cert_manager", "cert-manager (jetstack/cert-manager chart, v1.16 values): top-level `http_proxy`, `https_proxy` and `no_proxy`, the merged list plus the `kubernetes` Service ClusterIP (first address of each of `service_cidrs`), which cert-manager needs literally; with `trusted_ca`, `volumes`, `volumeMounts` and `extraEnv` (`SSL_CERT_FILE`, which replaces Go's system roots: the bundle must hold every CA the controller needs, e.g. the ACME server's behind a TLS-inspecting proxy) for the `ca_config_map_yaml` ConfigMap.", |v| &v.cert_manager),
    ("giantswarm_global", "Giant Swarm's `cluster` chart (cluster-aws, cluster-azure, ...): `global.connectivity.proxy` with `enabled: true`, `httpProxy`, `httpsProxy` and `noProxy` (comma-joined).", |v| &v.giantswarm_global),
    ("giantswarm_cluster", "Giant Swarm's older cluster-values `cluster.proxy` with `http`, `https` and `noProxy`, as chart-operator and the default apps read it.", |v| &v.giantswarm_cluster),
    ("global_proxy", "New Relic's charts (newrelic/helm-charts common library): `global.proxy`, one proxy URL, the HTTPS proxy (these charts take no NO_PROXY list).", |v| &v.global_proxy),
    ("extra_env", "An `extraEnv:` list of `name`/`value` objects (the `clusterproxy_pod_env` variables, CA variables included with `trusted_ca`), for charts that take extra container env; with `trusted_ca` mount `ca_config_map_yaml` at `/etc/clusterproxy/ca` through the chart's extra volumes, where the CA variables point.", |v| &v.extra_env),
];

impl DataSource for HelmValues {
    fn type_name(&self) -> &'static str {
        "clusterproxy_helm_values"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::with_default("config_map_name", Type::String, Value::string("clusterproxy-trusted-ca"), "With `trusted_ca`: the ConfigMap (a DNS-1123 label) that holds the bundle under `ca.crt`; `cert_manager_yaml` mounts it at `/etc/clusterproxy/ca` and sets `SSL_CERT_FILE`, and the `extra_env_yaml` CA variables point there."),
            Attribute::optional("namespace", Type::String, "Namespace written into `ca_config_map_yaml` (a DNS-1123 label), the chart's release namespace; omitted when null."),
            Attribute::computed("ca_config_map_yaml", Type::String, "With `trusted_ca`, the ConfigMap `config_map_name` with the canonical PEM bundle under `ca.crt`, to apply in the chart's namespace; null without it. The Giant Swarm and New Relic shapes carry no CA."),
        ]);
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
        let findings: Vec<_> = ["config_map_name", "namespace"]
            .iter()
            .filter_map(|field| {
                k8s::dns1123_label(field, &convert::string(config, field)?, 63).err()
            })
            .collect();
        convert::push_findings(&findings, &AttributePath::root(), diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let renderer = helm::Helm {
            config_map_name: convert::string(config, "config_map_name").unwrap_or_default(),
            namespace: convert::string(config, "namespace"),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let mut state = config.clone();
        for (name, _, render) in SHAPES {
            state.set_attr(&format!("{name}_yaml"), Value::string(render(&secret)));
            state.set_attr(
                &format!("{name}_yaml_redacted"),
                Value::string(render(&redacted)),
            );
        }
        state.set_attr(
            "ca_config_map_yaml",
            Value::opt_string(secret.ca_config_map),
        );
        Some(state)
    }
}
