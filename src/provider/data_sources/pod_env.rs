//! `clusterproxy_pod_env`: the proxy environment of a pod's containers.

use crate::domain::render::{pod_env, ProxySettings, Secrets};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct PodEnv;

fn env(settings: &ProxySettings, secrets: Secrets) -> Value {
    convert::objects(
        pod_env::env(settings, secrets)
            .into_iter()
            .map(|(name, value)| {
                vec![
                    ("name", Value::string(name)),
                    ("value", Value::string(value)),
                ]
            }),
    )
}

impl DataSource for PodEnv {
    fn type_name(&self) -> &'static str {
        "clusterproxy_pod_env"
    }

    fn schema(&self) -> Schema {
        let env_type = Type::list(convert::string_object_type(&["name", "value"]));
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::computed(
                "env",
                env_type.clone(),
                "`HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` as `name`/`value` objects, in that order: assignable to a container's `env` (kubernetes provider) or to Helm `env` values. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("env_redacted", env_type, "`env` with the proxy password replaced by `***`, for review."),
            Attribute::computed("env_yaml", Type::String, "`env` as a YAML document with an `env:` key, for Helm values files. Holds the credentials.").sensitive(),
        ]);
        Schema::new(
            "Renders the proxy environment variables for Kubernetes pod specs and Helm values, with the merged NO_PROXY. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let settings = &proxy.settings;
        let mut state = config.clone();
        state.set_attr("env", env(settings, Secrets::Include));
        state.set_attr("env_redacted", env(settings, Secrets::Redact));
        state.set_attr(
            "env_yaml",
            Value::string(pod_env::env_yaml(settings, Secrets::Include)),
        );
        Some(state)
    }
}
