//! `clusterproxy_pod_env`: the proxy environment of a pod's containers.

use crate::domain::render::{k8s, pod_env};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct PodEnv;

fn env(entries: Vec<(String, String)>) -> Value {
    convert::objects(entries.into_iter().map(|(name, value)| {
        vec![
            ("name", Value::string(name)),
            ("value", Value::string(value)),
        ]
    }))
}

impl DataSource for PodEnv {
    fn type_name(&self) -> &'static str {
        "clusterproxy_pod_env"
    }

    fn schema(&self) -> Schema {
        let env_type = Type::list(convert::string_object_type(&["name", "value"]));
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::with_default("config_map_name", Type::String, Value::string("clusterproxy-trusted-ca"), "Name of the ConfigMap that carries the `trusted_ca` bundle (a DNS-1123 label); setting it without a `trusted_ca` is an error."),
            Attribute::optional("namespace", Type::String, "Namespace written into the ConfigMap manifest (a DNS-1123 label); omitted when null; setting it without a `trusted_ca` is an error. The ConfigMap must live in the namespace of the pods that mount it."),
            Attribute::computed(
                "env",
                env_type.clone(),
                "`HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` as `name`/`value` objects, in that order, then with `trusted_ca` `SSL_CERT_FILE` (OpenSSL-based clients, Go), `REQUESTS_CA_BUNDLE` (requests) and `NODE_EXTRA_CA_CERTS` (Node), all `/etc/clusterproxy/ca/ca.crt`, where `volume_mounts_yaml` mounts the bundle. `SSL_CERT_FILE` and `REQUESTS_CA_BUNDLE` replace the default trust store, so `trusted_ca` must hold every CA those clients need (behind a TLS-inspecting proxy, the proxy's CA and any internal CAs). Assignable to a container's `env` (kubernetes provider) or to Helm `env` values. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("env_redacted", env_type, "`env` with the proxy password replaced by `***`, for review."),
            Attribute::computed("env_yaml", Type::String, "`env` as a YAML document with an `env:` key, for Helm values files. Holds the credentials.").sensitive(),
            Attribute::computed("ca_config_map_yaml", Type::String, "With `trusted_ca`, the ConfigMap manifest `config_map_name` with the canonical PEM bundle under key `ca.crt`; null without it."),
            Attribute::computed("volumes_yaml", Type::String, "With `trusted_ca`, the pod `volumes:` entry that mounts the ConfigMap (volume `clusterproxy-trusted-ca`); null without it."),
            Attribute::computed("volume_mounts_yaml", Type::String, "With `trusted_ca`, the container `volumeMounts:` entry: the volume read-only at `/etc/clusterproxy/ca`; null without it."),
        ]);
        Schema::new(
            "Renders the proxy environment variables for Kubernetes pod specs and Helm values, with the merged NO_PROXY, and with `trusted_ca` the ConfigMap, volume, mount and variables that make Go, Python and Node clients trust the proxy's CA. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        inputs::validate_ca_only_inputs(config, &["config_map_name", "namespace"], diags);
        let findings: Vec<_> = ["config_map_name", "namespace"]
            .iter()
            .filter_map(|field| {
                let value = convert::string(config, field)?;
                k8s::dns1123_label(field, &value, 63).err()
            })
            .collect();
        convert::push_findings(&findings, &AttributePath::root(), diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let renderer = pod_env::PodEnv {
            config_map_name: convert::string(config, "config_map_name").unwrap_or_default(),
            namespace: convert::string(config, "namespace"),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr("env", env(secret.env));
        state.set_attr("env_redacted", env(redacted.env));
        state.set_attr("env_yaml", Value::string(secret.env_yaml));
        state.set_attr(
            "ca_config_map_yaml",
            Value::opt_string(secret.ca_config_map),
        );
        let (volumes, mounts) = secret.ca_volumes.unzip();
        state.set_attr("volumes_yaml", Value::opt_string(volumes));
        state.set_attr("volume_mounts_yaml", Value::opt_string(mounts));
        Some(state)
    }
}
