//! `clusterproxy_helm_values`: proxy settings in the Helm values shapes
//! charts commonly read.

use crate::domain::render::helm;
use crate::domain::render::pod_env::PodEnv;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::data_sources::pod_env::{
    CredentialsSecretInput, CredentialsSecretOutput, PodInputs,
};
use crate::provider::inputs::RendererInputs;
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct HelmValuesDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub config_map_name: Maybe<String> [with_default(Value::string("clusterproxy-trusted-ca"), "With `trusted_ca`: the ConfigMap (a DNS-1123 label) that holds the bundle under `ca.crt`; `cert_manager_yaml` mounts it at `/etc/clusterproxy/ca` and sets `SSL_CERT_FILE`, and the `extra_env_yaml` CA variables point there. Setting it without a `trusted_ca` is an error.")],
        pub namespace: Maybe<String> [optional("Namespace written into `ca_config_map_yaml` (a DNS-1123 label), the chart's release namespace; omitted when null. Setting it without a `trusted_ca` is an error.")],
        /// The Secret the proxy URLs are read from.
        pub secret: CredentialsSecretInput [embed],
    }
}

/// What `cert_manager_yaml` holds.
const CERT_MANAGER: &str = "cert-manager (jetstack/cert-manager chart, v1.16 values): top-level `http_proxy`, `https_proxy` and `no_proxy`, the merged list plus the `kubernetes` Service ClusterIP (first address of each of `service_cidrs`), which cert-manager needs literally; with `trusted_ca`, `volumes`, `volumeMounts` and `extraEnv` (`SSL_CERT_FILE`, which replaces Go's system roots: the bundle must hold every CA the controller needs, e.g. the ACME server's behind a TLS-inspecting proxy) for the `ca_config_map_yaml` ConfigMap. Holds the credentials unless `credentials_secret` is set: `http_proxy` and `https_proxy` are then left out and `extraEnv` reads `HTTP_PROXY` and `HTTPS_PROXY` from that Secret (`secretKeyRef`; the chart adds `extraEnv` to the controller's env), so the values hold no credential; the Secret must be in the chart's namespace.";
/// What `giantswarm_global_yaml` holds.
const GIANTSWARM_GLOBAL: &str = "Giant Swarm's `cluster` chart (cluster-aws, cluster-azure, ...): `global.connectivity.proxy` with `enabled: true`, `httpProxy`, `httpsProxy` and `noProxy` (comma-joined). Holds the credentials, even with `credentials_secret`: the chart takes the URLs as plain strings only (no Secret reference); keep them out of the state with the `render` function and an ephemeral password (see the secret-free-state guide).";
/// What `giantswarm_cluster_yaml` holds.
const GIANTSWARM_CLUSTER: &str = "Giant Swarm's older cluster-values `cluster.proxy` with `http`, `https` and `noProxy`, as chart-operator and the default apps read it. Holds the credentials, even with `credentials_secret`: these values take no Secret reference; keep them out of the state with the `render` function and an ephemeral password (see the secret-free-state guide).";
/// What `global_proxy_yaml` holds.
const GLOBAL_PROXY: &str = "New Relic's charts (newrelic/helm-charts common library): `global.proxy`, one proxy URL, the HTTPS proxy (these charts take no NO_PROXY list). Holds the credentials, even with `credentials_secret`: the charts take the URL as a plain string only (no Secret reference); keep them out of the state with the `render` function and an ephemeral password (see the secret-free-state guide).";
/// What `extra_env_yaml` holds.
const EXTRA_ENV: &str = "An `extraEnv:` list of env entries (the `clusterproxy_pod_env` variables, CA variables included with `trusted_ca`), for charts that take extra container env; with `trusted_ca` mount `ca_config_map_yaml` at `/etc/clusterproxy/ca` through the chart's extra volumes, where the CA variables point. Holds the credentials unless `credentials_secret` is set: the proxy variables are then `valueFrom.secretKeyRef` entries of that Secret and the list holds no credential. Those entries suit a chart that copies `extraEnv` entries whole into the container's `env` (as cert-manager's `toYaml` does); a chart that writes out each entry's `name` and `value` drops `valueFrom` and leaves the proxy variables empty.";

impl Config {
    /// The inputs shared with `clusterproxy_pod_env`.
    fn pod(&self) -> PodInputs<'_> {
        PodInputs::new(
            &self.proxy,
            &self.config_map_name,
            &self.namespace,
            &self.secret,
        )
    }
}

crate::model! {
    pub struct State {
        pub ca_config_map_yaml: Option<String> [computed("With `trusted_ca`, the ConfigMap `config_map_name` with the canonical PEM bundle under `ca.crt`, to apply in the chart's namespace; null without it. The Giant Swarm and New Relic shapes carry no CA.")],
        pub cert_manager_yaml: String [computed(CERT_MANAGER).sensitive()],
        pub cert_manager_yaml_redacted: String [computed("`cert_manager_yaml` with the proxy password replaced by `***`.")],
        pub giantswarm_global_yaml: String [computed(GIANTSWARM_GLOBAL).sensitive()],
        pub giantswarm_global_yaml_redacted: String [computed("`giantswarm_global_yaml` with the proxy password replaced by `***`.")],
        pub giantswarm_cluster_yaml: String [computed(GIANTSWARM_CLUSTER).sensitive()],
        pub giantswarm_cluster_yaml_redacted: String [computed("`giantswarm_cluster_yaml` with the proxy password replaced by `***`.")],
        pub global_proxy_yaml: String [computed(GLOBAL_PROXY).sensitive()],
        pub global_proxy_yaml_redacted: String [computed("`global_proxy_yaml` with the proxy password replaced by `***`.")],
        pub extra_env_yaml: String [computed(EXTRA_ENV).sensitive()],
        pub extra_env_yaml_redacted: String [computed("`extra_env_yaml` with the proxy password replaced by `***`.")],
        /// The Secret.
        pub secret: CredentialsSecretOutput [embed],
    }
}

impl DataSource for HelmValuesDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_helm_values"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders the proxy settings as Helm values in the common shapes: cert-manager, Giant Swarm's `global.connectivity.proxy` and `cluster.proxy`, New Relic's `global.proxy`, and an `extraEnv` list (`clusterproxy_pod_env` has the `env` list). Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let Some(config) = Config::get_planned(config, diags) else {
            return;
        };
        config.pod().validate(diags);
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let helm = |pod: PodEnv| helm::Helm {
            config_map_name: pod.config_map_name,
            namespace: pod.namespace,
            credentials_secret: pod.credentials_secret,
        };
        let (secret, redacted) = Config::get(value, diags)?.pod().render_both(helm, diags)?;
        Some(model::computed(State {
            ca_config_map_yaml: secret.ca_config_map,
            cert_manager_yaml: secret.cert_manager,
            cert_manager_yaml_redacted: redacted.cert_manager,
            giantswarm_global_yaml: secret.giantswarm_global,
            giantswarm_global_yaml_redacted: redacted.giantswarm_global,
            giantswarm_cluster_yaml: secret.giantswarm_cluster,
            giantswarm_cluster_yaml_redacted: redacted.giantswarm_cluster,
            global_proxy_yaml: secret.global_proxy,
            global_proxy_yaml_redacted: redacted.global_proxy,
            extra_env_yaml: secret.extra_env,
            extra_env_yaml_redacted: redacted.extra_env,
            secret: CredentialsSecretOutput::new(
                secret.credentials_secret,
                redacted.credentials_secret,
            ),
        }))
    }
}

impl Platform for HelmValuesDataSource {
    fn area(&self) -> Area {
        Area::Pods
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "charts",
            writes: "values for cert-manager, Giant Swarm (`global.connectivity.proxy`, `cluster.proxy`), `global.proxy`, `extraEnv`",
            pitfalls: "cert-manager needs the literal `kubernetes` ClusterIP, always included",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "cert-manager chart values (checked against the `values.schema.json` of v1.16 and v1.21), Giant Swarm `global.connectivity.proxy` (checked against cluster-aws v9.0.0) and `cluster.proxy`, `global.proxy`, `extraEnv`",
            differences: "one format",
        }
    }

    fn summary(&self) -> &'static str {
        "Helm values: cert-manager (with the `kubernetes` ClusterIP), Giant Swarm `global.connectivity.proxy` / `cluster.proxy`, New Relic `global.proxy`, `extraEnv`"
    }
}
