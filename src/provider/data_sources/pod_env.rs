//! `clusterproxy_pod_env`: the proxy environment of a pod's containers;
//! also the home of the Secret reference that the pod env, Kyverno and Helm
//! data sources share (`credentials_secret`).

use std::collections::BTreeMap;

use crate::domain::render::pod_env::{self, CredentialsSecret, EnvValue, SecretOutput};
use crate::domain::render::{k8s, Renderer};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::inputs::{self, Needed, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct PodEnvDataSource;

/// What `credentials_secret` does, for every data source that takes it.
const CREDENTIALS_SECRET: &str = "Name of a Secret (a DNS-1123 subdomain) that holds the proxy URLs with the credentials, under the keys `HTTP_PROXY` and `HTTPS_PROXY` (one per configured proxy). When set, the credential-bearing variables (`HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`) are rendered as `valueFrom.secretKeyRef` entries of that Secret, so the rendered pod specs, policies and values hold no credential; `NO_PROXY` and the CA variables stay plain values. The Secret is rendered separately (`credentials_secret_yaml`, `credentials_secret_data` for `kubernetes_secret_v1.data_wo`). A pod reads a Secret from its own namespace only: the Secret must exist in each namespace whose pods use it.";

crate::model! {
    /// The Secret the proxy URLs are read from.
    pub struct CredentialsSecretInput {
        pub credentials_secret: Maybe<String> [optional(CREDENTIALS_SECRET)],
        pub credentials_secret_namespace: Maybe<String> [optional("Namespace of `credentials_secret` (a DNS-1123 label), written into `credentials_secret_yaml`; omitted when null. For `clusterproxy_kyverno_policy`, the namespace the policy clones the Secret from into every namespace it does not exclude. Setting it without `credentials_secret` is an error.")],
    }
}

crate::model! {
    /// The Secret, rendered.
    pub struct CredentialsSecretOutput {
        pub credentials_secret_yaml: Option<String> [computed("With `credentials_secret`, the Secret manifest (`v1`, `Opaque`, in `credentials_secret_namespace` when set) with the proxy URLs under `HTTP_PROXY` and `HTTPS_PROXY` (base64 `data`); null without it. Holds the credentials: prefer `credentials_secret_data` with `kubernetes_secret_v1.data_wo`, fed from the `render` function with an ephemeral password, which keeps them out of the state (see the secret-free-state guide).").sensitive()],
        pub credentials_secret_yaml_redacted: Option<String> [computed("`credentials_secret_yaml` with the proxy password replaced by `***` (inside the base64 values).")],
        pub credentials_secret_data: Option<BTreeMap<String, String>> [computed("With `credentials_secret`, the Secret's content as key to plain value (`HTTP_PROXY`, `HTTPS_PROXY`), what `kubernetes_secret_v1.data` and the write-only `data_wo` take; null without it. Holds the credentials: this is the Secret itself, which the Secret reference points to (see the secret-free-state guide for keeping it out of the state).").sensitive()],
        pub credentials_secret_data_redacted: Option<BTreeMap<String, String>> [computed("`credentials_secret_data` with the proxy password replaced by `***`.")],
    }
}

impl CredentialsSecretInput {
    /// Plan-time checks: the name is a DNS-1123 subdomain, the namespace a
    /// label and only set with a name.
    pub fn validate(&self, diags: &mut Diagnostics) {
        if let Some(Err(finding)) = self
            .credentials_secret
            .known()
            .map(|name| k8s::dns1123_subdomain(name))
        {
            let path = AttributePath::attribute(Self::credentials_secret);
            convert::push_findings(&[finding], &path, SettingsAt::Renderer, diags);
        }
        inputs::check_names(
            &[(
                Self::credentials_secret_namespace,
                &self.credentials_secret_namespace,
            )],
            diags,
        );
        let needed = Needed {
            name: Self::credentials_secret,
            absent: self.credentials_secret.is_null(),
            remedy: "name the Secret in `credentials_secret`",
        };
        inputs::reject_without(
            &needed,
            &[(
                Self::credentials_secret_namespace,
                self.credentials_secret_namespace.known().is_some(),
            )],
            diags,
        );
    }

    /// The Secret reference, when set.
    pub fn reference(&self) -> Option<CredentialsSecret> {
        Some(CredentialsSecret {
            name: self.credentials_secret.known()?.clone(),
            namespace: self.credentials_secret_namespace.known().cloned(),
        })
    }
}

/// The inputs `clusterproxy_pod_env` and `clusterproxy_helm_values` share:
/// the proxy settings, the CA ConfigMap's name and namespace, and the
/// Secret the proxy URLs are read from.
pub(crate) struct PodInputs<'a> {
    proxy: &'a RendererInputs,
    config_map_name: &'a Maybe<String>,
    namespace: &'a Maybe<String>,
    secret: &'a CredentialsSecretInput,
}

impl<'a> PodInputs<'a> {
    /// The inputs, from their attributes.
    pub fn new(
        proxy: &'a RendererInputs,
        config_map_name: &'a Maybe<String>,
        namespace: &'a Maybe<String>,
        secret: &'a CredentialsSecretInput,
    ) -> Self {
        Self {
            proxy,
            config_map_name,
            namespace,
            secret,
        }
    }

    /// Plan-time checks: the names are DNS-1123 labels set only with a
    /// `trusted_ca`, and the Secret reference is valid.
    pub fn validate(&self, diags: &mut Diagnostics) {
        self.proxy.check_ca_names(
            &[
                (Config::config_map_name, self.config_map_name),
                (Config::namespace, self.namespace),
            ],
            diags,
        );
        self.secret.validate(diags);
    }

    /// Renders the renderer `make` builds from the pod options, with the
    /// credentials and redacted (see [`inputs::render_both`]).
    pub fn render_both<R: Renderer>(
        &self,
        make: impl FnOnce(pod_env::PodEnv) -> R,
        diags: &mut Diagnostics,
    ) -> Option<(R::Output, R::Output)> {
        let proxy = self.proxy.resolve(diags)?;
        let options = pod_env::PodEnv {
            config_map_name: self.config_map_name.known().cloned().unwrap_or_default(),
            namespace: self.namespace.known().cloned(),
            credentials_secret: self.secret.reference(),
        };
        inputs::render_both(&make(options), &proxy, diags)
    }
}

impl CredentialsSecretOutput {
    /// The outputs from the Secret rendered with and without the credentials.
    pub fn new(secret: Option<SecretOutput>, redacted: Option<SecretOutput>) -> Self {
        let (yaml, data) = secret.map(|s| (s.manifest, s.data)).unzip();
        let (yaml_redacted, data_redacted) = redacted.map(|s| (s.manifest, s.data)).unzip();
        Self {
            credentials_secret_yaml: yaml,
            credentials_secret_yaml_redacted: yaml_redacted,
            credentials_secret_data: data,
            credentials_secret_data_redacted: data_redacted,
        }
    }
}

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub config_map_name: Maybe<String> [with_default(Value::string("clusterproxy-trusted-ca"), "Name of the ConfigMap that carries the `trusted_ca` bundle (a DNS-1123 label); setting it without a `trusted_ca` is an error.")],
        pub namespace: Maybe<String> [optional("Namespace written into the ConfigMap manifest (a DNS-1123 label); omitted when null; setting it without a `trusted_ca` is an error. The ConfigMap must live in the namespace of the pods that mount it.")],
        /// The Secret the proxy URLs are read from.
        pub secret: CredentialsSecretInput [embed],
    }
}

impl Config {
    /// The inputs shared with `clusterproxy_helm_values`.
    fn pod(&self) -> PodInputs<'_> {
        PodInputs::new(
            &self.proxy,
            &self.config_map_name,
            &self.namespace,
            &self.secret,
        )
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

crate::object! {
    /// One environment variable read from a Secret.
    pub struct EnvSecretRef {
        /// Variable name.
        pub name: String,
        /// Secret name.
        pub secret_name: String,
        /// Key in the Secret.
        pub key: String,
    }
}

crate::model! {
    pub struct State {
        pub env: Vec<EnvVar> [computed("`HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` as `name`/`value` objects, in that order, then with `trusted_ca` `SSL_CERT_FILE` (OpenSSL-based clients, Go), `REQUESTS_CA_BUNDLE` (requests) and `NODE_EXTRA_CA_CERTS` (Node), all `/etc/clusterproxy/ca/ca.crt`, where `volume_mounts_yaml` mounts the bundle. `SSL_CERT_FILE` and `REQUESTS_CA_BUNDLE` replace the default trust store, so `trusted_ca` must hold every CA those clients need (behind a TLS-inspecting proxy, the proxy's CA and any internal CAs). Assignable to a container's `env` (kubernetes provider) or to Helm `env` values. Holds the credentials unless `credentials_secret` is set: the proxy variables are then Secret references in `env_secret_refs`, and `env` holds the others only.").sensitive()],
        pub env_redacted: Vec<EnvVar> [computed("`env` with the proxy password replaced by `***`, for review.")],
        pub env_secret_refs: Vec<EnvSecretRef> [computed("With `credentials_secret`, the proxy variables (`HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`) as `name`, `secret_name`, `key` objects, for a container's `env` `value_from.secret_key_ref` (kubernetes provider); empty without it. Holds no credential.")],
        pub env_yaml: String [computed("The whole env list (`env` and `env_secret_refs` in variable order, the latter as `valueFrom.secretKeyRef` entries) as a YAML document with an `env:` key, for Helm values files and manifests. Holds the credentials unless `credentials_secret` is set: the proxy variables then read that Secret and it holds none.").sensitive()],
        pub env_yaml_redacted: String [computed("`env_yaml` with the proxy password replaced by `***`, for review.")],
        pub ca_config_map_yaml: Option<String> [computed("With `trusted_ca`, the ConfigMap manifest `config_map_name` with the canonical PEM bundle under key `ca.crt`; null without it.")],
        pub volumes_yaml: Option<String> [computed("With `trusted_ca`, the pod `volumes:` entry that mounts the ConfigMap (volume `clusterproxy-trusted-ca`); null without it.")],
        pub volume_mounts_yaml: Option<String> [computed("With `trusted_ca`, the container `volumeMounts:` entry: the volume read-only at `/etc/clusterproxy/ca`; null without it.")],
        /// The Secret.
        pub secret: CredentialsSecretOutput [embed],
    }
}

/// The plain entries of `entries`.
fn env(entries: &[(String, EnvValue)]) -> Vec<EnvVar> {
    entries
        .iter()
        .filter_map(|(name, value)| match value {
            EnvValue::Value(value) => Some(EnvVar {
                name: name.clone(),
                value: value.clone(),
            }),
            EnvValue::SecretKey { .. } => None,
        })
        .collect()
}

/// The Secret references of `entries`.
fn env_secret_refs(entries: &[(String, EnvValue)]) -> Vec<EnvSecretRef> {
    entries
        .iter()
        .filter_map(|(name, value)| match value {
            EnvValue::SecretKey { secret, key } => Some(EnvSecretRef {
                name: name.clone(),
                secret_name: secret.clone(),
                key: (*key).to_owned(),
            }),
            EnvValue::Value(_) => None,
        })
        .collect()
}

impl DataSource for PodEnvDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_pod_env"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders the proxy environment variables for Kubernetes pod specs and Helm values, with the merged NO_PROXY, and with `trusted_ca` the ConfigMap, volume, mount and variables that make Go, Python and Node clients trust the proxy's CA. With `credentials_secret`, the proxy URLs are read from a Secret and the env holds no credential. Known at plan time whenever its inputs are.",
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
        let (secret, redacted) = Config::get(value, diags)?
            .pod()
            .render_both(|pod| pod, diags)?;
        let (volumes, mounts) = secret.ca_volumes.unzip();
        Some(model::computed(State {
            env: env(&secret.env),
            env_redacted: env(&redacted.env),
            env_secret_refs: env_secret_refs(&secret.env),
            env_yaml: secret.env_yaml,
            env_yaml_redacted: redacted.env_yaml,
            ca_config_map_yaml: secret.ca_config_map,
            volumes_yaml: volumes,
            volume_mounts_yaml: mounts,
            secret: CredentialsSecretOutput::new(
                secret.credentials_secret,
                redacted.credentials_secret,
            ),
        }))
    }
}

impl Platform for PodEnvDataSource {
    fn area(&self) -> Area {
        Area::Pods
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "pod specs, Helm `env`",
            writes: "the env list (both cases), with a CA a ConfigMap, volume and mount, `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`",
            pitfalls: "`SSL_CERT_FILE` and `REQUESTS_CA_BUNDLE` replace the default trust store: the bundle must hold every CA the pod needs",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "Kubernetes core/v1 container `env`, ConfigMap, volumes (checked against the 1.36 definitions)",
            differences: "one format",
        }
    }

    fn summary(&self) -> &'static str {
        "the proxy env of pods and Helm values"
    }
}
