//! `clusterproxy_pod_env`: the proxy environment of a pod's containers.

use crate::domain::render::pod_env;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs;
use crate::provider::inputs::RendererInputs;

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct PodEnv;

crate::model! {
    /// The inputs.
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        /// `config_map_name`.
        pub config_map_name: Maybe<String> [with_default(Value::string("clusterproxy-trusted-ca"), "Name of the ConfigMap that carries the `trusted_ca` bundle (a DNS-1123 label); setting it without a `trusted_ca` is an error.")],
        /// `namespace`.
        pub namespace: Maybe<String> [optional("Namespace written into the ConfigMap manifest (a DNS-1123 label); omitted when null; setting it without a `trusted_ca` is an error. The ConfigMap must live in the namespace of the pods that mount it.")],
    }
}

crate::object! {
    /// One environment variable.
    pub struct EnvVar {
        /// Variable name.
        pub name: String,
        /// Variable value.
        pub value: String,
    }
}

crate::model! {
    /// The computed attributes.
    pub struct State {
        /// `env`.
        pub env: Vec<EnvVar> [computed("`HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` as `name`/`value` objects, in that order, then with `trusted_ca` `SSL_CERT_FILE` (OpenSSL-based clients, Go), `REQUESTS_CA_BUNDLE` (requests) and `NODE_EXTRA_CA_CERTS` (Node), all `/etc/clusterproxy/ca/ca.crt`, where `volume_mounts_yaml` mounts the bundle. `SSL_CERT_FILE` and `REQUESTS_CA_BUNDLE` replace the default trust store, so `trusted_ca` must hold every CA those clients need (behind a TLS-inspecting proxy, the proxy's CA and any internal CAs). Assignable to a container's `env` (kubernetes provider) or to Helm `env` values. Holds the credentials.").sensitive()],
        /// `env_redacted`.
        pub env_redacted: Vec<EnvVar> [computed("`env` with the proxy password replaced by `***`, for review.")],
        /// `env_yaml`.
        pub env_yaml: String [computed("`env` as a YAML document with an `env:` key, for Helm values files. Holds the credentials.").sensitive()],
        /// `ca_config_map_yaml`.
        pub ca_config_map_yaml: Option<String> [computed("With `trusted_ca`, the ConfigMap manifest `config_map_name` with the canonical PEM bundle under key `ca.crt`; null without it.")],
        /// `volumes_yaml`.
        pub volumes_yaml: Option<String> [computed("With `trusted_ca`, the pod `volumes:` entry that mounts the ConfigMap (volume `clusterproxy-trusted-ca`); null without it.")],
        /// `volume_mounts_yaml`.
        pub volume_mounts_yaml: Option<String> [computed("With `trusted_ca`, the container `volumeMounts:` entry: the volume read-only at `/etc/clusterproxy/ca`; null without it.")],
    }
}

fn env(entries: Vec<(String, String)>) -> Vec<EnvVar> {
    entries
        .into_iter()
        .map(|(name, value)| EnvVar { name, value })
        .collect()
}

impl DataSource for PodEnv {
    fn type_name(&self) -> &'static str {
        "clusterproxy_pod_env"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders the proxy environment variables for Kubernetes pod specs and Helm values, with the merged NO_PROXY, and with `trusted_ca` the ConfigMap, volume, mount and variables that make Go, Python and Node clients trust the proxy's CA. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let config = Config::read(config);
        config.proxy.check_ca_names(
            &[
                (Config::config_map_name, &config.config_map_name),
                (Config::namespace, &config.namespace),
            ],
            diags,
        );
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::read(value);
        let proxy = config.proxy.resolve(diags)?;
        let renderer = pod_env::PodEnv {
            config_map_name: config.config_map_name.known().cloned().unwrap_or_default(),
            namespace: config.namespace.known().cloned(),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let (volumes, mounts) = secret.ca_volumes.unzip();
        Some(model::computed(State {
            env: env(secret.env),
            env_redacted: env(redacted.env),
            env_yaml: secret.env_yaml,
            ca_config_map_yaml: secret.ca_config_map,
            volumes_yaml: volumes,
            volume_mounts_yaml: mounts,
        }))
    }
}
